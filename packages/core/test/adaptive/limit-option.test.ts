import { describe, expect, it } from 'vitest';
import { parseLimitOption } from '../../src/adaptive/limits/parse-limit.js';
import { errorOf } from '../helpers/error-of.js';

describe('the limit option', () => {
  it('takes an algorithm by name with its defaults', () => {
    expect(parseLimitOption('vegas').name).toBe('vegas');
    expect(parseLimitOption('gradient2').initial.limit).toBe(20);
    expect(parseLimitOption({ algorithm: 'aimd', initialLimit: 5, minLimit: 1 }).initial.limit).toBe(5);
  });

  it('takes a number as a limit that never moves', () => {
    const fixed = parseLimitOption(7);
    expect(fixed.step(fixed.initial, { rttMs: 10_000, inflight: 7, dropped: true }).limit).toBe(7);
  });

  it('refuses an unknown algorithm, suggesting the closest', () => {
    const error = errorOf(() => parseLimitOption({ algorithm: 'vegass' }));
    expect(error.code).toBe('ERR_TOLLGATE_INVALID_OPTION');
    expect(error.field).toBe('limit.algorithm');
    expect(error.message).toContain('did you mean vegas?');
    expect(errorOf(() => parseLimitOption('gradient')).field).toBe('limit');
  });

  it('refuses a field the algorithm does not take, naming the closest one', () => {
    const error = errorOf(() => parseLimitOption({ algorithm: 'aimd', backoffRatoi: 0.5 }));
    expect(error.field).toBe('limit.backoffRatoi');
    expect(error.message).toContain('did you mean backoffRatio?');
    expect(errorOf(() => parseLimitOption({ algorithm: 'vegas', minLimit: 1 })).field).toBe('limit.minLimit');
  });

  it('refuses values out of range, naming the field', () => {
    expect(errorOf(() => parseLimitOption({ algorithm: 'aimd', backoffRatio: 1 })).field).toBe('limit.backoffRatio');
    expect(errorOf(() => parseLimitOption({ algorithm: 'aimd', backoffRatio: 0.4 })).field).toBe('limit.backoffRatio');
    expect(errorOf(() => parseLimitOption({ algorithm: 'gradient2', rttTolerance: 0.9 })).field).toBe('limit.rttTolerance');
    expect(errorOf(() => parseLimitOption({ algorithm: 'vegas', alpha: 'three' })).field).toBe('limit.alpha');
    expect(errorOf(() => parseLimitOption({ algorithm: 'vegas', initialLimit: 0 })).field).toBe('limit.initialLimit');
    expect(errorOf(() => parseLimitOption({ algorithm: 'aimd', initialLimit: 300 })).field).toBe('limit.initialLimit');
    expect(errorOf(() => parseLimitOption({ algorithm: 'gradient2', minLimit: 50, maxLimit: 40 })).field).toBe('limit.minLimit');
    expect(errorOf(() => parseLimitOption(2.5)).field).toBe('limit');
    expect(errorOf(() => parseLimitOption(null)).field).toBe('limit');
  });

  it('keeps default bounds within a low maximum', () => {
    expect(parseLimitOption({ algorithm: 'aimd', maxLimit: 8 }).initial.limit).toBe(8);
    expect(parseLimitOption({ algorithm: 'gradient2', maxLimit: 8 }).initial.limit).toBe(8);
  });
});
