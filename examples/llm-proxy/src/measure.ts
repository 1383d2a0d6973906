// Measures the tokens each user is served above its budget, charging after the answer as LLM
// gateways commonly do, then holding an estimate and settling it, on the same load.
import type { AddressInfo } from 'node:net';
import { MemoryStore } from '@tollgate/core';
import { startFakeLlm } from '@tollgate/testing';
import { type Accounting, createProxy } from './app.js';
import { overshootByUser, seededRandom, sendLoad } from './load.js';

const BUDGETS = { requestsPerMinute: 1000, tokensPerMinute: 2000, concurrency: 4 };
const USERS = ['ada', 'bob', 'cy', 'dee'];
const MAX_TOKENS = 200;

async function measure(accounting: Accounting) {
  // Answers of 50 to 200 tokens, the same on both runs; the API's own budget never binds.
  const length = seededRandom(7);
  const llm = await startFakeLlm({
    tokensPerWindow: 10_000_000,
    completionTokens: () => 50 + Math.floor(length() * 151),
    tokenIntervalMs: 1,
  });
  const app = createProxy({
    store: new MemoryStore(),
    upstream: llm.url,
    budgets: BUDGETS,
    accounting,
    upstreamInFlight: 16,
    maxCallTokens: 400,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await sendLoad({ proxies: [proxy], users: USERS, callsPerUser: 30, parallelPerUser: 4, maxTokens: MAX_TOKENS, stream: true });
  server.close();
  await llm.close();
  return overshootByUser(llm.calls, USERS, BUDGETS.tokensPerMinute);
}

console.log(
  `4 users, each 30 streamed calls (4 at once, max_tokens ${MAX_TOKENS}, answers of 50-200 tokens), budget ${BUDGETS.tokensPerMinute} tokens a minute`,
);
console.log('accounting    tokens served per user    above budget per user    worst');
for (const accounting of ['charge-after', 'hold'] as const) {
  const users = await measure(accounting);
  const worst = Math.max(...users.map((user) => user.overshoot));
  const served = users.map((user) => String(user.tokens).padStart(5)).join(' ');
  const above = users.map((user) => String(user.overshoot).padStart(5)).join(' ');
  console.log(`${accounting.padEnd(12)}  ${served.padEnd(24)}  ${above.padEnd(23)}  ${worst}`);
}
