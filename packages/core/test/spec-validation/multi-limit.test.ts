import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/index.js';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

describe('a multi-limit rule is refused, naming the field of the limit', () => {
  itRefusesSpecs([
    [{ limits: [{ perDay: 1e-300 }] }, 'limits[0].perDay'],
    [{ limits: [] }, 'limits'],
    [{ limits: [{ qps: 1 }, { perMinute: -1 }] }, 'limits[1].perMinute'],
    [
      {
        limits: [
          { qps: 1, name: 'a' },
          { perMinute: 1, name: 'a' },
        ],
      },
      'limits[1].name',
    ],
    [{ limits: [{ qps: 10 }, { perMinute: 10, mode: 'reserve', maxDelay: 0 }] }, 'limits[1].maxDelay'],
  ]);
});

describe('default names of the limits of a multi-limit rule', () => {
  const namesOf = (limits: unknown[]) => createLimiter({ limits } as never).limits.map((limit) => limit.name);

  it('name each limit after the period its count or rate is given per, in the largest whole unit', () => {
    expect(namesOf([{ qps: 10, burst: 10 }, { perDay: 10_000 }])).toEqual(['1s', '1d']);
    expect(namesOf([{ algorithm: 'fixed-window', limit: 5, window: '15m' }, { perHour: 100 }, { perMinute: 10, burst: 5 }])).toEqual([
      '15m',
      '1h',
      '1m',
    ]);
    expect(
      namesOf([
        { algorithm: 'sliding-window-log', limit: 5, window: 90_000 },
        { rate: 3, period: 1500, burst: 1 },
        { algorithm: 'token-bucket', capacity: 10, refillAmount: 1, refillInterval: '2h' },
        { algorithm: 'fixed-window', limit: 100, window: 'forever' },
      ]),
    ).toEqual(['90s', '1500ms', '2h', 'forever']);
  });

  it('does not name a limit after its burst: { qps: 100, burst: 10 } is 1s, not the 100ms its burst spans', () => {
    expect(namesOf([{ qps: 100, burst: 10 }, { perMinute: 1000 }])).toEqual(['1s', '1m']);
    expect(
      namesOf([
        { algorithm: 'token-bucket', capacity: 50, refillPerSecond: 5 },
        { algorithm: 'gcra', rate: 5 },
      ]),
    ).toEqual(['1s', '1s-2']);
  });

  it('calls a concurrency limit concurrency, having no window', () => {
    expect(namesOf([{ algorithm: 'concurrency', limit: 2, leaseTtl: '1m' }, { perMinute: 60 }])).toEqual(['concurrency', '1m']);
  });

  it('keeps names unique within the rule, given names included', () => {
    expect(namesOf([{ perSecond: 5 }, { qps: 1, burst: 1 }, { perSecond: 2 }])).toEqual(['1s', '1s-2', '1s-3']);
    expect(namesOf([{ perSecond: 5 }, { name: '1s', perMinute: 5 }])).toEqual(['1s-2', '1s']);
  });

  it('leaves a single limit named default', () => {
    expect(createLimiter({ perSecond: 5 }).limits[0]?.name).toBe('default');
  });
});
