import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { writeLuaSources } from './packages/core/scripts/lua-sources.mjs';

// Tests import the Lua files as the string constants of this generated module, as the build does.
await writeLuaSources();

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources: no build needed first.
    alias: {
      '@tollgate/core': source('./packages/core/src/index.ts'),
      '@tollgate/nestjs': source('./packages/nestjs/src/index.ts'),
      '@tollgate/express': source('./packages/express/src/index.ts'),
      '@tollgate/koa': source('./packages/koa/src/index.ts'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
