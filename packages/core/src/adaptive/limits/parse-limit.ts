import { invalidOption } from '../../errors.js';
import { closestName, refuseUnknownFields } from '../../option-fields.js';
import { wholeAtLeast } from '../checks.js';
import { AIMD_FIELDS, type AimdOptions, createAimd } from './aimd.js';
import { createGradient2, GRADIENT2_FIELDS, type Gradient2Options } from './gradient2.js';
import type { LimitAlgorithm } from './sample.js';
import { createVegas, VEGAS_FIELDS, type VegasOptions } from './vegas.js';

/**
 * How the limiter finds its limit: an algorithm's name (its defaults), an algorithm with options,
 * or a number (a fixed limit, to compare against or to turn adaptation off).
 */
export type AdaptiveLimitOption =
  | number
  | 'aimd'
  | 'vegas'
  | 'gradient2'
  | ({ algorithm: 'aimd' } & AimdOptions)
  | ({ algorithm: 'vegas' } & VegasOptions)
  | ({ algorithm: 'gradient2' } & Gradient2Options);

type Named = Exclude<AdaptiveLimitOption, number | string>;

const ALGORITHMS = {
  aimd: { fields: AIMD_FIELDS, create: (options: Named, path: string) => createAimd(options as AimdOptions, path) },
  vegas: { fields: VEGAS_FIELDS, create: (options: Named, path: string) => createVegas(options as VegasOptions, path) },
  gradient2: { fields: GRADIENT2_FIELDS, create: (options: Named, path: string) => createGradient2(options as Gradient2Options, path) },
} as const satisfies Record<Named['algorithm'], unknown>;

type AlgorithmName = keyof typeof ALGORITHMS;

/** The `limit` option checked (errors name `field` and below) and bound to its parameters. */
export function parseLimitOption(value: unknown, field = 'limit'): LimitAlgorithm {
  if (typeof value === 'number') return fixedLimit(wholeAtLeast(value, 1, field, 1));
  if (typeof value === 'string') return ALGORITHMS[algorithmName(value, field)].create({ algorithm: value } as Named, `${field}.`);
  if (typeof value !== 'object' || value === null)
    throw invalidOption(field, `must be a number, ${names()} or an object with an algorithm`, value);
  const { algorithm, ...options } = value as { algorithm?: unknown };
  const name = algorithmName(algorithm, `${field}.algorithm`);
  refuseUnknownFields(options, ALGORITHMS[name].fields, `${field}.`);
  return ALGORITHMS[name].create(value as Named, `${field}.`);
}

function algorithmName(value: unknown, field: string): AlgorithmName {
  if (typeof value === 'string' && Object.hasOwn(ALGORITHMS, value)) return value as AlgorithmName;
  const closest = typeof value === 'string' ? closestName(value, Object.keys(ALGORITHMS)) : undefined;
  throw invalidOption(field, `must be ${names()}${closest === undefined ? '' : ` (did you mean ${closest}?)`}`, value);
}

const names = (): string => Object.keys(ALGORITHMS).join(', ');

/** A limit that never moves. */
function fixedLimit(limit: number): LimitAlgorithm {
  return { name: 'fixed', initial: { limit }, step: (state) => state, estimates: () => ({}) };
}
