import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';
import { allowedFlags } from '../../helpers/virtual-limiter.js';

describeTraces('fixed-window reference traces', (setup) => {
  it('fixed window 3 per second (Redis INCR + EXPIRE): the counter resets a window after the first request', async () => {
    const { burst, advance, limiter } = setup({ algorithm: 'fixed-window', limit: 3, window: '1s' });
    advance(0);
    const decisions = await burst(4);
    expect(allowedFlags(decisions)).toEqual([true, true, true, false]);
    expect(decisions[3]).toMatchObject({ remaining: 0, retryAfterMs: 1000, resetAfterMs: 1000 });
    advance(999);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    // The documented boundary effect: a fresh window admits the full limit again right away.
    expect(allowedFlags(await burst(4))).toEqual([true, true, true, false]);
  });
});
