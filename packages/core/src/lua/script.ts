import { ALGORITHMS } from '../algorithms/registry.js';
import { driverLua, preludeLua } from './sources.generated.js';

/**
 * Each algorithm's file in a block of its own: its local helpers stay out of the other files' way,
 * and go out of scope at its end, so the chunk's locals never near Lua's limit of 200.
 */
const scoped = (lua: string) => `do\n${lua}\nend`;

/** The shared helpers and every algorithm's step: what a call needs defined before the driver runs. */
const definitions = [preludeLua, ...[...ALGORITHMS.values()].map((a) => scoped(a.lua))].join('\n');

/**
 * The driver runs as a function of the call's keys and arguments, its locals apart from the
 * helpers'. Its reply carries, in front, the call's own id (the last ARGV): a store can then tell
 * its answer from another call's, should a client library ever hand it the wrong reply (node-redis
 * 5 Cluster clients do after a lost connection).
 */
const driverDefinition = `local function run_batch(KEYS, ARGV)\n${driverLua}\nend`;

/**
 * The one script behind every Redis decision sent by EVAL: shared helpers, each algorithm's step,
 * the batch driver, all defined again at every call.
 */
export const TOLLGATE_SCRIPT: string = `${definitions}\n${driverDefinition}\nreturn run_batch(KEYS, ARGV)`;

/**
 * The same driver as a Redis function library (Redis 7 `FUNCTION LOAD`), its function named
 * `name` as the library is (letters, digits and underscores). Its definitions are made at the
 * first FCALL and kept: Redis gives a library's code no standard library (math, string, struct)
 * while loading it, only when its functions run. Every later call runs the driver alone.
 */
export function tollgateLibrary(name: string): string {
  return [
    `#!lua name=${name}`,
    `local function define()\n${definitions}\n${driverDefinition}\nreturn run_batch\nend`,
    'local run_batch',
    `redis.register_function('${name}', function(keys, args)`,
    '  run_batch = run_batch or define()',
    '  return run_batch(keys, args)',
    'end)',
  ].join('\n');
}
