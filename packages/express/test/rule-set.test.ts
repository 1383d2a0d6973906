import { once } from 'node:events';
import { createRuleSet, type RuleSet, TollgateError } from '@tollgate/core';
import { httpRulesYaml, RuleFile, VirtualClock } from '@tollgate/testing';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import { parseList } from 'structured-headers';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadRuleSet, rateLimit } from '../src/index.js';
import { type Backend, startBackends } from './backends.js';

const FRAMEWORKS = [
  ['Express 4', express4],
  ['Express 5', express5],
] as const;

let backends: Backend[];
let closeBackends: () => Promise<void>;
beforeAll(async () => {
  ({ backends, close: closeBackends } = await startBackends());
});
afterAll(() => closeBackends());

function structured(value: string | undefined): [unknown, Record<string, unknown>][] {
  return parseList(value ?? '').map(([item, params]) => [item, Object.fromEntries(params)]);
}

const ok: RequestHandler = (_req, res) => {
  res.send('ok');
};

describe.each(FRAMEWORKS)('%s with a rule file', (_name, express) => {
  describe.each(['memory', 'redis'] as const)('on %s', (backendName) => {
    let clock: VirtualClock;
    let file: RuleFile;
    let rules: RuleSet;
    let release: (() => void) | undefined;

    function app(options: Omit<Parameters<typeof rateLimit>[0], 'rules'> = {}) {
      const server = express();
      server.set('trust proxy', 'loopback');
      server.use(rateLimit({ ...options, rules }));
      server.post('/login', ok);
      server.get('/login', ok);
      server.get('/health', ok);
      server.get('/api/data', ok);
      server.get('/search/:term', ok);
      server.get('/export', (_req, res) => {
        release = () => res.send('exported');
      });
      server.get('/flaky', (_req, res) => {
        res.status(500).send('failed');
      });
      return server;
    }

    beforeEach(async () => {
      clock = new VirtualClock();
      release = undefined;
      file = await RuleFile.create();
      const { store } = backends.find((backend) => backend.name === backendName)!.options(clock.now);
      rules = await loadRuleSet(file.path, { clock: clock.now, ...(store ? { store } : {}), watch: true, debounceMs: 20 });
    });
    afterEach(async () => {
      rules.close();
      await file.remove();
    });

    it("enforces the matched rule's limit exactly; other methods and unmatched routes pass unlimited", async () => {
      const server = app();
      for (let i = 1; i <= 3; i++) {
        const res = await request(server).post('/login').expect(200);
        expect(structured(res.headers.ratelimit)).toEqual([['default', { r: 3 - i, t: i < 3 ? 20 * i : 20 }]]);
      }
      const denied = await request(server).post('/login').expect(429);
      expect(denied.text).toBe('Too many requests: retry in 20 seconds.');
      expect(denied.headers['retry-after']).toBe('20');
      expect(structured(denied.headers['ratelimit-policy'])).toEqual([['default', { q: 3, w: 60 }]]);
      for (let i = 0; i < 10; i++) {
        for (const res of [await request(server).get('/login'), await request(server).get('/health')]) {
          expect(res.status).toBe(200);
          expect(res.headers.ratelimit).toBeUndefined();
          expect(res.headers['ratelimit-policy']).toBeUndefined();
        }
      }
      // The limit is per client address as Express resolves it (trust proxy), IPv4-mapped IPv6 included.
      await request(server).post('/login').set('X-Forwarded-For', '198.51.100.7').expect(200);
      await request(server).post('/login').set('X-Forwarded-For', '::ffff:198.51.100.7').expect(200);
      await request(server).post('/login').set('X-Forwarded-For', '198.51.100.7').expect(200);
      await request(server).post('/login').set('X-Forwarded-For', '::ffff:c633:6407').expect(429);
    });

    it('gives the VIP tier its own, larger limit per API key; everyone else shares the standard one per IP', async () => {
      const server = app();
      for (let i = 0; i < 2; i++) await request(server).get('/api/data').expect(200);
      const standard = await request(server).get('/api/data').expect(429);
      expect(structured(standard.headers['ratelimit-policy'])).toEqual([['default', { q: 2, w: 60 }]]);
      // An unknown key is no VIP: the standard tier, keyed by the address, already spent.
      await request(server).get('/api/data').set('X-Api-Key', 'guessed').expect(429);
      for (let i = 1; i <= 6; i++) {
        const res = await request(server).get('/api/data').set('X-Api-Key', 'vip-key').expect(200);
        expect(structured(res.headers['ratelimit-policy'])).toEqual([['default', { q: 6, w: 60 }]]);
        expect(structured(res.headers.ratelimit)).toEqual([['default', { r: 6 - i, t: i < 6 ? 10 * i : 10 }]]);
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
      clock.advance(1000);
      const third = await request(server).get('/search/c').expect(200);
      expect(structured(third.headers.ratelimit)).toEqual([
        ['burst', { r: 0, t: 1 }],
        ['hourly', { r: 0, t: 1199 }],
      ]);
      clock.advance(2000);
      const hourly = await request(server).get('/search/d').expect(429);
      expect(hourly.headers['retry-after']).toBe('1197');
    });

    it('releases the concurrency lease when the response ends, and refunds failed requests when asked', async () => {
      const server = app({ skipFailedRequests: true }).listen(0);
      try {
        const first = request(server)
          .get('/export')
          .then((res) => res);
        await vi.waitFor(() => expect(release).toBeTypeOf('function'));
        const busy = await request(server).get('/export').expect(429);
        expect(structured(busy.headers.ratelimit)).toEqual([['default', { r: 0 }]]);
        release!();
        expect((await first).status).toBe(200);
        const exportRule = rules.match({ method: 'GET', path: '/export', ip: '127.0.0.1', headers: {} })!;
        await vi.waitFor(async () => expect((await exportRule.limiter.peek(exportRule.key)).allowed).toBe(true));
        // /flaky allows one request an hour, but its 500s are refunded.
        for (let i = 0; i < 4; i++) {
          await request(server).get('/flaky').expect(500);
          const flaky = rules.match({ method: 'GET', path: '/flaky', ip: '127.0.0.1', headers: {} })!;
          await vi.waitFor(async () => expect((await flaky.limiter.peek(flaky.key)).allowed).toBe(true));
        }
      } finally {
        server.close();
        await once(server, 'close');
      }
    });

    it('applies an edited rule file to the next request, and keeps the rules when an edit is broken', async () => {
      const server = app();
      await request(server).get('/health').expect(200);
      const reloaded = new Promise((resolve) => rules.on('reload', resolve));
      await file.write(
        httpRulesYaml(file.prefix).replace(
          'rules:\n',
          'rules:\n  - name: health\n    match: { path: /health }\n    limit: { perMinute: 1 }\n',
        ),
      );
      await reloaded;
      await request(server).get('/health').expect(200);
      await request(server).get('/health').expect(429);

      const refused = new Promise<TollgateError>((resolve) => rules.on('error', resolve));
      await file.write('prefix: x\nrules:\n  - name: health\n    match: { path: /health }\n    limit: { perMinute: -1 }\n');
      const error = await refused;
      expect(error.field).toBe('rules[0].limit.perMinute');
      expect(rules.rules).toEqual(['health', 'login', 'api', 'search', 'export', 'flaky']);
      await request(server).get('/health').expect(429);
      for (let i = 0; i < 3; i++) await request(server).post('/login').expect(200);
      await request(server).post('/login').expect(429);
    });
  });
});

it('names the field of a bad rules option', () => {
  const attempts: [unknown, string][] = [
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
      rateLimit(options as Parameters<typeof rateLimit>[0]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TollgateError);
    expect((thrown as TollgateError).field).toBe(field);
    expect((thrown as TollgateError).message).toContain(field);
  }
});

function oneRule(): RuleSet {
  return createRuleSet({ rules: [{ name: 'all', limit: { qps: 1 } }] });
}
