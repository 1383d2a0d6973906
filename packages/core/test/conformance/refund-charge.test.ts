import { describe, expect, it } from 'vitest';
import { useBackends } from '../helpers/per-file-servers.js';
import { allowedFlags, virtualLimiter } from '../helpers/virtual-limiter.js';

const storeNamed = useBackends();

// A refund given the consume's decision (`charge`) gives back only what that charge still holds.
// The virtual clock starts on a whole second, so epoch-aligned windows start with it.
describe.each(['memory', 'redis', 'cluster'] as const)('a refund of a charge on the %s store', (name) => {
  const setup = (rule: Parameters<typeof virtualLimiter>[1]) => virtualLimiter(storeNamed(name), rule);

  it('fixed window: gives back within the window it charged, nothing in a later one', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'fixed-window', limit: 2, window: 300 });
    const [early] = await burst(1);
    // A refund reports what is left now: the charge given back, the window holds its 2 again.
    expect(await limiter.refund('user-1', { charge: early! })).toMatchObject({ remaining: 2, resetAfterMs: 300 });
    const [late] = await burst(1);
    advance(400);
    expect(allowedFlags(await burst(2))).toEqual([true, true]);
    // The request of the first window ends in the second: its refund must not make room here.
    expect(await limiter.refund('user-1', { charge: late! })).toMatchObject({ allowed: false, remaining: 0 });
    expect(allowedFlags(await burst(1))).toEqual([false]);
  });

  it('sliding window counter: gives back to the window it charged while that window weighs', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'sliding-window-counter', limit: 2, window: '1s' });
    advance(900);
    const [first, second] = await burst(2);
    advance(200);
    // t = 1100: the previous window's 2 weigh 0.9 each.
    expect(await limiter.peek('user-1')).toMatchObject({ remaining: 0 });
    expect(await limiter.refund('user-1', { charge: first! })).toMatchObject({ allowed: true });
    expect(allowedFlags(await burst(2))).toEqual([true, false]);
    advance(1000);
    // t = 2100: `second` charged two windows ago and weighs nothing; the count of t = 1100 stays.
    expect(await limiter.refund('user-1', { charge: second! })).toMatchObject({ allowed: true });
    expect(allowedFlags(await burst(2))).toEqual([true, false]);
  });

  it('sliding window log: removes only the entries the charge added, while they are live', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'sliding-window-log', limit: 2, window: '1s' });
    const [first] = await burst(1);
    advance(500);
    const [second] = await burst(1);
    advance(600);
    // t = 1100: `first` slid out; `second` (t = 500) and the newest (t = 1100) are live.
    expect(allowedFlags(await burst(1))).toEqual([true]);
    expect(await limiter.refund('user-1', { charge: first! })).toMatchObject({ allowed: false, remaining: 0 });
    expect(await limiter.refund('user-1', { charge: second! })).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 1000 });
    expect(allowedFlags(await burst(1))).toEqual([true]);
    // The entry of t = 1100 is still there: the next slot frees when it slides out.
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1000 });
  });

  it('gcra: moves the TAT back by what of the charge is not yet emitted', async () => {
    const { limiter, burst, advance } = setup({ qps: 10, burst: 2 });
    const [first, second] = await burst(2);
    advance(50);
    // TAT 200 ms; `second`'s 100 ms interval, half emitted, gives back 50 ms: TAT 150, 1 left.
    expect(await limiter.refund('user-1', { charge: second! })).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 200 });
    advance(80);
    // t = 130: `first` was emitted by t = 100, the TAT stays at 150.
    expect(await limiter.refund('user-1', { charge: first! })).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 120 });
  });

  it('token bucket: puts back what of the charge the refill has not made up for', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'token-bucket', capacity: 2, refillPerSecond: 10 });
    const [first, second] = await burst(2);
    advance(50);
    // Half a token refilled; `second` still holds half of its token: 1 token left.
    expect(await limiter.refund('user-1', { charge: second! })).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 200 });
    advance(80);
    // t = 130: the refill made up for `first`; 1.8 tokens stay.
    expect(await limiter.refund('user-1', { charge: first! })).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 120 });
  });

  it('leaky bucket policing: takes out what of the charge has not drained', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'leaky-bucket', rate: 10, burst: 2 });
    const [first, second] = await burst(2);
    advance(50);
    // Level 150 ms of drain; `second` has 50 of its 100 left to drain.
    expect(await limiter.refund('user-1', { charge: second! })).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 200 });
    advance(80);
    // t = 130: `first` has drained; the level (20 ms) stays.
    expect(await limiter.refund('user-1', { charge: first! })).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 120 });
  });

  it('leaky bucket shaping: frees what of the charge is not yet past', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: '1s' });
    const [first, second] = await burst(2);
    advance(50);
    // The queue is free at 200 ms; `second`, charged at 0 for 100 ms, still holds 50 of them.
    expect(await limiter.refund('user-1', { charge: second! })).toMatchObject({ delayMs: 100 });
    advance(80);
    // t = 130: `first`'s slot is past; the queue stays free at 150.
    expect(await limiter.refund('user-1', { charge: first! })).toMatchObject({ delayMs: 20 });
    expect(await limiter.consume('user-1')).toMatchObject({ delayMs: 20 });
  });

  it('gives back the cost charged by default, never more than it', async () => {
    const { limiter, burst } = setup({ algorithm: 'fixed-window', limit: 5, window: '1s' });
    await burst(1);
    const [charged] = await burst(1, 3);
    expect(await limiter.refund('user-1', { charge: charged! })).toMatchObject({ remaining: 4 });
    const [again] = await burst(1, 2);
    expect(await limiter.refund('user-1', { charge: again!, cost: 5 })).toMatchObject({ remaining: 4 });
  });

  it('a charge is given back once: the refund spends it, in part or whole', async () => {
    const { limiter, burst } = setup({ algorithm: 'sliding-window-log', limit: 5, window: '1s' });
    const [charged] = await burst(1, 3);
    await burst(1);
    expect(await limiter.refund('user-1', { charge: charged!, cost: 1 })).toMatchObject({ remaining: 2 });
    expect(charged!.charge).toMatchObject({ cost: 2 });
    expect(await limiter.refund('user-1', { charge: charged! })).toMatchObject({ remaining: 4 });
    expect(charged!.charge).toBeUndefined();
    expect(await limiter.refund('user-1', { charge: charged! })).toMatchObject({ remaining: 4 });
    expect(allowedFlags(await burst(5))).toEqual([true, true, true, true, false]);
  });

  it('a multi-limit rule gives back to each limit what the charge holds there', async () => {
    const { limiter, burst, advance } = setup({
      limits: [
        { name: 'window', algorithm: 'fixed-window', limit: 3, window: 300 },
        { name: 'log', algorithm: 'sliding-window-log', limit: 3, window: '1s' },
      ],
    });
    const [charged] = await burst(1);
    advance(300);
    await burst(1);
    const refund = await limiter.refund('user-1', { charge: charged! });
    expect(refund.limits.map((l) => [l.name, l.remaining])).toEqual([
      ['window', 2],
      ['log', 2],
    ]);
  });

  it('a decision that charged nothing gives nothing back', async () => {
    const { limiter, burst } = setup({ algorithm: 'fixed-window', limit: 1, window: '1s' });
    const [admitted, denied] = await burst(2);
    expect(admitted!.charge).toMatchObject({ cost: 1 });
    expect(denied!.charge).toBeUndefined();
    expect(await limiter.refund('user-1', { charge: denied! })).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('refuses a charge that is not a decision', async () => {
    const { limiter } = setup({ qps: 1 });
    const charge = { charge: { atMs: 'soon', cost: 1, token: '' } } as never;
    await expect(limiter.refund('user-1', { charge })).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'charge' });
  });
});
