import { concurrency } from './concurrency/model.js';
import { fixedWindow } from './fixed-window/model.js';
import { gcra } from './gcra/model.js';
import { leakyBucket } from './leaky-bucket/model.js';
import { slidingWindowCounter } from './sliding-window-counter/model.js';
import { slidingWindowLog } from './sliding-window-log/model.js';
import { tokenBucket } from './token-bucket/model.js';
import type { AnyAlgorithm } from './types.js';
import { warmUp } from './warm-up/model.js';

/** Every algorithm: a spec's `algorithm` names one of them, the Redis script holds all their Lua steps. */
const REGISTERED = [gcra, tokenBucket, fixedWindow, slidingWindowLog, slidingWindowCounter, leakyBucket, warmUp, concurrency] as const;

export type RegisteredAlgorithm = (typeof REGISTERED)[number];

/** The name a spec gives in `algorithm`. */
export type AlgorithmName = RegisteredAlgorithm['name'];

/** Every algorithm, by the name a spec gives in `algorithm`. */
export const ALGORITHMS: ReadonlyMap<string, AnyAlgorithm> = new Map<string, AnyAlgorithm>(
  REGISTERED.map((algorithm) => [algorithm.name, algorithm]),
);
