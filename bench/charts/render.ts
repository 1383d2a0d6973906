// Draws bench/charts/*.svg from the figures the bench scripts left in bench/results/*.json
// (vega-lite, rendered headless). Charts whose results are missing are skipped.
// Usage: pnpm bench:charts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { type AdaptiveResults, adaptiveRampChart } from '../adaptive/chart.js';
import { type AdaptiveHttpResults, adaptiveHttpChart } from '../adaptive/http/chart.js';
import { readResults } from '../results.js';
import { decisionsChart, httpChart, redisCostChart, redisInFlightChart, redisMainChart } from './specs.js';

const chartsDir = fileURLToPath(new URL('./', import.meta.url));

async function render(name: string, spec: TopLevelSpec | undefined): Promise<void> {
  if (spec === undefined) {
    console.error(`${name}: no results yet, skipped`);
    return;
  }
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  writeFileSync(`${chartsDir}${name}.svg`, await view.toSVG());
  view.finalize();
  console.error(`${name}.svg written`);
}

await render('redis-cost', redisCostChart(readResults('redis-cost')));
await render('redis-cost-in-flight', redisInFlightChart(readResults('redis-cost')));
await render('redis-cost-vs-main', redisMainChart(readResults('redis-cost'), readResults('redis-cost.main')));
await render('decisions-in-flight', decisionsChart(readResults('decisions')));
await render('http-instructions', httpChart(readResults('http-instructions')));
await render('adaptive-ramp', adaptiveRampChart(readResults<AdaptiveResults>('adaptive')));
await render('adaptive-http-ramp', adaptiveHttpChart(readResults<AdaptiveHttpResults>('adaptive-http')));
