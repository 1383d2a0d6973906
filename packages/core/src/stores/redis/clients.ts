import { TollgateError } from '../../errors.js';
import { ioredisTransport, isIoredisClient } from './ioredis-transport.js';
import { isNodeRedisClient, nodeRedisTransport } from './node-redis-transport.js';
import type { ScriptTransport } from './transport.js';

/** The transport for a client of any supported library, recognised by its shape. */
export function scriptTransport(client: unknown): ScriptTransport {
  if (typeof client === 'object' && client !== null) {
    const shape = client as Record<string, unknown>;
    if (isIoredisClient(shape)) return ioredisTransport(client);
    if (isNodeRedisClient(shape)) return nodeRedisTransport(client);
  }
  throw new TollgateError(
    'ERR_TOLLGATE_INVALID_OPTION',
    'client must be an ioredis or iovalkey Redis or Cluster, or a node-redis client or cluster',
    'client',
  );
}
