import { describe, expect, it } from 'vitest';
import { createLimiter, requestRateLimit } from '../../src/index.js';

describe('requestRateLimit', () => {
  it("shows express-rate-limit's fields beside the decision, current hidden from keys and JSON as express-rate-limit hides it", async () => {
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 5, window: 60_000 });
    await limiter.consume('k');
    const decision = await limiter.consume('k');
    const shown = requestRateLimit(decision, 'k');
    expect(shown.used).toBe(2);
    expect((shown as unknown as { current: number }).current).toBe(2);
    expect(shown.remaining).toBe(3);
    expect(shown.key).toBe('k');
    expect(shown.resetTime.getTime()).toBe(decision.decidedAtMs + decision.resetAfterMs);
    expect(Object.keys(shown)).not.toContain('current');
    expect(JSON.parse(JSON.stringify(shown))).not.toHaveProperty('current');
    expect(JSON.parse(JSON.stringify(shown))).toMatchObject({ used: 2, limit: 5, remaining: 3, key: 'k' });
  });

  it("keeps the decision's own fields, the ones only some decisions have included, and adds no other", async () => {
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 5, window: 60_000 });
    const decision = await limiter.consume('k');
    expect(decision.charge).toBeDefined();
    const shown = requestRateLimit(decision, 'k');
    expect(Object.keys(shown)).toEqual([...Object.keys(decision), 'used', 'resetTime', 'key']);
    expect(shown).toMatchObject({ ...decision });
  });
});
