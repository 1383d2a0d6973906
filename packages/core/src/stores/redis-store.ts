import calculateSlot from 'cluster-key-slot';
import type { Outcome } from '../algorithms/types.js';
import { invalidOption, TollgateError } from '../errors.js';
import { hashTagOf } from '../keys.js';
import { refuseUnknownFields } from '../option-fields.js';
import { uniqueToken } from '../token.js';
import { scriptTransport } from './redis/clients.js';
import { isMigrating, type ScriptTransport } from './redis/transport.js';
import { pushRedisKeys } from './redis-keys.js';
import type { BoundLimit, Clock, OperationKind, Store, StoreOperation, StoreResult } from './store.js';

/**
 * A Redis client: an ioredis (5, 6) or iovalkey `Redis` or `Cluster`, or a node-redis (4, 5, 6)
 * client or cluster (`createClient`, `createCluster`). Told apart by shape, so none of these
 * libraries is needed to use the memory store.
 */
export type RedisClient = object;

export interface RedisStoreOptions {
  /** The client (see `RedisClient`); the store never connects or quits it. A node-redis client must be connected. */
  client: RedisClient;
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

/** One entry per option of `RedisStoreOptions`: the compiler refuses this object when one is missing. */
const REDIS_STORE_FIELDS = { client: true, time: true, clock: true, ttlSlackMs: true, maxBatchSize: true } as const satisfies Record<
  keyof RedisStoreOptions,
  true
>;

interface Pending {
  operation: StoreOperation;
  /** The client clock reading sent with it; undefined on Redis TIME. */
  nowMs?: number;
  resolve: (result: StoreResult) => void;
  reject: (error: unknown) => void;
}

const KIND_CODE: Record<OperationKind, string> = {
  consume: 'c',
  peek: 'p',
  reset: 'r',
  release: 'l',
  refund: 'f',
  penalty: 'n',
  settle: 's',
  block: 'k',
};
/** A refund of a charge: its token names the members it added; its time and cost follow the op. */
const CHARGED_REFUND = 'g';
/** The driver's kind of a group's consumes (`executeGroup`). */
const GROUP_CONSUME = 'a';
/** A lone operation meeting TRYAGAIN (its keys split by a slot migration) or MOVED is tried again this often. */
const MIGRATION_RETRIES = 20;
const MIGRATION_RETRY_MS = 25;

/**
 * The distributed store. Operations issued in the same turn of the event loop (for HTTP:
 * every request whose callback ran in that I/O phase) are coalesced into one
 * FCALL of the function library per hash slot (EVALSHA where Redis has no functions: see
 * DriverCalls). The script runs them in order and each
 * one stays atomic. A call is sent at most once: one whose connection was lost unanswered
 * fails (the limiter's failure mode answers) and is never re-sent, because Redis may have
 * run it. A batch meeting a slot migration (TRYAGAIN, ASK, MOVED) is split into one call per operation.
 */
export class RedisStore implements Store {
  private readonly transport: ScriptTransport;
  private readonly clock: Clock | undefined;
  private readonly ttlSlackMs: string;
  private readonly maxBatchSize: number;
  private queue: Pending[] = [];
  private flushScheduled = false;

  constructor(options: RedisStoreOptions) {
    if (typeof options !== 'object' || options === null) throw invalidOption('options', 'must be { client, ... }', options);
    refuseUnknownFields(options, REDIS_STORE_FIELDS);
    const { client, time = options.clock ? 'client' : 'server', ttlSlackMs, maxBatchSize = 128 } = options;
    const transport = scriptTransport(client);
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
    this.transport = transport;
    this.clock = time === 'client' ? (options.clock ?? Date.now) : undefined;
    this.ttlSlackMs = String(slack);
    this.maxBatchSize = maxBatchSize;
  }

  /** What fails together for keys hashed by `hashTag`: the Cluster node serving its slot (one domain off Cluster). */
  failureDomain(hashTag: string): string {
    return this.transport.domainOf(this.transport.isCluster ? calculateSlot(hashTag) : 0);
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

  /**
   * Sent as one script call of its own, never batched with other operations nor split: on a
   * Cluster every identity must hash to one slot, or it is refused.
   */
  executeGroup(operations: readonly StoreOperation[]): Promise<StoreResult[]> {
    return new Promise((resolve, reject) => {
      const slot = this.groupSlot(operations);
      const results: StoreResult[] = [];
      let left = operations.length;
      const batch = operations.map((operation, i) => ({
        operation,
        resolve: (result: StoreResult) => {
          results[i] = result;
          if (--left === 0) resolve(allOrNothing(results));
        },
        reject,
      }));
      this.send(batch, slot, 0, true);
    });
  }

  private groupSlot(operations: readonly StoreOperation[]): number {
    if (!this.transport.isCluster) return 0;
    const slots = new Set(operations.map((operation) => calculateSlot(hashTagOf(operation.keyspaces, operation.identity))));
    if (slots.size === 1) return [...slots][0]!;
    const keys = operations.map((operation) => JSON.stringify(operation.identity)).join(', ');
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_KEY',
      `the keys of one waitAll must hash to one Redis Cluster slot, and ${keys} do not: give the limiters' prefixes one hash tag, such as {jobs}:tenant and {jobs}:all`,
      'key',
    );
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const queue = this.queue;
    this.queue = [];
    if (!this.transport.isCluster) {
      this.sendInChunks(queue, 0);
      return;
    }
    const bySlot = new Map<number, Pending[]>();
    for (const pending of queue) {
      // Every key of an operation hashes by one tag: its prefix's hash tag, else its (non-empty) identity.
      const slot = calculateSlot(hashTagOf(pending.operation.keyspaces, pending.operation.identity));
      const group = bySlot.get(slot);
      if (group) group.push(pending);
      else bySlot.set(slot, [pending]);
    }
    for (const [slot, group] of bySlot) this.sendInChunks(group, slot);
  };

  private sendInChunks(batch: Pending[], slot: number): void {
    for (let start = 0; start < batch.length; start += this.maxBatchSize) {
      this.send(batch.slice(start, start + this.maxBatchSize), slot);
    }
  }

  /** Sends `batch` as one script call; a `group` is all or nothing (see `executeGroup`). */
  private send(batch: Pending[], slot: number, attempt = 0, group = false): void {
    // In the driver's order: the header (slack, rules and shapes, one argument), operations, call id.
    const header: string[] = [this.ttlSlackMs];
    const args: string[] = [''];
    const indexOf = pushBatchRules(batch, header);
    const keys = pushBatchOps(batch, indexOf, this.clock, header, args, group);
    args[0] = header.join(' ');
    // One operation carrying nothing but its shape (op count 1, shape 1): the driver reads it from the header alone.
    if (args.length === 3) args.length = 1;
    // Comes back in front of the reply: a reply without it is another call's.
    const callId = uniqueToken();
    args.push(callId);
    this.transport.run(keys, args, slot).then(
      (reply) => {
        if (Array.isArray(reply) && reply[0] === callId) answerBatch(batch, reply as (number | string)[], group);
        else failBatch(batch, new Error('the client answered with the reply of another call'));
      },
      (error: unknown) => {
        // Redis ran none of it: several operations are retried one by one, a lone one a little later.
        if (isMigrating(error)) {
          if (batch.length > 1 && !group) {
            for (const pending of batch) this.send([pending], slot);
            return;
          }
          if (attempt < MIGRATION_RETRIES) {
            setTimeout(() => this.send(batch, slot, attempt + 1, group), MIGRATION_RETRY_MS).unref?.();
            return;
          }
        }
        failBatch(batch, error);
      },
    );
  }
}

function failBatch(batch: Pending[], error: unknown): void {
  const wrapped = new TollgateError('ERR_TOLLGATE_STORE', `Redis script call failed: ${(error as Error)?.message ?? error}`, undefined, {
    cause: error,
  });
  for (const pending of batch) pending.reject(wrapped);
}

/**
 * Appends to the `header` fields the count of distinct rules of a batch (operations of one limiter
 * share its `limits` array), then each rule once as limit count then, per limit, its algorithm
 * name, param count and params (the driver's protocol). Returns each rule's 1-based index, by which ops name theirs.
 */
function pushBatchRules(batch: Pending[], header: string[]): Map<readonly BoundLimit[], string> {
  const indexOf = new Map<readonly BoundLimit[], string>();
  const countAt = header.push('') - 1;
  for (const { operation } of batch) {
    const { limits } = operation;
    if (indexOf.has(limits)) continue;
    indexOf.set(limits, String(indexOf.size + 1));
    header.push(String(limits.length));
    for (const { luaArgs } of limits) {
      header.push(luaArgs[0]!, String(luaArgs.length - 1));
      for (let i = 1; i < luaArgs.length; i++) header.push(luaArgs[i]!);
    }
  }
  header[countAt] = String(indexOf.size);
  return indexOf;
}

/** The minimum cost of a consume that may take less (`StoreOperation.minCost`), sent to the driver; else undefined. */
function upToCost({ kind, minCost, costs }: StoreOperation, group: boolean): number | undefined {
  return kind === 'consume' && costs === undefined && !group ? minCost : undefined;
}

/**
 * Appends a batch's distinct shapes (kind, clock, cost, rule, flags: whether a token, costs per
 * limit and a minimum cost follow) to the `header` fields, each once, and its operations to `args`: per op its shape,
 * its token when it has one, its minimum cost, a refund's charge, a settle's hold and its costs per limit (the
 * driver's protocol). Returns their keys.
 */
function pushBatchOps(
  batch: Pending[],
  indexOf: Map<readonly BoundLimit[], string>,
  clock: Clock | undefined,
  header: string[],
  args: string[],
  group: boolean,
): string[] {
  const keys: string[] = [];
  const shapes = new Map<string, string>();
  const shapeArgs: string[] = [];
  const opArgs: string[] = [];
  for (const pending of batch) {
    const { operation } = pending;
    // Under time: 'server' Redis TIME decides, whatever clock the limiter has.
    if (clock !== undefined) pending.nowMs = operation.nowMs ?? clock();
    const now = pending.nowMs === undefined ? '' : String(pending.nowMs);
    const { charge, costs } = operation;
    const chargedRefund = charge !== undefined && operation.kind === 'refund';
    const token = chargedRefund ? charge.token : operation.token;
    const minCost = upToCost(operation, group);
    const flags = (token === '' ? '' : 't') + (costs === undefined ? '' : 'v') + (minCost === undefined ? '' : 'm');
    const kind = group ? GROUP_CONSUME : chargedRefund ? CHARGED_REFUND : KIND_CODE[operation.kind];
    const cost = String(operation.cost);
    const rule = indexOf.get(operation.limits)!;
    const id = `${kind} ${now} ${cost} ${rule} ${flags}`;
    let shape = shapes.get(id);
    if (shape === undefined) {
      shape = String(shapes.size + 1);
      shapes.set(id, shape);
      shapeArgs.push(kind, now, cost, rule, flags);
    }
    opArgs.push(shape);
    if (token !== '') opArgs.push(token);
    if (minCost !== undefined) opArgs.push(String(minCost));
    if (chargedRefund) opArgs.push(String(charge.atMs), String(charge.cost));
    if (operation.kind === 'settle') opArgs.push(charge!.token, String(charge!.atMs), ...operation.charged!.map(String));
    if (costs !== undefined) for (const limitCost of costs) opArgs.push(String(limitCost));
    pushRedisKeys(operation, keys);
  }
  header.push(String(shapes.size));
  for (const field of shapeArgs) header.push(field);
  args.push(String(batch.length));
  for (const arg of opArgs) args.push(arg);
  return keys;
}

/** A group commits as one: when one of its consumes was refused, none was written. */
function allOrNothing(results: StoreResult[]): StoreResult[] {
  if (results.every((result) => result.committed)) return results;
  return results.map((result) => (result.committed ? { ...result, committed: false } : result));
}

/**
 * Splits the flat script reply (after the call id and the Redis TIME the script decided on, 0 when
 * it read none) back into one result per operation, in order.
 */
function answerBatch(batch: Pending[], reply: (number | string)[], group: boolean): void {
  const serverNowMs = reply[1] === 0 ? undefined : Number(reply[1]);
  let at = 2;
  for (const pending of batch) {
    // A consume commits when every limit allowed it (all or nothing): the reply does not repeat it.
    let committed = pending.operation.kind === 'consume';
    const outcomes: Outcome[] = [];
    for (let i = 0; i < pending.operation.limits.length; i++) {
      // A count above 2^52 comes back as text (see the driver).
      const counted = Number(reply[at]);
      // -1: never back to full (a count that never resets).
      const resetAfterMs = reply[at + 1] === -1 ? Infinity : (reply[at + 1] as number);
      // Allowed with no delay: remaining, reset. Otherwise -1 - remaining, reset, then the verdict:
      // the delay when allowed, -2 - the retry when refused (-1 = never).
      const verdict = counted >= 0 ? 0 : (reply[at + 2] as number);
      const remaining = counted >= 0 ? counted : -1 - counted;
      at += counted >= 0 ? 2 : 3;
      const allowed = verdict >= 0;
      if (!allowed) committed = false;
      outcomes.push({
        allowed,
        remaining,
        resetAfterMs,
        retryAfterMs: allowed ? 0 : verdict === -1 ? Infinity : -2 - verdict,
        delayMs: allowed ? verdict : 0,
      });
    }
    const { kind } = pending.operation;
    if (kind === 'peek' || kind === 'reset') {
      // A peek or reset says, after its limits, whether its keys held state.
      pending.resolve({ committed, outcomes, decidedAtMs: pending.nowMs ?? serverNowMs, found: reply[at] === 1 });
      at += 1;
    } else if (upToCost(pending.operation, group) !== undefined) {
      // A consume that may take less says, after its limits, what it took.
      const granted = committed ? { granted: reply[at] as number } : {};
      pending.resolve({ committed, outcomes, decidedAtMs: pending.nowMs ?? serverNowMs, ...granted });
      at += 1;
    } else {
      pending.resolve({ committed, outcomes, decidedAtMs: pending.nowMs ?? serverNowMs });
    }
  }
}
