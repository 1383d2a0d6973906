import { describe } from 'vitest';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

describe('a fixed-window spec is refused, naming the field', () => {
  itRefusesSpecs([
    [{ algorithm: 'fixed-window', limit: 10 }, 'spec.window'],
    [{ algorithm: 'fixed-window', limit: -3, window: '1m' }, 'spec.limit'],
    [{ algorithm: 'fixed-window', limit: 5, window: 1e300 }, 'spec.window'],
    [{ algorithm: 'fixed-window', limit: 5, window: '1s', mode: 'reserve', maxDelay: '1s' }, 'spec.mode'],
  ]);
});
