// The baseline of rls.ts: the in-process limiter on the same Redis, deciding as the server does for
// one descriptor (the same fixed window, the same identities), `CONCURRENCY` decisions in flight.
// Prints one JSON line: decisions and the CPU time this process spent on them.
// Usage (rls.ts runs it): tsx server/in-process.ts <redis url> <seconds> <concurrency> <identities>
import { createLimiter, RedisStore } from '@tollgate/core';
import { Redis } from 'ioredis';

const [url, seconds, concurrency, identities] = process.argv.slice(2);
const client = new Redis(url!);
const limiter = createLimiter({
  algorithm: 'fixed-window',
  limit: 4_000_000_000,
  window: 60_000,
  store: new RedisStore({ client }),
  prefix: `bench-in-process-${process.pid}`,
  rule: 'bench.user',
});

let decisions = 0;
let stopAt = 0;
let measuring = false;
async function loop(start: number): Promise<void> {
  for (let i = start; Date.now() < stopAt; i += Number(concurrency)) {
    await limiter.consume(JSON.stringify([`u${i % Number(identities)}`]));
    if (measuring) decisions++;
  }
}

// Warm up (JIT, connections), then measure.
stopAt = Date.now() + 3000;
await Promise.all(Array.from({ length: Number(concurrency) }, (_, i) => loop(i)));
const cpu = process.cpuUsage();
const started = performance.now();
measuring = true;
stopAt = Date.now() + Number(seconds) * 1000;
await Promise.all(Array.from({ length: Number(concurrency) }, (_, i) => loop(i)));
const used = process.cpuUsage(cpu);
const elapsed = (performance.now() - started) / 1000;
console.log(JSON.stringify({ decisions, seconds: elapsed, cpuMicros: used.user + used.system }));
client.disconnect();
