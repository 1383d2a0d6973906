import { ALGORITHMS } from '../algorithms/registry.js';
import { block } from '../block/block-limit.js';
import { driverLua, preludeLua } from './sources.generated.js';

/**
 * Each algorithm's file in a block of its own: its local helpers stay out of the other files' way,
 * and go out of scope at its end, so the chunk's locals never near Lua's limit of 200.
 */
const scoped = (lua: string) => `do\n${lua}\nend`;

/**
 * The driver runs as a function, its locals apart from the helpers'. Its reply carries, in front,
 * the call's own id (the last ARGV): a store can then tell its answer from another call's, should a
 * client library ever hand it the wrong reply (node-redis 5 Cluster clients do after a lost connection).
 */
const driverInScope = `local function run_batch()\n${driverLua}\nend\nreturn run_batch()`;

/** The one script behind every Redis decision: shared helpers, each algorithm's step (and a rule's block), the batch driver. */
export const TOLLGATE_SCRIPT: string = [preludeLua, ...[...ALGORITHMS.values(), block].map((a) => scoped(a.lua)), driverInScope].join('\n');
