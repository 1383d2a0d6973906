import { ALGORITHMS } from '../algorithms/registry.js';
import driver from './driver.lua';
import prelude from './prelude.lua';

/** The one script behind every Redis decision: shared helpers, each algorithm's step, the batch driver. */
export const TOLLGATE_SCRIPT: string = [prelude, ...[...ALGORITHMS.values()].map((a) => a.lua), driver].join('\n');
