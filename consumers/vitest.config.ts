import { defineConfig } from 'vitest/config';

// Run after the rest of the suite (`pnpm test`), never beside it: npm installs and compilers
// would take the CPU from the timing-sensitive tests of the other packages.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
