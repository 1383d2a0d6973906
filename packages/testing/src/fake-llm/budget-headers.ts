import type { BudgetWindow } from './budget-window.js';

/** Which API's rate-limit headers the fake upstream sends. */
export type BudgetHeaderStyle = 'openai' | 'anthropic';

/** The rate-limit headers of both budgets, in the style of `style`, as they stand at `nowMs`. */
export function budgetHeaders(
  style: BudgetHeaderStyle,
  budgets: { requests: BudgetWindow; tokens: BudgetWindow },
  nowMs: number,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [unit, budget] of Object.entries(budgets)) {
    const fields = { limit: String(budget.size), remaining: String(budget.remaining()) };
    const resetMs = budget.resetMs();
    if (style === 'openai') {
      headers[`x-ratelimit-limit-${unit}`] = fields.limit;
      headers[`x-ratelimit-remaining-${unit}`] = fields.remaining;
      headers[`x-ratelimit-reset-${unit}`] = goDuration(resetMs);
    } else {
      headers[`anthropic-ratelimit-${unit}-limit`] = fields.limit;
      headers[`anthropic-ratelimit-${unit}-remaining`] = fields.remaining;
      // Whole seconds, as Anthropic sends them: rounded up, so the budget is whole by then.
      headers[`anthropic-ratelimit-${unit}-reset`] = new Date(Math.ceil((nowMs + resetMs) / 1000) * 1000)
        .toISOString()
        .replace('.000Z', 'Z');
    }
  }
  return headers;
}

/** `6m0s`, `1.5s`, `20ms`: the duration form OpenAI's reset headers use. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.ceil(ms % 60_000) / 1000;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}
