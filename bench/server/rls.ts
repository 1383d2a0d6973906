// ShouldRateLimit over gRPC against one `tollgate-server` process on Redis (1 descriptor, the
// identities in rotation): calls per second at saturation, p50/p99 latency at half that load
// (open loop: each call timed from when it was due, so a stall counts for every call it delays),
// and the CPU per decision of the server process over the in-process limiter on the same Redis
// (in-process.ts, same fixed window, same identities, same calls in flight), beside the CPU per
// call of a gRPC server of the same API that decides nothing (floor.ts: what @grpc/grpc-js costs).
// CPU is read from /proc (user + system time of the process); throughput, latency and CPU time all
// move with what else the machine runs, so each round says its load average (instructions.ts
// counts instructions instead, which do not move).
// Usage: pnpm --filter @tollgate/bench bench:server [--seconds=10] [--rounds=3]
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRateLimitClient, type RateLimitClient } from '@tollgate/server';
import { startRedis } from '@tollgate/testing';
import { machine, writeResults } from '../results.js';
import { benchDir, CONCURRENCY, IDENTITIES, request, serverArgs, startProcess } from './shared.js';

const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')));
const SECONDS = Number(args.seconds ?? 10);
const ROUNDS = Number(args.rounds ?? 3);
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** User + system CPU seconds a process has used so far (/proc/<pid>/stat, fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** Closed loop, CONCURRENCY calls in flight for `seconds`: calls per second and the server's CPU µs per call. */
async function saturate(client: RateLimitClient, pid: number, seconds: number): Promise<{ rate: number; cpuMicros: number }> {
  let calls = 0;
  const stopAt = Date.now() + seconds * 1000;
  const cpu = cpuSeconds(pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      for (let i = lane; Date.now() < stopAt; i += CONCURRENCY) {
        const response = await client.shouldRateLimit(request(i));
        if (response.overall_code !== 'OK') throw new Error(`unexpected ${response.overall_code}`);
        calls++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { rate: calls / elapsed, cpuMicros: ((cpuSeconds(pid) - cpu) * 1e6) / calls };
}

/** Open loop at `rate` calls per second: latencies from when each call was due. */
async function latencies(client: RateLimitClient, rate: number, seconds: number): Promise<number[]> {
  const times: number[] = [];
  const pending: Promise<void>[] = [];
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    for (; sent < due; sent++) {
      const dueAt = started + (sent / rate) * 1000;
      pending.push(client.shouldRateLimit(request(sent)).then(() => void times.push(performance.now() - dueAt)));
    }
    // A timer, not a spin: the generator shares the 2 cores with the server.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  return times.sort((a, b) => a - b);
}

function inProcess(redisUrl: string, seconds: number): Promise<{ decisions: number; seconds: number; cpuMicros: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'server/in-process.ts', redisUrl, String(seconds), String(CONCURRENCY), String(IDENTITIES)],
      {
        cwd: benchDir,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let printed = '';
    child.stdout!.on('data', (chunk) => (printed += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(printed)) : reject(new Error(`in-process.ts exited with ${code}`))));
  });
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

const redis = await startRedis();
const server = await startProcess(process.execPath, serverArgs(redis.url));
const floor = await startProcess(process.execPath, ['--import', 'tsx', 'server/floor.ts']);
const client = createRateLimitClient(`127.0.0.1:${server.port}`);
const floorClient = createRateLimitClient(`127.0.0.1:${floor.port}`);
const rounds: Record<string, number>[] = [];
try {
  // Warm up: JIT, connections, the identities' keys.
  await saturate(client, server.pid, 3);
  await saturate(floorClient, floor.pid, 3);
  for (let round = 0; round < ROUNDS; round++) {
    const loadBefore = machine().loadAverage;
    const { rate, cpuMicros } = await saturate(client, server.pid, SECONDS);
    const half = await latencies(client, rate / 2, SECONDS);
    const floorRun = await saturate(floorClient, floor.pid, SECONDS);
    const baseline = await inProcess(redis.url, SECONDS);
    const baselineMicros = baseline.cpuMicros / baseline.decisions;
    rounds.push({
      loadAverage: loadBefore,
      callsPerSecond: Math.round(rate),
      serverCpuMicrosPerCall: Number(cpuMicros.toFixed(1)),
      halfLoadCallsPerSecond: Math.round(rate / 2),
      p50Ms: Number(quantile(half, 0.5).toFixed(3)),
      p99Ms: Number(quantile(half, 0.99).toFixed(3)),
      floorCallsPerSecond: Math.round(floorRun.rate),
      floorCpuMicrosPerCall: Number(floorRun.cpuMicros.toFixed(1)),
      inProcessDecisionsPerSecond: Math.round(baseline.decisions / baseline.seconds),
      inProcessCpuMicrosPerDecision: Number(baselineMicros.toFixed(1)),
      cpuRatio: Number((cpuMicros / baselineMicros).toFixed(2)),
    });
    console.table([rounds.at(-1)]);
  }
} finally {
  client.close();
  floorClient.close();
  await server.stop();
  await floor.stop();
  await redis.close();
}
writeResults('server', { machine: machine(), seconds: SECONDS, concurrency: CONCURRENCY, identities: IDENTITIES, rounds });
