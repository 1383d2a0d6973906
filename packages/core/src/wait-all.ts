import type { Decision } from './decision.js';
import { describeValue, TollgateError } from './errors.js';
import { type GroupMember, groupMemberOf } from './limiter.js';
import type { Limiter } from './limiter-types.js';
import { type FieldSet, refuseUnknownFields } from './option-fields.js';
import type { StoreOperation } from './stores/store.js';
import { sleep } from './wait/sleep.js';
import type { WaitOptions } from './wait/wait-options.js';
import { parseWaitOptions, waitTimeout } from './wait/wait-options.js';

/** One rate a `waitAll` holds: a limiter and the key it counts the work under. */
export interface WaitAllEntry {
  limiter: Limiter;
  key: string;
  /** Units the work takes of this limit. Default: the options' `cost` (1). */
  cost?: number;
}

const ENTRY_FIELDS = { limiter: true, key: true, cost: true } as const satisfies Record<keyof WaitAllEntry, true>;

/** The entries of one `waitAll`, checked, with what each sends its store. */
interface Member {
  entry: WaitAllEntry;
  member: GroupMember;
  cost: number;
}

/**
 * Waits until every entry's limiter admits the work at the same moment, then takes every one
 * of them at once: all or nothing, in one store call (one script call on Redis), so each rate
 * holds at the moment the work starts. E.g. a tenant's limit and a global one:
 * `await waitAll([{ limiter: perTenant, key: tenant }, { limiter: global, key: 'all' }])`.
 * Resolves with each entry's decision, in order. Every limiter must be built by `createLimiter`
 * on one store that groups operations (the memory store, a RedisStore); on a Redis Cluster
 * every key must hash to one slot. Rejects with `ERR_TOLLGATE_WAIT_TIMEOUT` at once when the
 * wait would exceed `maxWait`, and with the signal's reason on abort. While the store fails
 * (`ERR_TOLLGATE_STORE`) it tries again every second, and rejects with that error once a second
 * more would exceed `maxWait`: work it could not count never starts.
 */
export async function waitAll(entries: readonly WaitAllEntry[], options?: WaitOptions): Promise<Decision[]> {
  const parsed = parseWaitOptions(options);
  const members = checkEntries(entries, parsed.cost);
  parsed.signal?.throwIfAborted();
  const { now } = members[0]!.member;
  const deadlineMs = now() + parsed.maxWaitMs;
  for (;;) {
    const decisions = await takeAll(members).catch((error: unknown) => storeFailed(error, deadlineMs - now()));
    if (decisions === undefined) {
      await sleep(STORE_RETRY_MS, parsed.signal);
      continue;
    }
    if (decisions.every((decision) => decision.allowed)) return decisions;
    const retryMs = Math.max(...decisions.map((decision) => decision.retryAfterMs));
    const keys = members.map(({ entry }) => entry.key).join(' + ');
    if (retryMs === Number.POSITIVE_INFINITY) throw waitTimeout(keys, 'one of its limits can never pass');
    if (retryMs > deadlineMs - now()) throw waitTimeout(keys, `the next try is ${retryMs} ms away`);
    await sleep(Math.max(1, retryMs), parsed.signal);
  }
}

/**
 * While the store fails, a group is tried again this often. It takes no limiter's failure mode:
 * there is no one answer for several limiters, and work it could not count never starts.
 */
const STORE_RETRY_MS = 1000;

/** Undefined when a store failure is worth waiting out within the budget; rethrows anything else. */
function storeFailed(error: unknown, budgetMs: number): undefined {
  if (error instanceof TollgateError && error.code === 'ERR_TOLLGATE_STORE' && STORE_RETRY_MS <= budgetMs) return undefined;
  throw error;
}

/** One try of a `waitAll`, at once: every entry's decision, all admitted and charged or none charged. */
export function consumeAll(entries: readonly WaitAllEntry[], cost = 1): Promise<Decision[]> {
  try {
    return takeAll(checkEntries(entries, cost));
  } catch (error) {
    return Promise.reject(error);
  }
}

async function takeAll(members: readonly Member[]): Promise<Decision[]> {
  const taken = members.map(({ entry, member, cost }) => member.calls.groupConsume(entry.key, cost));
  const results = await members[0]!.member.store.executeGroup!(taken.map(({ operation }) => operation));
  return members.map(({ member }, i) => member.calls.groupDecision(taken[i]!.operation, taken[i]!.stored, results[i]!));
}

function checkEntries(entries: readonly WaitAllEntry[], cost: number): Member[] {
  if (!Array.isArray(entries) || entries.length === 0) throw invalid('entries', 'must be a non-empty array of { limiter, key }', entries);
  const members = entries.map((entry, i) => checkEntry(entry, `entries[${i}]`, cost));
  const store = members[0]!.member.store;
  if (typeof store.executeGroup !== 'function') {
    throw invalid(
      'entries[0].limiter',
      'has a store that cannot take several limits at once (it has no executeGroup)',
      store.constructor?.name,
    );
  }
  const other = members.findIndex(({ member }) => member.store !== store);
  if (other > 0) {
    throw invalid(
      `entries[${other}].limiter`,
      'must share the store of entries[0].limiter: one store call takes them all',
      members[other]!.member.calls.rule,
    );
  }
  refuseSharedKeys(members.map(({ entry, member, cost: units }) => member.calls.groupConsume(entry.key, units).operation));
  return members;
}

function checkEntry(entry: WaitAllEntry, path: string, defaultCost: number): Member {
  if (typeof entry !== 'object' || entry === null) throw invalid(path, 'must be { limiter, key }', entry);
  refuseUnknownFields(entry, ENTRY_FIELDS as FieldSet, `${path}.`);
  const member = groupMemberOf(entry.limiter);
  if (member === undefined) throw invalid(`${path}.limiter`, 'must be a limiter from createLimiter', entry.limiter);
  const cost = entry.cost ?? defaultCost;
  if (!Number.isSafeInteger(cost) || cost < 1) {
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_COST',
      `${path}.cost must be a whole number >= 1 (got ${describeValue(cost)})`,
      `${path}.cost`,
    );
  }
  return { entry, member, cost };
}

/** Two entries on one state (same limit, same key) would each see it unchanged by the other: refused. */
function refuseSharedKeys(operations: readonly StoreOperation[]): void {
  const seen = new Map<string, number>();
  operations.forEach((operation, i) => {
    for (const keyspace of operation.keyspaces) {
      const state = `${keyspace.id}\n${operation.identity}`;
      const first = seen.get(state);
      if (first !== undefined) {
        throw new TollgateError(
          'ERR_TOLLGATE_INVALID_KEY',
          `entries[${first}] and entries[${i}] count under the same limit and key: give the work's cost to one entry instead`,
          `entries[${i}].key`,
        );
      }
      seen.set(state, i);
    }
  });
}

function invalid(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}
