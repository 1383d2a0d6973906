import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createLimiter, type DecisionEvent, type LimiterEventName } from '../../src/index.js';
import { ControlledStore } from '../helpers/controlled-store.js';

describe('limiter events', () => {
  it('reports each consume once, as allowed or denied, with rule, key, cost and decision', async () => {
    const seen: [LimiterEventName, DecisionEvent][] = [];
    const limiter = createLimiter({ qps: 1, burst: 2, rule: 'search' });
    limiter.on('allowed', (e) => seen.push(['allowed', e]));
    limiter.on('denied', (e) => seen.push(['denied', e]));
    limiter.on('delayed', (e) => seen.push(['delayed', e]));
    await limiter.consume('a');
    await limiter.consume('a', { cost: 1 });
    await limiter.consume('a');
    await limiter.peek('a');
    await limiter.reset('a');
    expect(seen.map(([name, e]) => [name, e.rule, e.key, e.cost, e.decision.allowed, e.decision.source])).toEqual([
      ['allowed', 'search', 'a', 1, true, 'store'],
      ['allowed', 'search', 'a', 1, true, 'store'],
      ['denied', 'search', 'a', 1, false, 'store'],
    ]);
    expect(seen.every(([, e]) => e.latencyMs >= 0)).toBe(true);
  });

  it('stops calling a listener once it is removed', async () => {
    let calls = 0;
    const limiter = createLimiter({ qps: 10 });
    const off = limiter.on('allowed', () => calls++);
    await limiter.consume('a');
    off();
    await limiter.consume('a');
    expect(calls).toBe(1);
  });

  it('keeps deciding when a listener throws, and says so as a process warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const limiter = createLimiter({
        qps: 10,
        events: {
          allowed: () => {
            throw new Error('listener bug');
          },
        },
      });
      expect((await limiter.consume('a')).allowed).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.some((m) => m.includes('listener bug'))).toBe(true);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('rejects an unknown event name', () => {
    expect(() => createLimiter({ qps: 1 }).on('alowed' as never, () => {})).toThrow(/unknown limiter event/);
  });
});

describe('shadow mode', () => {
  it('always allows, says what would have happened, and reports it', async () => {
    const clock = new VirtualClock();
    const denied: DecisionEvent[] = [];
    const limiter = createLimiter({ qps: 1, burst: 2, clock: clock.now, shadow: true, events: { denied: (e) => denied.push(e) } });
    const decisions = [await limiter.consume('a'), await limiter.consume('a'), await limiter.consume('a')];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true]);
    expect(decisions.map((d) => d.shadow)).toEqual([
      { allowed: true, retryAfterMs: 0, delayMs: 0 },
      { allowed: true, retryAfterMs: 0, delayMs: 0 },
      { allowed: false, retryAfterMs: 1000, delayMs: 0 },
    ]);
    expect(decisions[2]).toMatchObject({ retryAfterMs: 0, remaining: 0, source: 'store' });
    expect(denied).toHaveLength(1);
    expect(denied[0]!.decision.shadow?.allowed).toBe(false);
    // A request let through in shadow mode spent nothing: the limit recovers on schedule.
    clock.advance(1000);
    expect((await limiter.consume('a')).shadow?.allowed).toBe(true);
  });

  it('applies to cached and policy decisions too', async () => {
    const store = new ControlledStore();
    const limiter = createLimiter({ qps: 1, burst: 1, store, shadow: true, onStoreError: 'closed' });
    await limiter.consume('a');
    const cached = await limiter.consume('a').then(() => limiter.consume('a'));
    expect(cached).toMatchObject({ allowed: true, source: 'cache', shadow: { allowed: false } });
    store.mode = 'reject';
    expect(await limiter.consume('b')).toMatchObject({ allowed: true, source: 'policy', shadow: { allowed: false } });
  });

  it('leaves decisions without a shadow field when off', async () => {
    expect('shadow' in (await createLimiter({ qps: 1 }).consume('a'))).toBe(false);
  });
});
