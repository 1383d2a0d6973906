import { Redis } from 'ioredis';

/**
 * Kills every client connection of the given servers (`CLIENT KILL TYPE normal SKIPME yes`, so
 * its own survives), as a proxy or a network fault would: connections vanish mid-conversation.
 * Resolves with how many were killed.
 */
export async function killClientConnections(ports: readonly number[]): Promise<number> {
  let killed = 0;
  for (const port of ports) {
    const killer = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
    try {
      killed += Number(await killer.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
    } finally {
      killer.disconnect();
    }
  }
  return killed;
}
