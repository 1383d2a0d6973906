import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLimiter, type Limiter, MemoryStore, type Store, TollgateError, waitAll } from '../../src/index.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.UTC(2026, 5, 1, 12) });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The most of `times` (epoch ms) that fall in any window [t, t + windowMs). */
function mostInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/** A backlog: 20 jobs of tenant a, 10 of b, 10 of c, all waiting from the start; returns when each began, per tenant. */
async function drainBacklog(begin: (tenant: string) => Promise<unknown>): Promise<Map<string, number[]>> {
  const tenants = [...Array(20).fill('a'), ...Array(10).fill('b'), ...Array(10).fill('c')] as string[];
  const started = new Map<string, number[]>();
  const jobs = tenants.map((tenant) =>
    begin(tenant).then(() => {
      const times = started.get(tenant) ?? [];
      times.push(Date.now());
      started.set(tenant, times);
    }),
  );
  await vi.advanceTimersByTimeAsync(10_000);
  await Promise.all(jobs);
  return started;
}

function limits(store: Store = new MemoryStore()): { perTenant: Limiter; queue: Limiter } {
  return {
    perTenant: createLimiter({ qps: 10, burst: 1, store, prefix: 'tenant', clock: Date.now }),
    queue: createLimiter({ qps: 20, burst: 1, store, prefix: 'queue', clock: Date.now }),
  };
}

describe('waitAll over a tenant limit (10/s) and a global one (20/s)', () => {
  it('starts no tenant above 10 and the queue above 20 in any second, through a backlog', async () => {
    const { perTenant, queue } = limits();
    const started = await drainBacklog((tenant) =>
      waitAll([
        { limiter: perTenant, key: tenant },
        { limiter: queue, key: 'all' },
      ]),
    );
    expect([...started.values()].map((times) => times.length)).toEqual([20, 10, 10]);
    for (const times of started.values()) expect(mostInWindow(times, 1000)).toBeLessThanOrEqual(10);
    expect(mostInWindow([...started.values()].flat(), 1000)).toBeLessThanOrEqual(20);
  });

  it('(waiting on each limit in turn, the same backlog starts a tenant above its rate)', async () => {
    const { perTenant, queue } = limits();
    const started = await drainBacklog(async (tenant) => {
      await perTenant.wait(tenant);
      await queue.wait('all');
    });
    expect(mostInWindow(started.get('a')!, 1000)).toBeGreaterThan(10);
  });

  it('takes nothing from any limit when one refuses, and rejects at once past maxWait', async () => {
    const { perTenant, queue } = limits();
    await queue.consume('all');
    const refused = waitAll(
      [
        { limiter: perTenant, key: 'a' },
        { limiter: queue, key: 'all' },
      ],
      { maxWait: 20 },
    );
    await expect(refused).rejects.toMatchObject({ code: 'ERR_TOLLGATE_WAIT_TIMEOUT' });
    // With a burst of 1, a charged tenant would have to wait 100 ms.
    expect(await perTenant.peek('a')).toMatchObject({ allowed: true });
  });

  it('resolves with every decision once all admit, charging each its cost', async () => {
    const { perTenant, queue } = limits();
    await queue.consume('all');
    const decisions = waitAll([
      { limiter: perTenant, key: 'a' },
      { limiter: queue, key: 'all', cost: 1 },
    ]);
    await vi.advanceTimersByTimeAsync(50);
    expect((await decisions).map((d) => d.allowed)).toEqual([true, true]);
    expect(Date.now() - Date.UTC(2026, 5, 1, 12)).toBe(50);
    expect(await perTenant.peek('a')).toMatchObject({ allowed: false });
  });

  it('dates each decision with its charge, which a refund of that decision gives back', async () => {
    const { perTenant, queue } = limits();
    const [tenantDecision, queueDecision] = await waitAll([
      { limiter: perTenant, key: 'a', cost: 1 },
      { limiter: queue, key: 'all', cost: 1 },
    ]);
    expect(tenantDecision!.charge).toMatchObject({ atMs: Date.now(), cost: 1 });
    expect(queueDecision!.charge).toMatchObject({ atMs: Date.now(), cost: 1 });
    expect(await perTenant.peek('a')).toMatchObject({ allowed: false });
    await perTenant.refund('a', { charge: tenantDecision! });
    expect(tenantDecision!.charge).toBeUndefined();
    expect(await perTenant.peek('a')).toMatchObject({ allowed: true });
  });

  it('waits out a failing store, trying again every second, and rejects with its error past maxWait', async () => {
    const memory = new MemoryStore();
    let failures = 2;
    const store: Store = {
      execute: (operation) => memory.execute(operation),
      executeGroup: (operations) =>
        failures-- > 0 ? Promise.reject(new TollgateError('ERR_TOLLGATE_STORE', 'connection lost')) : memory.executeGroup(operations),
    };
    const { perTenant, queue } = limits(store);
    const entries = [
      { limiter: perTenant, key: 'a' },
      { limiter: queue, key: 'all' },
    ];
    const admitted = waitAll(entries);
    await vi.advanceTimersByTimeAsync(2000);
    expect((await admitted).map((d) => d.allowed)).toEqual([true, true]);
    expect(Date.now() - Date.UTC(2026, 5, 1, 12)).toBe(2000);
    failures = 1;
    await expect(waitAll(entries, { maxWait: 500 })).rejects.toMatchObject({ code: 'ERR_TOLLGATE_STORE' });
  });

  it('rejects with the reason of an aborted signal', async () => {
    const { perTenant, queue } = limits();
    await perTenant.consume('a');
    const controller = new AbortController();
    const waiting = waitAll(
      [
        { limiter: perTenant, key: 'a' },
        { limiter: queue, key: 'all' },
      ],
      { signal: controller.signal },
    );
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
  });
});

describe('waitAll refuses what it cannot hold', () => {
  const { perTenant, queue } = limits();
  const cases: [string, () => Promise<unknown>, object][] = [
    ['no entries', () => waitAll([]), { code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'entries' }],
    [
      'a misspelt entry field',
      () => waitAll([{ limiter: perTenant, key: 'a', cots: 2 } as never]),
      { code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'entries[0].cots', message: expect.stringContaining('did you mean cost?') },
    ],
    [
      'a misspelt option',
      () => waitAll([{ limiter: perTenant, key: 'a' }], { maxWiat: 5 } as never),
      { code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'maxWiat', message: expect.stringContaining('did you mean maxWait?') },
    ],
    [
      'a bad cost',
      () => waitAll([{ limiter: perTenant, key: 'a', cost: 0 }]),
      { code: 'ERR_TOLLGATE_INVALID_COST', field: 'entries[0].cost' },
    ],
    ['something else than a limiter', () => waitAll([{ limiter: {} as Limiter, key: 'a' }]), { field: 'entries[0].limiter' }],
    [
      'limiters on two stores',
      () =>
        waitAll([
          { limiter: perTenant, key: 'a' },
          { limiter: limits().queue, key: 'all' },
        ]),
      { code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'entries[1].limiter' },
    ],
    [
      'one limit and key twice',
      () =>
        waitAll([
          { limiter: queue, key: 'all' },
          { limiter: queue, key: 'all' },
        ]),
      { code: 'ERR_TOLLGATE_INVALID_KEY', field: 'entries[1].key' },
    ],
    [
      'a concurrency limit',
      () => waitAll([{ limiter: createLimiter({ algorithm: 'concurrency', limit: 2, leaseTtl: '1m' }), key: 'a' }]),
      { code: 'ERR_TOLLGATE_INVALID_OPTION', message: expect.stringContaining('leases') },
    ],
    [
      'a store that cannot group',
      () => {
        const store: Store = { execute: (operation) => new MemoryStore().execute(operation) };
        return waitAll([{ limiter: createLimiter({ qps: 1, store }), key: 'a' }]);
      },
      { code: 'ERR_TOLLGATE_INVALID_OPTION', message: expect.stringContaining('executeGroup') },
    ],
  ];
  it.each(cases)('%s', async (_name, run, error) => {
    await expect(run()).rejects.toMatchObject(error);
  });
});
