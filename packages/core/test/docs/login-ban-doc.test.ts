import { fileURLToPath } from 'node:url';
import { markdownExample, markdownSample, runTypeScript } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';

const README = new URL('../../README.md', import.meta.url);
// Inside the package, so the snippet's imports resolve as a user's do: to the built package.
const outDir = fileURLToPath(new URL('../.tmp/login-ban-doc/', import.meta.url));

/** Gives the example the password check it declares, then tries to log in as its sample shows. */
const RUNNER = `(globalThis as { passwordMatches?: unknown }).passwordMatches = async (_user: string, password: string) => password === 'right';
const { login } = await import('./login.js');
for (let attempt = 1; attempt <= 7; attempt++) console.log('attempt ' + attempt + ': ' + (await login('ann', 'wrong')));
console.log('right password: ' + (await login('ann', 'right')));
`;

describe("core README's Blocks and penalties (run `pnpm build` first)", () => {
  it('bans a user for 15 minutes after 5 failed logins, as its sample shows', async () => {
    const files = { 'login.ts': markdownExample(README, '## Blocks and penalties'), 'main.ts': RUNNER };
    const printed = (await runTypeScript(outDir, files, 'main.ts')).trim().split('\n');
    expect(printed).toEqual(markdownSample(README, 'login-ban'));
  }, 60_000);
});
