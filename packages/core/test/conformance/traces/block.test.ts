import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';
import { allowedFlags } from '../../helpers/virtual-limiter.js';

describeTraces('blockDuration and block', (setup) => {
  it('a refusal blocks the key for blockDuration from the refusal; requests while blocked do not extend it', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'fixed-window', limit: 2, window: '1s', blockDuration: '5s' });
    const decisions = await burst(3);
    expect(allowedFlags(decisions)).toEqual([true, true, false]);
    expect(decisions[2]).toMatchObject({ remaining: 0, retryAfterMs: 5000, resetAfterMs: 5000 });
    advance(2000);
    // The window has passed, the block has not.
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 3000 });
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 3000, found: true });
    advance(2999);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('the limits that refused start afresh when the block ends, however long their window (as @nestjs/throttler and rate-limiter-flexible)', async () => {
    const { limiter, burst, advance } = setup({
      limits: [
        { name: 'window', algorithm: 'fixed-window', limit: 1, window: '10s' },
        { name: 'day', algorithm: 'fixed-window', limit: 100, window: '1d' },
      ],
      blockDuration: '1s',
    });
    const [, refused] = await burst(2);
    expect(refused).toMatchObject({ allowed: false, limitName: 'window', retryAfterMs: 1000 });
    expect(refused!.limits.map((limit) => [limit.name, limit.retryAfterMs])).toEqual([
      ['window', 1000],
      ['day', 0],
    ]);
    advance(1000);
    // The day limit, which admitted, keeps its count.
    expect((await limiter.consume('user-1')).limits.map((limit) => limit.remaining)).toEqual([0, 98]);
  });

  it('limiter.block refuses every request until it ends; reset ends it; blockDuration 0 blocks only then', async () => {
    const { limiter, burst, advance } = setup({ qps: 1, burst: 2, blockDuration: 0 });
    expect(allowedFlags(await burst(3))).toEqual([true, true, false]);
    advance(1000);
    expect(allowedFlags(await burst(1))).toEqual([true]);
    expect(await limiter.block('user-1', '1m')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 60_000 });
    advance(30_000);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 30_000 });
    expect(await limiter.reset('user-1')).toMatchObject({ allowed: true, found: true });
    expect(allowedFlags(await burst(1))).toEqual([true]);
  });

  it('blocks a rule of sorted-set limits alone, and a rule of several limits', async () => {
    const log = setup({ algorithm: 'sliding-window-log', limit: 1, window: '1s', blockDuration: '3s' });
    expect(allowedFlags(await log.burst(2))).toEqual([true, false]);
    log.advance(2000);
    expect(await log.limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    const multi = setup({ limits: [{ perSecond: 5 }, { algorithm: 'sliding-window-log', limit: 2, window: '1s' }], blockDuration: '3s' });
    expect(allowedFlags(await multi.burst(3))).toEqual([true, true, false]);
    multi.advance(1000);
    const blocked = await multi.limiter.consume('user-1');
    expect(blocked).toMatchObject({ allowed: false, retryAfterMs: 2000 });
    // The refused request took nothing from the limit that admitted it.
    expect(blocked.limits.map((limit) => limit.remaining)).toEqual([5, 2]);
  });

  it('block needs blockDuration; a duration must be one', async () => {
    const { limiter } = setup({ perSecond: 5 });
    await expect(limiter.block('user-1', '1m')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'blockDuration' });
    const blocking = setup({ perSecond: 5, blockDuration: 0 });
    await expect(blocking.limiter.block('user-1', -1)).rejects.toMatchObject({ field: 'duration' });
  });
});
