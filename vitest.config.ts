import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';
import { writeLuaSources } from './packages/core/scripts/lua-sources.mjs';

// Tests import the Lua files as the string constants of this generated module, as the build does.
await writeLuaSources();

/** In watch mode, regenerates the module when a .lua file changes (tests importing it then rerun). */
function luaSources(): Plugin {
  return {
    name: 'lua-sources',
    configureServer(server) {
      server.watcher.on('change', (path) => {
        if (path.endsWith('.lua')) void writeLuaSources();
      });
    },
  };
}

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  plugins: [luaSources()],
  resolve: {
    // Tests run against the sources: no build needed first.
    alias: {
      '@tollgate/core': source('./packages/core/src/index.ts'),
      '@tollgate/nestjs': source('./packages/nestjs/src/index.ts'),
      '@tollgate/express': source('./packages/express/src/index.ts'),
      '@tollgate/koa': source('./packages/koa/src/index.ts'),
      '@tollgate/hono': source('./packages/hono/src/index.ts'),
      '@tollgate/prometheus': source('./packages/prometheus/src/index.ts'),
      '@tollgate/server': source('./packages/server/src/index.ts'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
