import { describe } from 'vitest';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

describe('a token-bucket spec is refused, naming the field', () => {
  itRefusesSpecs([
    [{ algorithm: 'token-bucket', capacity: -1, refillPerSecond: 1 }, 'spec.capacity'],
    [{ algorithm: 'token-bucket', capacity: 5 }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: -2 }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1, refillAmount: 2 }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: Number.MIN_VALUE }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1e300 }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: MAX_SAFE, refillPerSecond: 1 }, 'spec.capacity'],
    [{ algorithm: 'token-bucket', capacity: 5, refillAmount: 1e-300, refillInterval: '1s' }, 'spec.refillAmount'],
    [{ algorithm: 'token-bucket', capacity: 5, refillAmount: 1, refillInterval: 1e300 }, 'spec.refillInterval'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1, mode: 'reserve', maxDelay: 'later' }, 'spec.maxDelay'],
  ]);
});
