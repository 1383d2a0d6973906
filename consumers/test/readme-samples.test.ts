import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { markdownFiles } from '../src/markdown-blocks.js';
import { samplesRead } from '../src/samples-read.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = /^<!-- sample: ([\w-]+) -->$/;
/**
 * Fences of output: none or `http` (code, shell commands and configs take their language; text
 * that is not output, such as a formula or a signature summary, takes `text`, which a sample may
 * use too under its marker).
 */
const OUTPUT_FENCE = /^(`{3,})(http)?$/;

/** Every output block of the Markdown files: where it is, and the sample name on the line above it (if any). */
function outputBlocks(): { at: string; file: string; name: string | undefined }[] {
  return markdownFiles(root).flatMap((file) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const found: { at: string; file: string; name: string | undefined }[] = [];
    for (let i = 0; i < lines.length; i++) {
      const fence = /^(`{3,})/.exec(lines[i]!)?.[1];
      if (fence === undefined) continue;
      const marked = SAMPLE.test(lines[i - 1] ?? '');
      if (marked || OUTPUT_FENCE.test(lines[i]!))
        found.push({ at: `${relative(root, file)}:${i + 1}`, file: resolve(file), name: SAMPLE.exec(lines[i - 1] ?? '')?.[1] });
      do i++;
      while (i < lines.length && lines[i]!.trim() !== fence);
    }
    return found;
  });
}

describe('sample output in the Markdown files', () => {
  const blocks = outputBlocks();
  const read = samplesRead(root, ['packages', 'examples']);

  it('finds the samples', () => {
    expect(blocks.length).toBeGreaterThan(5);
  });

  it.each(blocks.map((block) => [block.at, block] as const))('%s is a sample a test produces', (at, { file, name }) => {
    expect(name, 'an output block sits under <!-- sample: <name> --> (shell commands take ```sh)').toBeDefined();
    const shown = `markdownSample(new URL('<path to ${at.slice(0, at.lastIndexOf(':'))}>', import.meta.url), '${name}')`;
    expect(read.has(`${file}#${name}`), `no test reads this file's sample '${name}' (${shown})`).toBe(true);
  });
});
