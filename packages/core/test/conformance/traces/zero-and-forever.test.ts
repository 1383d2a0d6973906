import { expect, it } from 'vitest';
import type { RuleSpec } from '../../../src/index.js';
import { describeTraces } from '../../helpers/describe-traces.js';
import { allowedFlags } from '../../helpers/virtual-limiter.js';

const YEAR_MS = 365 * 86_400_000;

/** Every algorithm a count of 0 makes sense for: it admits nothing, ever. */
const ZERO: [string, RuleSpec][] = [
  ['fixed-window', { algorithm: 'fixed-window', limit: 0, window: '1m' }],
  ['fixed-window forever', { algorithm: 'fixed-window', limit: 0, window: 'forever' }],
  ['sliding-window-log', { algorithm: 'sliding-window-log', limit: 0, window: '1m' }],
  ['sliding-window-counter', { algorithm: 'sliding-window-counter', limit: 0, window: '1m' }],
  ['token-bucket', { algorithm: 'token-bucket', capacity: 0, refillPerSecond: 5 }],
  ['concurrency', { algorithm: 'concurrency', limit: 0, leaseTtl: '1m' }],
];

describeTraces('a count of 0 and a count that never resets', (setup) => {
  it.each(ZERO)('%s with a count of 0 refuses every request, for good, and stores nothing', async (_name, rule) => {
    const { burst, advance, limiter } = setup(rule);
    for (const elapsed of [0, 1, 60_000, YEAR_MS]) {
      advance(elapsed);
      const [denied] = await burst(1);
      expect(denied).toMatchObject({ allowed: false, limit: 0, remaining: 0, retryAfterMs: Number.POSITIVE_INFINITY });
      expect(await limiter.peek('user-1')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: Number.POSITIVE_INFINITY });
    }
    await limiter.reset('user-1');
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: Number.POSITIVE_INFINITY });
  });

  it('a count of 0 in a multi-limit rule refuses every request, and charges the other limits nothing', async () => {
    const { burst } = setup({
      limits: [
        { name: 'minute', algorithm: 'fixed-window', limit: 5, window: '1m' },
        { name: 'closed', algorithm: 'fixed-window', limit: 0, window: '1m' },
      ],
    });
    const decisions = await burst(3);
    expect(allowedFlags(decisions)).toEqual([false, false, false]);
    expect(decisions[2]).toMatchObject({ limitName: 'closed', retryAfterMs: Number.POSITIVE_INFINITY });
    expect(decisions[2]!.limits.map((part) => part.remaining)).toEqual([5, 0]);
  });

  it("window: 'forever' counts for good: spent, it never admits again, however long the wait", async () => {
    const { burst, advance, limiter } = setup({ algorithm: 'fixed-window', limit: 3, window: 'forever' });
    const first = await burst(4);
    expect(allowedFlags(first)).toEqual([true, true, true, false]);
    expect(first[0]).toMatchObject({ remaining: 2, resetAfterMs: Number.POSITIVE_INFINITY });
    expect(first[3]).toMatchObject({ remaining: 0, resetAfterMs: Number.POSITIVE_INFINITY, retryAfterMs: Number.POSITIVE_INFINITY });
    advance(10 * YEAR_MS);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: Number.POSITIVE_INFINITY });
    // A refund gives a unit back, for good too; a reset starts the count afresh.
    expect(await limiter.refund('user-1')).toMatchObject({ allowed: true });
    advance(YEAR_MS);
    expect(allowedFlags(await burst(2))).toEqual([true, false]);
    await limiter.reset('user-1');
    expect(allowedFlags(await burst(4))).toEqual([true, true, true, false]);
  });

  it('a count that never resets keeps its state beside a limit that expires, in one rule', async () => {
    const { burst, advance } = setup({
      limits: [
        { name: 'lifetime', algorithm: 'fixed-window', limit: 5, window: 'forever' },
        { name: 'second', algorithm: 'fixed-window', limit: 2, window: '1s' },
      ],
    });
    expect(allowedFlags(await burst(3))).toEqual([true, true, false]);
    // The packed state outlives the second's window, then is written again with the lifetime count.
    advance(5000);
    expect(allowedFlags(await burst(3))).toEqual([true, true, false]);
    advance(YEAR_MS);
    const last = await burst(2);
    expect(allowedFlags(last)).toEqual([true, false]);
    expect(last[1]).toMatchObject({ limitName: 'lifetime', retryAfterMs: Number.POSITIVE_INFINITY });
    advance(YEAR_MS);
    const [refused] = await burst(1);
    expect(refused!.limits.map((part) => [part.name, part.allowed, part.remaining])).toEqual([
      ['lifetime', false, 0],
      ['second', true, 2],
    ]);
  });
});
