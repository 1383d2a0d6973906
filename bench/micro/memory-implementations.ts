// The in-memory limiters the micro benchmarks compare, each as one decision for a key, set up in
// steady state: every limit admits every request, and each key's state outlives the rotation back
// to that key.
import { createLimiter, MemoryStore } from '@tollgate/core';
import { MemoryStore as ErlMemoryStore, type Options as ErlOptions } from 'express-rate-limit';
import { RateLimiterMemory } from 'rate-limiter-flexible';

const HUGE = 1_000_000_000;
const HOUR_MS = 3_600_000;
/** Tollgate's GCRA: each decision adds a minute to its key's state (burst × interval must stay under 50 years). */
export const TOLLGATE_GCRA = { algorithm: 'gcra', rate: 1, period: '1m', burst: 1_000_000 } as const;

export const MEMORY_IMPLEMENTATIONS = {
  'tollgate MemoryStore (gcra)': () => {
    const limiter = createLimiter({ ...TOLLGATE_GCRA, store: new MemoryStore() });
    return (key: string) => limiter.consume(key);
  },
  'tollgate MemoryStore (fixed window)': () => {
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: HUGE, window: '1h', store: new MemoryStore() });
    return (key: string) => limiter.consume(key);
  },
  // The options each call checks (an unknown field is refused): a new object each call, as `{ cost }` is written inline.
  'tollgate MemoryStore (gcra), consume(key, { cost: 1 })': () => {
    const limiter = createLimiter({ ...TOLLGATE_GCRA, store: new MemoryStore() });
    return (key: string) => limiter.consume(key, { cost: 1 });
  },
  'tollgate MemoryStore (gcra), wait(key)': () => {
    const limiter = createLimiter({ ...TOLLGATE_GCRA, store: new MemoryStore() });
    return (key: string) => limiter.wait(key);
  },
  'tollgate MemoryStore (gcra), wait(key, { maxWait: 1000 })': () => {
    const limiter = createLimiter({ ...TOLLGATE_GCRA, store: new MemoryStore() });
    return (key: string) => limiter.wait(key, { maxWait: 1000 });
  },
  'express-rate-limit MemoryStore': () => {
    const store = new ErlMemoryStore();
    store.init({ windowMs: HOUR_MS } as ErlOptions);
    return (key: string) => store.increment(key);
  },
  RateLimiterMemory: () => {
    const limiter = new RateLimiterMemory({ points: HUGE, duration: HOUR_MS / 1000 });
    return (key: string) => limiter.consume(key);
  },
} satisfies Record<string, () => (key: string) => Promise<unknown>>;
export type MemoryImplementation = keyof typeof MEMORY_IMPLEMENTATIONS;
