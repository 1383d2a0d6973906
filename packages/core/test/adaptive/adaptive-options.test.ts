import { describe, expect, it } from 'vitest';
import { createAdaptiveLimiter } from '../../src/index.js';
import { errorOf } from '../helpers/error-of.js';

describe('adaptive limiter options', () => {
  it('refuse an unknown field, suggesting the closest', () => {
    const error = errorOf(() => createAdaptiveLimiter({ limt: 'vegas' } as never));
    expect(error.code).toBe('ERR_TOLLGATE_INVALID_OPTION');
    expect(error.field).toBe('limt');
    expect(error.message).toContain('did you mean limit?');
    expect(errorOf(() => createAdaptiveLimiter({ queue: { maxWaitMs: 10, ordr: 'fifo' } as never })).field).toBe('queue.ordr');
    expect(errorOf(() => createAdaptiveLimiter({ eventLoopDelay: { maxMs: 10, percentil: 90 } as never })).field).toBe(
      'eventLoopDelay.percentil',
    );
  });

  it('refuse partitions without a function choosing them, and the reverse', () => {
    expect(errorOf(() => createAdaptiveLimiter({ partitions: { critical: 1 } })).field).toBe('partition');
    expect(errorOf(() => createAdaptiveLimiter({ partition: () => 'critical' })).field).toBe('partition');
  });

  it('refuse shares out of range or adding up past 1', () => {
    const partition = () => undefined;
    expect(errorOf(() => createAdaptiveLimiter({ partitions: { critical: 1.2 }, partition })).field).toBe('partitions.critical');
    expect(errorOf(() => createAdaptiveLimiter({ partitions: { critical: 0.8, batch: 0.3 }, partition })).field).toBe('partitions');
    expect(createAdaptiveLimiter({ partitions: { a: 0.7, b: 0.2, c: 0.1 }, partition }).snapshot().partitions).toHaveLength(4);
  });

  it('refuse a bad queue', () => {
    expect(errorOf(() => createAdaptiveLimiter({ queue: {} as never })).field).toBe('queue.maxWaitMs');
    expect(errorOf(() => createAdaptiveLimiter({ queue: { maxWaitMs: -1 } })).field).toBe('queue.maxWaitMs');
    expect(errorOf(() => createAdaptiveLimiter({ queue: { maxWaitMs: 10, maxSize: 0 } })).field).toBe('queue.maxSize');
    expect(errorOf(() => createAdaptiveLimiter({ queue: { maxWaitMs: 10, order: 'random' as never } })).field).toBe('queue.order');
  });

  it('refuse bad listeners and a bad clock', () => {
    expect(errorOf(() => createAdaptiveLimiter({ events: { limits: () => {} } as never })).field).toBe('events.limits');
    expect(errorOf(() => createAdaptiveLimiter({ clock: 5 as never })).field).toBe('clock');
    expect(errorOf(() => createAdaptiveLimiter({ eventLoopDelay: {} as never })).field).toBe('eventLoopDelay.maxMs');
  });

  it('default to Vegas from 20', () => {
    const limiter = createAdaptiveLimiter();
    expect(limiter.snapshot()).toEqual({ limit: 20, inflight: 0, queued: 0, estimates: {}, partitions: [] });
    const slot = limiter.tryAcquire();
    if (slot.admitted) slot.success();
    expect(Object.keys(limiter.snapshot().estimates)).toEqual(['noLoadRttMs']);
  });
});
