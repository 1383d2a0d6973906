// Node module hook: `import source from './x.lua'` yields the file's text, as the build does.
// Use with tsx: node --import tsx --import @tollgate/testing/lua-loader file.ts
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      import { readFile } from 'node:fs/promises';
      export async function load(url, context, nextLoad) {
        if (!url.endsWith('.lua')) return nextLoad(url, context);
        const text = await readFile(new URL(url), 'utf8');
        return { format: 'module', source: 'export default ' + JSON.stringify(text) + ';', shortCircuit: true };
      }
    `),
);
