// HTTP benchmark: each variant of http/server.ts in its own process, loaded by autocannon from
// this one. Variants take turns, round after round, so a change in the machine's load hits them
// alike; the table gives mean req/s, mean p99 latency and the ratio to the server without a limiter,
// and the server's CPU time per request (what a saturated server's throughput is inverse to).
import { fileURLToPath } from 'node:url';
import { NodeProcess, startRedis } from '@tollgate/testing';
import autocannon from 'autocannon';
import { clientRequests, describeClients } from './clients.js';
import { VARIANTS } from './variants.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = 50;
const benchDir = fileURLToPath(new URL('..', import.meta.url));

interface Sample {
  reqPerSec: number;
  p99Ms: number;
  /** Server CPU time (user + system) per request. */
  cpuMicrosPerRequest: number;
  failed: number;
}

async function serverCpuMicros(url: string): Promise<number> {
  const res = await fetch(`${url}__cpu`);
  return ((await res.json()) as { micros: number }).micros;
}

async function load(url: string, seconds: number): Promise<Sample> {
  const cpuBefore = await serverCpuMicros(url);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, ...clientRequests() });
  const cpu = (await serverCpuMicros(url)) - cpuBefore;
  return {
    reqPerSec: result.requests.average,
    p99Ms: result.latency.p99,
    cpuMicrosPerRequest: cpu / result.requests.total,
    failed: result.errors + result.non2xx,
  };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

const redis = await startRedis();
const servers: NodeProcess[] = [];
const samples = new Map<string, Sample[]>(VARIANTS.map((variant) => [variant, []]));
try {
  const urls = new Map<string, string>();
  for (const variant of VARIANTS) {
    const server = await NodeProcess.start(['--import', 'tsx', 'http/server.ts', variant, redis.url], {
      cwd: benchDir,
      ready: /ready on (\d+)/,
    });
    servers.push(server);
    const url = `http://127.0.0.1:${server.match[1]}/`;
    urls.set(variant, url);
    await load(url, 1); // warm-up: JIT, connections, Redis script cache
  }
  for (let round = 1; round <= ROUNDS; round++) {
    const line: string[] = [];
    for (const variant of VARIANTS) {
      const sample = await load(urls.get(variant)!, SECONDS);
      samples.get(variant)!.push(sample);
      line.push(`${variant}: ${Math.round(sample.reqPerSec)} req/s, ${sample.cpuMicrosPerRequest.toFixed(0)} µs`);
    }
    console.error(`round ${round}/${ROUNDS}: ${line.join(' | ')}`);
  }
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await redis.close();
}

const baseline = mean(samples.get(VARIANTS[0])!.map((s) => s.reqPerSec));
const baselineCpu = mean(samples.get(VARIANTS[0])!.map((s) => s.cpuMicrosPerRequest));
console.log(
  `\nExpress 5 hello world, ${describeClients()}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per variant (Node ${process.version})\n`,
);
console.log('| variant | req/s | p99 latency | vs no limiter | server CPU per request | CPU-bound req/s vs no limiter |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const [variant, runs] of samples) {
  const reqPerSec = mean(runs.map((s) => s.reqPerSec));
  const failed = runs.reduce((sum, s) => sum + s.failed, 0);
  const note = failed > 0 ? ` (${failed} errors or non-2xx)` : '';
  const cpu = mean(runs.map((s) => s.cpuMicrosPerRequest));
  const p99 = mean(runs.map((s) => s.p99Ms)).toFixed(0);
  const ratio = ((reqPerSec / baseline) * 100).toFixed(1);
  const cpuRatio = ((baselineCpu / cpu) * 100).toFixed(1);
  console.log(`| ${variant} | ${Math.round(reqPerSec)} | ${p99} ms | ${ratio} %${note} | ${cpu.toFixed(0)} µs | ${cpuRatio} % |`);
}
