import { describe, expect, it } from 'vitest';
import { useBackends } from './helpers/per-file-servers.js';
import { virtualLimiter } from './helpers/virtual-limiter.js';

const storeNamed = useBackends();

describe.each(['memory', 'redis', 'cluster'] as const)('identities on the %s store', (name) => {
  /** Whether each key, consumed once in turn under a limit of 1, is admitted. */
  const firstAdmissions = async (keys: string[]) => {
    const { limiter } = virtualLimiter(storeNamed(name), { perHour: 1 });
    const admitted: boolean[] = [];
    for (const key of keys) admitted.push((await limiter.consume(key)).allowed);
    return admitted;
  };

  it('keeps lone surrogates apart from each other and from their escaped spelling', async () => {
    expect(await firstAdmissions(['\uD800', '\uDBFF', '\uDC00', '\uFFFD', '%D800', 'a\uD800b', 'a\uDBFFb'])).toEqual(Array(7).fill(true));
  });

  it('keeps long identities with lone surrogates apart (they are stored as a digest)', async () => {
    const long = 'k'.repeat(300);
    expect(await firstAdmissions([`${long}\uD800`, `${long}\uDBFF`, `${long}\uFFFD`])).toEqual([true, true, true]);
  });

  it('keeps each key its own when keys alternate or repeat', async () => {
    expect(await firstAdmissions(['x', 'x{', 'x{', 'x', '{x', 'x'])).toEqual([true, true, false, false, true, false]);
  });

  it('refuses an empty key right after a valid one', async () => {
    const { limiter } = virtualLimiter(storeNamed(name), { perHour: 1 });
    await limiter.consume('x');
    await expect(limiter.consume('')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY' });
  });

  it('still counts one identity once, whatever it holds', async () => {
    expect(await firstAdmissions(['\uD800', '\uD800', '😀', '😀'])).toEqual([true, false, true, false]);
  });
});
