import { DriverCalls, LIBRARY, type ScriptTransport } from './transport.js';

/**
 * The parts of a node-redis (4, 5, 6) client this store uses. node-redis rejects the commands a
 * lost connection left unanswered and never re-sends them; commands queued while offline
 * had not been written, so they run once after reconnecting.
 */
interface NodeRedisClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** The parts of a node-redis (4, 5, 6) cluster this store uses; it follows MOVED and ASK (with ASKING) itself. */
interface NodeRedisCluster {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  getSlotMaster(slot: number): Address | undefined;
  readonly masters?: readonly Address[];
  /** The client of one node (a promise of it in node-redis 5 and later). */
  nodeClient(node: Address): NodeRedisClient | Promise<NodeRedisClient>;
  on?(event: 'node-error', listener: (error: unknown, node: Address) => void): unknown;
  /** node-redis 5: the slot map, which can be read again from the cluster. */
  readonly _slots?: { rediscover?(startWith: { options: object }): Promise<void> };
}

interface Address {
  host: string;
  port: number;
}

const LOAD_LIBRARY = ['FUNCTION', 'LOAD', 'REPLACE', LIBRARY];

/** Least time between two slot-map reads triggered by lost nodes. */
const REDISCOVER_EVERY_MS = 250;

export function isNodeRedisClient(client: Record<string, unknown>): boolean {
  return typeof client.sendCommand === 'function' && ('isOpen' in client || isNodeRedisCluster(client));
}

function isNodeRedisCluster(client: Record<string, unknown>): boolean {
  return typeof client.getSlotMaster === 'function';
}

export function nodeRedisTransport(client: object): ScriptTransport {
  return isNodeRedisCluster(client as Record<string, unknown>)
    ? new NodeRedisClusterTransport(client as NodeRedisCluster)
    : new NodeRedisTransport(client as NodeRedisClient);
}

class NodeRedisTransport implements ScriptTransport {
  readonly isCluster = false;
  private readonly calls = new DriverCalls();

  constructor(private readonly client: NodeRedisClient) {}

  run(keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.calls.run(
      'redis',
      (command, first) => this.client.sendCommand([command, first, String(keys.length), ...keys, ...args]),
      () => this.client.sendCommand(LOAD_LIBRARY),
    );
  }

  domainOf(): string {
    return 'redis';
  }
}

class NodeRedisClusterTransport implements ScriptTransport {
  readonly isCluster = true;
  private readonly calls = new DriverCalls();
  private lastRediscoveryAt = 0;

  constructor(private readonly cluster: NodeRedisCluster) {
    // node-redis reads the slot map again on MOVED only: after a failover the failed master's
    // slots would stay on its dead connection. Its connection errors trigger a read here.
    cluster.on?.('node-error', (_error, failed) => this.rediscover(failed));
  }

  private rediscover(failed: Address): void {
    const rediscover = this.cluster._slots?.rediscover;
    const now = Date.now();
    if (typeof rediscover !== 'function' || now - this.lastRediscoveryAt < REDISCOVER_EVERY_MS) return;
    this.lastRediscoveryAt = now;
    const healthy = this.cluster.masters?.find(({ host, port }) => host !== failed?.host || port !== failed?.port);
    const startWith = healthy ?? failed;
    rediscover.call(this.cluster._slots, { options: { socket: { host: startWith.host, port: startWith.port } } }).catch(() => {});
  }

  run(keys: readonly string[], args: readonly string[], slot: number): Promise<unknown> {
    return this.calls.run(
      this.domainOf(slot),
      (command, first) => this.cluster.sendCommand(keys[0], false, [command, first, String(keys.length), ...keys, ...args]),
      () => this.loadLibrary(slot),
    );
  }

  /**
   * Loads the library on every master: node-redis follows an ASK (a slot migrating) to a node
   * this store never names. Settles as the load on the slot's own master did; the others' are
   * best effort, and a call that meets one without it loads it again.
   */
  private async loadLibrary(slot: number): Promise<void> {
    const masters = this.cluster.masters ?? [];
    const own = this.domainOf(slot);
    const loads = await Promise.allSettled(
      masters.map(async (master) => (await this.cluster.nodeClient(master)).sendCommand(LOAD_LIBRARY)),
    );
    const ownLoad = loads[masters.findIndex(({ host, port }) => `${host}:${port}` === own)];
    if (!ownLoad) throw new Error(`no master known to serve slot ${slot}`);
    if (ownLoad.status === 'rejected') throw ownLoad.reason;
  }

  domainOf(slot: number): string {
    try {
      const master = this.cluster.getSlotMaster(slot);
      return master ? `${master.host}:${master.port}` : `slot ${slot}`;
    } catch {
      // Not connected yet: no slot map.
      return `slot ${slot}`;
    }
  }
}
