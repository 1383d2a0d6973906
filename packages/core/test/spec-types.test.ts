import { describe, expectTypeOf, it } from 'vitest';
import type { RegisteredAlgorithm } from '../src/algorithms/registry.js';
import type { AlgorithmName, LimitSpec } from '../src/index.js';

type DeclaredFields<N extends AlgorithmName> = keyof Extract<RegisteredAlgorithm, { name: N }>['fields'];
/** The fields of a spec type besides `algorithm`, `name` and `unit`, over every member of a union. */
type FieldsOfType<T> = T extends unknown ? Exclude<keyof T, 'algorithm' | 'name' | 'unit'> : never;
type TypedFields<N extends AlgorithmName> = FieldsOfType<Extract<LimitSpec, { algorithm: N }>>;

/** Per algorithm: the fields its spec type and its declaration do not share (none when they agree). */
type Disagreements = {
  [N in AlgorithmName]: Exclude<TypedFields<N>, DeclaredFields<N>> | Exclude<DeclaredFields<N>, TypedFields<N>>;
};

describe('LimitSpec', () => {
  it('has a spec type for every algorithm, with exactly the fields the algorithm declares (checked by the typecheck)', () => {
    expectTypeOf<Disagreements>().toEqualTypeOf<{ [N in AlgorithmName]: never }>();
  });
});
