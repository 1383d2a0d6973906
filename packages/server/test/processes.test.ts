/**
 * `tollgate-server` processes on a real Redis: two of them admit exactly the limit between them,
 * a changed config file applies (a broken one is refused and the last good one stays), SIGTERM
 * answers the calls in flight, and Redis killed under load gets the configured failure mode.
 * Real time is the subject here: file events, signals, Redis going away.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { markdownSample, RedisProcess } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimitRequest, RateLimitResponse } from '../src/index.js';
import { ConfigFolder, ServerProcess, serverYaml } from './helpers/cli.js';

const request = (key: string, value: string): RateLimitRequest => ({ domain: 'edge', descriptors: [{ entries: [{ key, value }] }] });

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('tollgate-server processes on one Redis', () => {
  let redis: RedisProcess;
  let folder: ConfigFolder;

  beforeAll(async () => {
    redis = await RedisProcess.start();
    folder = await ConfigFolder.create();
  });
  afterAll(async () => {
    await redis?.stop();
    await folder?.remove();
  });

  /** A server file on the shared Redis with a rules file of its own; resolves to both names. */
  async function serverFile(rules: string, options = ''): Promise<{ file: string; rules: string }> {
    const id = randomUUID().slice(0, 8);
    const rulesFile = await folder.write(`rules-${id}.yaml`, rules);
    return {
      file: await folder.write(`tollgate-${id}.yaml`, serverYaml(redis.url, `prefix: t${id}\nrules: ${rulesFile}\n${options}`)),
      rules: `rules-${id}.yaml`,
    };
  }

  it('two processes admit exactly the limit between them', async () => {
    const { file } = await serverFile(
      `domain: edge
descriptors:
  - key: user
    rate_limit: { unit: minute, requests_per_unit: 25 }
  - key: tenant
    rate_limit: { unit: minute, requests_per_unit: 10, algorithm: sliding-window-log }
`,
      // A slow machine shows as a failure, never as a call the failure mode allowed.
      'defaults: { timeout: 5000, onStoreError: closed }\n',
    );
    const servers = await Promise.all([ServerProcess.start(file), ServerProcess.start(file)]);
    try {
      for (const [key, limit] of [
        ['user', 25],
        ['tenant', 10],
      ] as const) {
        const calls = Array.from({ length: 80 }, (_, i) => servers[i % 2]!.client.shouldRateLimit(request(key, 'shared')));
        const codes = (await Promise.all(calls)).map((response) => response.overall_code);
        expect(codes.filter((code) => code === 'OK')).toHaveLength(limit);
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it('a changed config file applies; a broken one is refused with its coded error and the last good one stays', async () => {
    const rules = (limit: number) =>
      `domain: edge\ndescriptors:\n  - key: user\n    rate_limit: { unit: minute, requests_per_unit: ${limit} }\n`;
    const { file, rules: rulesName } = await serverFile(rules(25));
    const server = await ServerProcess.start(file);
    const limitNow = async (value: string) => (await server.client.shouldRateLimit(request('user', value))).statuses[0]!.current_limit;
    try {
      await folder.write(rulesName, rules(7));
      await until(async () => (await limitNow('reload'))?.requests_per_unit === 7, 'the new limit');
      await folder.write(rulesName, `${rules(9)}  - key: oops\n    rate_limit: { unit: fortnight, requests_per_unit: 1 }\n`);
      await until(() => server.logs.some((line) => line.level === 'error'), 'the refusal');
      const refusal = server.logs.find((line) => line.level === 'error')!;
      expect(refusal.msg).toBe('config refused; the last good config stays in force');
      expect(refusal.err).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_RULES', field: 'descriptors[1].rate_limit.unit' });
      expect(refusal.err!.message).toContain(folder.path(rulesName));
      // The README's log lines are these two, but for the time, the ports and the file's path.
      const [listening, refused] = markdownSample(new URL('../README.md', import.meta.url), 'logs').map((line) => JSON.parse(line));
      const asInSample = (line: { msg: string; err?: { message: string } }, sample: { time: string }) => ({
        ...line,
        time: sample.time,
        msg: line.msg.replace(/gRPC \d+, HTTP \d+/, 'gRPC 8081, HTTP 8080'),
        ...(line.err
          ? { err: { ...line.err, message: line.err.message.replace(folder.path(rulesName), '/etc/tollgate/ratelimit/edge.yaml') } }
          : {}),
      });
      expect(asInSample(server.logs[0]!, listening)).toEqual(listening);
      expect(asInSample(refusal, refused)).toEqual(refused);
      expect((await limitNow('after'))?.requests_per_unit).toBe(7);
    } finally {
      await server.stop();
    }
  });

  it('SIGTERM: calls in flight are answered, new ones refused, then the process exits', async () => {
    const { file } = await serverFile(
      'domain: edge\ndescriptors:\n  - key: user\n    rate_limit: { unit: minute, requests_per_unit: 100 }\n',
      'defaults: { timeout: 5000, onStoreError: closed }\n',
    );
    const server = await ServerProcess.start(file);
    // Redis stops answering: the calls wait in the server, within their store timeout.
    redis.pause();
    let inFlight: Promise<RateLimitResponse[]>;
    try {
      inFlight = Promise.all(
        Array.from({ length: 4 }, (_, i) => server.client.shouldRateLimit(request('user', `u${i}`), { deadlineMs: 10_000 })),
      );
      await sleep(300);
    } finally {
      setTimeout(() => redis.resume(), 300);
    }
    const stopped = server.process.stop();
    const responses = await inFlight;
    expect(responses.map((response) => response.overall_code)).toEqual(['OK', 'OK', 'OK', 'OK']);
    expect(responses.every((response) => response.statuses[0]!.limit_remaining === 99)).toBe(true);
    await stopped;
    expect(server.logs.map((line) => line.msg).slice(-2)).toEqual(['SIGTERM: shutting down, answering the calls in flight', 'stopped']);
    await expect(server.client.shouldRateLimit(request('user', 'late'), { deadlineMs: 2000 })).rejects.toMatchObject({
      code: expect.any(Number),
    });
    server.client.close();
  });

  it('Redis killed under load: each call answers within the timeout by its failure mode, and the server lives on', async () => {
    const own = await RedisProcess.start();
    const id = randomUUID().slice(0, 8);
    const rulesFile = await folder.write(
      `rules-${id}.yaml`,
      `domain: edge
defaults: { timeout: 200 }
descriptors:
  - key: strict
    onStoreError: closed
    rate_limit: { unit: minute, requests_per_unit: 100000 }
  - key: lenient
    rate_limit: { unit: minute, requests_per_unit: 100000 }
`,
    );
    const server = await ServerProcess.start(
      await folder.write(`tollgate-${id}.yaml`, serverYaml(own.url, `prefix: t${id}\nrules: ${rulesFile}\n`)),
    );
    const ready = () => fetch(`http://127.0.0.1:${server.httpPort}/readyz`).then((response) => response.status);
    try {
      expect(await ready()).toBe(200);
      const results: { key: string; code?: string; error?: number; ms: number; afterKill: boolean }[] = [];
      let killed = false;
      const loop = async (key: string) => {
        for (let i = 0; i < 60; i++) {
          const started = performance.now();
          const afterKill = killed;
          try {
            const response = await server.client.shouldRateLimit(request(key, 'k'), { deadlineMs: 1500 });
            results.push({ key, code: response.overall_code, ms: performance.now() - started, afterKill });
          } catch (error) {
            results.push({ key, error: (error as { code: number }).code, ms: performance.now() - started, afterKill });
          }
          await sleep(10);
        }
      };
      const load = Promise.all(['strict', 'lenient', 'strict', 'lenient'].map(loop));
      await sleep(200);
      await own.kill();
      killed = true;
      await load;
      // Every call answered within its deadline (a call past it would be a DEADLINE_EXCEEDED error).
      expect(results.filter((result) => result.error !== undefined)).toEqual([]);
      expect(Math.max(...results.map((result) => result.ms))).toBeLessThan(1500);
      const afterKill = results.filter((result) => result.afterKill);
      expect(afterKill.length).toBeGreaterThan(20);
      expect(new Set(afterKill.filter((result) => result.key === 'strict').map((result) => result.code))).toEqual(new Set(['OVER_LIMIT']));
      expect(new Set(afterKill.filter((result) => result.key === 'lenient').map((result) => result.code))).toEqual(new Set(['OK']));
      expect(await fetch(`http://127.0.0.1:${server.httpPort}/healthz`).then((response) => response.status)).toBe(200);
      expect(await ready()).toBe(503);
      expect(server.logs.some((line) => line.level === 'error' && line.msg.startsWith('store failing for edge.strict'))).toBe(true);
      // Redis back: the server finds it again on its own.
      await own.launch();
      await until(async () => (await ready()) === 200, 'readiness after Redis came back');
    } finally {
      await server.stop();
      await own.stop();
    }
  });
});
