import calculateSlot from 'cluster-key-slot';
import type { Cluster, Redis } from 'ioredis';
import type { Outcome } from '../algorithms/types.js';
import { TollgateError } from '../errors.js';
import { TOLLGATE_SCRIPT } from '../lua/script.js';
import { pushRedisKeys } from './redis-keys.js';
import type { BoundLimit, Clock, OperationKind, Store, StoreOperation, StoreResult } from './store.js';

export interface RedisStoreOptions {
  /** An ioredis `Redis` or `Cluster` client; the store never connects or quits it. */
  client: Redis | Cluster;
  /**
   * Whose clock decides: `'server'` (default) reads Redis `TIME` inside the script, so app
   * servers with skewed clocks share one timeline, and a limiter's `clock` is not used for
   * decisions; `'client'` passes the limiter's `clock` (when it has one) or this store's.
   */
  time?: 'server' | 'client';
  /** Epoch-millisecond clock for `time: 'client'` (default `Date.now`); giving one implies `'client'`. */
  clock?: Clock;
  /**
   * Extra lifetime of keys written on a client clock (this store's or a limiter's): Redis
   * expires keys on its own clock, so they must outlive any skew. Default 5000.
   */
  ttlSlackMs?: number;
  /** Most operations coalesced into one script call. Default 128. */
  maxBatchSize?: number;
}

interface Pending {
  operation: StoreOperation;
  resolve: (result: StoreResult) => void;
  reject: (error: unknown) => void;
}

type ScriptCaller = (...args: (string | number)[]) => Promise<number[]>;

const COMMAND = 'tollgateDecide';
const KIND_CODE: Record<OperationKind, string> = { consume: 'c', peek: 'p', reset: 'r', release: 'l', refund: 'f' };
const VALUES_PER_LIMIT = 5;

/**
 * The distributed store. Operations issued in the same turn of the event loop (for HTTP:
 * every request whose callback ran in that I/O phase) are coalesced into one
 * EVALSHA per hash slot (ioredis `defineCommand`, which falls back to EVAL on NOSCRIPT).
 * The script runs them in order and each one stays atomic.
 */
export class RedisStore implements Store {
  private readonly client: Redis | Cluster;
  private readonly clock: Clock | undefined;
  private readonly ttlSlackMs: string;
  private readonly maxBatchSize: number;
  private readonly isCluster: boolean;
  private queue: Pending[] = [];
  private flushScheduled = false;

  constructor(options: RedisStoreOptions) {
    const { client, time = options.clock ? 'client' : 'server', ttlSlackMs, maxBatchSize = 128 } = options;
    if (client === null || typeof client !== 'object' || typeof client.defineCommand !== 'function') {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', 'client must be an ioredis Redis or Cluster instance', 'client');
    }
    if (time !== 'server' && time !== 'client') {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `time must be 'server' or 'client' (got ${String(time)})`, 'time');
    }
    if (time === 'server' && options.clock) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', "clock is only used with time: 'client'", 'clock');
    }
    if (!Number.isSafeInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        `maxBatchSize must be a whole number >= 1 (got ${maxBatchSize})`,
        'maxBatchSize',
      );
    }
    const slack = ttlSlackMs ?? 5000;
    if (!Number.isSafeInteger(slack) || slack < 0) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `ttlSlackMs must be a whole number >= 0 (got ${slack})`, 'ttlSlackMs');
    }
    this.client = client;
    this.clock = time === 'client' ? (options.clock ?? Date.now) : undefined;
    this.ttlSlackMs = String(slack);
    this.maxBatchSize = maxBatchSize;
    this.isCluster = (client as { isCluster?: boolean }).isCluster === true;
    if (typeof (client as unknown as Record<string, unknown>)[COMMAND] !== 'function') {
      client.defineCommand(COMMAND, { lua: TOLLGATE_SCRIPT });
    }
  }

  execute(operation: StoreOperation): Promise<StoreResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ operation, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // setImmediate, not nextTick: HTTP requests arrive in separate I/O callbacks of one phase.
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const queue = this.queue;
    this.queue = [];
    if (!this.isCluster) {
      this.sendInChunks(queue);
      return;
    }
    const bySlot = new Map<number, Pending[]>();
    for (const pending of queue) {
      // Every key of an operation hashes by its tag, which is the (non-empty) identity.
      const slot = calculateSlot(pending.operation.identity);
      const group = bySlot.get(slot);
      if (group) group.push(pending);
      else bySlot.set(slot, [pending]);
    }
    for (const group of bySlot.values()) this.sendInChunks(group);
  };

  private sendInChunks(batch: Pending[]): void {
    for (let start = 0; start < batch.length; start += this.maxBatchSize) {
      this.send(batch.slice(start, start + this.maxBatchSize));
    }
  }

  private send(batch: Pending[]): void {
    const keys: string[] = [];
    const { count, args: ruleArgs, indexOf } = batchRules(batch);
    const opArgs: string[] = [String(batch.length)];
    for (const { operation } of batch) {
      // Under time: 'server' Redis TIME decides, whatever clock the limiter has.
      const now = this.clock === undefined ? undefined : (operation.nowMs ?? this.clock());
      opArgs.push(
        KIND_CODE[operation.kind],
        now === undefined ? '' : String(now),
        String(operation.cost),
        operation.token,
        indexOf.get(operation.limits)!,
      );
      pushRedisKeys(operation, keys);
    }
    const call = (this.client as unknown as Record<string, ScriptCaller>)[COMMAND]!;
    call.call(this.client, keys.length, ...keys, this.ttlSlackMs, String(count), ...ruleArgs, ...opArgs).then(
      (reply) => settle(batch, reply),
      (error: unknown) => {
        const wrapped = new TollgateError(
          'ERR_TOLLGATE_STORE',
          `Redis script call failed: ${(error as Error)?.message ?? error}`,
          undefined,
          { cause: error },
        );
        for (const pending of batch) pending.reject(wrapped);
      },
    );
  }
}

/**
 * The distinct rules of a batch (operations of one limiter share its `limits` array), each
 * sent once as limit count then every limit's Lua args; ops name theirs by 1-based index.
 */
function batchRules(batch: Pending[]): { count: number; args: string[]; indexOf: Map<readonly BoundLimit[], string> } {
  const indexOf = new Map<readonly BoundLimit[], string>();
  const args: string[] = [];
  for (const { operation } of batch) {
    const { limits } = operation;
    if (indexOf.has(limits)) continue;
    indexOf.set(limits, String(indexOf.size + 1));
    args.push(String(limits.length));
    for (const limit of limits) args.push(...limit.luaArgs);
  }
  return { count: indexOf.size, args, indexOf };
}

/** Splits the flat script reply back into one result per operation, in order. */
function settle(batch: Pending[], reply: number[]): void {
  let at = 0;
  for (const pending of batch) {
    const committed = reply[at++] === 1;
    const outcomes: Outcome[] = [];
    for (let i = 0; i < pending.operation.limits.length; i++) {
      const retry = reply[at + 3]!;
      outcomes.push({
        allowed: reply[at] === 1,
        remaining: reply[at + 1]!,
        resetAfterMs: reply[at + 2]!,
        retryAfterMs: retry === -1 ? Infinity : retry,
        delayMs: reply[at + 4]!,
      });
      at += VALUES_PER_LIMIT;
    }
    pending.resolve({ committed, outcomes });
  }
}
