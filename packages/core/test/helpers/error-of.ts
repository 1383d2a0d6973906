import { expect } from 'vitest';
import { TollgateError } from '../../src/index.js';

/** The TollgateError `fn` throws; fails the test when it throws nothing or something else. */
export function errorOf(fn: () => unknown): TollgateError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TollgateError);
    return error as TollgateError;
  }
  throw new Error('expected an error');
}
