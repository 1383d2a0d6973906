import { TOLLGATE_SCRIPT } from '../../lua/script.js';
import { DriverCalls, errorMessage, FUNCTION_NAME, LIBRARY, SCRIPT_SHA, type ScriptTransport, UnansweredCallError } from './transport.js';

/** The parts of an ioredis (5, 6) or iovalkey `Redis` connection this store uses. */
interface Connection {
  /** Flattens its arguments one level (`Command`: `args.flat()`), so arrays can be handed over as they are. */
  call(command: string, ...args: (string | number | readonly string[])[]): Promise<unknown>;
  on(event: 'close' | 'ready', listener: () => void): unknown;
  readonly options: { host?: string; port?: number; retryStrategy?: ((times: number) => number | null | undefined) | null };
  readonly status: string;
  /** Commands written but unanswered when the connection closed, re-sent once it is ready again. */
  prevCommandQueue?: CommandQueue | null;
}

interface CommandQueue {
  toArray(): { command: { name: string; args: unknown[]; reject(error: Error): void } }[];
  clear(): void;
  push(item: unknown): unknown;
}

/** The parts of an ioredis (5, 6) or iovalkey `Cluster` this store uses. */
interface ClusterClient {
  readonly status: string;
  /** Per slot: the addresses of its master then replicas. */
  readonly slots: string[][];
  nodes(role: 'all'): Connection[];
  /** Reads the slot map again, then calls `done` (once per call, however many asked during one read). */
  refreshSlotsCache(done?: (error?: Error | null) => void): void;
  once(event: 'ready', listener: () => void): unknown;
}

const MAX_REDIRECTIONS = 5;
/** Slot map reads a call waits for when its node has no connection, or lost it before the call was written. */
const MAX_RECONNECTIONS = 5;
/** The pause before the n-th slot map read of one call is n times this. */
const RECONNECTION_PAUSE_MS = 10;
/** What ioredis rejects a command with when it ends a connection the command was never written to. */
const CONNECTION_CLOSED = 'Connection is closed.';

export function isIoredisClient(client: Record<string, unknown>): boolean {
  return typeof client.defineCommand === 'function' && typeof client.call === 'function';
}

export function ioredisTransport(client: object): ScriptTransport {
  return (client as { isCluster?: unknown }).isCluster === true
    ? new IoredisClusterTransport(client as ClusterClient)
    : new IoredisTransport(client as Connection);
}

class IoredisTransport implements ScriptTransport {
  readonly isCluster = false;
  private readonly calls = new DriverCalls();

  constructor(private readonly connection: Connection) {
    forbidResend(connection);
  }

  run(keys: readonly string[], args: readonly string[]): Promise<unknown> {
    // Not spread: ioredis flattens them itself, and spreading copies every argument twice more.
    const connection = this.connection;
    return this.calls.run(
      'redis',
      (command, first) => connection.call(command, first, keys.length, keys, args),
      () => connection.call('function', 'load', 'replace', LIBRARY),
    );
  }

  domainOf(): string {
    return 'redis';
  }
}

/**
 * Sends each call to the master of its slot itself, not through the Cluster's routing: the
 * Cluster re-sends a command whose connection closed ("Connection is closed." and
 * `retryDelayOnFailover`), which could run a script twice.
 */
class IoredisClusterTransport implements ScriptTransport {
  readonly isCluster = true;
  private readonly calls = new DriverCalls();
  private ready: Promise<void> | undefined;

  constructor(private readonly cluster: ClusterClient) {}

  async run(keys: readonly string[], args: readonly string[], slot: number): Promise<unknown> {
    if (this.cluster.status !== 'ready') await this.whenReady();
    let address = this.cluster.slots[slot]?.[0];
    let asking = false;
    for (let redirections = 0, reconnections = 0; ; ) {
      const node = address === undefined ? undefined : this.node(address);
      if (address === undefined || !node) {
        // The Cluster lets a node whose connection was lost go, and connects again on reading the slot map.
        if (reconnections++ >= MAX_RECONNECTIONS) throw new Error(`no connection to ${address ?? 'a node'} serving slot ${slot}`);
        await this.refreshSlots(reconnections);
        address = this.cluster.slots[slot]?.[0];
        continue;
      }
      forbidResend(node);
      this.reconnectWhenLost(node);
      // Not ready, ioredis queues the call and writes it once the connection is ready.
      const queued = node.status !== 'ready';
      const readiesBefore = readies.get(node);
      try {
        return await this.calls.run(
          address,
          (command, first) => {
            // ASKING holds for the next command of this connection; both are written in order.
            if (asking) node.call('asking').catch(() => {});
            return node.call(command, first, keys.length, keys, args);
          },
          () => node.call('function', 'load', 'replace', LIBRARY),
        );
      } catch (error) {
        const neverWritten = queued && readies.get(node) === readiesBefore && errorMessage(error) === CONNECTION_CLOSED;
        if (neverWritten && reconnections++ < MAX_RECONNECTIONS) {
          await this.refreshSlots(reconnections);
          address = this.cluster.slots[slot]?.[0];
          continue;
        }
        const [reply, , target] = errorMessage(error).split(' ');
        const redirected = (reply === 'MOVED' || reply === 'ASK') && target !== undefined;
        if (!redirected || redirections++ >= MAX_REDIRECTIONS) {
          if (mayHaveMoved(error)) this.cluster.refreshSlotsCache();
          throw error;
        }
        if (reply === 'MOVED') this.cluster.refreshSlotsCache();
        address = target;
        asking = reply === 'ASK';
      }
    }
  }

  /**
   * Reads the slot map again (one read for every caller asking meanwhile); resolves when it is
   * done, failed or not. iovalkey calls back at once while a read is under way: a call that
   * asks again waits a little first.
   */
  private async refreshSlots(attempt: number): Promise<void> {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, RECONNECTION_PAUSE_MS * attempt));
    await new Promise<void>((resolve) => this.cluster.refreshSlotsCache(() => resolve()));
  }

  domainOf(slot: number): string {
    return this.cluster.slots[slot]?.[0] ?? `slot ${slot}`;
  }

  /**
   * A Cluster lets a node connection it lost go for good (no `clusterNodeRetryStrategy`): once
   * every node's is lost, the whole Cluster closes and connects again only after
   * `clusterRetryStrategy`'s delay (100 ms and more), longer than a store call may take. Given
   * none, the node's connection reconnects as a single Redis connection does (after 50 ms, 100 ms...
   * at most 2 s), as node-redis's nodes do; calls made meanwhile wait in its offline queue,
   * unwritten. Each loss reads the slot map again, so a node that failed over is let go.
   */
  private reconnectWhenLost(node: Connection): void {
    if (typeof node.options.retryStrategy === 'function' || reconnecting.has(node)) return;
    reconnecting.add(node);
    node.options.retryStrategy = reconnectDelayMs;
    node.on('close', () => {
      if (this.cluster.status === 'ready') this.cluster.refreshSlotsCache();
    });
  }

  private node(address: string): Connection | undefined {
    return this.cluster.nodes('all').find((node) => `${node.options.host}:${node.options.port}` === address && node.status !== 'end');
  }

  private whenReady(): Promise<void> {
    this.ready ??= new Promise((resolve) =>
      this.cluster.once('ready', () => {
        this.ready = undefined;
        resolve();
      }),
    );
    return this.ready;
  }
}

/** ioredis's own default for a single connection: 50 ms more per attempt, at most 2 s. */
const reconnectDelayMs = (attempt: number): number => Math.min(attempt * 50, 2000);
/** Cluster node connections given `reconnectDelayMs`. */
const reconnecting = new WeakSet<Connection>();

const guarded = new WeakSet<Connection>();
/**
 * How many times each connection became ready. A Cluster's node connection ends for good when it
 * is lost (the Cluster makes a new one on reading the slot map) and rejects every command it still
 * held with "Connection is closed.", written or not. A call made while it was not ready sat in its
 * offline queue: if it fails so before the connection became ready again, it was never written.
 */
const readies = new WeakMap<Connection, number>();

/**
 * ioredis re-sends the commands a closed connection left unanswered once it reconnects
 * (`autoResendUnfulfilledCommands`), though Redis may have run them. It emits 'close' after
 * setting them aside and before reconnecting: script calls are taken out there and fail.
 */
function forbidResend(connection: Connection): void {
  if (guarded.has(connection)) return;
  guarded.add(connection);
  readies.set(connection, 0);
  connection.on('ready', () => readies.set(connection, readies.get(connection)! + 1));
  connection.on('close', () => {
    const queue = connection.prevCommandQueue;
    if (!queue) return;
    const items = queue.toArray();
    queue.clear();
    for (const item of items) {
      if (isScriptCall(item.command)) item.command.reject(new UnansweredCallError());
      else queue.push(item);
    }
  });
}

/** A lost node or a cluster reconfiguring: the slot map may be stale. A script's own error says nothing of it. */
function mayHaveMoved(error: unknown): boolean {
  return (error as Error)?.name !== 'ReplyError' || errorMessage(error).startsWith('CLUSTERDOWN');
}

function isScriptCall({ name, args }: { name: string; args: unknown[] }): boolean {
  return (
    (name === 'fcall' && args[0] === FUNCTION_NAME) ||
    (name === 'evalsha' && args[0] === SCRIPT_SHA) ||
    (name === 'eval' && args[0] === TOLLGATE_SCRIPT)
  );
}
