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
    // Braces only around one non-empty hash tag: any other brace would move the Cluster slot.
    for (const prefix of ['a{b', 'a}b', 'a{}', '{a}{b}', '{a{b}}', 'a b', '', 'x'.repeat(129)]) {
      expect(errorOf(() => createLimiter({ qps: 1, prefix })).field, prefix).toBe('prefix');
    }
    expect(createLimiter({ qps: 1, prefix: '{jobs}:tenant' }).rule).toBe('default');
    expect(errorOf(() => createLimiter({ qps: 1, store: {} as never })).field).toBe('store');
  });
});
