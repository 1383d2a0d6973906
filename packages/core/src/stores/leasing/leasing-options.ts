import { invalidOption } from '../../errors.js';
import { refuseUnknownFields } from '../../option-fields.js';
import type { Clock } from '../store.js';

export interface LeasingStoreOptions {
  /**
   * Which keys lease: `'hot'` (default) those whose decisions in this process pass `hotRate`,
   * `'all'` every key of a rule that can lease, `'none'` no key (every call goes to the store).
   */
  leaseKeys?: 'hot' | 'all' | 'none';
  /** Cost units per second on one key, in this process, from which the key is hot. Default 200. */
  hotRate?: number;
  /** A lease holds this many milliseconds of the key's observed traffic in this process. Default 20. */
  leaseTraffic?: number;
  /** The most of each limit one lease may hold, in (0, 1]. Default 1/16. */
  maxShare?: number;
  /** Milliseconds a lease may be spent after it was taken (less when its window ends first). Default 100. */
  ttl?: number;
  /** Epoch-millisecond clock for lease expiry and rates; tests pass a virtual one. Default `Date.now`. */
  clock?: Clock;
}

export interface LeasingConfig {
  readonly leaseKeys: 'hot' | 'all' | 'none';
  /** Cost units per ms from which a key is hot. */
  readonly hotPerMs: number;
  readonly leaseTrafficMs: number;
  readonly maxShare: number;
  readonly ttlMs: number;
  readonly clock: Clock;
}

const LEASING_FIELDS = {
  leaseKeys: true,
  hotRate: true,
  leaseTraffic: true,
  maxShare: true,
  ttl: true,
  clock: true,
} as const satisfies Record<keyof LeasingStoreOptions, true>;

const LEASE_KEYS = ['hot', 'all', 'none'] as const;

/** Checks a LeasingStore's options; errors name the field. */
export function parseLeasingOptions(options: LeasingStoreOptions): LeasingConfig {
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'must be an object', options);
  refuseUnknownFields(options, LEASING_FIELDS);
  const { leaseKeys = 'hot', hotRate = 200, leaseTraffic = 20, maxShare = 1 / 16, ttl = 100, clock = Date.now } = options;
  if (!LEASE_KEYS.includes(leaseKeys)) throw invalidOption('leaseKeys', "must be 'hot', 'all' or 'none'", leaseKeys);
  if (!(typeof hotRate === 'number' && hotRate > 0 && Number.isFinite(hotRate))) {
    throw invalidOption('hotRate', 'must be a number of cost units per second > 0', hotRate);
  }
  if (!(Number.isSafeInteger(leaseTraffic) && leaseTraffic >= 1)) {
    throw invalidOption('leaseTraffic', 'must be a whole number of milliseconds >= 1', leaseTraffic);
  }
  if (!(typeof maxShare === 'number' && maxShare > 0 && maxShare <= 1))
    throw invalidOption('maxShare', 'must be a number in (0, 1]', maxShare);
  if (!(Number.isSafeInteger(ttl) && ttl >= 1)) throw invalidOption('ttl', 'must be a whole number of milliseconds >= 1', ttl);
  if (typeof clock !== 'function') throw invalidOption('clock', 'must be a function returning epoch milliseconds', clock);
  return { leaseKeys, hotPerMs: hotRate / 1000, leaseTrafficMs: leaseTraffic, maxShare, ttlMs: ttl, clock };
}
