import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';
import { writeLuaSources } from './scripts/lua-sources.mjs';

// The Lua files reach the bundle as the string constants of src/lua/sources.generated.ts.
await writeLuaSources();

export default defineConfig(packageBuild);
