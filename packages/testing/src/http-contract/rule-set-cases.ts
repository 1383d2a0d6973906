import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import request from 'supertest';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { expectTypoRefused, failureOf, rateLimitTypos } from '../option-typos.js';
import { RuleFile } from '../rule-file.js';
import type { BackendContext } from './backends.js';
import { EVENTUALLY } from './eventually.js';
import { structured } from './structured.js';
import {
  type ContractFramework,
  type ContractHandler,
  type ContractLimiter,
  type ContractOptions,
  type ContractRuleSet,
  contractRateLimit,
  type HttpAdapter,
  proxiedRateLimit,
} from './types.js';

const ok: ContractHandler = () => ({ body: 'ok' });

/** The adapter's rule-set mode against the shared rule file (`httpRulesYaml`), edited while it runs. */
export function ruleSetCases<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): void {
  const fixture = ruleFileFixture(adapter, framework, backend);
  matchingCases(fixture, backend);
  lifecycleCases(fixture);
}

/** A rule set loaded from a fresh rule file before each test, and apps limited by it. */
interface RuleFileFixture {
  readonly file: RuleFile;
  readonly rules: ContractRuleSet;
  /** Ends the pending `/export` request, once one is in its handler. */
  readonly release: (() => void) | undefined;
  app(options?: ContractOptions): RequestListener;
}

function ruleFileFixture<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): RuleFileFixture {
  let file: RuleFile;
  let rules: ContractRuleSet;
  let release: (() => void) | undefined;

  function app(options: ContractOptions = {}) {
    const exported = () =>
      new Promise<{ body: string }>((resolve) => {
        release = () => resolve({ body: 'exported' });
      });
    return framework.serve({
      trustProxy: true,
      use: [proxiedRateLimit(adapter)({ ...options, rules })],
      routes: [
        { method: 'POST', path: '/login', handler: ok },
        { path: '/login', handler: ok },
        { path: '/health', handler: ok },
        { path: '/api/data', handler: ok },
        { path: '/search/:term', handler: ok },
        { path: '/export', handler: exported },
        { path: '/flaky', handler: () => ({ status: 500, body: 'failed' }) },
      ],
    });
  }

  beforeEach(async () => {
    release = undefined;
    file = await RuleFile.create();
    const { clock, store } = backend.options() as { clock: () => number; store?: Store };
    rules = await adapter.kit.loadRuleSet(file.path, { clock, ...(store ? { store } : {}), watch: true, debounceMs: 20 });
  });
  afterEach(async () => {
    rules.close();
    await file.remove();
  });
  return {
    get file() {
      return file;
    },
    get rules() {
      return rules;
    },
    get release() {
      return release;
    },
    app,
  };
}

/** Which rule, tier and limits a request meets. */
function matchingCases({ app }: RuleFileFixture, backend: BackendContext): void {
  it("enforces the matched rule's limit exactly, advertised under the rule's name; other methods and unmatched routes pass unlimited", async () => {
    const server = app();
    for (let i = 1; i <= 3; i++) {
      const res = await request(server).post('/login').expect(200);
      expect(structured(res.headers.ratelimit)).toEqual([['login', { r: 3 - i, t: i < 3 ? 20 * i : 20 }]]);
    }
    const denied = await request(server).post('/login').expect(429);
    expect(denied.text).toBe('Too many requests: retry in 20 seconds.');
    expect(denied.headers['retry-after']).toBe('20');
    expect(structured(denied.headers['ratelimit-policy'])).toEqual([['login', { q: 3, w: 60 }]]);
    for (let i = 0; i < 10; i++) {
      for (const res of [await request(server).get('/login'), await request(server).get('/health')]) {
        expect(res.status).toBe(200);
        expect(res.headers.ratelimit).toBeUndefined();
        expect(res.headers['ratelimit-policy']).toBeUndefined();
      }
    }
    // The limit is per client address as the framework resolves it behind a trusted proxy, IPv4-mapped IPv6 included.
    await request(server).post('/login').set('X-Forwarded-For', '198.51.100.7').expect(200);
    await request(server).post('/login').set('X-Forwarded-For', '::ffff:198.51.100.7').expect(200);
    await request(server).post('/login').set('X-Forwarded-For', '198.51.100.7').expect(200);
    await request(server).post('/login').set('X-Forwarded-For', '::ffff:c633:6407').expect(429);
  });

  it('gives the VIP tier its own, larger limit per API key; everyone else shares the standard one per IP', async () => {
    const server = app();
    for (let i = 0; i < 2; i++) await request(server).get('/api/data').expect(200);
    const standard = await request(server).get('/api/data').expect(429);
    expect(structured(standard.headers['ratelimit-policy'])).toEqual([['api', { q: 2, w: 60 }]]);
    // An unknown key is no VIP: the standard tier, keyed by the address, already spent.
    await request(server).get('/api/data').set('X-Api-Key', 'guessed').expect(429);
    for (let i = 1; i <= 6; i++) {
      const res = await request(server).get('/api/data').set('X-Api-Key', 'vip-key').expect(200);
      expect(structured(res.headers['ratelimit-policy'])).toEqual([['api', { q: 6, w: 60 }]]);
      expect(structured(res.headers.ratelimit)).toEqual([['api', { r: 6 - i, t: i < 6 ? 10 * i : 10 }]]);
    }
    await request(server).get('/api/data').set('X-Api-Key', 'vip-key').expect(429);
    // The VIP key is limited wherever it comes from.
    await request(server).get('/api/data').set('X-Api-Key', 'vip-key').set('X-Forwarded-For', '203.0.113.50').expect(429);
    await request(server).get('/api/data').set('X-Forwarded-For', '203.0.113.50').expect(200);
  });

  it('checks every limit of a multi-limit rule, all or nothing', async () => {
    const server = app();
    for (let i = 0; i < 2; i++) await request(server).get('/search/a').expect(200);
    const burst = await request(server).get('/search/b').expect(429);
    expect(burst.headers['retry-after']).toBe('1');
    expect(structured(burst.headers['ratelimit-policy'])).toEqual([
      ['burst', { q: 2, w: 2 }],
      ['hourly', { q: 3, w: 3600 }],
    ]);
    backend.clock.advance(1000);
    const third = await request(server).get('/search/c').expect(200);
    expect(structured(third.headers.ratelimit)).toEqual([
      ['burst', { r: 0, t: 1 }],
      ['hourly', { r: 0, t: 1199 }],
    ]);
    backend.clock.advance(2000);
    const hourly = await request(server).get('/search/d').expect(429);
    expect(hourly.headers['retry-after']).toBe('1197');
  });
}

/** Leases, refunds and edits of the rule file while the app runs. */
function lifecycleCases(fixture: RuleFileFixture): void {
  const { app } = fixture;
  it('releases the concurrency lease when the response ends, and refunds failed requests when asked', async () => {
    const { rules } = fixture;
    const server = createServer(app({ skipFailedRequests: true })).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const first = request(server)
        .get('/export')
        .then((res) => res);
      await vi.waitFor(() => expect(fixture.release).toBeTypeOf('function'), EVENTUALLY);
      const busy = await request(server).get('/export').expect(429);
      expect(structured(busy.headers.ratelimit)).toEqual([['export', { r: 0 }]]);
      fixture.release!();
      expect((await first).status).toBe(200);
      const exportRule = rules.match({ method: 'GET', path: '/export', ip: '127.0.0.1', headers: {} })!;
      await vi.waitFor(async () => expect((await exportRule.limiter.peek(exportRule.key)).allowed).toBe(true), EVENTUALLY);
      // /flaky allows one request an hour, but its 500s are refunded.
      for (let i = 0; i < 4; i++) {
        await request(server).get('/flaky').expect(500);
        const flaky = rules.match({ method: 'GET', path: '/flaky', ip: '127.0.0.1', headers: {} })!;
        await vi.waitFor(async () => expect((await flaky.limiter.peek(flaky.key)).allowed).toBe(true), EVENTUALLY);
      }
    } finally {
      server.close();
      await once(server, 'close');
    }
  });

  it('applies an edited rule file to the next request, and keeps the rules when an edit is broken', async () => {
    const { rules, file } = fixture;
    const server = app();
    await request(server).get('/health').expect(200);
    await file.limitHealth(rules);
    await request(server).get('/health').expect(200);
    await request(server).get('/health').expect(429);

    const refused = new Promise<Error & { field?: string | undefined }>((resolve) => rules.on('error', resolve));
    await file.write('prefix: x\nrules:\n  - name: health\n    match: { path: /health }\n    limit: { perMinute: -1 }\n');
    const error = await refused;
    expect(error.field).toBe('rules[0].limit.perMinute');
    expect(rules.rules).toEqual(['health', 'login', 'api', 'search', 'export', 'flaky']);
    await request(server).get('/health').expect(429);
    for (let i = 0; i < 3; i++) await request(server).post('/login').expect(200);
    await request(server).post('/login').expect(429);
  });
}

/** A bad `rules` option, or an option a rule set decides, is refused with the field named. */
export function ruleSetOptionCases<Limit extends { limiter: ContractLimiter }, Store>(adapter: HttpAdapter<Limit, Store>): void {
  const oneRule = () => adapter.kit.createRuleSet({ rules: [{ name: 'all', limit: { qps: 1 } }] });

  it('names the field of a bad rules option', () => {
    const attempts: [ContractOptions, string][] = [
      [{ rules: 'rules.yaml' }, 'rules'],
      [{ rules: { rules: [] } }, 'rules'],
      [{ rules: oneRule(), qps: 5 }, 'qps'],
      [{ rules: oneRule(), key: () => 'k' }, 'key'],
      [{ rules: oneRule(), user: 'id' }, 'user'],
      [{ rules: oneRule(), headers: 'modern' }, 'headers'],
    ];
    for (const [options, field] of attempts) {
      let thrown: unknown;
      try {
        contractRateLimit(adapter)(options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(adapter.kit.TollgateError);
      expect((thrown as { field?: string }).field).toBe(field);
      expect((thrown as Error).message).toContain(field);
    }
  });
}

/** The adapter's `rateLimit` refuses a misspelt option when it is called, naming it and the option it most likely meant. */
export function optionTypoCases<Limit extends { limiter: ContractLimiter }, Store>(adapter: HttpAdapter<Limit, Store>): void {
  const ruleSet = adapter.kit.createRuleSet({ rules: [{ name: 'all', limit: { qps: 1 } }] });
  it.each(rateLimitTypos(ruleSet))('rateLimit refuses a misspelt option: %s', async (_what, options, field, closest) => {
    const error = await failureOf(() => contractRateLimit(adapter)(options));
    expect(error).toBeInstanceOf(adapter.kit.TollgateError);
    expectTypoRefused(error, field, closest);
  });
}
