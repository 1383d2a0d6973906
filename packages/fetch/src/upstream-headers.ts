import { parseDictionary, parseList } from 'structured-headers';
import type { IgnoredHeader } from './ignored-header.js';
import { type BudgetUnit, readBudgets, type UpstreamBudget } from './token-budgets.js';

export type { IgnoredHeader } from './ignored-header.js';

/** A `RateLimit-Policy` member: `quota` units per `windowSeconds`. */
export interface UpstreamPolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

/** What one response says about when the next call may go out. */
export interface UpstreamLimits {
  /** Milliseconds every caller of the key should hold off; 0 when nothing asks for a pause. */
  pauseMs: number;
  /** The header the pause came from. */
  pauseFrom: string | undefined;
  policies: UpstreamPolicy[];
  /** The per-unit budgets (requests, tokens) of OpenAI- and Anthropic-style headers. */
  budgets: UpstreamBudget[];
  ignored: IgnoredHeader[];
}

/** Per unit, the remaining budget at or below which the key pauses until the budget resets. */
export type BudgetHeadroom = Partial<Readonly<Record<BudgetUnit, number>>>;

/** Status codes whose `Retry-After` pauses the key (RFC 9110 §10.2.3, RFC 6585 §4). */
export const PAUSING_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * Reads `Retry-After` (on 429/503: seconds or an HTTP date), draft-11 `RateLimit` (a limit with
 * `r=0` pauses for its `t` seconds; the older `remaining=0, reset=<s>` dictionary too),
 * `RateLimit-Policy`, and `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (epoch seconds, or
 * seconds to wait when smaller than a day). The longest pause wins; anything malformed, negative
 * or longer than `maxPauseMs` is ignored and reported. A per-unit budget (OpenAI's
 * `x-ratelimit-remaining-tokens`, Anthropic's `anthropic-ratelimit-tokens-remaining`, ...) with no
 * more than `headroom[unit]` left (default 0) pauses until its reset.
 */
export function readUpstreamLimits(
  status: number,
  headers: Headers,
  nowMs: number,
  maxPauseMs: number,
  headroom: BudgetHeadroom = {},
): UpstreamLimits {
  const { budgets, ignored } = readBudgets(headers, nowMs);
  const found: UpstreamLimits = { pauseMs: 0, pauseFrom: undefined, policies: [], budgets, ignored };
  const consider = (header: string, value: string, pauseMs: number | IgnoredHeader['reason']) => {
    if (typeof pauseMs === 'string') found.ignored.push({ header, value, reason: pauseMs });
    else if (pauseMs > maxPauseMs) found.ignored.push({ header, value, reason: 'too-long' });
    else if (pauseMs > found.pauseMs) Object.assign(found, { pauseMs, pauseFrom: header });
  };
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null && PAUSING_STATUSES.has(status)) consider('retry-after', retryAfter, retryAfterMs(retryAfter, nowMs));
  const rateLimit = headers.get('ratelimit');
  if (rateLimit !== null) consider('ratelimit', rateLimit, rateLimitPauseMs(rateLimit));
  const policy = headers.get('ratelimit-policy');
  if (policy !== null) {
    const policies = readPolicies(policy);
    if (policies === undefined) found.ignored.push({ header: 'ratelimit-policy', value: policy, reason: 'malformed' });
    else found.policies = policies;
  }
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = headers.get('x-ratelimit-reset');
  if (remaining !== null && reset !== null && remaining.trim() === '0') consider('x-ratelimit-reset', reset, xResetMs(reset, nowMs));
  for (const budget of budgets) {
    if (budget.resetMs === undefined || budget.remaining > (headroom[budget.unit] ?? 0)) continue;
    consider(budget.resetHeader, headers.get(budget.resetHeader)!, budget.resetMs);
  }
  return found;
}

const DIGITS = /^\d{1,15}$/;
const DAY_SECONDS = 86_400;

function retryAfterMs(value: string, nowMs: number): number | IgnoredHeader['reason'] {
  const trimmed = value.trim();
  if (DIGITS.test(trimmed)) return Number(trimmed) * 1000;
  if (/^-\d/.test(trimmed)) return 'negative';
  // IMF-fixdate and the obsolete forms all name a weekday: plain numbers never reach Date.parse.
  const at = /^[A-Za-z]{3}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(at)) return 'malformed';
  return Math.max(0, at - nowMs);
}

function rateLimitPauseMs(value: string): number | IgnoredHeader['reason'] {
  let pauseSeconds = 0;
  try {
    for (const [, params] of parseList(value)) {
      const r = params.get('r');
      const t = params.get('t');
      if (typeof r !== 'number' || typeof t !== 'number') return 'malformed';
      if (r < 0 || t < 0) return 'negative';
      if (r === 0) pauseSeconds = Math.max(pauseSeconds, t);
    }
    return pauseSeconds * 1000;
  } catch {
    return legacyRateLimitPauseMs(value);
  }
}

/** The draft-7 form: `limit=100, remaining=0, reset=30`. */
function legacyRateLimitPauseMs(value: string): number | IgnoredHeader['reason'] {
  try {
    const fields = parseDictionary(value);
    const remaining = fields.get('remaining')?.[0];
    const reset = fields.get('reset')?.[0];
    if (typeof remaining !== 'number' || typeof reset !== 'number') return 'malformed';
    if (remaining < 0 || reset < 0) return 'negative';
    return remaining === 0 ? reset * 1000 : 0;
  } catch {
    return 'malformed';
  }
}

function readPolicies(value: string): UpstreamPolicy[] | undefined {
  try {
    return parseList(value).map(([item, params]) => {
      const quota = params.get('q');
      const windowSeconds = params.get('w') ?? 1;
      if (typeof quota !== 'number' || typeof windowSeconds !== 'number' || quota < 0 || windowSeconds <= 0) throw new Error('bad member');
      return { name: String(item), quota, windowSeconds };
    });
  } catch {
    return undefined;
  }
}

function xResetMs(value: string, nowMs: number): number | IgnoredHeader['reason'] {
  const trimmed = value.trim();
  if (/^-\d/.test(trimmed)) return 'negative';
  if (!DIGITS.test(trimmed)) return 'malformed';
  const seconds = Number(trimmed);
  // Small numbers are a wait in seconds (as some APIs send), large ones epoch seconds (GitHub).
  return seconds < DAY_SECONDS ? seconds * 1000 : Math.max(0, seconds * 1000 - nowMs);
}
