import { readFileSync } from 'node:fs';

const marker = (name: string) => `<!-- sample: ${name} -->`;

/**
 * The lines of the fenced block right after the line `<!-- sample: <name> -->` of a Markdown
 * file: sample output that a test produces and compares with what runs, so the documentation
 * cannot drift from it.
 */
export function markdownSample(file: URL | string, name: string): string[] {
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(`${marker(name)}\n`);
  if (at === -1) throw new Error(`${String(file)} has no ${marker(name)} line`);
  const block = /^(`{3,})[^\n]*\n([\s\S]*?)\n\1[ \t]*$/m.exec(text.slice(at + marker(name).length + 1));
  if (block?.index !== 0) throw new Error(`${marker(name)} in ${String(file)} is not followed by a fenced block`);
  return block[2]!.split('\n');
}

/** A response as `curl -si` shows it. */
export interface CurlResponse {
  status: number;
  statusText: string;
  headers: Headers;
  body: string;
}

/**
 * `response` written line for line as the `curl -si` output `sampleLines` shows it (from its
 * `HTTP/1.1` line on): the status line, each header field the sample lists (the sample's
 * spelling of the name, the response's value; other fields are left out as the sample leaves
 * them), a blank line and the body. Compare it with `sampleLines`.
 */
export function asCurlShows(sampleLines: readonly string[], response: CurlResponse): string[] {
  const blank = sampleLines.indexOf('');
  const fields = blank === -1 ? sampleLines.slice(1) : sampleLines.slice(1, blank);
  const shown = [
    `HTTP/1.1 ${response.status} ${response.statusText}`,
    ...fields.map((line) => {
      const name = line.slice(0, line.indexOf(':'));
      return `${name}: ${response.headers.get(name) ?? '(absent)'}`;
    }),
  ];
  // A body's last newline ends its last line: curl shows no empty line after it.
  return blank === -1 ? shown : [...shown, '', ...response.body.replace(/\n$/, '').split('\n')];
}

/** The code of the first ```ts block after the line `heading` (e.g. `## Example`) of a Markdown file. */
export function markdownExample(file: URL | string, heading: string): string {
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  const code = at === -1 ? undefined : /^```ts\n([\s\S]*?)\n```$/m.exec(text.slice(at))?.[1];
  if (code === undefined) throw new Error(`${String(file)} has no \`\`\`ts block under ${heading}`);
  return code;
}

/** Header lines of a sample (`name: value`, e.g. what `curl -si | grep -i ratelimit` prints) with `headers`' values. */
export function headersAsShown(sampleLines: readonly string[], headers: Headers): string[] {
  return sampleLines.map((line) => {
    const name = line.slice(0, line.indexOf(':'));
    return `${name}: ${headers.get(name) ?? '(absent)'}`;
  });
}
