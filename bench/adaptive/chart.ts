// The ramp of the overload experiment (adaptive/run.ts): each setup's limit, and the p99 latency
// of the requests finishing in each second, as the load climbs from 0.5× to 10× capacity.
import type { TopLevelSpec } from 'vega-lite';

export interface AdaptiveResults {
  capacity: number;
  ramp: { setup: string; trace: { atMs: number; factor: number; limit: number | undefined; p99: number | undefined }[] }[];
}

const SHOWN = ['no limiter', 'fixed 10 (tuned)', 'fixed 100 (too high)', 'gradient2', 'vegas', 'aimd (timeout 30 ms)'];

export function adaptiveRampChart(results: AdaptiveResults | undefined): TopLevelSpec | undefined {
  if (!results) return undefined;
  const values = results.ramp
    .filter(({ setup }) => SHOWN.includes(setup))
    .flatMap(({ setup, trace }) =>
      trace.map(({ factor, limit, p99 }) => ({ setup, load: Number(factor.toFixed(2)), limit: limit ?? null, p99: p99 ?? null })),
    );
  const x = { field: 'load', type: 'quantitative', title: 'offered load (× capacity)' } as const;
  const color = { field: 'setup', type: 'nominal', title: null, sort: SHOWN } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Overload ramp: limit and p99 latency',
      subtitle: `simulated service, capacity ${results.capacity} requests/s, virtual time`,
    },
    data: { values },
    vconcat: [
      {
        width: 560,
        height: 200,
        mark: 'line',
        transform: [{ filter: 'datum.limit !== null' }],
        encoding: { x, y: { field: 'limit', type: 'quantitative', title: 'concurrency limit' }, color },
      },
      {
        width: 560,
        height: 200,
        mark: 'line',
        transform: [{ filter: 'datum.p99 !== null' }],
        encoding: { x, y: { field: 'p99', type: 'quantitative', title: 'p99 latency (ms, log)', scale: { type: 'log' } }, color },
      },
    ],
  };
}
