import { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, type Limiter, RedisStore } from '../src/index.js';
import { commandCalls } from './helpers/command-stats.js';
import { CLIENT_KINDS, type ClientKind, connectClient } from './helpers/redis-clients.js';
import { STORE_SEMANTICS } from './helpers/stores.js';

let counter = 0;
let server: RedisProcess;
let renamed: RedisProcess;
let admin: Redis;
let renamedAdmin: Redis;

beforeAll(async () => {
  [server, renamed] = await Promise.all([
    RedisProcess.start(),
    // As a Redis older than 7 answers: no FUNCTION command.
    RedisProcess.start({ args: ['--rename-command', 'FUNCTION', 'FUNCTION_RENAMED'] }),
  ]);
  admin = new Redis(server.url);
  renamedAdmin = new Redis(renamed.url);
  // Users allowed everything but loading functions, or but calling them.
  await admin.acl('SETUSER', 'noload', 'on', '>secret', '~*', '+@all', '-function');
  await admin.acl('SETUSER', 'nofcall', 'on', '>secret', '~*', '+@all', '-fcall');
});
afterAll(async () => {
  admin?.disconnect();
  renamedAdmin?.disconnect();
  await Promise.all([server?.stop(), renamed?.stop()]);
});

/** How many times each command ran on `url`'s server while `run` ran. */
async function countCalls(url: string, run: () => Promise<void>): Promise<Record<string, number>> {
  const redis = new Redis(url);
  try {
    const commands = ['fcall', 'evalsha', 'eval', 'function|load'];
    const read = async () => {
      const stats = await redis.info('commandstats');
      return commands.map((command) => commandCalls(stats, command));
    };
    const before = await read();
    await run();
    const after = await read();
    return Object.fromEntries(commands.map((command, i) => [command, after[i]! - before[i]!]));
  } finally {
    redis.disconnect();
  }
}

function burstLimiter(client: object): Limiter {
  const prefix = `fn${process.pid}-${counter++}`;
  return createLimiter({
    algorithm: 'gcra',
    rate: 1,
    period: '1h',
    burst: 5,
    store: new RedisStore({ client }),
    prefix,
    ...STORE_SEMANTICS,
  });
}

/** Three consumes one after another on a new store over `url`, each checked against a burst of 5. */
function threeConsumes(kind: ClientKind, url: string): () => Promise<void> {
  return async () => {
    const connected = await connectClient(kind, url);
    try {
      const limiter = burstLimiter(connected.client);
      for (const remaining of [4, 3, 2]) expect(await limiter.consume('ann')).toMatchObject({ allowed: true, remaining, source: 'store' });
    } finally {
      await connected.close();
    }
  };
}

const withUser = (url: string, user: string) => url.replace('redis://', `redis://${user}:secret@`);

describe.each(CLIENT_KINDS)('RedisStore with %s', (kind) => {
  it('loads the library once and decides by FCALL where Redis has functions', async () => {
    const calls = await countCalls(server.url, threeConsumes(kind, server.url));
    expect(calls).toEqual({ fcall: 3, evalsha: 0, eval: 0, 'function|load': 1 });
  });

  it('falls back to the script where FUNCTION is not a command (Redis 6, or renamed)', async () => {
    const calls = await countCalls(renamed.url, threeConsumes(kind, renamed.url));
    expect(calls).toEqual({ fcall: 0, evalsha: 2, eval: 1, 'function|load': 0 });
  });

  it('sends the script again after SCRIPT FLUSH where it fell back (NOSCRIPT → EVAL)', async () => {
    const calls = await countCalls(renamed.url, async () => {
      const connected = await connectClient(kind, renamed.url);
      try {
        const limiter = burstLimiter(connected.client);
        expect(await limiter.consume('bo')).toMatchObject({ allowed: true, remaining: 4, source: 'store' });
        await renamedAdmin.script('FLUSH');
        expect(await limiter.consume('bo')).toMatchObject({ allowed: true, remaining: 3, source: 'store' });
      } finally {
        await connected.close();
      }
    });
    expect(calls).toEqual({ fcall: 0, evalsha: 1, eval: 2, 'function|load': 0 });
  });

  it('answers a peek by the script where Redis, its memory full, refuses FCALL whole', async () => {
    const connected = await connectClient(kind, server.url);
    const limiter = burstLimiter(connected.client);
    try {
      expect(await limiter.consume('cy')).toMatchObject({ allowed: true, remaining: 4, source: 'store' });
      const { allowed, remaining } = await limiter.peek('cy');
      await admin.config('SET', 'maxmemory', '1');
      const calls = await countCalls(server.url, async () => {
        expect(await limiter.peek('cy')).toMatchObject({ allowed, remaining, source: 'store' });
      });
      expect(calls).toMatchObject({ evalsha: 0, eval: 1 });
    } finally {
      await admin.config('SET', 'maxmemory', '0');
      await connected.close();
    }
  });

  it('falls back to the script for a user not allowed FUNCTION LOAD', async () => {
    const calls = await countCalls(server.url, threeConsumes(kind, withUser(server.url, 'noload')));
    expect(calls).toMatchObject({ fcall: 0, evalsha: 2, eval: 1 });
  });

  it('falls back to the script for a user not allowed FCALL', async () => {
    const calls = await countCalls(server.url, threeConsumes(kind, withUser(server.url, 'nofcall')));
    expect(calls).toMatchObject({ evalsha: 2, eval: 1, 'function|load': 1 });
  });
});
