import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';

describeTraces('reset', (setup) => {
  it('reset forgets an identity; other identities are untouched', async () => {
    const { burst, limiter } = setup({ qps: 1, burst: 2 });
    await burst(2);
    expect((await limiter.consume('user-2')).allowed).toBe(true);
    expect(await limiter.reset('user-1')).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.consume('user-2')).toMatchObject({ allowed: true, remaining: 0 });
  });
});
