import { describe } from 'vitest';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

describe('a sliding-window-counter spec is refused, naming the field', () => {
  itRefusesSpecs([[{ algorithm: 'sliding-window-counter', limit: 5, window: 1e300 }, 'spec.window']]);
});
