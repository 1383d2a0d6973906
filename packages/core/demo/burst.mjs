// A burst against a limiter of 10 requests/s with a burst of 5, on the in-memory store:
// 5 pass at once, then one every 100 ms.
import { createLimiter } from '@tollgate/core';

const limiter = createLimiter({ qps: 10, burst: 5 });
const started = Date.now();

for (let i = 1; i <= 12; i++) {
  const d = await limiter.consume('demo-client');
  const at = String(Date.now() - started).padStart(4);
  const verdict = d.allowed ? 'allowed' : `denied  retry in ${d.retryAfterMs} ms`;
  console.log(`t=${at} ms  request ${String(i).padStart(2)}  ${verdict.padEnd(26)} remaining=${d.remaining}`);
  if (i === 8) await new Promise((resolve) => setTimeout(resolve, 250));
}
