// The real overload experiment: each setup (setups.ts) an Express server in its own process in
// front of a fixed pool of known capacity (pool.ts), driven open-loop (load.ts) through a ramp of
// 0.2× (the unloaded reference), 0.5×, 1×, 2×, 5× and 10× capacity; sockets and timers, not a model.
// Usage: pnpm bench:adaptive-http (every setup: writes bench/results/adaptive-http.json and the table in
// bench/README.md, then draws the chart); tsx adaptive/http/run.ts [setup names…] with PHASE_MS=… only prints.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { machine, writeResults } from '../../results.js';
import { seededRandom } from '../simulate.js';
import { offerLoad, type Phase, type Sent } from './load.js';
import { tableOf, writeIntoReadme } from './readme.js';
import { CAPACITY, PRIORITY_HEADER, SERVICE_MS, SETUPS, SLOTS } from './setups.js';
import { summarize } from './summary.js';

/** Each step's length; PHASE_MS=10000 gives steadier figures for a few chosen setups. */
const PHASE_MS = Number(process.env.PHASE_MS ?? 3000);
const PHASES: Phase[] = [0.2, 0.5, 1, 2, 5, 10].map((factor) => ({ factor, durationMs: factor === 0.2 ? 2000 : PHASE_MS }));
/** The first second of each phase is the limiter finding its feet, left out of the figures. */
const SETTLE_MS = 1000;
const TIMEOUT_MS = 1000;
const CRITICAL = 0.3;

type Trace = { atMs: number; limit: number | undefined; inflight: number | undefined }[];

const servers = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
const reply = <T>(message: unknown) =>
  new Promise<T>((resolve) => {
    servers.once('message', (answer) => resolve(answer as T));
    servers.send(message as object);
  });

async function runSetup(name: string, seed: number): Promise<{ sent: Sent[]; trace: Trace }> {
  const { port } = await reply<{ port: number }>({ setup: name });
  const sent = await offerLoad({
    port,
    phases: PHASES,
    capacity: CAPACITY,
    critical: CRITICAL,
    timeoutMs: TIMEOUT_MS,
    priorityHeader: PRIORITY_HEADER,
    random: seededRandom(seed),
  });
  const { trace } = await reply<{ trace: Trace }>('trace');
  return { sent, trace };
}

const setups = [];
const chosen = process.argv.slice(2);
for (const name of Object.keys(SETUPS).filter((name) => chosen.length === 0 || chosen.includes(name))) {
  const { sent, trace } = await runSetup(name, 26);
  const summary = summarize(sent, PHASES, { settleMs: SETTLE_MS, timeoutMs: TIMEOUT_MS, capacity: CAPACITY });
  setups.push({ setup: name, ...summary, trace });
  console.error(`${name}: done`);
}

servers.send('exit');

const unloadedP99 = setups[0]!.phases[0]!.p99Ms;
console.log(
  `pool ${SLOTS} slots × ${SERVICE_MS} ms = ${CAPACITY} requests/s; client timeout ${TIMEOUT_MS} ms; critical ${CRITICAL}× capacity, the rest batch; unloaded p99 ${unloadedP99} ms (no limiter at 0.2×)`,
);
console.table(
  setups.flatMap(({ setup, phases }) =>
    phases.slice(1).map((row) => ({
      setup,
      load: `${row.factor}×`,
      'goodput/s': row.goodput,
      '% capacity': (row.goodputShare * 100).toFixed(1),
      'p50 ms': row.p50Ms,
      'p99 ms': row.p99Ms,
      rejected: `${(row.rejectedShare * 100).toFixed(1)}%`,
      'timed out': `${(row.timedOutShare * 100).toFixed(1)}%`,
      critical: `${(row.criticalSuccess * 100).toFixed(2)}%`,
      batch: `${(row.batchSuccess * 100).toFixed(2)}%`,
    })),
  ),
);
// Only a full run at the standard length replaces the stored figures and the README's table.
if (chosen.length > 0 || PHASE_MS !== 3000) process.exit(0);
const conditions = machine();
writeResults('adaptive-http', { machine: conditions, capacity: CAPACITY, unloadedP99, critical: CRITICAL, setups });
writeIntoReadme(
  `${conditions.date} UTC, ${conditions.cpus}, load average ${conditions.loadAverage}, Node ${conditions.node}. Pool ${SLOTS} slots × ${SERVICE_MS} ms = ${CAPACITY} requests/s; client timeout ${TIMEOUT_MS} ms; critical traffic ${CRITICAL}× capacity, the rest batch; unloaded p99 ${unloadedP99} ms (no limiter at 0.2×).\n\n${tableOf(setups)}`,
);
