import request from 'supertest';
import { expect, it } from 'vitest';
import type { BackendContext } from './backends.js';
import { type ContractFramework, type ContractLimiter, contractRateLimit, type HttpAdapter } from './types.js';

/** The limiter's events as a request through the adapter fires them, on memory and redis. */
export function eventCases<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): void {
  it('fires the delayed event once for every request a shaping rule holds', async () => {
    let delayed = 0;
    const limit = contractRateLimit(adapter)({
      // 50 per second: one departure every 20 ms.
      algorithm: 'leaky-bucket',
      mode: 'shaping',
      rate: 50,
      maxDelay: '60ms',
      key: () => 'client',
      events: { delayed: () => delayed++ },
      ...backend.options(),
    });
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: () => ({ body: 'done' }) }] });
    const responses = await Promise.all(Array.from({ length: 5 }, () => request(app).get('/')));
    expect(responses.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 429]);
    // The first leaves at once, the next three are held for 20, 40 and 60 ms, the fifth is refused.
    expect(delayed).toBe(3);
  });
}
