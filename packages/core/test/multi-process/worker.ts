// One of several processes hammering one key: waits for 'go', fires its requests at once,
// reports how many were admitted. Run by multi-process.test.ts.
import { Redis } from 'ioredis';
import { createLimiter, RedisStore, type RuleSpec } from '../../src/index.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';

const [url, prefix, requests, ruleJson] = process.argv.slice(2);
const client = new Redis(url!);
const limiter = createLimiter({
  ...(JSON.parse(ruleJson!) as RuleSpec),
  store: new RedisStore({ client }),
  prefix: prefix!,
  ...STORE_SEMANTICS,
});

process.send!({ ready: true });
process.once('message', async () => {
  const decisions = await Promise.all(Array.from({ length: Number(requests) }, () => limiter.consume('shared-key')));
  const admitted = decisions.filter((d) => d.allowed).length;
  process.send!({ admitted }, () => {
    client.disconnect();
    process.exit(0);
  });
});
