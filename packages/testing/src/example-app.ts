import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownSample } from './markdown-sample.js';
import { NodeProcess } from './node-process.js';
import { type RedisTarget, startRedis } from './redis-server.js';

async function send(base: string, path: string, init?: RequestInit) {
  const res = await fetch(base + path, init);
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** What an example's framework does its own way. */
export interface ExampleAppOptions {
  /** The Content-Type of the login route's problem+json 429. Default `application/problem+json` (Fastify adds the charset). */
  problemContentType?: string;
}

/**
 * The example apps' tests, written once: the Express, Koa and Fastify examples serve the same API
 * (`src/server.ts`) and the same demo (`src/demo.ts`) from the folder `exampleUrl`.
 */
export function describeExampleApp(framework: string, exampleUrl: URL, options: ExampleAppOptions = {}): void {
  const exampleDir = fileURLToPath(exampleUrl);

  describe.each(['memory', 'redis'] as const)(`the ${framework} example on %s (built packages: \`pnpm test\` builds them)`, (kind) => {
    const app = serveExample(kind, exampleDir);

    it('says which store it uses', () => {
      expect(app.store).toBe(kind);
    });

    itLimitsApiRoutes(app);
    itLimitsLoginAndSearchButNeverHealth(app, options.problemContentType ?? 'application/problem+json');
  });

  describe(`the ${framework} demo (what \`pnpm demo\` runs)`, () => {
    it('prints 200s turning into 429s, with the headers', () => {
      const out = execFileSync(process.execPath, ['--import', 'tsx', 'src/demo.ts'], {
        cwd: exampleDir,
        encoding: 'utf8',
        env: { ...process.env, REDIS_URL: '' },
      });
      const statuses = [...out.matchAll(/^request (\d)\s+(\d{3})/gm)].map((m) => Number(m[2]));
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      expect(out).toContain('ratelimit: "public";r=0;t=5  retry-after: 5');
      // The root README shows two of its lines.
      const shown = markdownSample(new URL('../../../README.md', import.meta.url), 'demo');
      expect(out.split('\n').filter((line) => shown.includes(line))).toEqual(shown);
    });
  });
}

/** The example's server, started before the tests of the enclosing describe: where it listens, what store it uses. */
interface ExampleServer {
  base: string;
  store: string | undefined;
}

function serveExample(kind: 'memory' | 'redis', exampleDir: string): ExampleServer {
  const app: ExampleServer = { base: '', store: undefined };
  let redis: RedisTarget | undefined;
  let server: NodeProcess;
  beforeAll(async () => {
    if (kind === 'redis') redis = await startRedis();
    server = await NodeProcess.start(['--import', 'tsx', 'src/server.ts'], {
      cwd: exampleDir,
      env: { PORT: '0', REDIS_URL: redis?.url ?? '', KEY_PREFIX: `test-${randomUUID().slice(0, 8)}` },
      ready: /listening on (http:\/\/localhost:\d+) \(store: (\w+)/,
    });
    app.base = server.match[1]!;
    app.store = server.match[2];
  });
  afterAll(async () => {
    await server?.stop();
    await redis?.close();
  });
  return app;
}

function itLimitsApiRoutes(app: ExampleServer): void {
  it('GET /api/public: 5 at once per IP, then 429 with Retry-After', async () => {
    for (let i = 4; i >= 0; i--) {
      const res = await send(app.base, '/api/public');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"public";q=5;w=25');
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"public";r=${i};t=\\d+$`));
    }
    const denied = await send(app.base, '/api/public');
    expect(denied.status).toBe(429);
    expect(denied.headers.get('retry-after')).toBe('5');
    expect(denied.headers.get('cache-control')).toBe('no-store');
    expect(denied.body).toBe('Too many requests: retry in 5 seconds.');
  });

  it('GET /api/me: 401 without a key, per-key limits by tier with one', async () => {
    expect((await send(app.base, '/api/me')).status).toBe(401);
    const standard = await send(app.base, '/api/me', { headers: { 'x-api-key': 'demo-key' } });
    expect(standard.status).toBe(200);
    expect(JSON.parse(standard.body)).toEqual({ account: { id: 'alice', tier: 'standard' }, remaining: 59 });
    expect(standard.headers.get('ratelimit-policy')).toBe('"standard";q=60;w=60');
    const vip = await send(app.base, '/api/me', { headers: { 'x-api-key': 'vip-key' } });
    expect(vip.status).toBe(200);
    expect(vip.headers.get('ratelimit-policy')).toBe('"vip";q=600;w=60');
    expect(vip.headers.get('ratelimit')).toMatch(/^"vip";r=599;t=\d+$/);
  });
}

function itLimitsLoginAndSearchButNeverHealth(app: ExampleServer, problemContentType: string): void {
  it('POST /auth/login: 5 attempts per 15 minutes, then a problem+json 429', async () => {
    const attempt = () =>
      send(app.base, '/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'alice', password: 'guess' }),
      });
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(401);
    const denied = await attempt();
    expect(denied.status).toBe(429);
    expect(denied.headers.get('content-type')).toBe(problemContentType);
    expect(JSON.parse(denied.body)).toMatchObject({
      status: 429,
      title: 'Too Many Requests',
      detail: 'Too many login attempts: try again later.',
    });
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThan(800);
  });

  it('GET /api/search: two limits, both in the headers; the per-minute one bites first', async () => {
    const first = await send(app.base, '/api/search?q=tollgate');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"per-minute";q=4;w=12, "per-hour";q=100;w=3600');
    expect(first.headers.get('ratelimit')).toMatch(/^"per-minute";r=3;t=\d+, "per-hour";r=99;t=\d+$/);
    for (let i = 0; i < 3; i++) expect((await send(app.base, '/api/search?q=tollgate')).status).toBe(200);
    expect((await send(app.base, '/api/search?q=tollgate')).status).toBe(429);
  });

  it('GET /health is never limited', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await send(app.base, '/health');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toBeNull();
    }
  });
}
