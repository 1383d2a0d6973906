import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { findFreePort } from './ports.js';
import { RedisProcess } from './redis-server.js';

const run = promisify(execFile);

export interface RedisClusterOptions {
  /** Replicas of each master (default 0); a replica is promoted when its master fails. */
  replicasPerMaster?: number;
  /** How long a node may be unreachable before it counts as failed (default 2000 ms). */
  nodeTimeoutMs?: number;
  /** Whether every slot must be served for the cluster to answer at all (Redis' default, true). */
  requireFullCoverage?: boolean;
}

/** A Redis Cluster of `masters` masters (and their replicas) on loopback ports, owned by the test. */
export class RedisClusterProcess {
  private constructor(
    readonly nodes: RedisProcess[],
    private readonly dir: string,
  ) {}

  static async start(masters = 3, options: RedisClusterOptions = {}): Promise<RedisClusterProcess> {
    const { replicasPerMaster = 0, nodeTimeoutMs = 2000, requireFullCoverage = true } = options;
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-cluster-'));
    const nodes: RedisProcess[] = [];
    try {
      for (let i = 0; i < masters * (1 + replicasPerMaster); i++) {
        const port = await findFreePort();
        const args = [
          ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`],
          ...['--cluster-node-timeout', String(nodeTimeoutMs), '--cluster-require-full-coverage', requireFullCoverage ? 'yes' : 'no'],
        ];
        nodes.push(await RedisProcess.start({ port, args, dir }));
      }
      const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
      await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicasPerMaster), '--cluster-yes']);
      await waitForClusterOk(nodes);
      if (replicasPerMaster > 0) await waitForReplicasInSync(nodes, masters * replicasPerMaster);
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

  /** The node listening on `port`. */
  node(port: number): RedisProcess {
    const node = this.nodes.find((candidate) => candidate.port === port);
    if (!node) throw new Error(`no node of this cluster listens on ${port}`);
    return node;
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

/** Waits until `replicas` nodes report a replica link that is up (so one can take over its master). */
async function waitForReplicasInSync(nodes: RedisProcess[], replicas: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const linked = await Promise.all(
      nodes.map(async (node) => {
        const client = new Redis({ port: node.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
        try {
          const info = String(await client.info('replication'));
          return /role:slave/.test(info) && /master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info);
        } finally {
          client.disconnect();
        }
      }),
    );
    if (linked.filter(Boolean).length >= replicas) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fewer than ${replicas} replicas were in sync with their masters within 20 s`);
}

export { findFreePort };
