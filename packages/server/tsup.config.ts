import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// `shims`: the CommonJS build finds the .proto files through `import.meta.url` too.
// The command is one more ESM file, `dist/cli.js`.
export default defineConfig([
  { ...packageBuild, shims: true },
  { ...packageBuild, entry: ['src/cli.ts'], format: ['esm'], dts: false, clean: false },
]);
