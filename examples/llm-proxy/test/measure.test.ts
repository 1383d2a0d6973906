import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { markdownSample } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));

// Real time is the subject: the overshoot comes from calls in flight when a budget runs out.
describe('pnpm measure (built packages: `pnpm test` builds them)', () => {
  it('prints the tokens served above budget per user: charging after the answer overshoots, holding does not', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'src/measure.ts'], { cwd: exampleDir, encoding: 'utf8' });
    console.log(out);
    const lines = out.trimEnd().split('\n');
    const worst = (accounting: string) =>
      Number(
        lines
          .find((line) => line.startsWith(accounting))!
          .trim()
          .split(/\s+/)
          .at(-1),
      );
    expect(worst('hold')).toBe(0);
    expect(worst('charge-after')).toBeGreaterThan(0);
    // The README shows a run of the same load: its heading lines are these, its figures of that run.
    const shown = markdownSample(new URL('../README.md', import.meta.url), 'overshoot');
    expect(shown.slice(0, 2)).toEqual(lines.slice(0, 2));
    expect(shown.slice(2).map((line) => line.split(/\s+/)[0])).toEqual(['charge-after', 'hold']);
  });
});
