import { type Keyspace, packedKeyspace, storageKey } from '../keys.js';
import type { StoreOperation } from './store.js';

/**
 * Ends the key of a rule's string states: it names their format (packed doubles). Keys an earlier
 * format wrote (text, without this ending) are never read, so a version that reads states one way
 * never misreads the other's, even while both run against one Redis during a rolling upgrade.
 */
export const STATE_FORMAT = ':v2';

function withStateFormat({ head, tail }: Keyspace): Keyspace {
  return { head, tail: tail + STATE_FORMAT, id: head + tail + STATE_FORMAT };
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
  return packed.length > 0 ? [withStateFormat(packedKeyspace(packed)), ...own] : own;
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
