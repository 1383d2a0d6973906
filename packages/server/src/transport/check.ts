import type { IncomingHttpHeaders } from 'node:http';
import { invalidOption, ipIdentity, normaliseIp, refuseUnknownFields } from '@tollgate/core';
import type { RateLimitEntry, RateLimitRequest } from '../service/messages.js';

/**
 * Where a descriptor entry's value comes from: the client `address`, the original request's
 * `path` (no query string), `method` or `host` (each from the header the proxy puts it in), any
 * `{ header }`, or a fixed `{ value }`.
 */
export type CheckSource = 'address' | 'path' | 'method' | 'host' | { header: string } | { value: string };

export interface CheckEntry {
  key: string;
  from: CheckSource;
}

/** The header each part of the original request arrives in. */
export interface CheckHeaders {
  /** Default `x-forwarded-for`, of which the last address counts: the one the proxy in front of the check saw. */
  address?: string;
  /** Default `x-forwarded-uri` (Traefik sends it; nginx and HAProxy are told to). */
  path?: string;
  /** Default `x-forwarded-method`. */
  method?: string;
  /** Default `x-forwarded-host`. */
  host?: string;
}

/** The HTTP check: how a proxy's subrequest becomes a `ShouldRateLimit` request. */
export interface CheckOptions {
  /** Where the check answers. Default `/check`. */
  path?: string;
  /** The domain of the descriptors. */
  domain: string;
  /**
   * The descriptors of every checked request, each a list of entries. A descriptor one of whose
   * entries finds no value (an absent header) is left out, as Envoy leaves out a descriptor an action cannot fill.
   */
  descriptors: CheckEntry[][];
  /** Status of a request over the limit. Default 429; nginx's `auth_request` only passes 401 and 403 on. */
  deniedStatus?: number;
  headers?: CheckHeaders;
  /** Prefix length IPv6 client addresses are grouped by (default 64); false = whole address. */
  ipv6Subnet?: number | false;
}

export const CHECK_FIELDS = {
  path: true,
  domain: true,
  descriptors: true,
  deniedStatus: true,
  headers: true,
  ipv6Subnet: true,
} as const satisfies Record<keyof CheckOptions, true>;
const HEADER_FIELDS = { address: true, path: true, method: true, host: true } as const satisfies Record<keyof CheckHeaders, true>;
const ENTRY_FIELDS = { key: true, from: true } as const satisfies Record<keyof CheckEntry, true>;

/** The check as it runs. */
export interface CompiledCheck {
  readonly path: string;
  readonly deniedStatus: number;
  /** The request for the service; undefined when no descriptor could be filled (nothing to check). */
  request(headers: IncomingHttpHeaders): RateLimitRequest | undefined;
}

type Reader = (headers: IncomingHttpHeaders) => string | undefined;

export function compileCheck(options: CheckOptions, at = 'check'): CompiledCheck {
  if (typeof options !== 'object' || options === null) throw invalidOption(at, 'must be an object', options);
  refuseUnknownFields(options, CHECK_FIELDS, `${at}.`);
  const { domain, descriptors, path = '/check', deniedStatus = 429, ipv6Subnet = 64 } = options;
  if (typeof domain !== 'string' || domain === '') throw invalidOption(`${at}.domain`, 'must be a non-empty string', domain);
  if (typeof path !== 'string' || !path.startsWith('/')) throw invalidOption(`${at}.path`, 'must be a path starting with /', path);
  if (!Number.isInteger(deniedStatus) || deniedStatus < 400 || deniedStatus > 599) {
    throw invalidOption(`${at}.deniedStatus`, 'must be a whole number from 400 to 599', deniedStatus);
  }
  if (!Array.isArray(descriptors) || descriptors.length === 0)
    throw invalidOption(`${at}.descriptors`, 'must be a non-empty list', descriptors);
  const names = headerNames(options.headers, `${at}.headers`);
  const readers = descriptors.map((descriptor, i) => descriptorReader(descriptor, `${at}.descriptors[${i}]`, names, ipv6Subnet));
  return {
    path,
    deniedStatus,
    request(headers) {
      const filled = readers.map((read) => read(headers)).filter((entries) => entries !== undefined);
      return filled.length === 0 ? undefined : { domain, descriptors: filled.map((entries) => ({ entries })) };
    },
  };
}

function headerNames(headers: CheckHeaders | undefined, at: string): Required<CheckHeaders> {
  const given = headers ?? {};
  refuseUnknownFields(given, HEADER_FIELDS, `${at}.`);
  const names = { address: 'x-forwarded-for', path: 'x-forwarded-uri', method: 'x-forwarded-method', host: 'x-forwarded-host', ...given };
  for (const [field, name] of Object.entries(names)) {
    if (typeof name !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name))
      throw invalidOption(`${at}.${field}`, 'must be a header name', name);
  }
  return Object.fromEntries(Object.entries(names).map(([field, name]) => [field, name.toLowerCase()])) as Required<CheckHeaders>;
}

function descriptorReader(descriptor: unknown, at: string, names: Required<CheckHeaders>, subnet: number | false) {
  if (!Array.isArray(descriptor) || descriptor.length === 0)
    throw invalidOption(at, 'must be a non-empty list of { key, from }', descriptor);
  const entries = descriptor.map((entry: unknown, i) => {
    const where = `${at}[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw invalidOption(where, 'must be { key, from }', entry);
    refuseUnknownFields(entry, ENTRY_FIELDS, `${where}.`);
    const { key, from } = entry as CheckEntry;
    if (typeof key !== 'string' || key === '') throw invalidOption(`${where}.key`, 'must be a non-empty string', key);
    return { key, read: sourceReader(from, `${where}.from`, names, subnet) };
  });
  return (headers: IncomingHttpHeaders): RateLimitEntry[] | undefined => {
    const filled: RateLimitEntry[] = [];
    for (const { key, read } of entries) {
      const value = read(headers);
      if (value === undefined) return undefined;
      filled.push({ key, value });
    }
    return filled;
  };
}

function sourceReader(from: unknown, at: string, names: Required<CheckHeaders>, subnet: number | false): Reader {
  if (from === 'address') return addressReader(names.address, subnet);
  if (from === 'path') return (headers) => stripQuery(header(headers, names.path));
  if (from === 'method') return (headers) => header(headers, names.method)?.toUpperCase();
  if (from === 'host') return (headers) => header(headers, names.host)?.toLowerCase();
  if (typeof from === 'object' && from !== null && Object.keys(from).length === 1) {
    const { header: name, value } = from as { header?: unknown; value?: unknown };
    if (typeof value === 'string') return () => value;
    if (typeof name === 'string' && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      const lower = name.toLowerCase();
      return (headers) => header(headers, lower);
    }
  }
  throw invalidOption(at, 'must be address, path, method, host, { header: <name> } or { value: <text> }', from);
}

/** The last address of the header (the hop the proxy saw), normalised and grouped by the IPv6 subnet. */
function addressReader(name: string, subnet: number | false): Reader {
  return (headers) => {
    const list = header(headers, name);
    if (list === undefined) return undefined;
    const address = normaliseIp(list.slice(list.lastIndexOf(',') + 1).trim());
    return address === undefined ? undefined : ipIdentity(address, subnet);
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined || text === '' ? undefined : text;
}

function stripQuery(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const at = path.search(/[?#]/);
  return at === -1 ? path : path.slice(0, at);
}
