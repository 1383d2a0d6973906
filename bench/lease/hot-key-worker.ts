// One of the processes of hot-key.ts: on 'go', `inFlight` loops consume one hot key for
// `durationMs`; then it reports what it was admitted and the units its leases held (the most,
// sampled every 256 decisions, and at the end), and gives back what they hold.
import { createLimiter, LeasingStore, RedisStore, type RuleSpec } from '@tollgate/core';
import { Redis } from 'ioredis';

const [url, prefix, mode, ruleJson, durationMs, inFlight] = process.argv.slice(2);
const client = new Redis(url!);
const redis = new RedisStore({ client });
const store = mode === 'leased' ? new LeasingStore(redis) : redis;
const limiter = createLimiter({ ...(JSON.parse(ruleJson!) as RuleSpec), store, prefix: prefix!, timeout: 60_000, breaker: false });

process.send!({ ready: true });
process.once('message', async () => {
  const endAt = performance.now() + Number(durationMs);
  const held = () => (store instanceof LeasingStore ? store.heldUnits() : 0);
  let heldMost = 0;
  let admitted = 0;
  let decisions = 0;
  const loop = async () => {
    while (performance.now() < endAt) {
      const decision = await limiter.consume('hot');
      // Sampled here, not on a timer: decisions answered from a lease never yield to one.
      if (++decisions % 256 === 0) heldMost = Math.max(heldMost, held());
      if (decision.allowed) admitted++;
    }
  };
  await Promise.all(Array.from({ length: Number(inFlight) }, loop));
  const heldAtEnd = held();
  if (store instanceof LeasingStore) await store.close();
  process.send!({ admitted, decisions, heldAtEnd, heldMost: Math.max(heldMost, heldAtEnd) }, () => {
    client.disconnect();
    process.exit(0);
  });
});
