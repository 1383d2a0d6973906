import type { Charge } from './algorithms/types.js';
import { CONSUME_FIELDS, costOf, REFUND_FIELDS } from './consume-options.js';
import type { Decision } from './decision.js';
import { type Duration, parseDuration } from './duration.js';
import { describeValue, invalidOption, TollgateError } from './errors.js';
import { openHold } from './hold.js';
import { assertIdentity } from './keys.js';
import { LimiterCalls } from './limiter-calls.js';
import { type FailureAnswer, type LimiterConfig, parseLimiterOptions } from './limiter-config.js';
import type { ConsumeOptions, CreateLimiterOptions, Limiter } from './limiter-types.js';
import { createVariants, type Variants } from './limiter-variants.js';
import type { FieldSet } from './option-fields.js';
import type { StoreFailureAnswer } from './resilience/guarded-store.js';
import type { BoundLimit, Clock, Store } from './stores/store.js';
import { createWaiter } from './wait/wait.js';

/** A limiter enforcing `options`' rule; throws `ERR_TOLLGATE_INVALID_SPEC` or `_OPTION` naming the bad field. */
export function createLimiter(options: CreateLimiterOptions): Limiter {
  return limiterOf(parseLimiterOptions(options));
}

/** The limiter of options already checked. */
export function limiterOf(config: LimiterConfig): Limiter {
  const answer = config.onStoreError;
  const fallback = failureAnswer(answer);
  const share = typeof answer === 'object' && 'share' in answer ? answer.share : undefined;
  return buildLimiter(config, fallback, createVariants(config, fallback, share, buildLimiter));
}

/** A limiter of `config`, answered by `fallback` when its store fails; `variants` gives its `withLimits`. */
function buildLimiter(config: LimiterConfig, fallback: StoreFailureAnswer, variants: Variants): Limiter {
  const { rule, limits, events } = config;
  const calls = new LimiterCalls(config, fallback);
  const waiter = createWaiter({
    limits,
    now: config.now,
    consume: (key, cost, checked) => calls.consume(key, cost, checked),
    refund: (key, cost) => calls.run('refund', key, cost),
    release: (lease) => calls.run('release', lease.key, 1, lease.id).then(() => undefined),
  });
  const limiter = withBreakerState(config, {
    rule,
    limits,
    // Without options, no closure to build for the cost.
    consume: (key, options) =>
      options === undefined
        ? calls.consume(key, 1)
        : withCost(options, CONSUME_FIELDS, limits, (cost, costs) => calls.consume(key, cost, limits, costs)),
    hold: (key, options) => openHold(calls, config, key, options, (stored) => waiter.released(stored)),
    async release(lease) {
      // A decision the failure mode (or a fallback) answered took no slot here: nothing to give back.
      if (lease === undefined) return;
      if (typeof lease !== 'object' || lease === null || typeof lease.id !== 'string' || lease.id === '') {
        throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `lease must be one returned by consume (got ${describeValue(lease)})`, 'lease');
      }
      if (calls.holdsLeases) await calls.run('release', lease.key, 1, lease.id);
      waiter.released(lease.key);
    },
    peek: (key) => calls.run('peek', key, 1),
    reset: (key) => calls.run('reset', key, 1),
    refund: (key, options) =>
      withCost(options, REFUND_FIELDS, limits, (cost, costs) => {
        if (options?.charge !== undefined) return refundCharge(calls, key, options.charge, options.cost === undefined ? undefined : cost);
        return calls.run('refund', key, cost, '', limits, undefined, costs && { costs });
      }),
    wait(key, waitOptions) {
      // Waiters line up per key as stored, the key leases name.
      try {
        return waiter.wait(storedKey(config, key), waitOptions);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    penalty: (key, options) => withCost(options, CONSUME_FIELDS, limits, (cost, costs) => calls.penalty(key, cost, costs)),
    block: (key, duration) => blockKey(config, calls, key, duration),
    withLimits: (values) => variants.of(values),
    on: (event, listener) => events.on(event, listener),
  });

  if (calls.answersNow) immediateConsumes.set(limiter, (key) => calls.consumeNow(key));
  groupMembers.set(limiter, { store: config.store, now: config.now, calls });
  limiterVariants.set(limiter, variants);
  return limiter;
}

/**
 * `limiter` with its `breakerState`, defined after the rest: an object literal holding an accessor
 * is made in dictionary mode, and every `limiter.consume` would then be a generic property lookup.
 */
function withBreakerState({ breakers }: LimiterConfig, limiter: Omit<Limiter, 'breakerState'>): Limiter {
  const breakerState = { get: () => breakers?.state ?? 'closed', enumerable: true, configurable: true };
  return Object.defineProperty(limiter, 'breakerState', breakerState) as Limiter;
}

/** The `withLimits` of every limiter built here, with the error paths a caller names (the HTTP layer's). */
const limiterVariants = new WeakMap<Limiter, Variants>();

/** For a limiter built here: what answers its `withLimits`, taking the paths errors name its fields by. */
export function variantsOf(limiter: Limiter): Variants | undefined {
  return limiterVariants.get(limiter);
}

/** What `waitAll` needs of a limiter built here. */
export interface GroupMember {
  store: Store;
  now: Clock;
  calls: LimiterCalls;
}

const groupMembers = new WeakMap<Limiter, GroupMember>();

/** For a limiter built here: its store, clock and calls, which `waitAll` puts in a group; undefined for any other. */
export function groupMemberOf(limiter: Limiter): GroupMember | undefined {
  return groupMembers.get(limiter);
}

/** The consume of limiters whose store answers at once (the memory store); see `consumeNowOf`. */
const immediateConsumes = new WeakMap<Limiter, (key: string) => Decision>();

/**
 * For a limiter built here on the memory store: a consume of cost 1 decided before it returns
 * (same decision, events and leases as `consume`; throws what it would reject with), which spares
 * a caller on the hot path its promise. Undefined for any other limiter.
 */
export function consumeNowOf(limiter: Limiter): ((key: string) => Decision) | undefined {
  return immediateConsumes.get(limiter);
}

function storedKey({ keyOf }: LimiterConfig, key: string): string {
  if (keyOf === undefined) return key;
  assertIdentity(key);
  return keyOf(key);
}

function failureAnswer(answer: FailureAnswer): StoreFailureAnswer {
  if (typeof answer === 'string') return answer;
  return 'limiter' in answer ? answer.limiter : createLimiter(answer.build);
}

/**
 * A refund of what `holder` (a consume's decision) charged, `cost` of it (default all, already
 * checked). The charge is spent as the refund is sent, so a second refund of the decision never
 * gives back twice.
 */
function refundCharge(calls: LimiterCalls, key: string, holder: unknown, cost: number | undefined): Promise<Decision> {
  if (!isChargeHolder(holder)) return Promise.reject(invalidOption('charge', 'must be a decision returned by consume', holder));
  const charged = holder.charge;
  // Nothing was charged, or it was all given back: what is left is what a peek reports.
  if (charged === undefined) return calls.run('peek', key, 1);
  if (charged.costs !== undefined && cost !== undefined) {
    return Promise.reject(invalidOption('cost', 'cannot part a charge of several units: refund it whole, or use hold and settle', cost));
  }
  const units = Math.min(cost ?? charged.cost, charged.cost);
  const rest = charged.cost - units;
  if (rest > 0) holder.charge = { ...charged, cost: rest };
  else delete holder.charge;
  return calls.refund(key, units, charged);
}

function isChargeHolder(value: unknown): value is Pick<Decision, 'charge'> {
  if (typeof value !== 'object' || value === null) return false;
  const { charge } = value as { charge?: Partial<Charge> | undefined };
  if (charge === undefined) return true;
  return (
    typeof charge === 'object' &&
    charge !== null &&
    Number.isFinite(charge.atMs) &&
    Number.isSafeInteger(charge.cost) &&
    (charge.cost as number) >= 1 &&
    typeof charge.token === 'string'
  );
}

/** `limiter.block`: refused on a rule without `blockDuration`, whose store keeps no block. */
function blockKey(config: LimiterConfig, calls: LimiterCalls, key: string, duration: Duration): Promise<Decision> {
  if (config.block === undefined) {
    return Promise.reject(
      invalidOption('blockDuration', 'must be given for limiter.block to have a block to set (0: refusals do not block)', undefined),
    );
  }
  let ms: number;
  try {
    ms = parseDuration(duration, 'duration');
  } catch (error) {
    return Promise.reject(error);
  }
  return calls.run('block', key, ms);
}

/**
 * `run` with the cost `options` ask for (and its costs per limit of `limits`, when they differ:
 * `cost` is then the most of them); a promise rejected with the error when they are refused.
 */
function withCost(
  options: ConsumeOptions | undefined,
  fields: FieldSet,
  limits: readonly BoundLimit[],
  run: (cost: number, costs: readonly number[] | undefined) => Promise<Decision>,
): Promise<Decision> {
  let cost: number | readonly number[];
  try {
    cost = costOf(options, fields, limits);
  } catch (error) {
    return Promise.reject(error);
  }
  return typeof cost === 'number' ? run(cost, undefined) : run(Math.max(...cost), cost);
}
