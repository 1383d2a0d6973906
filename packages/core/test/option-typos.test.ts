import { describe, expect, it } from 'vitest';
import { createHttpAdaptiveLimiter, createHttpLimiter } from '../src/http/index.js';
import {
  createAdaptiveLimiter,
  createConcurrencyLimiter,
  createLimiter,
  createRuleSet,
  LeasingStore,
  loadRedisRuleSet,
  loadRuleSet,
  MemoryStore,
  publishRuleSet,
  RedisStore,
  type RuleSetRedisClient,
  TollgateError,
  waitAll,
} from '../src/index.js';

const limiter = createLimiter({ qps: 10 });
const client = {} as RuleSetRedisClient;
const rules = { rules: [{ name: 'api', limit: { qps: 10 } }] };

/** What a call with a misspelt option does: throws or rejects. */
async function failureOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

/**
 * Every public options object, each with a misspelt field: `[what, call, field, closest]`. The
 * error names the field as written (under its path) and the name it most likely meant (`undefined`:
 * none is close, the message lists what the object takes).
 */
const TYPOS: [string, () => unknown, string, string | undefined][] = [
  ['createLimiter', () => createLimiter({ qsp: 5 } as never), 'spec.qsp', 'qps'],
  ['createLimiter, a limiter option', () => createLimiter({ qps: 5, tmeout: 50 } as never), 'spec.tmeout', 'timeout'],
  ['createLimiter, a limit of limits', () => createLimiter({ limits: [{ perminute: 10 }] } as never), 'limits[0].perminute', 'perMinute'],
  [
    'createLimiter, a field of another algorithm',
    () => createLimiter({ algorithm: 'gcra', rate: 5, brust: 2 } as never),
    'spec.brust',
    'burst',
  ],
  ['breaker', () => createLimiter({ qps: 5, breaker: { coolDown: 10 } as never }), 'breaker.coolDown', 'coolDownMs'],
  ['breaker', () => createLimiter({ qps: 5, breaker: { failureThreshhold: 3 } as never }), 'breaker.failureThreshhold', 'failureThreshold'],
  ['denyCache', () => createLimiter({ qps: 5, denyCache: { maxEntry: 5 } as never }), 'denyCache.maxEntry', 'maxEntries'],
  [
    'denyCache, of a rule the cache never serves',
    () => createLimiter({ algorithm: 'concurrency', limit: 1, leaseTtl: '1m', denyCache: { maxEntry: 5 } as never }),
    'denyCache.maxEntry',
    'maxEntries',
  ],
  [
    'onStoreError',
    () => createLimiter({ qps: 5, onStoreError: { fallback: limiter, share: 1 } as never }),
    'onStoreError.share',
    undefined,
  ],
  [
    'onStoreError.fallback',
    () => createLimiter({ qps: 5, onStoreError: { fallback: { share: 0.5, stroe: new MemoryStore() } as never } }),
    'onStoreError.fallback.stroe',
    'store',
  ],
  ['createConcurrencyLimiter', () => createConcurrencyLimiter({ limit: 2, leaseTTL: 1000 } as never), 'spec.leaseTTL', 'leaseTtl'],
  ['MemoryStore', () => new MemoryStore({ maxKey: 10 } as never), 'maxKey', 'maxKeys'],
  ['RedisStore', () => new RedisStore({ client, tme: 'client' } as never), 'tme', 'time'],
  ['RedisStore', () => new RedisStore({ client, maxBatchSise: 16 } as never), 'maxBatchSise', 'maxBatchSize'],
  ['RedisStore', () => new RedisStore({ client, ttlSlack: 100 } as never), 'ttlSlack', 'ttlSlackMs'],
  ['consume', () => limiter.consume('k', { cots: 5 } as never), 'cots', 'cost'],
  ['refund', () => limiter.refund('k', { cots: 5 } as never), 'cots', 'cost'],
  ['hold', () => limiter.hold('k', { cost: 2, tll: '1m' } as never), 'tll', 'ttl'],
  ['wait', () => limiter.wait('k', { maxWiat: 5 } as never), 'maxWiat', 'maxWait'],
  ['penalty', () => limiter.penalty('k', { cots: 5 } as never), 'cots', 'cost'],
  ['hold, the cost', () => limiter.hold('k', { cots: 2 } as never), 'cots', 'cost'],
  ['waitAll, an entry', () => waitAll([{ limiter, kye: 'k' } as never]), 'entries[0].kye', 'key'],
  ['waitAll, the options', () => waitAll([{ limiter, key: 'k' }], { maxWiat: 5 } as never), 'maxWiat', 'maxWait'],
  ['LeasingStore', () => new LeasingStore(new MemoryStore(), { maxShar: 0.1 } as never), 'maxShar', 'maxShare'],
  ['createAdaptiveLimiter', () => createAdaptiveLimiter({ limt: 10 } as never), 'limt', 'limit'],
  ['createAdaptiveLimiter, queue', () => createAdaptiveLimiter({ queue: { maxWait: 50 } } as never), 'queue.maxWait', 'maxWaitMs'],
  [
    'createAdaptiveLimiter, a limit algorithm',
    () => createAdaptiveLimiter({ limit: { algorithm: 'vegas', maxLimt: 100 } } as never),
    'limit.maxLimt',
    'maxLimit',
  ],
  [
    'EventLoopDelayOptions',
    () => createAdaptiveLimiter({ eventLoopDelay: { maxMs: 50, percentil: 90 } } as never),
    'eventLoopDelay.percentil',
    'percentile',
  ],
  ['HTTP adaptive options', () => createHttpAdaptiveLimiter({ limit: 10, statuscode: 429 } as never), 'statuscode', 'statusCode'],
  ['HTTP adaptive options, a limiter option', () => createHttpAdaptiveLimiter({ partitons: { a: 1 } } as never), 'partitons', 'partitions'],
  [
    'HTTP adaptive options, EventLoopDelayOptions',
    () => createHttpAdaptiveLimiter({ eventLoopDelay: { maxMs: 50, interval: 100 } } as never),
    'eventLoopDelay.interval',
    'intervalMs',
  ],
  ['createRuleSet', () => createRuleSet(rules, { wacth: true } as never), 'wacth', undefined],
  ['createRuleSet', () => createRuleSet(rules, { clok: Date.now } as never), 'clok', 'clock'],
  ['loadRuleSet', () => loadRuleSet('rules.yaml', { wacth: true } as never), 'wacth', 'watch'],
  ['loadRedisRuleSet', () => loadRedisRuleSet({ client, kye: 'rules' } as never), 'kye', 'key'],
  ['publishRuleSet', () => publishRuleSet(client, 'rules: []', { chanel: 'c' } as never), 'chanel', 'channel'],
  ['HTTP inline options', () => createHttpLimiter({ perminute: 10 } as never), 'spec.perminute', 'perMinute'],
  [
    'HTTP inline options, express-rate-limit rule',
    () => createHttpLimiter({ windowMS: 60_000, limit: 5 } as never),
    'spec.windowMS',
    'windowMs',
  ],
  [
    'HTTP inline options, a behaviour',
    () => createHttpLimiter({ qps: 5, skipFailedRequest: true } as never),
    'spec.skipFailedRequest',
    'skipFailedRequests',
  ],
  ['HTTP rule-set options', () => createHttpLimiter({ rules: createRuleSet(rules), hedaers: false } as never), 'hedaers', 'headers'],
];

describe('every public options object refuses a misspelt field', () => {
  it.each(TYPOS)('%s: %s', async (_what, call, field, closest) => {
    const error = await failureOf(call);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ field });
    const { message } = error as TollgateError;
    expect(message).toContain(field);
    if (closest === undefined) expect(message).not.toContain('did you mean');
    else expect(message).toContain(`did you mean ${closest}?`);
  });
});

describe('a misspelt field is named before what it left missing', () => {
  it.each([
    [{ qsp: 5 }, 'spec.algorithm'],
    [{ perminute: 10 }, 'spec.algorithm'],
  ])('createLimiter(%j) does not blame %s', (options, blamed) => {
    const error = (() => {
      try {
        createLimiter(options as never);
      } catch (thrown) {
        return thrown as TollgateError;
      }
    })();
    expect(error?.message).not.toContain(blamed);
  });

  it('rateLimit({ windowMS, limit }) names windowMS, not a missing windowMs', () => {
    expect(() => createHttpLimiter({ windowMS: 60_000, limit: 5 } as never)).toThrow(
      'spec.windowMS is not an option here: did you mean windowMs? (got 60000)',
    );
  });
});

describe('correct options are taken', () => {
  it('consume, refund and wait with their own fields', async () => {
    const own = createLimiter({ qps: 10, burst: 5 });
    expect((await own.consume('k', { cost: 2 })).allowed).toBe(true);
    expect((await own.refund('k', { cost: 1 })).allowed).toBe(true);
    expect((await own.wait('k', { cost: 1, maxWait: 0, signal: new AbortController().signal })).allowed).toBe(true);
  });
});
