import { VirtualClock } from '@tollgate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createLimiter, LeasingStore, type LeasingStoreOptions, type LimiterOptions, MemoryStore, type RuleSpec } from '../../src/index.js';
import { ControlledStore } from '../helpers/controlled-store.js';
import { errorOf } from '../helpers/error-of.js';
import { callsOf } from '../helpers/trace.js';

const clock = new VirtualClock(0);
const opened: LeasingStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** A limiter on a LeasingStore in front of a ControlledStore, every store on the virtual clock. */
function leased(rule: RuleSpec, options: LeasingStoreOptions = {}, limiterOptions: LimiterOptions = {}) {
  clock.set(0);
  const backend = new ControlledStore(new MemoryStore({ clock: clock.now }));
  const store = new LeasingStore(backend, { clock: clock.now, maxShare: 1 / 4, ...options });
  opened.push(store);
  const limiter = createLimiter({
    ...rule,
    store,
    clock: clock.now,
    denyCache: false,
    onStoreError: 'closed',
    logger: SILENT,
    ...limiterOptions,
  });
  const peek = createLimiter({ ...rule, store: backend.inner, clock: clock.now });
  return { backend, store, limiter, peek };
}

const SILENT = { warn() {}, error() {} };
const FIXED: RuleSpec = { algorithm: 'fixed-window', limit: 100, window: '1s' };

describe('LeasingStore options', () => {
  it('refuses an unknown field, naming it and the closest one', () => {
    const error = errorOf(() => new LeasingStore(new MemoryStore(), { hotrate: 5 } as never));
    expect(error.code).toBe('ERR_TOLLGATE_INVALID_OPTION');
    expect(error.field).toBe('hotrate');
    expect(error.message).toContain('did you mean hotRate?');
  });

  it.each([
    ['leaseKeys', 'sometimes'],
    ['hotRate', 0],
    ['leaseTraffic', 1.5],
    ['maxShare', 1.5],
    ['ttl', 0],
    ['clock', 5],
  ])('refuses %s: %s with an error naming it', (field, value) => {
    const error = errorOf(() => new LeasingStore(new MemoryStore(), { [field]: value }));
    expect(error.code).toBe('ERR_TOLLGATE_INVALID_OPTION');
    expect(error.field).toBe(field);
  });
});

describe('LeasingStore', () => {
  it('decides a key below hotRate in the store, one call per decision', async () => {
    const { backend, limiter } = leased(FIXED, { hotRate: 1000 });
    for (let i = 0; i < 20; i++) {
      clock.advance(10);
      expect((await limiter.consume('cold')).source).toBe('store');
    }
    expect(backend.calls).toBe(20);
  });

  it('answers a hot key from leases: fewer store calls, never more admitted than the limit', async () => {
    const { backend, limiter, peek } = leased(FIXED, { hotRate: 100, leaseTraffic: 20 });
    const decisions = [];
    let callsToAdmitAll = 0;
    for (let i = 0; i < 300; i++) {
      clock.advance(1);
      decisions.push(await limiter.consume('hot'));
      if (decisions.filter((decision) => decision.allowed).length < 100) callsToAdmitAll = backend.calls;
    }
    // The first window (1 s) holds every decision: 100 admitted, the rest refused by the store.
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(100);
    expect(decisions.filter((decision) => decision.source === 'lease').length).toBeGreaterThan(80);
    expect(callsToAdmitAll).toBeLessThan(25);
    expect((await peek.consume('hot')).allowed).toBe(false);
  });

  it('takes in one store call what the store still has when a lease of its whole size does not pass', async () => {
    const { backend, store, limiter, peek } = leased(FIXED, { leaseKeys: 'all', leaseTraffic: 1000 });
    // 90 of the window's 100 spent elsewhere: a lease of 25 (a quarter of the limit) does not pass, one of 10 does.
    await peek.consume('k', { cost: 90 });
    const first = await limiter.consume('k');
    expect(backend.calls).toBe(1);
    expect(first).toMatchObject({ allowed: true, remaining: 9, source: 'lease' });
    expect(store.heldUnits()).toBe(9);
    for (let i = 0; i < 9; i++) expect((await limiter.consume('k')).source).toBe('lease');
    expect(backend.calls).toBe(1);
    expect(store.heldUnits()).toBe(0);
    expect((await peek.peek('k')).remaining).toBe(0);
  });

  it('has no deny cache in front of it unless asked: its refusals answer, and count the traffic that sizes a lease', async () => {
    const backend = new ControlledStore(new MemoryStore({ clock: clock.now }));
    const store = new LeasingStore(backend, { leaseKeys: 'none', clock: clock.now });
    const rule: RuleSpec = { algorithm: 'fixed-window', limit: 1, window: '1s' };
    const byDefault = createLimiter({ ...rule, store, clock: clock.now, prefix: 'default' });
    const cached = createLimiter({ ...rule, store, clock: clock.now, prefix: 'cached', denyCache: true });
    for (let i = 0; i < 6; i++) await byDefault.consume('k');
    expect(backend.calls).toBe(6);
    for (let i = 0; i < 6; i++) await cached.consume('k');
    expect(backend.calls).toBe(8);
  });

  it('reports remaining counting the unspent units of its lease, and the time to reset counting down', async () => {
    const { limiter } = leased(FIXED, { leaseKeys: 'all' });
    clock.set(0);
    const first = await limiter.consume('k');
    clock.advance(10);
    const second = await limiter.consume('k');
    expect(second.source).toBe('lease');
    expect(second.remaining).toBe(first.remaining - 1);
    expect(second.resetAfterMs).toBe(first.resetAfterMs - 10);
  });

  it('gives back what a lease holds when it expires, bounded by its charge', async () => {
    const { store, limiter, peek } = leased(FIXED, { leaseKeys: 'all', ttl: 50 });
    for (let i = 0; i < 5; i++) await limiter.consume('k');
    // The same five consumes, made in the store itself.
    for (let i = 0; i < 5; i++) await peek.consume('reference');
    expect((await peek.peek('k')).remaining).toBeLessThan((await peek.peek('reference')).remaining);
    clock.advance(50);
    store.sweep();
    expect((await peek.peek('k')).remaining).toBe((await peek.peek('reference')).remaining);
  });

  it('gives back every lease on close, then sends each call to the store', async () => {
    const { backend, store, limiter, peek } = leased(FIXED, { leaseKeys: 'all' });
    for (let i = 0; i < 3; i++) await limiter.consume('k');
    for (let i = 0; i < 3; i++) await peek.consume('reference');
    await store.close();
    expect((await peek.peek('k')).remaining).toBe((await peek.peek('reference')).remaining);
    const calls = backend.calls;
    expect((await limiter.consume('k')).source).toBe('store');
    expect(backend.calls).toBe(calls + 1);
  });

  it('takes a refund of a decision it answered back into the lease, with no store call', async () => {
    const { backend, limiter } = leased(FIXED, { leaseKeys: 'all' });
    await limiter.consume('k');
    const spent = await limiter.consume('k');
    expect(spent.source).toBe('lease');
    const calls = backend.calls;
    const after = await limiter.refund('k', { charge: spent });
    expect(backend.calls).toBe(calls);
    expect(after.remaining).toBe(spent.remaining + 1);
  });

  it('keeps answering from a held lease while the store is down, then the failure mode answers', async () => {
    const { backend, limiter } = leased({ algorithm: 'gcra', rate: 1000, period: '1s', burst: 400 }, { leaseKeys: 'all', ttl: 100 });
    await limiter.consume('k');
    await limiter.consume('k');
    const held = (await limiter.consume('k')).remaining;
    backend.mode = 'reject';
    const whileDown = [];
    for (let i = 0; i < 200; i++) whileDown.push(await limiter.consume('k'));
    const fromLease = whileDown.filter((decision) => decision.source === 'lease');
    expect(fromLease.length).toBeGreaterThan(0);
    expect(fromLease.every((decision) => decision.allowed)).toBe(true);
    expect(fromLease.length).toBeLessThanOrEqual(held);
    expect(whileDown.at(-1)!.source).toBe('policy');
    expect(whileDown.at(-1)!.allowed).toBe(false);
  });

  it('stops answering from a lease at its TTL', async () => {
    const { backend, limiter } = leased(FIXED, { leaseKeys: 'all', ttl: 30, leaseTraffic: 100 });
    // Traffic enough for a lease of many units (the last one: 18).
    for (let i = 0; i < 10; i++) await limiter.consume('k');
    const calls = backend.calls;
    clock.advance(29);
    expect((await limiter.consume('k')).source).toBe('lease');
    expect(backend.calls).toBe(calls);
    clock.advance(1);
    await limiter.consume('k');
    // The expired lease's units went back and a new lease was taken.
    expect(backend.calls).toBe(calls + 2);
  });

  it('drops its lease on reset: the next decision comes from the store, fresh', async () => {
    const { backend, limiter } = leased(FIXED, { leaseKeys: 'all' });
    const before = await limiter.consume('k');
    await limiter.reset('k');
    const calls = backend.calls;
    const after = await limiter.consume('k');
    expect(backend.calls).toBe(calls + 1);
    expect(after.remaining).toBe(before.remaining);
  });

  it('gives back its lease on a penalty: the next consume asks the store, which counts the penalty', async () => {
    const { backend, limiter } = leased({ algorithm: 'fixed-window', limit: 10, window: '1s' }, { leaseKeys: 'all', maxShare: 1 });
    for (let i = 0; i < 3; i++) await limiter.consume('k');
    await callsOf(limiter).penalty('k', 10);
    const calls = backend.calls;
    const after = await limiter.consume('k');
    expect(after.allowed).toBe(false);
    expect(backend.calls).toBe(calls + 1);
  });

  it.each<[string, RuleSpec]>([
    ['concurrency', { algorithm: 'concurrency', limit: 100, leaseTtl: '1m' }],
    ['leaky-bucket', { algorithm: 'leaky-bucket', rate: 100, period: '1s', burst: 100 }],
    ['gcra in reserve mode', { algorithm: 'gcra', rate: 100, period: '1s', burst: 100, mode: 'reserve', maxDelay: '1s' }],
  ])('sends %s to the store, every call', async (_name, rule) => {
    const { backend, limiter } = leased(rule, { leaseKeys: 'all' });
    for (let i = 0; i < 10; i++) {
      const decision = await limiter.consume('k');
      expect(decision.source).toBe('store');
      if (decision.lease) await limiter.release(decision.lease);
    }
    expect(backend.calls).toBeGreaterThanOrEqual(10);
  });

  it('leases every limit of a multi-limit rule together, within the smallest', async () => {
    const rule: RuleSpec = {
      limits: [
        { algorithm: 'fixed-window', limit: 40, window: '1s', name: 'second' },
        { algorithm: 'fixed-window', limit: 1000, window: '1m', name: 'minute' },
      ],
    };
    const { limiter } = leased(rule, { leaseKeys: 'all', maxShare: 1 });
    const decisions = [];
    for (let i = 0; i < 60; i++) decisions.push(await limiter.consume('k', {}));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(40);
    const last = decisions.filter((decision) => decision.source === 'lease').at(-1)!;
    expect(last.limits.map((limit) => limit.name)).toEqual(['second', 'minute']);
    expect(last.limits[1]!.remaining).toBeGreaterThan(last.limits[0]!.remaining);
  });
});
