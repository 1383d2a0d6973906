import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A fenced TypeScript block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository root. */
  file: string;
  /** 1-based line of the block's first line of code in that file. */
  line: number;
  code: string;
}

const TS_FENCE = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript|mts|cts)\b/;
/** Folders that hold no documentation of ours. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git', '.turbo', '.tmp', '.changeset']);

/** Every Markdown file under `root`, found afresh each run so a new README is checked without being listed. */
export function markdownFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(join(dir, entry.name));
      } else if (entry.name.endsWith('.md')) {
        found.push(join(dir, entry.name));
      }
    }
  };
  walk(root);
  return found.sort();
}

/** The ```ts (or typescript, mts, cts) blocks of one Markdown file. */
export function typeScriptBlocks(root: string, path: string): CodeBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = TS_FENCE.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) end++;
    blocks.push({ file: relative(root, path), line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}
