// One of several processes hammering one key: waits for 'go', fires its requests at once,
// reports how many were admitted. Run by multi-process.test.ts.
// The client library is the suite's (TOLLGATE_REDIS_CLIENT, inherited from the test).
import { createLimiter, RedisStore, type RuleSpec } from '../../src/index.js';
import { connectClient, SUITE_CLIENT } from '../helpers/redis-clients.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';

const [url, prefix, requests, ruleJson] = process.argv.slice(2);
const connected = await connectClient(SUITE_CLIENT, url!);
const limiter = createLimiter({
  ...(JSON.parse(ruleJson!) as RuleSpec),
  store: new RedisStore({ client: connected.client }),
  prefix: prefix!,
  ...STORE_SEMANTICS,
});

process.send!({ ready: true });
process.once('message', async () => {
  const decisions = await Promise.all(Array.from({ length: Number(requests) }, () => limiter.consume('shared-key')));
  const admitted = decisions.filter((d) => d.allowed).length;
  process.send!({ admitted }, async () => {
    await connected.close();
    process.exit(0);
  });
});
