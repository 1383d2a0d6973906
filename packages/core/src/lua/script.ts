import { ALGORITHMS } from '../algorithms/registry.js';
import { driverLua, preludeLua } from './sources.generated.js';

/**
 * Each algorithm's file in a block of its own: its local helpers stay out of the other files' way,
 * and go out of scope at its end, so the chunk's locals never near Lua's limit of 200.
 */
const scoped = (lua: string) => `do\n${lua}\nend`;

/**
 * The shared helpers, every algorithm's step, and the driver's run_batch(KEYS, ARGV) (lua/driver.lua).
 * Its reply carries, in front, the call's own id (the last ARGV): a store can then tell its answer
 * from another call's, should a client library ever hand it the wrong reply (node-redis 5 Cluster
 * clients do after a lost connection).
 */
const definitions = [preludeLua, ...[...ALGORITHMS.values()].map((a) => scoped(a.lua)), driverLua].join('\n');

/**
 * The one script behind every Redis decision sent by EVAL: the definitions, made again at every
 * call, then the driver's run.
 */
export const TOLLGATE_SCRIPT: string = `${definitions}\nreturn run_batch(KEYS, ARGV)`;

/**
 * The same driver as a Redis function library (Redis 7 `FUNCTION LOAD`), its function named
 * `name` as the library is (letters, digits and underscores). Its definitions are made at the
 * first FCALL and kept: Redis gives a library's code no standard library (math, string, struct)
 * while loading it, only when its functions run. Every later call runs the driver alone.
 */
export function tollgateLibrary(name: string): string {
  return [
    `#!lua name=${name}`,
    `local function define()\n${definitions}\nreturn run_batch\nend`,
    'local run_batch',
    `redis.register_function('${name}', function(keys, args)`,
    '  run_batch = run_batch or define()',
    '  return run_batch(keys, args)',
    'end)',
  ].join('\n');
}
