import { ALGORITHMS } from '../algorithms/registry.js';
import driver from './driver.lua';
import prelude from './prelude.lua';

/**
 * The driver runs as a function, its locals apart from the helpers'. Its reply carries, in front,
 * the call's own id (the last ARGV): a store can then tell its answer from another call's, should a
 * client library ever hand it the wrong reply (node-redis 5 Cluster clients do after a lost connection).
 */
const driverInScope = `local function run_batch()\n${driver}\nend\nreturn run_batch()`;

/** The one script behind every Redis decision: shared helpers, each algorithm's step, the batch driver. */
export const TOLLGATE_SCRIPT: string = [prelude, ...[...ALGORITHMS.values()].map((a) => a.lua), driverInScope].join('\n');
