import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// The library in both formats, and the `tollgate-server` command as one ESM file.
export default defineConfig([packageBuild, { ...packageBuild, entry: ['src/cli.ts'], format: ['esm'], dts: false, clean: false }]);
