import { RedisClusterProcess } from '@tollgate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createLimiter, type Decision, RedisStore } from '../../src/index.js';
import { type ClientKind, connectCluster, type TestClient } from '../helpers/redis-clients.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: RedisClusterProcess | undefined;
let connected: TestClient | undefined;
afterEach(async () => {
  await connected?.close();
  await cluster?.stop();
});

interface Answer {
  key: string;
  sentAt: number;
  decision: Decision;
}

describe.each(['ioredis', 'node-redis'] as ClientKind[])(
  '%s: one master of a 3-master + 3-replica Cluster SIGKILLed under load',
  (kind) => {
    it('keeps Redis decisions for keys on healthy masters, and the failed slots recover once the replica is promoted', async () => {
      cluster = await RedisClusterProcess.start(3, { replicasPerMaster: 1, nodeTimeoutMs: 1000, requireFullCoverage: false });
      connected = await connectCluster(kind, cluster.startupNodes);
      const store = new RedisStore({ client: connected.client });
      const limiter = createLimiter({
        algorithm: 'fixed-window',
        limit: 1_000_000,
        window: '1h',
        store,
        prefix: `shard${process.pid}`,
        timeout: 300,
        onStoreError: 'closed',
        breaker: { failureThreshold: 3, coolDownMs: 200 },
        denyCache: false,
      });
      const keys = Array.from({ length: 60 }, (_, i) => `user-${i}`);
      for (const decision of await Promise.all(keys.map((key) => limiter.consume(key)))) expect(decision.source).toBe('store');
      const masterOf = new Map(keys.map((key) => [key, store.failureDomain(key)]));
      const victim = masterOf.get(keys[0]!)!;
      const victimKeys = keys.filter((key) => masterOf.get(key) === victim);
      expect(victimKeys.length).toBeLessThan(keys.length);

      const answers: Answer[] = [];
      const inFlight: Promise<void>[] = [];
      const timer = setInterval(() => {
        const sentAt = performance.now();
        for (const key of keys) inFlight.push(limiter.consume(key).then((decision) => void answers.push({ key, sentAt, decision })));
      }, 20);
      try {
        await sleep(400);
        await cluster.node(Number(victim.split(':')[1])).kill();
        const killedAt = performance.now();
        const recovered = () => answers.some((a) => a.sentAt > killedAt && victimKeys.includes(a.key) && a.decision.source === 'store');
        const deadline = performance.now() + 20_000;
        while (!recovered() && performance.now() < deadline) await sleep(50);
        await sleep(300);
        clearInterval(timer);
        await Promise.all(inFlight);

        const healthy = answers.filter((a) => masterOf.get(a.key) !== victim);
        const failed = answers.filter((a) => masterOf.get(a.key) === victim && a.sentAt > killedAt);
        expect(healthy.length).toBeGreaterThan(500);
        expect(healthy.filter((a) => a.decision.source !== 'store')).toEqual([]);
        expect(failed.some((a) => a.decision.source === 'policy')).toBe(true);
        expect(recovered()).toBe(true);
      } finally {
        clearInterval(timer);
      }
    });
  },
);
