import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeProcess, type RedisTarget, startRedis } from '@tollgate/testing';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppConsumer, CONSUMERS, type Consumer, type SuiteConsumer } from '../src/consumers.js';
import { type PackedPackage, packPublicPackages } from '../src/pack.js';
import { compileConsumer, installConsumer, runConsumerSuite } from '../src/scratch.js';

// Outside the workspace: nothing of the monorepo (node_modules, .npmrc, tsconfig) is in reach.
const root = mkdtempSync(join(tmpdir(), 'tollgate-consumers-'));
/** npm installs run this many at a time: the network and the disk are the limit, not the CPU. */
const INSTALLS_AT_ONCE = 4;
const BURST = 5;
const LIMIT = 3;

let redis: RedisTarget;
const installed = new Map<Consumer, Promise<string>>();

beforeAll(async () => {
  const tarballs = join(root, 'tarballs');
  mkdirSync(tarballs);
  const packed = await packPublicPackages(tarballs);
  redis = await startRedis();
  startInstalls(packed);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(installed.values());
  await redis?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Starts every install now, at most INSTALLS_AT_ONCE at a time; each test awaits its own. */
function startInstalls(packed: PackedPackage[]): void {
  const limit = pLimit(INSTALLS_AT_ONCE);
  CONSUMERS.forEach((consumer, index) => {
    const dir = join(root, `${index}-${consumer.fixture}`);
    const done = limit(() => installConsumer(consumer, dir, packed)).then(() => dir);
    done.catch(() => undefined); // reported by the consumer's own test
    installed.set(consumer, done);
  });
}

/** Fires BURST requests at once and answers their statuses, sorted, and the Retry-After of the 429s. */
async function burst(port: number): Promise<{ statuses: number[]; retryAfter: (string | null)[] }> {
  const responses = await Promise.all(Array.from({ length: BURST }, () => fetch(`http://127.0.0.1:${port}/`)));
  await Promise.all(responses.map((response) => response.arrayBuffer()));
  const statuses = responses.map((response) => response.status).sort();
  const retryAfter = responses.filter((response) => response.status === 429).map((response) => response.headers.get('retry-after'));
  return { statuses, retryAfter };
}

/** Starts the app and fires a burst at each of its servers. */
async function checkApp(consumer: AppConsumer, dir: string): Promise<void> {
  if (consumer.compile) await compileConsumer(dir);
  const app = await NodeProcess.start([consumer.entry], {
    cwd: dir,
    env: { REDIS_URL: consumer.redis ? redis.url : undefined, NODE_ENV: 'production' },
    ready: /^listening (.+)$/m,
  });
  try {
    const ports = JSON.parse(app.match[1]!) as Record<string, number>;
    expect(Object.keys(ports).sort()).toEqual([...consumer.servers].sort());
    for (const server of consumer.servers) {
      const { statuses, retryAfter } = await burst(ports[server]!);
      expect({ server, statuses }).toEqual({ server, statuses: [...Array(LIMIT).fill(200), ...Array(BURST - LIMIT).fill(429)] });
      for (const value of retryAfter) expect(Number(value)).toBeGreaterThan(0);
    }
  } finally {
    await app.stop();
  }
}

/** Runs the project's own suite: every test passes (a skipped one counts as failed: nothing is turned off). */
async function checkSuite(consumer: SuiteConsumer, dir: string): Promise<void> {
  const tests = await runConsumerSuite(dir, { REDIS_URL: consumer.redis ? redis.url : undefined });
  expect(tests.length).toBeGreaterThan(0);
  const notPassed = tests.filter((test) => test.status !== 'passed');
  expect(notPassed).toEqual([]);
}

describe('the packed packages installed with npm into fresh projects', () => {
  it.each(CONSUMERS.map((consumer) => [consumer.name, consumer] as const))(
    '%s',
    async (_name, consumer: Consumer) => {
      const dir = await installed.get(consumer)!;
      if (consumer.kind === 'suite') await checkSuite(consumer, dir);
      else await checkApp(consumer, dir);
    },
    600_000,
  );
});
