import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';

/** Loads `.lua` files as strings, as tsup's `text` loader does in the build. */
function luaText(): Plugin {
  return {
    name: 'lua-text',
    transform(code, id) {
      if (!id.endsWith('.lua')) return null;
      return { code: `export default ${JSON.stringify(code)};`, map: null };
    },
  };
}

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  plugins: [luaText()],
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
