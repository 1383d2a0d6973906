import { describe, expect, it } from 'vitest';
import { describeValue } from '../src/errors.js';
import { closestName, MemoryStore, refuseUnknownFields } from '../src/index.js';
import { errorOf } from './helpers/error-of.js';

describe('refuseUnknownFields', () => {
  const fields = { coolDown: true, failureThreshold: true, halfOpenProbes: true } as const;

  it('names the misspelt field under its path and the field it most likely meant', () => {
    const error = errorOf(() => refuseUnknownFields({ failureThreshhold: 3 }, fields, 'breaker.'));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'breaker.failureThreshhold' });
    expect(error.message).toBe('breaker.failureThreshhold is not an option here: did you mean failureThreshold? (got 3)');
  });

  it('refuses a field set to undefined: the spelling is the mistake', () => {
    expect(errorOf(() => refuseUnknownFields({ coldown: undefined }, fields)).field).toBe('coldown');
  });

  it('lists the fields it takes when no name is close', () => {
    expect(errorOf(() => refuseUnknownFields({ retries: 1 }, fields)).message).toBe(
      'retries is not an option here: takes coolDown, failureThreshold, halfOpenProbes (got 1)',
    );
  });

  it('takes every declared field', () => {
    expect(() => refuseUnknownFields({ coolDown: 1, failureThreshold: 2, halfOpenProbes: 1 }, fields)).not.toThrow();
  });
});

describe('closestName', () => {
  it.each([
    ['coolDown', 'cooldown'],
    ['maxKeys', 'maxKey'],
    ['burst', 'brust'],
    ['windowMs', 'windowMS'],
    ['perMinute', 'perminute'],
    ['qps', 'qsp'],
  ])('finds %s for %s', (expected, typo) => {
    expect(closestName(typo, ['maxKeys', 'coolDown', 'burst', 'windowMs', 'perMinute', 'qps', 'rate'])).toBe(expected);
  });

  it('finds nothing for a name far from every candidate', () => {
    expect(closestName('store', ['burst', 'qps'])).toBeUndefined();
  });
});

describe('describeValue', () => {
  it('cuts a long value to 80 characters', () => {
    const shown = describeValue({ lua: 'x'.repeat(5000) });
    expect(shown).toHaveLength(80);
    expect(shown.endsWith('…')).toBe(true);
  });

  it('shows a function by its name', () => {
    expect(describeValue(function keyOf() {})).toBe('[function keyOf]');
  });
});

describe('MemoryStore options', () => {
  it('refuses a misspelt option', () => {
    const error = errorOf(() => new MemoryStore({ maxKey: 10 } as never));
    expect(error.message).toContain('did you mean maxKeys?');
  });
});
