import { createHash } from 'node:crypto';
import { parseRateLimit } from 'ratelimit-header-parser';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { BackendContext } from './backends.js';
import { structured } from './structured.js';
import { type ContractFramework, type ContractHandler, type ContractLimiter, contractRateLimit, type HttpAdapter } from './types.js';

const ok: ContractHandler = () => ({ body: 'ok' });
/** What these cases read are the fields of decisions the store made: a loaded machine must not hand them to the failure mode. */
const PATIENT = { timeout: 10_000 } as const;

/** The fields of every `headers` style, as the clients of express-rate-limit and @nestjs/throttler read them. */
export function headerStyleCases<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): void {
  const rateLimit = contractRateLimit(adapter);
  /** Two requests of a 3-per-minute window 10 s apart, then a denied one: the responses. */
  async function responses(options: Record<string, unknown>) {
    const limit = rateLimit({ windowMs: 60_000, limit: 2, ...options, ...backend.options(), ...PATIENT });
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: ok }] });
    const first = await request(app).get('/').expect(200);
    backend.clock.advance(10_000);
    const second = await request(app).get('/').expect(200);
    const denied = await request(app).get('/').expect(429);
    return { first, second, denied };
  }

  describe.each(['draft-6', 'draft-7', 'draft-6+legacy', 'legacy'])('headers: %s', (headers) => {
    it('is read by ratelimit-header-parser: limit, remaining, and the reset in seconds', async () => {
      const { first, second, denied } = await responses({ headers });
      const now = backend.clock.now();
      const read = (res: request.Response) => {
        const info = parseRateLimit(res.headers, headers === 'legacy' ? { reset: 'unix' } : {});
        return { ...info, reset: Math.round(((info?.reset?.getTime() ?? Number.NaN) - Date.now()) / 1000) };
      };
      expect(read(first)).toMatchObject({ limit: 2, used: 1, remaining: 1 });
      expect(read(second)).toMatchObject({ limit: 2, used: 2, remaining: 0 });
      expect(read(denied)).toMatchObject({ limit: 2, used: 2, remaining: 0 });
      if (headers !== 'legacy') expect(read(denied).reset).toBe(50);
      else expect(denied.headers['x-ratelimit-reset']).toBe(String(Math.ceil((now + 50_000) / 1000)));
      expect(denied.headers['retry-after']).toBe('50');
    });
  });

  it("draft-6 and draft-7 write express-rate-limit's fields", async () => {
    const six = await responses({ headers: 'draft-6' });
    expect(six.second.headers).toMatchObject({
      'ratelimit-policy': '2;w=60',
      'ratelimit-limit': '2',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '50',
    });
    const seven = await responses({ headers: 'draft-7' });
    expect(seven.second.headers).toMatchObject({ 'ratelimit-policy': '2;w=60', ratelimit: 'limit=2, remaining=0, reset=50' });
    expect(seven.second.headers['ratelimit-limit']).toBeUndefined();
  });

  it('draft-8 sends one structured member per limit, with the partition key of the client', async () => {
    const { first } = await responses({ headers: 'draft-8', key: () => 'client-1' });
    expect(structured(first.headers.ratelimit)).toEqual([['default', { r: 1, t: 60 }]]);
    // The first 12 hex digits of sha256('client-1'), in base64, as express-rate-limit sends them.
    const [[name, policy]] = structured(first.headers['ratelimit-policy']) as [[string, { pk: ArrayBuffer }]];
    expect(name).toBe('default');
    expect(policy).toMatchObject({ q: 2, w: 60 });
    expect(Buffer.from(policy.pk).toString()).toBe(createHash('sha256').update('client-1').digest('hex').slice(0, 12));
  });

  it('headers: false sends no rate-limit field at all, Retry-After included', async () => {
    const { first, denied } = await responses({ headers: false });
    for (const res of [first, denied]) {
      const sent = Object.keys(res.headers).filter((name) => /ratelimit|retry-after/i.test(name));
      expect(sent).toEqual([]);
    }
  });
  namedLimitCases(rateLimit, framework, backend);
}

/** @nestjs/throttler's fields of named limits. */
function namedLimitCases<Limit>(
  rateLimit: (options: Record<string, unknown>) => Limit,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): void {
  it("a rule of several limits sends @nestjs/throttler's fields of each under its name, the unsuffixed set of the one named default", async () => {
    const limits = [
      { name: 'short', algorithm: 'fixed-window', limit: 1, window: '1s' },
      { name: 'default', algorithm: 'fixed-window', limit: 5, window: '1m' },
    ];
    const limit = rateLimit({ limits, headers: 'draft+legacy', ...backend.options(), ...PATIENT });
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: ok }] });
    const passed = await request(app).get('/').expect(200);
    expect(passed.headers).toMatchObject({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '4',
      'x-ratelimit-limit-short': '1',
      'x-ratelimit-remaining-short': '0',
      'x-ratelimit-reset-short': '1',
    });
    expect(passed.headers['x-ratelimit-limit-default']).toBeUndefined();
    const denied = await request(app).get('/').expect(429);
    expect(denied.headers).toMatchObject({ 'x-ratelimit-remaining': '4', 'retry-after-short': '1', 'retry-after': '1' });
  });
}
