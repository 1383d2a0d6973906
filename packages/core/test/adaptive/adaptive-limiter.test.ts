import { VirtualClock } from '@tollgate/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdaptiveAdmission, AdaptiveSlot } from '../../src/adaptive/adaptive-limiter.js';
import { createAdaptiveLimiter } from '../../src/adaptive/adaptive-limiter.js';

function slot(admission: AdaptiveAdmission): AdaptiveSlot {
  if (!admission.admitted) throw new Error(`expected a slot, got a rejection (${admission.reason})`);
  return admission;
}

// Ported from Netflix concurrency-limits, SimpleLimiterTest.java.
describe('an adaptive limiter without partitions', () => {
  it('uses its capacity up to the limit', () => {
    const limiter = createAdaptiveLimiter({ limit: 10 });
    for (let i = 0; i < 10; i++) expect(limiter.tryAcquire().admitted).toBe(true);
    expect(limiter.tryAcquire()).toMatchObject({ admitted: false, reason: 'limit' });
    expect(limiter.snapshot().inflight).toBe(10);
  });

  it('frees a slot when a request gives it back', () => {
    const limiter = createAdaptiveLimiter({ limit: 10 });
    const first = slot(limiter.tryAcquire());
    for (let i = 1; i < 10; i++) expect(limiter.tryAcquire().admitted).toBe(true);
    expect(limiter.snapshot().inflight).toBe(10);
    expect(limiter.tryAcquire().admitted).toBe(false);
    first.success();
    expect(limiter.snapshot().inflight).toBe(9);
    expect(limiter.tryAcquire().admitted).toBe(true);
    expect(limiter.snapshot().inflight).toBe(10);
  });

  it('gives a slot back once, whatever is called after', () => {
    const limiter = createAdaptiveLimiter({ limit: 2 });
    const held = slot(limiter.tryAcquire());
    held.success();
    held.dropped();
    held.ignore();
    expect(limiter.snapshot().inflight).toBe(0);
  });
});

describe('samples', () => {
  it('measure the round trip on the clock from the slot taken, with the requests in flight then', () => {
    const clock = new VirtualClock(0);
    const samples: unknown[] = [];
    const limiter = createAdaptiveLimiter({ limit: 10, clock: clock.now, events: { sample: (event) => samples.push(event.sample) } });
    const first = slot(limiter.tryAcquire());
    clock.advance(5);
    const second = slot(limiter.tryAcquire());
    clock.advance(20);
    second.success();
    first.dropped();
    expect(samples).toEqual([
      { rttMs: 20, inflight: 2, dropped: false },
      { rttMs: 25, inflight: 1, dropped: true },
    ]);
  });

  it('move the limit: a drop backs AIMD off, an ignored request says nothing', () => {
    const limits: number[] = [];
    const limiter = createAdaptiveLimiter({
      limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 },
      events: { limit: (event) => limits.push(event.limit) },
    });
    slot(limiter.tryAcquire()).ignore();
    expect(limiter.snapshot().limit).toBe(10);
    slot(limiter.tryAcquire()).dropped();
    expect(limiter.snapshot().limit).toBe(9);
    expect(limits).toEqual([9]);
  });

  it('count as a loss while the event loop is delayed past eventLoopDelay.maxMs', async () => {
    const clock = new VirtualClock(0);
    const limiter = createAdaptiveLimiter({
      limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 },
      eventLoopDelay: { maxMs: 20, intervalMs: 100, resolutionMs: 5 },
      clock: clock.now,
    });
    const delays: (number | undefined)[] = [];
    limiter.on('sample', (event) => delays.push(event.eventLoopDelayMs));
    slot(limiter.tryAcquire()).success();
    // The monitor records the delay between two of its ticks: let it tick once first.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const blockUntil = Date.now() + 150;
    while (Date.now() < blockUntil) {
      // Hold the event loop: the monitor records a delay of about 150 ms.
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.advance(100);
    slot(limiter.tryAcquire()).success();
    limiter.close();
    expect(delays[0]).toBe(0);
    expect(delays[1]).toBeGreaterThan(100);
    expect(limiter.snapshot().limit).toBe(9);
  });
});

// Ported from Netflix concurrency-limits, AbstractPartitionedLimiterTest.java.
describe('partitions', () => {
  const partitioned = () => createAdaptiveLimiter<string>({ limit: 10, partitions: { batch: 0.3, live: 0.7 }, partition: (name) => name });
  const partitionInflight = (limiter: ReturnType<typeof partitioned>, name: string) =>
    limiter.snapshot().partitions.find((partition) => partition.name === name)?.inflight;

  it('share the limit out', () => {
    const limits = partitioned()
      .snapshot()
      .partitions.map(({ name, limit }) => [name, limit]);
    expect(limits).toEqual([
      ['batch', 3],
      ['live', 7],
      ['unknown', 1],
    ]);
  });

  it('use excess capacity up to the whole limit', () => {
    const limiter = partitioned();
    for (let i = 0; i < 10; i++) {
      expect(limiter.tryAcquire('batch').admitted).toBe(true);
      expect(partitionInflight(limiter, 'batch')).toBe(i + 1);
    }
    expect(limiter.tryAcquire('batch').admitted).toBe(false);
  });

  it('let a partition under its share in past the whole limit', () => {
    const limiter = partitioned();
    for (let i = 0; i < 10; i++) expect(limiter.tryAcquire('batch').admitted).toBe(true);
    expect(limiter.tryAcquire('batch').admitted).toBe(false);
    for (let i = 0; i < 7; i++) {
      expect(limiter.tryAcquire('live').admitted).toBe(true);
      expect(partitionInflight(limiter, 'live')).toBe(i + 1);
    }
    expect(limiter.tryAcquire('live').admitted).toBe(false);
  });

  it('reject once every share is used', () => {
    const limiter = partitioned();
    for (let i = 0; i < 3; i++) {
      expect(limiter.tryAcquire('batch').admitted).toBe(true);
      expect(limiter.snapshot().inflight).toBe(i + 1);
    }
    for (let i = 0; i < 7; i++) {
      expect(limiter.tryAcquire('live').admitted).toBe(true);
      expect(limiter.snapshot().inflight).toBe(i + 4);
    }
    expect(limiter.tryAcquire('batch').admitted).toBe(false);
    expect(limiter.tryAcquire('live').admitted).toBe(false);
  });

  it('free the partition slot a request gives back', () => {
    const limiter = partitioned();
    const first = slot(limiter.tryAcquire('batch'));
    for (let i = 1; i < 10; i++) expect(limiter.tryAcquire('batch').admitted).toBe(true);
    expect(limiter.tryAcquire('batch').admitted).toBe(false);
    first.success();
    expect(partitionInflight(limiter, 'batch')).toBe(9);
    expect(limiter.snapshot().inflight).toBe(9);
    expect(limiter.tryAcquire('batch').admitted).toBe(true);
    expect(partitionInflight(limiter, 'batch')).toBe(10);
  });

  it('put a request of an undeclared partition in `unknown`, with a share of 0', () => {
    const limiter = partitioned();
    for (let i = 0; i < 10; i++) expect(limiter.tryAcquire('live').admitted).toBe(true);
    expect(limiter.tryAcquire('admin')).toMatchObject({ admitted: true, partition: 'unknown' });
    expect(limiter.tryAcquire('admin')).toMatchObject({ admitted: false, partition: 'unknown', reason: 'limit' });
  });

  it('share a new limit out again', () => {
    const limiter = createAdaptiveLimiter<string>({
      limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 },
      partitions: { batch: 0.3, live: 0.7 },
      partition: (name) => name,
    });
    slot(limiter.tryAcquire('live')).dropped();
    expect(limiter.snapshot().partitions.map(({ limit }) => limit)).toEqual([3, 7, 1]);
    slot(limiter.tryAcquire('live')).dropped();
    // 9 × 0.9 = 8.1 → 8: batch ceil(2.4) = 3, live ceil(5.6) = 6.
    expect(limiter.snapshot().partitions.map(({ limit }) => limit)).toEqual([3, 6, 1]);
  });

  it('keep their guaranteed shares while Vegas halves the limit to probe: only borrowing stops', () => {
    const clock = new VirtualClock(0);
    const limiter = createAdaptiveLimiter<string>({
      limit: { algorithm: 'vegas', initialLimit: 10, probeMultiplier: 2, random: () => 0 },
      partitions: { critical: 0.8, batch: 0.2 },
      partition: (name) => name,
      clock: clock.now,
    });
    // Jitter 0.5: a probe every 0.5 × 2 × 10 = 10 samples.
    for (let i = 0; i < 10; i++) {
      const held = slot(limiter.tryAcquire('batch'));
      clock.advance(10);
      held.success();
    }
    expect(limiter.snapshot().limit).toBe(5);
    for (let i = 0; i < 5; i++) expect(limiter.tryAcquire('batch').admitted).toBe(true);
    expect(limiter.tryAcquire('batch').admitted).toBe(false);
    // Critical's share is still 0.8 of 10, not of the probe's 5.
    for (let i = 0; i < 8; i++) expect(limiter.tryAcquire('critical').admitted).toBe(true);
    expect(limiter.tryAcquire('critical').admitted).toBe(false);
  });
});

// Ported from Netflix concurrency-limits, LifoBlockingLimiterTest.java (fake timers instead of waits).
describe('the queue', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const queued = (order: 'fifo' | 'lifo' = 'lifo', limit: number | { algorithm: 'aimd'; initialLimit: number; minLimit: number } = 4) =>
    createAdaptiveLimiter({ limit, queue: { maxWaitMs: 1000, maxSize: 10, order } });

  it('holds a request when full and refuses it after maxWaitMs', async () => {
    vi.useFakeTimers();
    const limiter = queued();
    for (let i = 0; i < 4; i++) expect((await limiter.acquire()).admitted).toBe(true);
    let admission: AdaptiveAdmission | undefined;
    void limiter.acquire().then((result) => {
      admission = result;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(admission).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(admission).toMatchObject({ admitted: false, reason: 'timeout' });
    expect(limiter.snapshot().queued).toBe(0);
  });

  it('hands a freed slot to a waiter before its time runs out', async () => {
    vi.useFakeTimers();
    const limiter = queued();
    const held = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire()));
    const waiting = limiter.acquire();
    await vi.advanceTimersByTimeAsync(250);
    slot(held[0]!).success();
    expect(await waiting).toMatchObject({ admitted: true });
    expect(limiter.snapshot().inflight).toBe(4);
  });

  it('refuses at once when the queue is full', async () => {
    vi.useFakeTimers();
    const limiter = queued();
    for (let i = 0; i < 14; i++) void limiter.acquire();
    expect(limiter.snapshot().queued).toBe(10);
    expect(await limiter.acquire()).toMatchObject({ admitted: false, reason: 'queue-full' });
  });

  it('serves a waiter, and one more at once, when a sample raises the limit', async () => {
    const limiter = queued('lifo', { algorithm: 'aimd', initialLimit: 4, minLimit: 1 });
    const held = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire()));
    const waiting = limiter.acquire();
    // Taken with 4 in flight of 4: a success adds 1.
    slot(held[3]!).success();
    expect(limiter.snapshot().limit).toBe(5);
    expect((await waiting).admitted).toBe(true);
    expect((await limiter.acquire()).admitted).toBe(true);
    limiter.close();
  });

  it('keeps a waiter waiting when a drop lowers the limit', async () => {
    vi.useFakeTimers();
    const limiter = queued('lifo', { algorithm: 'aimd', initialLimit: 4, minLimit: 1 });
    const held = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire()));
    const waiting = limiter.acquire();
    slot(held[0]!).dropped();
    expect(limiter.snapshot()).toMatchObject({ limit: 3, inflight: 3, queued: 1 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await waiting).toMatchObject({ admitted: false, reason: 'timeout' });
  });

  it.each([
    ['lifo', [4, 3, 2, 1, 0]],
    ['fifo', [0, 1, 2, 3, 4]],
  ] as const)('serves waiters in %s order', async (order, expected) => {
    const limiter = queued(order);
    const held = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire()));
    const served: number[] = [];
    const waiters = Array.from({ length: 5 }, (_, i) =>
      limiter.acquire().then((admission) => {
        served.push(i);
        slot(admission).success();
      }),
    );
    for (const admission of held) slot(admission).success();
    await Promise.all(waiters);
    expect(served).toEqual(expected);
  });

  it('serves the higher-priority partition first, leaving the lower one to time out', async () => {
    vi.useFakeTimers();
    const limiter = createAdaptiveLimiter<string>({
      limit: 4,
      partitions: { critical: 0.25, batch: 0.25, other: 0.5 },
      partition: (name) => name,
      queue: { maxWaitMs: 100, order: 'fifo' },
    });
    // Every partition at its share: a slot freed by `other` is the only room, for one waiter.
    const others = [slot(await limiter.acquire('other')), slot(await limiter.acquire('other'))];
    slot(await limiter.acquire('critical'));
    slot(await limiter.acquire('batch'));
    const batch = limiter.acquire('batch');
    const critical = limiter.acquire('critical');
    others[0]!.success();
    expect(await critical).toMatchObject({ admitted: true, partition: 'critical' });
    await vi.advanceTimersByTimeAsync(100);
    expect(await batch).toMatchObject({ admitted: false, reason: 'timeout', partition: 'batch' });
  });

  const prioritized = (maxSize: number) =>
    createAdaptiveLimiter<string>({
      clock: () => Date.now(),
      limit: 10,
      partitions: { critical: 0.8, batch: 0.2 },
      partition: (name) => name,
      queue: { maxWaitMs: 50, maxSize, order: 'lifo' },
    });

  it('lets a critical request at its share wait for the next slot instead of refusing it', async () => {
    vi.useFakeTimers();
    const limiter = prioritized(4);
    // Batch borrowed the idle share, then critical traffic rose to its own share: the limit is full.
    const batch = await Promise.all(Array.from({ length: 2 }, () => limiter.acquire('batch')));
    await Promise.all(Array.from({ length: 8 }, () => limiter.acquire('critical')));
    expect(limiter.tryAcquire('critical')).toMatchObject({ admitted: false, reason: 'limit' });
    const critical = limiter.acquire('critical');
    await vi.advanceTimersByTimeAsync(10);
    slot(batch[0]!).success();
    expect(await critical).toMatchObject({ admitted: true, partition: 'critical', waitedMs: 10 });
  });

  it('pushes the last batch waiter out of a full queue to make room for a critical one', async () => {
    vi.useFakeTimers();
    const limiter = prioritized(2);
    await Promise.all(Array.from({ length: 2 }, () => limiter.acquire('batch')));
    await Promise.all(Array.from({ length: 8 }, () => limiter.acquire('critical')));
    const older = limiter.acquire('batch');
    const newer = limiter.acquire('batch');
    // LIFO serves the newer batch waiter first, so the older one is pushed out.
    const critical = limiter.acquire('critical');
    expect(await older).toMatchObject({ admitted: false, reason: 'queue-full', partition: 'batch' });
    expect(limiter.snapshot().queued).toBe(2);
    expect(await limiter.acquire('batch')).toMatchObject({ admitted: false, reason: 'queue-full' });
    await vi.advanceTimersByTimeAsync(50);
    expect(await critical).toMatchObject({ admitted: false, reason: 'timeout', partition: 'critical' });
    expect(await newer).toMatchObject({ admitted: false, reason: 'timeout', partition: 'batch' });
  });

  it('passes a slot a lower partition had borrowed to a higher waiter, even while the limit is full', async () => {
    vi.useFakeTimers();
    const limiter = createAdaptiveLimiter<string>({
      limit: 4,
      partitions: { critical: 0.5, batch: 0.5 },
      partition: (name) => name,
      queue: { maxWaitMs: 1000 },
    });
    // Batch borrows critical's idle half; critical then takes its own 2 past the limit.
    const batch = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire('batch')));
    for (let i = 0; i < 2; i++) expect((await limiter.acquire('critical')).admitted).toBe(true);
    const waiting = limiter.acquire('critical');
    const batchWaiting = limiter.acquire('batch');
    // 5 in flight of 4, batch still over its 2: the freed slot was borrowed, and goes to critical.
    slot(batch[0]!).success();
    expect(await waiting).toMatchObject({ admitted: true, partition: 'critical' });
    expect(limiter.snapshot().inflight).toBe(6);
    // Batch gives back one more: no higher waiter, and the limit is full.
    slot(batch[1]!).success();
    await vi.advanceTimersByTimeAsync(1000);
    expect(await batchWaiting).toMatchObject({ admitted: false, reason: 'timeout' });
  });

  it('refuses every waiter on close', async () => {
    const limiter = queued();
    for (let i = 0; i < 4; i++) await limiter.acquire();
    const waiting = limiter.acquire();
    limiter.close();
    expect(await waiting).toMatchObject({ admitted: false, reason: 'closed' });
  });
});

describe('rejections', () => {
  it('carry the average round trip as a retry hint and are events', () => {
    const clock = new VirtualClock(0);
    const rejected: unknown[] = [];
    const limiter = createAdaptiveLimiter({ limit: 1, clock: clock.now, events: { rejected: (event) => rejected.push(event) } });
    expect(limiter.tryAcquire().admitted).toBe(true);
    expect(limiter.tryAcquire()).toMatchObject({ retryAfterMs: 1 });
    const held = createAdaptiveLimiter({ limit: 1, clock: clock.now });
    const first = slot(held.tryAcquire());
    clock.advance(300);
    first.success();
    slot(held.tryAcquire());
    expect(held.tryAcquire()).toEqual({ admitted: false, partition: undefined, reason: 'limit', retryAfterMs: 300 });
    expect(rejected).toEqual([{ partition: undefined, reason: 'limit', limit: 1, inflight: 1, queued: 0 }]);
  });
});
