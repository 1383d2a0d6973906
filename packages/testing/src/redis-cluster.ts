import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { findFreePort } from './ports.js';
import { RedisProcess } from './redis-server.js';

const run = promisify(execFile);

/** A Redis Cluster of `masters` nodes (no replicas) on loopback ports, owned by the test. */
export class RedisClusterProcess {
  private constructor(
    readonly nodes: RedisProcess[],
    private readonly dir: string,
  ) {}

  static async start(masters = 3): Promise<RedisClusterProcess> {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-cluster-'));
    const nodes: RedisProcess[] = [];
    try {
      for (let i = 0; i < masters; i++) {
        const port = await findFreePort();
        const args = ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000'];
        nodes.push(await RedisProcess.start({ port, args, dir }));
      }
      const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
      await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
      await waitForClusterOk(nodes);
      return new RedisClusterProcess(nodes, dir);
    } catch (error) {
      await Promise.all(nodes.map((node) => node.stop()));
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  get startupNodes(): { host: string; port: number }[] {
    return this.nodes.map((node) => ({ host: '127.0.0.1', port: node.port }));
  }

  /** An ioredis Cluster client for these nodes. */
  client(): Cluster {
    return new Cluster(this.startupNodes, { redisOptions: { maxRetriesPerRequest: 1 } });
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function waitForClusterOk(nodes: RedisProcess[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const states = await Promise.all(
      nodes.map(async (node) => {
        const client = new Redis({ port: node.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
        try {
          const info = await client.cluster('INFO');
          return /cluster_state:ok/.test(String(info));
        } finally {
          client.disconnect();
        }
      }),
    );
    if (states.every(Boolean)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('Redis Cluster did not reach cluster_state:ok within 20 s');
}

export { findFreePort };
