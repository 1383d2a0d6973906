import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConcurrencyLimiter, createLimiter, type Duration } from '../../src/index.js';
import { type ConcurrencyStep, playConcurrencyTrace } from '../helpers/concurrency-trace.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { concurrencySpecArbitrary, concurrencyTraceArbitrary, startArbitrary } from './arbitraries.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 1000);

let backends: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores: backends, close } = await startBackends());
});
afterAll(() => close?.());

let prefixCounter = 0;

describe.each(['memory', 'redis', 'cluster'] as const)('concurrency reference traces on the %s store', (name) => {
  function setup(limit: number, leaseTtl: Duration) {
    let now = Date.UTC(2026, 5, 1, 12);
    const { store } = backends.find((b) => b.name === name)!;
    const limiter = createConcurrencyLimiter({
      limit,
      leaseTtl,
      store,
      clock: () => now,
      prefix: `conc${prefixCounter++}`,
      ...STORE_SEMANTICS,
    });
    return {
      limiter,
      advance: (ms: number) => {
        now += ms;
      },
    };
  }

  it('3 slots, 10 s leases (Stripe concurrent requests limiter): never a 4th in flight; release and expiry give slots back', async () => {
    const { limiter, advance } = setup(3, '10s');
    const first = await limiter.acquire('user-1');
    expect(first).toMatchObject({ allowed: true, limit: 3, remaining: 2, resetAfterMs: 10_000 });
    advance(1000);
    const second = await limiter.acquire('user-1');
    const third = await limiter.acquire('user-1');
    expect([second.remaining, third.remaining]).toEqual([1, 0]);
    const denied = await limiter.acquire('user-1');
    // The oldest lease runs out first: 9 s from now; all are gone 10 s from now.
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 9000, resetAfterMs: 10_000 });
    expect(denied.lease).toBeUndefined();

    await limiter.release(second.lease!);
    const fourth = await limiter.acquire('user-1');
    expect(fourth).toMatchObject({ allowed: true, remaining: 0 });
    // Releasing the same lease again frees nothing more.
    await limiter.release(second.lease!);
    expect((await limiter.acquire('user-1')).allowed).toBe(false);

    // Nobody releases `first`: its slot comes back when its lease expires.
    advance(8999);
    expect(await limiter.acquire('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    expect(await limiter.acquire('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    advance(20_000);
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 3, resetAfterMs: 10_000 });
    // A lease that expired is released harmlessly.
    await limiter.release(first.lease!);
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 3 });
  });

  it('identities do not share slots, and reset frees every slot of one identity', async () => {
    const { limiter } = setup(1, '1m');
    expect((await limiter.acquire('a')).allowed).toBe(true);
    expect((await limiter.acquire('a')).allowed).toBe(false);
    expect((await limiter.acquire('b')).allowed).toBe(true);
    expect(await limiter.reset('a')).toMatchObject({ allowed: true, remaining: 1 });
    expect((await limiter.acquire('a')).allowed).toBe(true);
    expect((await limiter.acquire('b')).allowed).toBe(false);
  });

  it('a concurrency limit in a multi-limit rule: a lease only when every limit admits', async () => {
    const { store } = backends.find((b) => b.name === name)!;
    const limiter = createLimiter({
      limits: [
        { name: 'second', qps: 1, burst: 3 },
        { name: 'in-flight', algorithm: 'concurrency', limit: 2, leaseTtl: '1m' },
      ],
      store,
      clock: () => Date.UTC(2026, 5, 1, 12),
      prefix: `conc${prefixCounter++}`,
      ...STORE_SEMANTICS,
    });
    const first = await limiter.consume('user-1');
    expect(first).toMatchObject({ allowed: true, lease: { key: 'user-1' } });
    expect((await limiter.consume('user-1')).allowed).toBe(true);
    // Both slots taken: denied by 'in-flight', and the per-second limit keeps its last token.
    const busy = await limiter.consume('user-1');
    expect(busy).toMatchObject({ allowed: false, limitName: 'in-flight', retryAfterMs: 60_000 });
    expect(busy.lease).toBeUndefined();
    expect(busy.limits[0]).toMatchObject({ name: 'second', allowed: true, remaining: 1 });
    await limiter.release(first.lease!);
    // Denied by the rate limit: no slot is taken, and a request holds one slot whatever its cost.
    const costly = await limiter.consume('user-1', { cost: 2 });
    expect(costly).toMatchObject({ allowed: false, limitName: 'second' });
    expect(costly.limits[1]).toMatchObject({ name: 'in-flight', allowed: true, remaining: 1 });
    const last = await limiter.consume('user-1');
    expect(last).toMatchObject({ allowed: true, remaining: 0 });
    expect(last.lease!.id).not.toBe(first.lease!.id);
  });

  it('lease ids are unique even for simultaneous acquires', async () => {
    const { limiter } = setup(50, '1m');
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.acquire('user-1')));
    expect(new Set(decisions.map((d) => d.lease!.id)).size).toBe(50);
    expect((await limiter.acquire('user-1')).allowed).toBe(false);
  });
});

/**
 * A plain semaphore to check against: an acquire gets a lease exactly when fewer than `limit`
 * leases are held (taken, not released, not expired), so in flight never exceeds the limit.
 */
function referenceLeases(spec: { limit: number; leaseTtl: number }, steps: readonly ConcurrencyStep[]): boolean[] {
  let now = 0;
  const taken: { expiresAt: number; released: boolean }[] = [];
  return steps.map((step) => {
    now += step.advanceMs;
    if (step.op === 'acquire') {
      const held = taken.filter((lease) => !lease.released && lease.expiresAt > now).length;
      if (held < spec.limit) taken.push({ expiresAt: now + spec.leaseTtl, released: false });
      return held < spec.limit;
    }
    if (step.op === 'release' && taken.length > 0) taken[step.pick % taken.length]!.released = true;
    if (step.op === 'reset') for (const lease of taken) lease.released = true;
    return false;
  });
}

describe('concurrency: memory, Redis and Redis Cluster decide alike', () => {
  it(`agrees field for field on ${RUNS} random acquire/release traces`, async () => {
    await fc.assert(
      fc.asyncProperty(concurrencySpecArbitrary, concurrencyTraceArbitrary, startArbitrary, async (spec, steps, startMs) => {
        const [memory, ...redis] = await Promise.all(backends.map(({ store }) => playConcurrencyTrace(store, spec, steps, startMs)));
        for (const [i, decisions] of redis.entries()) {
          expect(decisions, `${backends[i + 1]!.name} vs memory`).toEqual(memory);
        }
        expect(memory!.map((d) => d.leased)).toEqual(referenceLeases(spec, steps));
      }),
      { numRuns: RUNS },
    );
  });
});
