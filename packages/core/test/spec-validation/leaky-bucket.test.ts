import { describe } from 'vitest';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

describe('a leaky-bucket spec is refused, naming the field', () => {
  itRefusesSpecs([
    [{ algorithm: 'leaky-bucket', rate: 1e-300 }, 'spec.rate'],
    [{ algorithm: 'leaky-bucket', rate: 10, burst: MAX_SAFE }, 'spec.burst'],
    [{ algorithm: 'leaky-bucket', rate: 10, mode: 'shaping', maxDelay: 1e300 }, 'spec.maxDelay'],
  ]);
});
