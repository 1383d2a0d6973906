import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/index.js';

describe('durations', () => {
  it.each([
    [250, 250],
    ['500ms', 500],
    ['1s', 1000],
    ['1.5s', 1500],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['2 m', 120_000],
  ])('%j is %d ms', (input, ms) => {
    expect(parseDuration(input, 'window')).toBe(ms);
  });

  it.each(['0s', '1w', '', 'soon', 0, -1, 0.5, Number.NaN])('%j is refused', (input) => {
    expect(() => parseDuration(input, 'window')).toThrow(/window/);
  });
});
