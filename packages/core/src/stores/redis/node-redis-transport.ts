import { evalOnce, type ScriptTransport } from './transport.js';

/**
 * The parts of a node-redis (4, 5) client this store uses. node-redis rejects the commands a
 * lost connection left unanswered and never re-sends them; commands queued while offline
 * had not been written, so they run once after reconnecting.
 */
interface NodeRedisClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** The parts of a node-redis (4, 5) cluster this store uses; it follows MOVED and ASK (with ASKING) itself. */
interface NodeRedisCluster {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  getSlotMaster(slot: number): { host: string; port: number } | undefined;
}

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

  constructor(private readonly client: NodeRedisClient) {}

  run(keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return evalOnce((command, first) => this.client.sendCommand([command, first, String(keys.length), ...keys, ...args]));
  }

  domainOf(): string {
    return 'redis';
  }
}

class NodeRedisClusterTransport implements ScriptTransport {
  readonly isCluster = true;

  constructor(private readonly cluster: NodeRedisCluster) {}

  run(keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return evalOnce((command, first) => this.cluster.sendCommand(keys[0], false, [command, first, String(keys.length), ...keys, ...args]));
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
