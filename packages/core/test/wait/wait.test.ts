import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConcurrencyLimiter, createLimiter, type Decision, type RuleSpec } from '../../src/index.js';
import { DrivenStore } from '../helpers/driven-store.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from '../helpers/stores.js';

let backends: StoreUnderTest[];
let close: () => Promise<void>;
beforeAll(async () => {
  ({ stores: backends, close } = await startBackends());
});
afterAll(() => close?.());

const START = Date.UTC(2026, 5, 1, 12);
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: START });
});
afterEach(() => {
  vi.useRealTimers();
});

let prefixCounter = 0;

describe.each(['memory', 'redis', 'cluster'] as const)('limiter.wait on the %s store', (name) => {
  function setup(rule: RuleSpec) {
    const store = new DrivenStore(backends.find((b) => b.name === name)!.store);
    const limiter = createLimiter({ ...rule, store, clock: Date.now, prefix: `wait${process.pid}-${prefixCounter++}`, ...STORE_SEMANTICS });
    return { store, limiter };
  }

  /** Starts `count` waits at once; resolves to when each was let go (ms after the call), or its error code. */
  async function waitAll(
    setupResult: ReturnType<typeof setup>,
    count: number,
    options: Parameters<typeof setupResult.limiter.wait>[1] = {},
  ) {
    const { store, limiter } = setupResult;
    const begin = Date.now();
    const outcomes = Array.from({ length: count }, () =>
      limiter.wait('job', options).then(
        () => Date.now() - begin,
        (error: { code?: string }) => error.code ?? String(error),
      ),
    );
    await store.drive(Promise.all(outcomes));
    return Promise.all(outcomes);
  }

  it('gcra at 20/s: waiters leave 50 ms apart, one store call each', async () => {
    const driven = setup({ qps: 20, burst: 1 });
    expect(await waitAll(driven, 6)).toEqual([0, 50, 100, 150, 200, 250]);
    expect(driven.store.calls).toBe(6);
  });

  it('token-bucket and leaky-bucket shaping reserve slots the same way', async () => {
    const bucket = setup({ algorithm: 'token-bucket', capacity: 2, refillPerSecond: 10 });
    expect(await waitAll(bucket, 5)).toEqual([0, 0, 100, 200, 300]);
    expect(bucket.store.calls).toBe(5);
    const shaper = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: 100 });
    expect(await waitAll(shaper, 4)).toEqual([0, 100, 200, 300]);
    expect(shaper.store.calls).toBe(4);
  });

  it('a cost takes that many slots', async () => {
    const driven = setup({ qps: 10, burst: 1 });
    const first = driven.limiter.wait('job', { cost: 3 });
    const second = driven.limiter.wait('job');
    const times: number[] = [];
    for (const waited of [first, second]) void waited.then(() => times.push(Date.now() - START));
    await driven.store.drive(Promise.all([first, second]));
    // cost 3 is due at 200 ms (its last unit's slot less the burst), the next one 100 ms later.
    expect(times).toEqual([200, 300]);
  });

  it('maxWait: a wait that would be too long is rejected at once and reserves nothing', async () => {
    const driven = setup({ qps: 20, burst: 1 });
    const outcomes = await waitAll(driven, 4, { maxWait: 120 });
    expect(outcomes).toEqual([0, 50, 100, 'ERR_TOLLGATE_WAIT_TIMEOUT']);
    // The rejected waiter took no slot: at 100 ms, the next one gets the 150 ms slot.
    expect(await waitAll(driven, 1)).toEqual([50]);
  });

  it('a cost the window can never admit is rejected at once, however long the caller would wait', async () => {
    const driven = setup({ algorithm: 'fixed-window', limit: 2, window: '1s' });
    await expect(driven.limiter.wait('job', { cost: 3 })).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_WAIT_TIMEOUT',
      message: expect.stringContaining('cost 3 can never pass'),
    });
  });

  it('maxWait 0 never waits', async () => {
    const driven = setup({ qps: 20, burst: 1 });
    expect(await waitAll(driven, 2, { maxWait: 0 })).toEqual([0, 'ERR_TOLLGATE_WAIT_TIMEOUT']);
  });

  it('an aborted waiter rejects with the reason and gives its slot back', async () => {
    const driven = setup({ qps: 20, burst: 1 });
    const controller = new AbortController();
    const first = driven.limiter.wait('job');
    const aborted = driven.limiter.wait('job', { signal: controller.signal });
    await driven.store.settle();
    controller.abort(new Error('shutting down'));
    await expect(aborted).rejects.toThrow('shutting down');
    await first;
    await driven.store.settle();
    // Its 50 ms slot is free again: the next waiter takes it.
    expect(await waitAll(driven, 1)).toEqual([50]);
  });

  it('a signal aborted before the call rejects without asking the store', async () => {
    const driven = setup({ qps: 20, burst: 1 });
    await expect(driven.limiter.wait('job', { signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
    expect(driven.store.calls).toBe(0);
  });

  it('fixed-window cannot reserve: waiters line up and retry at the window boundary', async () => {
    const driven = setup({ algorithm: 'fixed-window', limit: 2, window: '1s' });
    expect(await waitAll(driven, 5)).toEqual([0, 0, 1000, 1000, 2000]);
    // One call per admission plus one per denial of the head waiter: 5 + 2.
    expect(driven.store.calls).toBe(7);
  });

  it('sliding-window-log: retries when the oldest entry leaves; times out at once past maxWait', async () => {
    const driven = setup({ algorithm: 'sliding-window-log', limit: 2, window: '1s' });
    expect(await waitAll(driven, 3, { maxWait: 2000 })).toEqual([0, 0, 1000]);
    // At 1000 ms one entry is left, until 2000 ms.
    expect(await waitAll(driven, 2, { maxWait: 500 })).toEqual([0, 'ERR_TOLLGATE_WAIT_TIMEOUT']);
  });

  it('a rule mixing a reserving limit with a retrying one retries', async () => {
    const driven = setup({
      limits: [
        { qps: 20, burst: 1 },
        { algorithm: 'fixed-window', limit: 2, window: '1s' },
      ],
    });
    expect(await waitAll(driven, 3)).toEqual([0, 50, 1000]);
  });

  it('concurrency: a waiter gets a lease when one is released here, at once', async () => {
    const store = new DrivenStore(backends.find((b) => b.name === name)!.store);
    const limiter = createConcurrencyLimiter({
      limit: 1,
      leaseTtl: '1m',
      store,
      clock: Date.now,
      prefix: `waitc${prefixCounter++}`,
      ...STORE_SEMANTICS,
    });
    const held = await limiter.acquire('job');
    let admitted: Decision | undefined;
    const waiting = limiter.wait('job', { maxWait: '10s' }).then((d) => (admitted = d));
    await store.settle();
    await vi.advanceTimersByTimeAsync(30);
    await store.settle();
    expect(admitted).toBeUndefined();
    await limiter.release(held.lease!);
    await store.settle();
    expect(admitted?.lease).toBeDefined();
    expect(Date.now() - START).toBe(30);
    await waiting;
  });

  it('concurrency: a waiter gets the slot of a hold as it settles here, at once', async () => {
    const { store, limiter } = setup({ algorithm: 'concurrency', limit: 1, leaseTtl: '1m' });
    const hold = await limiter.hold('job');
    let admitted: Decision | undefined;
    const waiting = limiter.wait('job', { maxWait: '10s' }).then((d) => (admitted = d));
    await store.settle();
    await vi.advanceTimersByTimeAsync(30);
    await store.settle();
    expect(admitted).toBeUndefined();
    await hold.settle(1);
    await store.settle();
    expect(admitted?.lease).toBeDefined();
    expect(Date.now() - START).toBe(30);
    await waiting;
  });

  it('concurrency: a slot released elsewhere is found within the poll interval; maxWait bounds the wait', async () => {
    const store = new DrivenStore(backends.find((b) => b.name === name)!.store);
    const options = { limit: 1, leaseTtl: '1m', store, clock: Date.now, prefix: `waitc${prefixCounter++}`, ...STORE_SEMANTICS } as const;
    const here = createConcurrencyLimiter(options);
    const elsewhere = createConcurrencyLimiter(options);
    const held = await elsewhere.acquire('job');
    const timedOut = here.wait('job', { maxWait: 250 }).catch((error: { code: string }) => [error.code, Date.now() - START]);
    await store.drive(timedOut);
    expect(await timedOut).toEqual(['ERR_TOLLGATE_WAIT_TIMEOUT', 250]);
    const waiting = here.wait('job').then(() => Date.now() - START);
    await store.settle();
    await vi.advanceTimersByTimeAsync(30);
    await elsewhere.release(held.lease!);
    await store.drive(waiting);
    expect(await waiting).toBe(350);
  });
});

describe('limiter.wait validation', () => {
  const limiter = createLimiter({ qps: 1 });
  it.each([
    [{ maxWait: -1 }, 'ERR_TOLLGATE_INVALID_OPTION', 'maxWait'],
    [{ maxWait: 'soon' }, 'ERR_TOLLGATE_INVALID_OPTION', 'maxWait'],
    [{ cost: 0 }, 'ERR_TOLLGATE_INVALID_COST', 'cost'],
    [{ signal: 'stop' }, 'ERR_TOLLGATE_INVALID_OPTION', 'signal'],
    ['fast', 'ERR_TOLLGATE_INVALID_OPTION', 'options'],
  ])('%j is rejected with a coded error naming the field', async (options, code, field) => {
    await expect(limiter.wait('job', options as never)).rejects.toMatchObject({ code, field });
  });
});
