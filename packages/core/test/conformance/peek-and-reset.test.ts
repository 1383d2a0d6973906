import { expect, it } from 'vitest';
import type { RuleSpec } from '../../src/index.js';
import { describeTraces } from '../helpers/describe-traces.js';

/** One rule per algorithm, each admitting 4 at once, and a rule of a packed limit beside a sorted-set one. */
const RULES: [string, RuleSpec][] = [
  ['gcra', { qps: 1, burst: 4 }],
  ['token-bucket', { algorithm: 'token-bucket', capacity: 4, refillPerSecond: 1 }],
  ['fixed-window', { algorithm: 'fixed-window', limit: 4, window: '1m' }],
  ['sliding-window-log', { algorithm: 'sliding-window-log', limit: 4, window: '1m' }],
  ['sliding-window-counter', { algorithm: 'sliding-window-counter', limit: 4, window: '1m' }],
  ['leaky-bucket', { algorithm: 'leaky-bucket', rate: 1, burst: 4 }],
  ['concurrency', { algorithm: 'concurrency', limit: 4, leaseTtl: '1m' }],
  [
    'multi-limit',
    {
      limits: [
        { name: 'minute', algorithm: 'fixed-window', limit: 4, window: '1m' },
        { name: 'log', algorithm: 'sliding-window-log', limit: 6, window: '1m' },
      ],
    },
  ],
];

describeTraces('peek, refund and reset report what is left now', (setup) => {
  it.each(RULES)('%s: a key never seen is not found and has its whole limit', async (_name, rule) => {
    const { limiter } = setup(rule);
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 4, found: false });
  });

  it.each(RULES)('%s: a peek repeats what the last consume left, and a refund gives back to it', async (name, rule) => {
    const { limiter, burst } = setup(rule);
    const [, second] = await burst(2);
    expect(second).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 2, found: true });
    // A concurrency slot comes back by release, not refund: its refund reports what is left.
    expect(await limiter.refund('user-1')).toMatchObject({ allowed: true, remaining: name === 'concurrency' ? 2 : 3 });
    await burst(3);
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: false, remaining: 0, found: true });
  });

  it.each(RULES)('%s: a reset says whether it cleared anything', async (_name, rule) => {
    const { limiter, burst } = setup(rule);
    expect(await limiter.reset('user-1')).toMatchObject({ found: false, remaining: 4 });
    await burst(1);
    expect(await limiter.reset('user-1')).toMatchObject({ found: true, remaining: 4 });
    expect(await limiter.peek('user-1')).toMatchObject({ found: false, remaining: 4 });
  });
});

describeTraces('found on a key whose state expired', (setup) => {
  it('a fixed window past its end is not found', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'fixed-window', limit: 4, window: '1s' });
    await burst(1);
    advance(1000 + 60_000);
    expect(await limiter.peek('user-1')).toMatchObject({ found: false, remaining: 4 });
  });
});
