import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { markdownFiles } from '../src/markdown-blocks.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = /^<!-- sample: ([\w-]+) -->$/;
/**
 * Fences of output: none or `http` (code, shell commands and configs take their language; text
 * that is not output, such as a formula or a signature summary, takes `text`, which a sample may
 * use too under its marker).
 */
const OUTPUT_FENCE = /^(`{3,})(http)?$/;

/** Every output block of the Markdown files: where it is, and the sample name on the line above it (if any). */
function outputBlocks(): { at: string; name: string | undefined }[] {
  return markdownFiles(root).flatMap((file) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const found: { at: string; name: string | undefined }[] = [];
    for (let i = 0; i < lines.length; i++) {
      const fence = /^(`{3,})/.exec(lines[i]!)?.[1];
      if (fence === undefined) continue;
      const marked = SAMPLE.test(lines[i - 1] ?? '');
      if (marked || OUTPUT_FENCE.test(lines[i]!))
        found.push({ at: `${relative(root, file)}:${i + 1}`, name: SAMPLE.exec(lines[i - 1] ?? '')?.[1] });
      do i++;
      while (i < lines.length && lines[i]!.trim() !== fence);
    }
    return found;
  });
}

/** The text of every test source, where a sample's name is read (`markdownSample(file, '<name>')`, the name quoted). */
function testSources(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !['node_modules', 'dist', '.tmp'].includes(entry.name)) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.ts')) texts.push(readFileSync(join(dir, entry.name), 'utf8'));
    }
  };
  for (const dir of ['packages', 'examples']) walk(join(root, dir));
  return texts.join('\n');
}

describe('sample output in the Markdown files', () => {
  const blocks = outputBlocks();
  const sources = testSources();

  it('finds the samples', () => {
    expect(blocks.length).toBeGreaterThan(5);
  });

  it.each(blocks.map((block) => [block.at, block] as const))('%s is a sample a test produces', (_at, { name }) => {
    expect(name, 'an output block sits under <!-- sample: <name> --> (shell commands take ```sh)').toBeDefined();
    expect(sources.includes(`'${name}'`), `no test names the sample '${name}' (markdownSample(file, '${name}'))`).toBe(true);
  });
});
