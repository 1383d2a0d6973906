import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/index.js';
import { errorOf } from '../helpers/error-of.js';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

describe('a rule is refused, naming the field, whatever its algorithm', () => {
  itRefusesSpecs([
    [{ algorithm: 'leaky-sieve', rate: 10 }, 'spec.algorithm'],
    [{}, 'spec.algorithm'],
    [{ qps: 1, name: 'has space' }, 'spec.name'],
  ]);

  it('rejects a bad prefix and a bad store as options', () => {
    expect(errorOf(() => createLimiter({ qps: 1, prefix: 'a{b}' })).field).toBe('prefix');
    expect(errorOf(() => createLimiter({ qps: 1, store: {} as never })).field).toBe('store');
  });
});
