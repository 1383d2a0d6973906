import { expect, it } from 'vitest';
import { createLimiter } from '../../src/index.js';
import { errorOf } from './error-of.js';

/** One case per `[spec, field]` row: `createLimiter(spec)` throws ERR_TOLLGATE_INVALID_SPEC naming `field`, in its message too. */
export function itRefusesSpecs(rows: [unknown, string][]): void {
  it.each(rows)('%j → %s', (spec, field) => {
    const error = errorOf(() => createLimiter(spec as never));
    expect(error.code).toBe('ERR_TOLLGATE_INVALID_SPEC');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });
}
