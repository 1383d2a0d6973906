// The vega-lite specs of the report's charts, each built from one results file.
import type { TopLevelSpec } from 'vega-lite';
import type { Row } from '../micro/measure.js';
import type { CostRow } from '../redis-cost.js';
import type { Machine } from '../results.js';

interface CostResults {
  machine: Machine;
  rows: CostRow[];
}

const WIDTH = 560;

/** The rows taken at the most decisions in flight (every case runs there; results older than the in-flight levels have one). */
function atMostInFlight(rows: CostRow[]): CostRow[] {
  const most = Math.max(...rows.map((row) => row.inFlight ?? 1000));
  return rows.filter((row) => (row.inFlight ?? 1000) === most);
}
const subtitle = (machine: Machine) => `${machine.cpus}, Node ${machine.node}, Redis ${machine.redis}, ${machine.date} UTC`;

/** Redis main-thread CPU per decision by algorithm and limits per rule, against the minimal script. */
export function redisCostChart(results: CostResults | undefined): TopLevelSpec | undefined {
  if (!results) return undefined;
  const rows = atMostInFlight(results.rows);
  const minimal = rows.find((row) => row.algorithm === 'minimal')!.cpuMicrosPerDecision;
  const values = rows
    .filter((row) => row.algorithm !== 'minimal' && !row.case.startsWith('qps'))
    .map((row) => ({ algorithm: row.algorithm, limits: `${row.limits}`, micros: row.cpuMicrosPerDecision }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Redis CPU per decision (µs, lower is better)', subtitle: subtitle(results.machine) },
    width: WIDTH,
    height: { step: 36 },
    layer: [
      {
        data: { values },
        mark: 'bar',
        encoding: {
          y: { field: 'algorithm', type: 'nominal', title: null, sort: null },
          yOffset: { field: 'limits' },
          x: { field: 'micros', type: 'quantitative', title: 'µs of Redis main-thread CPU per decision' },
          color: { field: 'limits', type: 'nominal', title: 'limits per rule' },
        },
      },
      {
        data: { values: [{ minimal, label: `minimal GCRA script: ${minimal.toFixed(1)} µs` }] },
        layer: [
          { mark: { type: 'rule', strokeDash: [4, 3], color: 'black' }, encoding: { x: { field: 'minimal', type: 'quantitative' } } },
          {
            mark: { type: 'text', align: 'left', dx: 4, dy: -6, baseline: 'bottom', y: 0 },
            encoding: { x: { field: 'minimal', type: 'quantitative' }, text: { field: 'label' } },
          },
        ],
      },
    ],
  };
}

/** GCRA rules and the minimal script, this tree against the figures recorded on main. */
/** The cases of the bench on main before the packed key, whose GCRA states expired at every decision. */
const EXPIRED_GCRA = 'gcra (state expired at every decision)';

export function redisMainChart(now: CostResults | undefined, main: CostResults | undefined): TopLevelSpec | undefined {
  if (!now || !main) return undefined;
  // Main's GCRA rows and now's rows under the same limits (state expired at every decision), by case.
  const pick = (results: CostResults, run: string, gcra: string) =>
    atMostInFlight(results.rows)
      .filter((row) => row.algorithm === 'minimal' || (row.algorithm === gcra && row.case.startsWith(`${gcra},`)))
      .map((row) => ({
        case: row.case.replace(', 1 call per decision', '').replace(EXPIRED_GCRA, 'gcra'),
        run,
        micros: row.cpuMicrosPerDecision,
      }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Redis CPU per decision, GCRA states expiring at every decision: main before the packed key, and now',
      subtitle: subtitle(now.machine),
    },
    width: WIDTH,
    height: { step: 30 },
    data: { values: [...pick(main, 'main', 'gcra'), ...pick(now, 'now', EXPIRED_GCRA)] },
    mark: 'bar',
    encoding: {
      y: { field: 'case', type: 'nominal', title: null, sort: null },
      yOffset: { field: 'run', sort: ['main', 'now'] },
      x: { field: 'micros', type: 'quantitative', title: 'µs of Redis main-thread CPU per decision' },
      color: { field: 'run', type: 'nominal', title: null, sort: ['main', 'now'] },
    },
  };
}

/** Redis CPU per decision against decisions in flight: the minimal script and the GCRA rules measured at every number. */
export function redisInFlightChart(results: CostResults | undefined): TopLevelSpec | undefined {
  const levels = new Set(results?.rows.map((row) => row.inFlight));
  if (!results || levels.size < 2) return undefined;
  const values = results.rows
    .filter((row) => results.rows.filter((other) => other.case === row.case).length === levels.size)
    .map((row) => ({ case: row.case.replace(', 1 call per decision', ''), inFlight: row.inFlight, micros: row.cpuMicrosPerDecision }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Redis CPU per decision against decisions in flight (µs, lower is better)', subtitle: subtitle(results.machine) },
    width: WIDTH,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'inFlight', type: 'quantitative', scale: { type: 'log' }, title: 'decisions in flight (one Node process)' },
      y: { field: 'micros', type: 'quantitative', title: 'µs of Redis main-thread CPU per decision' },
      color: { field: 'case', type: 'nominal', title: null },
    },
  };
}

/** Redis decisions per second against requests in flight, for Tollgate and its peers. */
export function decisionsChart(results: { machine: Machine; rows: Row[] } | undefined): TopLevelSpec | undefined {
  if (!results) return undefined;
  const values = results.rows
    .map((row) => ({ ...row, inFlight: Number(row.scenario.match(/(\d+) in flight/)?.[1]) }))
    .filter((row) => Number.isFinite(row.inFlight));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Redis: decisions per second against requests in flight (one Node process)', subtitle: subtitle(results.machine) },
    width: WIDTH,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'inFlight', type: 'quantitative', scale: { type: 'log' }, title: 'requests in flight' },
      y: { field: 'opsPerSecond', type: 'quantitative', title: 'decisions/s' },
      color: { field: 'implementation', type: 'nominal', title: null },
    },
  };
}

export interface InstructionsRow {
  variant: string;
  instructionsPerRequest: number;
}

/** Instructions per HTTP request (callgrind) of each server, with the overhead over no limiter. */
export function httpChart(results: { machine: Machine; rows: InstructionsRow[] } | undefined): TopLevelSpec | undefined {
  if (!results) return undefined;
  const baseline = results.rows.find((row) => row.variant === 'no limiter')?.instructionsPerRequest ?? Number.NaN;
  const values = results.rows.map((row) => ({
    ...row,
    thousands: row.instructionsPerRequest / 1000,
    label: row.variant === 'no limiter' ? '' : `+${((row.instructionsPerRequest / baseline - 1) * 100).toFixed(1)} %`,
  }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Express 5 hello world: instructions per request (callgrind, lower is better)', subtitle: subtitle(results.machine) },
    width: WIDTH,
    height: { step: 24 },
    data: { values },
    encoding: {
      y: { field: 'variant', type: 'nominal', title: null, sort: null },
      x: { field: 'thousands', type: 'quantitative', title: 'thousand instructions per request' },
    },
    layer: [{ mark: 'bar' }, { mark: { type: 'text', align: 'left', dx: 4 }, encoding: { text: { field: 'label' } } }],
  };
}
