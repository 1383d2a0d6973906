// Says whether the peers the benchmarks measure are at their latest version: the version
// installed here against the one the npm registry gives as latest (`npm view <name> version`).
// Exits 1 when one is behind, so that a report is not taken against an old peer unnoticed.
// Usage: pnpm bench:peers
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const PEERS = ['express-rate-limit', 'rate-limit-redis', 'rate-limiter-flexible', '@fastify/rate-limit', 'hono-rate-limiter'];
const require = createRequire(import.meta.url);

function installed(name: string): string {
  // Not every peer exports its package.json: read it beside the entry point's package root.
  const entry = require.resolve(name);
  const root = entry.slice(0, entry.lastIndexOf(`/node_modules/${name}/`) + `/node_modules/${name}/`.length);
  return (require(`${root}package.json`) as { version: string }).version;
}

let behind = 0;
for (const name of PEERS) {
  const here = installed(name);
  const latest = execFileSync('npm', ['view', name, 'version'], { encoding: 'utf8' }).trim();
  const note = here === latest ? 'latest' : `BEHIND: latest is ${latest}; update bench/package.json`;
  if (here !== latest) behind++;
  console.log(`${name} ${here}: ${note}`);
}
process.exitCode = behind > 0 ? 1 : 0;
