import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLimiter, type Decision, RedisStore } from '../../src/index.js';
import { startTopologies, type Topology } from '../helpers/per-file-servers.js';
import { CLIENT_KINDS, type TestClient } from '../helpers/redis-clients.js';

const KILLS = 30;
const KILL_EVERY_MS = 60;

let counter = 0;

const TOPOLOGIES = startTopologies();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every request counts one unit on an identity of its own, so Redis' count per identity says
 * how many times its script call ran: 1 for every allowed store decision, never 2.
 */
async function loadWhileKilling(connected: TestClient, topology: Topology) {
  const rule = {
    algorithm: 'fixed-window',
    limit: 1000,
    window: '1h',
    prefix: `once${process.pid}-${counter++}`,
    denyCache: false,
  } as const;
  const limiter = createLimiter({
    ...rule,
    store: new RedisStore({ client: connected.client }),
    timeout: 2000,
    onStoreError: 'open',
    breaker: false,
  });
  const servers = topology.servers();
  const killers = servers.map((server) => new Redis(server.port, '127.0.0.1'));
  const decisions: Promise<Decision>[] = [];
  let running = true;
  const load = (async () => {
    while (running) {
      for (let i = 0; i < 20; i++) decisions.push(limiter.consume(`req-${decisions.length}`));
      await sleep(1);
    }
  })();
  let kills = 0;
  while (kills < KILLS) {
    await sleep(KILL_EVERY_MS);
    let killed = 0;
    for (const killer of killers) killed += Number(await killer.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
    // A kill counts once the client had reconnected, so each one cuts calls in flight.
    if (killed > 0) kills++;
  }
  running = false;
  await load;
  for (const killer of killers) killer.disconnect();
  const answers = await Promise.all(decisions);
  // Read back through a client nobody kills: units counted = what a fresh identity has left - what this one has.
  const reader = await topology.connect('ioredis');
  try {
    const reading = createLimiter({ ...rule, store: new RedisStore({ client: reader.client }), timeout: 30_000, onStoreError: 'closed' });
    const [fresh, ...peeks] = await Promise.all(['never-used', ...answers.map((_, i) => `req-${i}`)].map((key) => reading.peek(key)));
    for (const peek of [fresh!, ...peeks]) expect(peek.source).toBe('store');
    return { answers, counts: peeks.map((peek) => fresh!.remaining - peek.remaining) };
  } finally {
    await reader.close();
  }
}

describe.each(CLIENT_KINDS)('%s: connections killed under load', (kind) => {
  it.each(TOPOLOGIES)('on $name, no script call runs twice', async (topology) => {
    const connected = await topology.connect(kind);
    try {
      const { answers, counts } = await loadWhileKilling(connected, topology);
      const storeAllowed = answers.filter((decision) => decision.source === 'store' && decision.allowed);
      const unanswered = answers.filter((decision) => decision.source === 'policy');
      expect(unanswered.length).toBeGreaterThan(0);
      expect(storeAllowed.length).toBeGreaterThan(answers.length / 4);
      expect(Math.max(...counts)).toBe(1);
      // Units counted for the identities Redis decided equal the Redis-allowed decisions exactly.
      const countedForStoreDecisions = answers.reduce((sum, decision, i) => sum + (decision.source === 'store' ? counts[i]! : 0), 0);
      expect(countedForStoreDecisions).toBe(storeAllowed.length);
    } finally {
      await connected.close();
    }
  });
});
