import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, markdownFiles, typeScriptBlocks } from '../src/markdown-blocks.js';
import { type Diagnostic, typeCheck } from '../src/type-check.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Inside this package, so the snippets' imports resolve to its dependencies (the built @tollgate packages, express, ...).
const outDir = fileURLToPath(new URL('../.tmp/snippets/', import.meta.url));
const context = fileURLToPath(new URL('../snippets/context.d.ts', import.meta.url));

const blocks = markdownFiles(root).flatMap((file) => typeScriptBlocks(root, file));
const fileOf = (block: CodeBlock) => join(outDir, `${block.file.replace(/[^A-Za-z0-9]+/g, '_')}_L${block.line}.ts`);
let diagnostics: Map<string, Diagnostic[]>;

/** A relative import in a snippet means a file beside the Markdown file, as a reader of it sees. */
function fromMarkdownFolder(block: CodeBlock): string {
  const folder = dirname(join(root, block.file));
  return block.code.replace(/(from\s+['"])(\.\.?\/[^'"]+)/g, (_match, from: string, path: string) => from + resolve(folder, path));
}

beforeAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // `export {}` makes every snippet a module of its own, so their top-level names never meet.
  for (const block of blocks) writeFileSync(fileOf(block), `${fromMarkdownFolder(block)}\nexport {};\n`);
  diagnostics = typeCheck(blocks.map(fileOf), [context]);
}, 120_000);

describe('every ```ts block of every Markdown file type-checks under strict (packages built: `pnpm test` builds first)', () => {
  it('finds the READMEs and their blocks', () => {
    expect(blocks.map((block) => block.file)).toEqual(expect.arrayContaining(['README.md', 'packages/core/README.md']));
  });

  it.each(blocks.map((block) => [`${block.file}:${block.line}`, block] as const))('%s', (_name, block) => {
    const errors = diagnostics.get(fileOf(block))!.map(({ line, message }) => `${block.file}:${block.line + line - 1}: ${message}`);
    expect(errors).toEqual([]);
  });
});
