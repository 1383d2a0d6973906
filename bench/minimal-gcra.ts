// The ceiling of a one-call-per-decision design, which the Redis benchmarks measure Tollgate
// against: GCRA in one script of three commands (TIME, GET, SET … EX), nothing else.
import type { Redis } from 'ioredis';

const LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new_tat = tat + interval
if new_tat - now > tolerance then return 0 end
redis.call('SET', KEYS[1], new_tat, 'EX', math.ceil((new_tat - now) / 1000000) + 1)
return 1`;

/** One request an hour with a burst of 10,000: every state outlives any run, and every decision is admitted. */
const INTERVAL_US = 3_600_000_000;
export const MINIMAL_GCRA_BURST = 10_000;

/** A decision of the minimal script for `identity`, one EVALSHA through ioredis. */
export function minimalGcra(client: Redis): (identity: string) => Promise<unknown> {
  client.defineCommand('minimalGcra', { numberOfKeys: 1, lua: LUA });
  const call = (client as unknown as { minimalGcra(key: string, interval: number, tolerance: number): Promise<number> }).minimalGcra;
  return (identity) => call.call(client, `minimal:{${identity}}`, INTERVAL_US, INTERVAL_US * MINIMAL_GCRA_BURST);
}
