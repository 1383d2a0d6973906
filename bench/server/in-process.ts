// The baseline of rls.ts and instructions.ts: the in-process limiter on the same Redis, deciding as
// the server does for one descriptor (the same fixed window, the same identities), `concurrency`
// decisions in flight.
// - `<seconds>`: warms up 3 s, decides for that long, prints one JSON line: decisions, seconds, CPU µs.
// - `driven`: prints `ready`, then for each line `run <n>` on standard input decides n times and prints `done`.
// Usage (rls.ts and instructions.ts run it): tsx server/in-process.ts <redis url> <seconds | driven> <concurrency> <identities>
import { createInterface } from 'node:readline';
import { createLimiter, RedisStore } from '@tollgate/core';
import { Redis } from 'ioredis';

const [url, mode, concurrency, identities] = process.argv.slice(2);
const lanes = Number(concurrency);
const client = new Redis(url!);
const limiter = createLimiter({
  algorithm: 'fixed-window',
  limit: 4_000_000_000,
  window: 60_000,
  store: new RedisStore({ client }),
  prefix: `bench-in-process-${process.pid}`,
  rule: 'bench.user',
});
const identity = (i: number) => JSON.stringify([`u${i % Number(identities)}`]);

/** Decides until `more()` says stop, `lanes` at a time; resolves to how many. */
async function decide(more: (done: number) => boolean): Promise<number> {
  let done = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (more(next)) {
        await limiter.consume(identity(next++));
        done++;
      }
    }),
  );
  return done;
}

if (mode === 'driven') {
  console.log('ready');
  for await (const line of createInterface({ input: process.stdin })) {
    const count = Number(line.split(' ')[1]);
    await decide((started) => started < count);
    console.log('done');
  }
} else {
  const warmUntil = Date.now() + 3000;
  await decide(() => Date.now() < warmUntil);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const stopAt = Date.now() + Number(mode) * 1000;
  const decisions = await decide(() => Date.now() < stopAt);
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ decisions, seconds: (performance.now() - started) / 1000, cpuMicros: used.user + used.system }));
}
client.disconnect();
