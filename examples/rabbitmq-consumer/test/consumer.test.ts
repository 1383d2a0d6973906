import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { NodeProcess, type RedisTarget, startRedis } from '@tollgate/testing';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const GLOBAL_PER_SECOND = 20;
const TENANT_RATES = { slow: 4 };
const BURST = { slow: 12, fast: 14, other: 14 } as const;
const TOTAL = Object.values(BURST).reduce((a, b) => a + b, 0);

let target: RedisTarget;
let redis: Redis;
beforeAll(async () => {
  target = await startRedis();
  redis = new Redis(target.url);
});
afterAll(async () => {
  await redis?.quit();
  await target?.close();
});

/** Messages of the burst, shuffled by tenant as a real queue would interleave them. */
function burst(): { id: string; tenant: string }[] {
  const messages = Object.entries(BURST).flatMap(([tenant, n]) => Array.from({ length: n }, () => ({ id: randomUUID(), tenant })));
  return messages.sort((a, b) => a.id.localeCompare(b.id));
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Job i (sorted) may not start before i slots of `intervalMs` after job 0. The times are read
 * with Date.now() in three busy processes after their wait resolved: each may be a few tens of
 * ms late, which the tolerance absorbs; a missing limit shifts jobs by whole intervals.
 */
/** The most start times within any span of `spanMs` (each window begins at a start). */
function mostWithin(times: number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return Math.max(...sorted.map((start) => sorted.filter((t) => t >= start && t < start + spanMs).length));
}

function expectPaced(times: number[], intervalMs: number): void {
  const sorted = [...times].sort((a, b) => a - b);
  for (const [i, t] of sorted.entries()) expect(t - sorted[0]!).toBeGreaterThanOrEqual(intervalMs * i - 30);
}

describe('three consumer processes on one RabbitMQ queue, limits shared through Redis', () => {
  it('process a burst at the global and per-tenant rates, every message once, through a crash', { timeout: 60_000 }, async () => {
    const queue = `tollgate-test-${process.pid}-${Date.now()}`;
    const prefix = `rmq-${queue}`;
    const connection = await amqp.connect(AMQP_URL);
    const channel = await connection.createConfirmChannel();
    await channel.assertQueue(queue, { durable: false });
    const consumers: NodeProcess[] = [];
    try {
      const env = (name: string, crashAfter = 0) => ({
        AMQP_URL,
        REDIS_URL: target.url,
        QUEUE: queue,
        PREFIX: prefix,
        CONSUMER: name,
        CRASH_AFTER: String(crashAfter),
        GLOBAL_PER_SECOND: String(GLOBAL_PER_SECOND),
        TENANT_PER_SECOND: String(GLOBAL_PER_SECOND),
        TENANT_RATES: JSON.stringify(TENANT_RATES),
      });
      for (const [name, crashAfter] of [
        ['c1', 0],
        ['c2', 0],
        ['crashing', 4],
      ] as const) {
        consumers.push(
          await NodeProcess.start(['--import', 'tsx', 'src/consumer.ts'], {
            cwd: exampleDir,
            env: env(name, crashAfter),
            ready: /consuming/,
          }),
        );
      }
      const messages = burst();
      for (const { id, tenant } of messages)
        channel.sendToQueue(queue, Buffer.from('{}'), { messageId: id, headers: { 'x-tenant': tenant } });
      await channel.waitForConfirms();

      await waitUntil(async () => (await redis.hlen(`${prefix}:done`)) === TOTAL, 30_000).catch(async (error) => {
        throw new Error(
          `${error.message}: ${await redis.hlen(`${prefix}:done`)} of ${TOTAL} done\n${consumers.map((c) => c.printed).join('\n')}`,
        );
      });
      const done = await redis.hgetall(`${prefix}:done`);
      const effects = await redis.lrange(`${prefix}:effects`, 0, -1);
      const deliveries = Object.values(await redis.hgetall(`${prefix}:deliveries`)).map(Number);
      const records = Object.values(done).map((json) => JSON.parse(json) as { consumer: string; tenant: string; at: number });

      // Every message processed, none twice: the work ran exactly once per id.
      expect(Object.keys(done).sort()).toEqual(messages.map((m) => m.id).sort());
      expect(effects.length).toBe(TOTAL);
      expect(new Set(effects).size).toBe(TOTAL);
      // The crash left unacked messages behind: they were delivered again, to the others.
      expect(deliveries.some((n) => n > 1)).toBe(true);
      // It exits when its fourth job is done; jobs it holds at once (prefetch) run concurrently, and
      // one whose commit reached Redis before the exit ran counts too (its redelivery is then a no-op).
      expect(records.filter((r) => r.consumer === 'crashing').length).toBeGreaterThanOrEqual(4);
      expect(new Set(records.map((r) => r.consumer))).toEqual(new Set(['c1', 'c2', 'crashing']));

      const times = records.map((r) => r.at);
      const spanMs = Math.max(...times) - Math.min(...times);
      const slow = records.filter((r) => r.tenant === 'slow').map((r) => r.at);
      const slowSpanMs = Math.max(...slow) - Math.min(...slow);
      console.log(
        `rabbitmq: ${TOTAL} messages in ${spanMs} ms (${(((TOTAL - 1) * 1000) / spanMs).toFixed(1)}/s, limit ${GLOBAL_PER_SECOND}/s); ` +
          `tenant slow ${slow.length} in ${slowSpanMs} ms (${(((slow.length - 1) * 1000) / slowSpanMs).toFixed(1)}/s, limit ${TENANT_RATES.slow}/s); ` +
          `deliveries ${deliveries.reduce((a, b) => a + b, 0)} for ${TOTAL} messages; ` +
          `most in any 1 s: ${mostWithin(times, 1000)} (limit ${GLOBAL_PER_SECOND}), tenant slow ${mostWithin(slow, 1000)} (limit ${TENANT_RATES.slow})`,
      );
      expectPaced(times, 1000 / GLOBAL_PER_SECOND);
      expectPaced(slow, 1000 / TENANT_RATES.slow);
      // Not much slower than the limits either: a message reserves its slots at most twice (once
      // more when the crash sent it back to the queue), so the slowest tenant bounds the run.
      const slowestBoundMs = ((2 * BURST.slow - 1) * 1000) / TENANT_RATES.slow;
      expect(spanMs).toBeLessThan(Math.max(slowestBoundMs, ((2 * TOTAL - 1) * 1000) / GLOBAL_PER_SECOND) + 300);
    } finally {
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await channel.deleteQueue(queue).catch(() => {});
      await connection.close();
    }
  });
});
