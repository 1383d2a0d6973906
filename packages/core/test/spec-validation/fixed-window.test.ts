import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/index.js';
import { errorOf } from '../helpers/error-of.js';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

describe('a fixed-window spec is refused, naming the field', () => {
  itRefusesSpecs([
    [{ algorithm: 'fixed-window', limit: 10 }, 'spec.window'],
    [{ algorithm: 'fixed-window', limit: -3, window: '1m' }, 'spec.limit'],
    [{ algorithm: 'fixed-window', limit: 2.5, window: '1m' }, 'spec.limit'],
    [{ algorithm: 'fixed-window', limit: 5, window: 1e300 }, 'spec.window'],
    [{ algorithm: 'fixed-window', limit: 5, window: 0 }, 'spec.window'],
    [{ algorithm: 'fixed-window', limit: 5, window: 'never' }, 'spec.window'],
    [{ algorithm: 'fixed-window', limit: 5, window: '1s', mode: 'reserve', maxDelay: '1s' }, 'spec.mode'],
    [{ algorithm: 'sliding-window-log', limit: 5, window: 'forever' }, 'spec.window'],
    [{ algorithm: 'sliding-window-counter', limit: 5, window: Number.POSITIVE_INFINITY }, 'spec.window'],
  ]);

  it("points a window of 0, and a sliding window 'forever', to the count that never resets", () => {
    expect(errorOf(() => createLimiter({ algorithm: 'fixed-window', limit: 5, window: 0 })).message).toBe(
      "spec.window must be >= 1 ms; a count that never resets is window: 'forever' (got 0)",
    );
    expect(errorOf(() => createLimiter({ algorithm: 'sliding-window-log', limit: 5, window: 'forever' as never })).message).toContain(
      "{ algorithm: 'fixed-window', window: 'forever' }",
    );
  });

  it("takes a limit of 0, and window: 'forever' or Infinity for a count that never resets", () => {
    expect(createLimiter({ algorithm: 'fixed-window', limit: 0, window: '1m' }).limits[0]!.params).toEqual({ limit: 0, windowMs: 60_000 });
    for (const window of ['forever', Number.POSITIVE_INFINITY] as const) {
      const [limit] = createLimiter({ algorithm: 'fixed-window', limit: 100, window }).limits;
      expect(limit!.params).toEqual({ limit: 100, windowMs: Number.POSITIVE_INFINITY });
      // The Lua step reads -1 as forever: Infinity would not survive the trip as text.
      expect(limit!.luaArgs).toEqual(['fixed-window', '100', '-1']);
    }
  });
});
