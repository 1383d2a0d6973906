import type { Algorithm, Outcome, StepResult } from '../algorithms/types.js';
import { blockLua } from '../lua/sources.generated.js';
import type { BoundLimit } from '../stores/store.js';
import { DEFAULT_UNIT } from '../units.js';

export interface BlockParams {
  /** How long a refused consume blocks the key; 0: only `limiter.block` blocks. */
  durationMs: number;
}

/** When the block in force ends, in epoch ms. */
type BlockState = number;

/** A key while no block is in force: the block lets everything through and holds nothing. */
const OPEN: Outcome = { allowed: true, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, delayMs: 0 };

/**
 * A rule's block: a limit kept after the rule's own, in the same state (the packed key the Redis
 * script reads anyway, the memory entry), holding when the block ends. While one is in force it
 * refuses every request; a consume the rule's limits refuse starts one (`afterDenial`), and so
 * does `limiter.block` (`blockFor`). Never named in a decision's limits: it only refuses.
 */
export const block: Algorithm<BlockParams, BlockState, Record<string, never>, 'block'> = {
  name: 'block',
  lua: blockLua,
  fields: {},
  denialHoldsUntilRetry: true,
  parse: () => ({ durationMs: 0 }),
  luaArgs: (p) => [p.durationMs],
  limit: () => 0,
  policy: (p) => ({ quota: 0, windowMs: p.durationMs }),

  step(state, nowMs): StepResult<BlockState> {
    if (state === undefined || state <= nowMs) return { ...OPEN, next: undefined, ttlMs: 0 };
    const leftMs = state - nowMs;
    return { allowed: false, remaining: 0, resetAfterMs: leftMs, retryAfterMs: leftMs, delayMs: 0, next: undefined, ttlMs: 0 };
  },

  afterDenial: (nowMs, { durationMs }) => (durationMs > 0 ? blockFor(nowMs, durationMs) : undefined),
  blockFor,
};

function blockFor(nowMs: number, durationMs: number): StepResult<BlockState> {
  return {
    allowed: false,
    remaining: 0,
    resetAfterMs: durationMs,
    retryAfterMs: durationMs,
    delayMs: 0,
    next: nowMs + durationMs,
    ttlMs: durationMs,
  };
}

/** The block limit of a rule whose refusals block a key for `durationMs` (0: only `limiter.block` does). */
export function blockLimit(durationMs: number): BoundLimit {
  const params: BlockParams = { durationMs };
  return { name: 'block', algorithm: block, params, unit: DEFAULT_UNIT, luaArgs: [block.name, ...block.luaArgs(params).map(String)] };
}
