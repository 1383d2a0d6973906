// Writes the real overload experiment's table into bench/README.md, between two markers, so that
// one command refreshes the figures and the chart together.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PhaseFigures } from './summary.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const BEGIN = '<!-- adaptive-http:begin -->';
const END = '<!-- adaptive-http:end -->';

const percent = (share: number, digits = 1) => `${(share * 100).toFixed(digits)} %`;

export function tableOf(setups: { setup: string; phases: PhaseFigures[] }[]): string {
  const header = [
    '| setup | load | goodput/s | % capacity | p50 ms | p99 ms | rejected | timed out | critical ok | batch ok |',
    '| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
  ];
  const rows = setups.flatMap(({ setup, phases }) =>
    phases
      .slice(1)
      .map(
        (p) =>
          `| ${setup} | ${p.factor}× | ${p.goodput} | ${percent(p.goodputShare)} | ${p.p50Ms} | ${p.p99Ms} | ${percent(p.rejectedShare)} | ${percent(p.timedOutShare)} | ${percent(p.criticalSuccess, 2)} | ${percent(p.batchSuccess, 2)} |`,
      ),
  );
  return [...header, ...rows].join('\n');
}

/** Replaces what lies between the markers with `text`; the README must already hold them. */
export function writeIntoReadme(text: string): void {
  const readme = readFileSync(README, 'utf8');
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`bench/README.md has no ${BEGIN} … ${END} markers`);
  writeFileSync(README, `${readme.slice(0, begin + BEGIN.length)}\n${text}\n${readme.slice(end)}`);
}
