import { createHash } from 'node:crypto';
import { describeValue, TollgateError } from '../errors.js';

/** What a rule set needs to know about a request: framework-neutral, filled in by an adapter. */
export interface RuleRequest {
  method: string;
  /** The URL path; a query string is ignored. */
  path: string;
  /** The client address as the framework trusts it (after its trust-proxy handling). */
  ip: string | undefined;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The authenticated user's id, for rules keyed by `user`. */
  user?: string | undefined;
}

/** Where a rule takes the identity from: `ip`, `user`, `apiKey` (the `x-api-key` header) or `{ header: name }`. */
export type KeySelector = 'ip' | 'user' | 'apiKey' | { header: string };

export type SelectorReader = (request: RuleRequest) => string | undefined;

/** What a rule's key selector read from a request. */
export interface SelectedKey {
  /** The selector that read it (a `{ header }` one with the name in lower case). */
  selector: KeySelector;
  /** What it read: the address, the user id, the header's value; for `apiKey`, a digest of the key. */
  value: string;
  /** The identity to limit: the value tagged with the selector's kind, so values read by different selectors never collide. */
  key: string;
}

export type KeyReader = (request: RuleRequest) => SelectedKey | undefined;

export interface CompiledSelector {
  /** The value itself, for tier conditions (`in: [...]`). */
  raw: SelectorReader;
  /** The identity to limit, and what it was read from; API keys as a digest. */
  identity: KeyReader;
}

export function compileSelector(selector: unknown, field: string): CompiledSelector {
  const raw = rawReader(selector, field);
  const known = selector as KeySelector;
  if (known === 'apiKey') {
    return {
      raw,
      identity: (request) => {
        const apiKey = raw(request);
        if (apiKey === undefined) return undefined;
        const value = createHash('sha256').update(apiKey).digest('base64url').slice(0, 22);
        return { selector: known, value, key: `apiKey:${value}` };
      },
    };
  }
  const header = typeof known === 'string' ? undefined : known.header.toLowerCase();
  const kind = header === undefined ? known : `header:${header}`;
  const read: KeySelector = header === undefined ? known : { header };
  return {
    raw,
    identity: (request) => {
      const value = raw(request);
      return value === undefined ? undefined : { selector: read, value, key: `${kind}:${value}` };
    },
  };
}

function rawReader(selector: unknown, field: string): SelectorReader {
  if (selector === 'ip') return (request) => nonEmpty(request.ip);
  if (selector === 'user') return (request) => nonEmpty(request.user);
  if (selector === 'apiKey') return (request) => headerValue(request, 'x-api-key');
  if (typeof selector === 'object' && selector !== null && Object.keys(selector).length === 1) {
    const name = (selector as { header?: unknown }).header;
    if (typeof name === 'string' && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      const lower = name.toLowerCase();
      return (request) => headerValue(request, lower);
    }
  }
  throw new TollgateError(
    'ERR_TOLLGATE_INVALID_RULES',
    `${field} must be ip, user, apiKey or { header: <name> } (got ${describeValue(selector)})`,
    field,
  );
}

function headerValue(request: RuleRequest, name: string): string | undefined {
  const value = request.headers[name];
  return nonEmpty(Array.isArray(value) ? value[0] : value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
