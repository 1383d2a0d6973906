import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

interface Source {
  path: string;
  text: string;
}

/** `new URL('<rel>', <base>)`: the file a test points at, relative to `base` (its `import.meta.url`, or a helper's parameter holding a caller's). */
const URL_OF = String.raw`new URL\(\s*'([^']+)'\s*,\s*([\w.]+)\s*\)`;
const NAMED_URL = new RegExp(String.raw`(\w+)\s*=\s*${URL_OF}`, 'g');
const SAMPLE_CALL = new RegExp(String.raw`markdownSample\(\s*(?:${URL_OF}|(\w+))\s*,\s*(?:'([\w-]+)'|(\w+))\s*\)`, 'g');
const QUOTED_NAME = /'([\w-]+)'/g;

/** The TypeScript sources under `dirs` of `root` (tests and the helpers they call). */
function sourcesUnder(root: string, dirs: readonly string[]): Source[] {
  const found: Source[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !['node_modules', 'dist', '.tmp'].includes(entry.name)) walk(path);
      else if (entry.name.endsWith('.ts')) found.push({ path, text: readFileSync(path, 'utf8') });
    }
  };
  for (const dir of dirs) walk(join(root, dir));
  return found;
}

/**
 * The folders `base` stands for in `source`: its own with `import.meta.url`; else (a helper taking
 * the test's URL as a parameter) those of the sources that call one of its exported functions with
 * their `import.meta.url`.
 */
function baseFolders(source: Source, base: string, sources: readonly Source[]): string[] {
  if (base === 'import.meta.url') return [dirname(source.path)];
  const helpers = [...source.text.matchAll(/export function (\w+)/g)].map((match) => match[1]!);
  return sources
    .filter(({ text }) => helpers.some((helper) => text.includes(`${helper}(import.meta.url`)))
    .map(({ path }) => dirname(path));
}

/** The samples `source` reads: `[markdown file, sample name]` for each `markdownSample` call whose file it can tell. */
function samplesReadBy(source: Source, sources: readonly Source[]): [string, string][] {
  const named = new Map([...source.text.matchAll(NAMED_URL)].map((match) => [match[1]!, [match[2]!, match[3]!] as const]));
  // A name held in a variable (a table of names) is one of the file's quoted names.
  const quoted = [...source.text.matchAll(QUOTED_NAME)].map((match) => match[1]!);
  return [...source.text.matchAll(SAMPLE_CALL)].flatMap((call) => {
    const [, inlineRel, inlineBase, variable, name] = call;
    const [rel, base] = inlineRel === undefined ? (named.get(variable!) ?? []) : [inlineRel, inlineBase!];
    if (rel === undefined || base === undefined) return [];
    const files = baseFolders(source, base, sources).map((folder) => resolve(folder, rel));
    return files.flatMap((file) => (name === undefined ? quoted : [name]).map((each) => [file, each] as [string, string]));
  });
}

/**
 * Every sample the tests under `dirs` read with `markdownSample(<file>, '<name>')`, as
 * `<absolute markdown path>#<name>`: a sample is guarded only by a test reading it from its own file.
 */
export function samplesRead(root: string, dirs: readonly string[]): Set<string> {
  const sources = sourcesUnder(root, dirs);
  return new Set(sources.flatMap((source) => samplesReadBy(source, sources).map(([file, name]) => `${file}#${name}`)));
}
