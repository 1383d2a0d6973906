import { type Keyspace, packedKeyspace, storageKey } from '../keys.js';
import type { StoreOperation } from './store.js';

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
  return packed.length > 0 ? [packedKeyspace(packed), ...own] : own;
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
