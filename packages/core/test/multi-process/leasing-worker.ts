// One of several processes hammering one key through a LeasingStore: waits for 'go', fires its
// requests at once, gives back what its leases hold, reports what it was admitted and how many
// decisions its leases answered. Run by leasing.test.ts.
import { createLimiter, LeasingStore, RedisStore, type RuleSpec } from '../../src/index.js';
import { connectClient, connectCluster, SUITE_CLIENT } from '../helpers/redis-clients.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';

const [targetJson, prefix, requests, ruleJson] = process.argv.slice(2);
const target = JSON.parse(targetJson!) as { url: string } | { nodes: { host: string; port: number }[] };
const connected = 'url' in target ? await connectClient(SUITE_CLIENT, target.url) : await connectCluster(SUITE_CLIENT, target.nodes);
const store = new LeasingStore(new RedisStore({ client: connected.client }));
const limiter = createLimiter({ ...(JSON.parse(ruleJson!) as RuleSpec), store, prefix: prefix!, ...STORE_SEMANTICS });

process.send!({ ready: true });
process.once('message', async () => {
  const decisions = await Promise.all(Array.from({ length: Number(requests) }, () => limiter.consume('shared-key')));
  await store.close();
  const admitted = decisions.filter((d) => d.allowed).length;
  const leased = decisions.filter((d) => d.source === 'lease').length;
  process.send!({ admitted, leased }, async () => {
    await connected.close();
    process.exit(0);
  });
});
