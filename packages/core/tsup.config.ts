import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

export default defineConfig({
  ...packageBuild,
  // The Lua scripts are inlined into the bundle as strings.
  loader: { '.lua': 'text' },
});
