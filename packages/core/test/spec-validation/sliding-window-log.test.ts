import { describe } from 'vitest';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

describe('a sliding-window-log spec is refused, naming the field', () => {
  itRefusesSpecs([
    [{ algorithm: 'sliding-window-log', limit: 5, window: 1e300 }, 'spec.window'],
    [{ algorithm: 'sliding-window-log', limit: 1e9, window: '1s' }, 'spec.limit'],
  ]);
});
