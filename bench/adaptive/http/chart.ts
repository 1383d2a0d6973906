// The real overload experiment's ramp (adaptive/http/run.ts): each setup's limit and the p99 latency
// of the admitted requests sent in each half second, as the load steps from 0.2× to 10× capacity.
import type { TopLevelSpec } from 'vega-lite';

export interface AdaptiveHttpResults {
  capacity: number;
  unloadedP99: number;
  setups: {
    setup: string;
    trace: { atMs: number; limit?: number }[];
    latency: { atMs: number; factor: number; p99Ms?: number }[];
  }[];
}

export function adaptiveHttpChart(results: AdaptiveHttpResults | undefined): TopLevelSpec | undefined {
  if (!results) return undefined;
  const order = results.setups.map(({ setup }) => setup);
  const limits = results.setups.flatMap(({ setup, trace }) =>
    trace.filter((point) => point.limit !== undefined).map(({ atMs, limit }) => ({ setup, seconds: atMs / 1000, limit })),
  );
  const latencies = results.setups.flatMap(({ setup, latency }) =>
    latency
      .filter((point) => point.p99Ms !== undefined)
      .map(({ atMs, factor, p99Ms }) => ({ setup, seconds: atMs / 1000, factor, p99: p99Ms })),
  );
  const x = { field: 'seconds', type: 'quantitative', title: 'seconds (load 0.2×, 0.5×, 1×, 2×, 5×, 10× capacity)' } as const;
  const color = { field: 'setup', type: 'nominal', title: null, sort: order, legend: { labelLimit: 400 } } as const;
  // Fixed 100 would flatten the others: the limit axis stops at 40, its line clipped.
  const limitScale = { domain: [0, 40] };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Real overload ramp: limit and p99 latency of admitted requests',
      subtitle: `Express in front of a pool of ${results.capacity} requests/s, open-loop load; unloaded p99 ${results.unloadedP99} ms`,
    },
    vconcat: [
      {
        width: 560,
        height: 200,
        data: { values: limits },
        mark: { type: 'line', clip: true },
        encoding: { x, y: { field: 'limit', type: 'quantitative', title: 'concurrency limit', scale: limitScale }, color },
      },
      {
        width: 560,
        height: 200,
        data: { values: latencies },
        mark: 'line',
        encoding: { x, y: { field: 'p99', type: 'quantitative', title: 'p99 latency (ms, log)', scale: { type: 'log' } }, color },
      },
    ],
  };
}
