import type { Redis } from 'ioredis';

/** Script calls and Redis main-thread CPU so far (INFO commandstats and INFO cpu). */
export interface RedisStats {
  calls: number;
  cpuMicros: number;
}

export async function redisStats(client: Redis): Promise<RedisStats> {
  const [commands, cpu] = [await client.info('commandstats'), await client.info('cpu')];
  let calls = 0;
  for (const match of commands.matchAll(/^cmdstat_(?:eval|evalsha|fcall):calls=(\d+)/gm)) calls += Number(match[1]);
  const seconds = (name: string) => Number(cpu.match(new RegExp(`^${name}:([\\d.]+)`, 'm'))?.[1] ?? Number.NaN);
  return { calls, cpuMicros: (seconds('used_cpu_user_main_thread') + seconds('used_cpu_sys_main_thread')) * 1e6 };
}

/** What happened between two readings. */
export function since(before: RedisStats, after: RedisStats): RedisStats {
  return { calls: after.calls - before.calls, cpuMicros: after.cpuMicros - before.cpuMicros };
}
