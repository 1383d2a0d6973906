// A process whose clock is `skewMs` off real time: on 'go', fires `requests` at one key at
// once and reports how many were admitted. Run by skewed-clocks.test.ts.
//   time 'client': the RedisStore decides on the skewed clock.
//   time 'server': the limiter is given the skewed clock, the store keeps Redis TIME.
import { Redis } from 'ioredis';
import { createLimiter, RedisStore, type RuleSpec } from '../../src/index.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';

const [url, prefix, time, skewMs, requests, ruleJson] = process.argv.slice(2);
const client = new Redis(url!);
const skewed = () => Date.now() + Number(skewMs);
const store = time === 'client' ? new RedisStore({ client, time: 'client', clock: skewed }) : new RedisStore({ client, time: 'server' });
const limiter = createLimiter({
  ...(JSON.parse(ruleJson!) as RuleSpec),
  store,
  ...(time === 'server' ? { clock: skewed } : {}),
  prefix: prefix!,
  ...STORE_SEMANTICS,
});

process.send!({ ready: true });
process.once('message', async () => {
  const decisions = await Promise.all(Array.from({ length: Number(requests) }, () => limiter.consume('shared-key')));
  process.send!({ admitted: decisions.filter((d) => d.allowed).length }, () => {
    client.disconnect();
    process.exit(0);
  });
});
