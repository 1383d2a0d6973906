import type { Options } from 'tsup';

/**
 * The build every published package shares: `src/index.ts` to ESM and CJS with type
 * declarations and source maps, for Node 20. A package's `tsup.config.ts` uses it as is,
 * or spreads it and adds what only that package needs.
 */
export const packageBuild: Options = {
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
};
