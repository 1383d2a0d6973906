import { describe, expect, it } from 'vitest';
import { createConcurrencyLimiter, type StoreErrorEvent } from '../../src/index.js';
import { ControlledStore } from '../helpers/controlled-store.js';

// The concurrency example of the core README, run while the store fails.
describe('releasing when the store fails', () => {
  it('a decision the open policy answered holds no lease, and releasing it does nothing', async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const uploads = createConcurrencyLimiter({ limit: 3, leaseTtl: '2m', store, breaker: false, prefix: 'uploads' });

    const decision = await uploads.acquire('user-1');
    expect(decision).toMatchObject({ allowed: true, source: 'policy' });
    expect(decision.lease).toBeUndefined();
    const callsBefore = store.calls;
    await expect(uploads.release(decision.lease)).resolves.toBeUndefined();
    expect(store.calls).toBe(callsBefore);
  });

  it('a lease whose release the store fails resolves, reports the error, and the slot comes back with leaseTtl', async () => {
    const store = new ControlledStore();
    const errors: StoreErrorEvent[] = [];
    const uploads = createConcurrencyLimiter({
      limit: 1,
      leaseTtl: '2m',
      store,
      breaker: false,
      events: { storeError: (e) => errors.push(e) },
    });

    const decision = await uploads.acquire('user-1');
    expect(decision.lease).toBeDefined();
    store.mode = 'reject';
    await expect(uploads.release(decision.lease)).resolves.toBeUndefined();
    expect(errors.map((e) => e.error.code)).toEqual(['ERR_TOLLGATE_STORE']);
    store.mode = 'ok';
    expect(await uploads.peek('user-1')).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('something that is not a lease still rejects, naming the field', async () => {
    const uploads = createConcurrencyLimiter({ limit: 1, leaseTtl: '2m' });
    await expect(uploads.release({ key: 'user-1', id: '' })).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'lease' });
    await expect(uploads.release(null as never)).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'lease' });
  });
});
