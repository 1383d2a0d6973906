import { digest, type Keyspace, packedKeyspace, storageKey } from '../keys.js';
import type { StoreOperation } from './store.js';

/**
 * Ends the key of a rule's string states: it names their format (packed doubles). Keys an earlier
 * format wrote (text, without this ending) are never read, so a version that reads states one way
 * never misreads the other's, even while both run against one Redis during a rolling upgrade.
 */
const STATE_FORMAT = ':v2';

/**
 * The key of a rule's string states. One limit: `<prefix>:{<identity>}:<limit>:<algorithm>:v2`.
 * Several: `<prefix>:{<identity>}:<digest>:v2`, the digest standing for their
 * `<limit>:<algorithm>` joined by `+` (the first 11 characters of its SHA-256 in base64url):
 * every command that names a key hashes and copies it, so its length is paid on every decision.
 */
function stringStateKeyspace(keyspaces: readonly Keyspace[]): Keyspace {
  const { head, tail } = packedKeyspace(keyspaces);
  const named = keyspaces.length === 1 ? tail : `}:${digest(tail.slice('}:'.length)).slice(0, 11)}`;
  return { head, tail: named + STATE_FORMAT, id: head + named + STATE_FORMAT };
}

/**
 * The keyspaces of an operation's Redis keys, in the order the Lua driver reads them: the one key
 * packing every limit whose state is a string, then one key per limit keeping a sorted set.
 */
function redisKeyspaces({ keyspaces, limits }: StoreOperation): Keyspace[] {
  const packed: Keyspace[] = [];
  const own: Keyspace[] = [];
  for (let i = 0; i < limits.length; i++) {
    (limits[i]!.algorithm.redisSortedSet ? own : packed).push(keyspaces[i]!);
  }
  return packed.length > 0 ? [stringStateKeyspace(packed), ...own] : own;
}

/** Operations of one limiter share their `keyspaces` array: the layout is worked out once per limiter. */
const layouts = new WeakMap<readonly Keyspace[], Keyspace[]>();

/** Appends the Redis keys of `operation` to `keys`. */
export function pushRedisKeys(operation: StoreOperation, keys: string[]): void {
  let layout = layouts.get(operation.keyspaces);
  if (layout === undefined) {
    layout = redisKeyspaces(operation);
    layouts.set(operation.keyspaces, layout);
  }
  for (const keyspace of layout) keys.push(storageKey(keyspace, operation.identity));
}
