import type { IgnoredHeader } from './ignored-header.js';

/** The units LLM APIs publish a budget of. */
export const BUDGET_UNITS = ['requests', 'tokens', 'input-tokens', 'output-tokens'] as const;
export type BudgetUnit = (typeof BUDGET_UNITS)[number];

/** What the upstream says is left of one of its budgets. */
export interface UpstreamBudget {
  unit: BudgetUnit;
  /** The budget's size, when the upstream sent it. */
  limit: number | undefined;
  remaining: number;
  /** Milliseconds until the budget is whole again; undefined when no valid reset came with it. */
  resetMs: number | undefined;
  /** The header the reset was read from (`x-ratelimit-reset-tokens`, `anthropic-ratelimit-tokens-reset`). */
  resetHeader: string;
}

export interface ReadBudgets {
  budgets: UpstreamBudget[];
  ignored: IgnoredHeader[];
}

type ResetReader = (value: string, nowMs: number) => number | IgnoredHeader['reason'];

interface BudgetStyle {
  header: (unit: BudgetUnit, field: 'limit' | 'remaining' | 'reset') => string;
  units: readonly BudgetUnit[];
  reset: ResetReader;
}

const STYLES: readonly BudgetStyle[] = [
  // OpenAI: x-ratelimit-remaining-tokens: 1200, x-ratelimit-reset-tokens: 6m0s
  { header: (unit, field) => `x-ratelimit-${field}-${unit}`, units: ['requests', 'tokens'], reset: goDurationMs },
  // Anthropic: anthropic-ratelimit-tokens-remaining: 1200, anthropic-ratelimit-tokens-reset: 2026-06-01T12:00:30Z
  { header: (unit, field) => `anthropic-ratelimit-${unit}-${field}`, units: BUDGET_UNITS, reset: rfc3339Ms },
];

/**
 * Reads the per-unit budgets of OpenAI-style (`x-ratelimit-{limit,remaining,reset}-{requests,tokens}`,
 * resets as durations such as `6m0s`, `1s`, `20ms`) and Anthropic-style
 * (`anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
 * resets as RFC 3339 times) headers. A malformed or negative count or reset is reported, never read.
 */
export function readBudgets(headers: Headers, nowMs: number): ReadBudgets {
  const read: ReadBudgets = { budgets: [], ignored: [] };
  for (const style of STYLES) {
    for (const unit of style.units) {
      const budget = readBudget(headers, nowMs, style, unit, read.ignored);
      if (budget !== undefined) read.budgets.push(budget);
    }
  }
  return read;
}

function readBudget(
  headers: Headers,
  nowMs: number,
  style: BudgetStyle,
  unit: BudgetUnit,
  ignored: IgnoredHeader[],
): UpstreamBudget | undefined {
  const count = (field: 'limit' | 'remaining') => {
    const header = style.header(unit, field);
    const value = headers.get(header);
    if (value === null) return undefined;
    const parsed = countOf(value);
    if (typeof parsed === 'number') return parsed;
    ignored.push({ header, value, reason: parsed });
    return undefined;
  };
  const remaining = count('remaining');
  if (remaining === undefined) return undefined;
  const resetHeader = style.header(unit, 'reset');
  const resetValue = headers.get(resetHeader);
  let resetMs: number | undefined;
  if (resetValue !== null) {
    const parsed = style.reset(resetValue, nowMs);
    if (typeof parsed === 'number') resetMs = parsed;
    else ignored.push({ header: resetHeader, value: resetValue, reason: parsed });
  }
  return { unit, limit: count('limit'), remaining, resetMs, resetHeader };
}

function countOf(value: string): number | IgnoredHeader['reason'] {
  const trimmed = value.trim();
  if (/^\d{1,15}$/.test(trimmed)) return Number(trimmed);
  return /^-\d/.test(trimmed) ? 'negative' : 'malformed';
}

const DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/y;
const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };

/** A Go-style duration (`6m0s`, `1.5s`, `20ms`, `1h2m`) or bare seconds, in milliseconds rounded up. */
export function goDurationMs(value: string): number | IgnoredHeader['reason'] {
  const trimmed = value.trim();
  if (/^-\d/.test(trimmed)) return 'negative';
  if (/^\d{1,15}(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  if (trimmed === '') return 'malformed';
  let ms = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < trimmed.length) {
    const part = DURATION_PART.exec(trimmed);
    if (part === null) return 'malformed';
    ms += Number(part[1]) * UNIT_MS[part[2]!]!;
  }
  return Math.ceil(ms);
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time, as milliseconds from now; a time already past is 0. */
export function rfc3339Ms(value: string, nowMs: number): number | IgnoredHeader['reason'] {
  const trimmed = value.trim();
  const at = RFC_3339.test(trimmed) ? Date.parse(trimmed.replace(' ', 'T')) : Number.NaN;
  if (Number.isNaN(at)) return 'malformed';
  return Math.max(0, at - nowMs);
}
