// Builds two inline HTTP rules without a prefix on one Redis, in the order given, then checks
// one client against the routes as told. Run by default-prefix.test.ts, one process per order.
import { createHttpLimiter, type HttpRateLimitOptions, RedisStore } from '../../src/index.js';
import { connectClient, SUITE_CLIENT } from '../helpers/redis-clients.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';

const [url, order, rulesJson, checksJson] = process.argv.slice(2);
const rules = JSON.parse(rulesJson!) as Record<string, HttpRateLimitOptions>;
const checks = JSON.parse(checksJson!) as [route: string, times: number][];
const connected = await connectClient(SUITE_CLIENT, url!);
const store = new RedisStore({ client: connected.client });
try {
  const limiters = Object.fromEntries(
    order!.split(',').map((route) => [route, createHttpLimiter({ ...rules[route]!, store, ...STORE_SEMANTICS })]),
  );
  const actions: string[] = [];
  for (const [route, times] of checks) {
    for (let i = 0; i < times; i++) {
      const info = { ip: '198.51.100.7', method: 'GET', path: `/${route}`, headers: {}, raw: {} };
      actions.push(`${route}:${(await limiters[route]!.check(info)).action}`);
    }
  }
  process.send!({ actions });
} catch (error) {
  process.send!({ error: { code: (error as { code?: string }).code, field: (error as { field?: string }).field } });
} finally {
  await connected.close();
}
