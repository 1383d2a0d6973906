import { fileURLToPath } from 'node:url';
import { type FakeLlm, NodeProcess, type RedisTarget, startFakeLlm, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overshootByUser, seededRandom, sendLoad } from '../src/load.js';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const USERS = ['ada', 'bob', 'cy'];
const BUDGETS = { requestsPerMinute: 100, tokensPerMinute: 1500, concurrency: 2 };
const MAX_CALL_TOKENS = 300;
// The API serves 2500 tokens per 2 s: less than the users spend together, so the proxies must pause.
const UPSTREAM = { tokensPerWindow: 2500, windowMs: 2000 };

let redis: RedisTarget;
let llm: FakeLlm;
const proxies: NodeProcess[] = [];
beforeAll(async () => {
  redis = await startRedis();
  const length = seededRandom(11);
  llm = await startFakeLlm({ ...UPSTREAM, completionTokens: () => 30 + Math.floor(length() * 71), tokenIntervalMs: 2 });
  const config = JSON.stringify({
    redisUrl: redis.url,
    upstream: llm.url,
    keyPrefix: `llm-${Date.now()}`,
    budgets: BUDGETS,
    upstreamInFlight: 6,
    maxCallTokens: MAX_CALL_TOKENS,
  });
  for (let i = 0; i < 2; i++) {
    proxies.push(
      await NodeProcess.start(['--import', 'tsx', 'test/proxy-worker.ts', config], { cwd: exampleDir, ready: /listening on (http:\S+)/ }),
    );
  }
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await llm?.close();
  await redis?.close();
});

// Real time is the subject: the API's token window runs on its own clock.
describe('3 users streaming through 2 proxy processes on one Redis', () => {
  it('no user is served above its token budget beyond one call, and the API never answers 429', async () => {
    const answers = await sendLoad({
      proxies: proxies.map((proxy) => proxy.match[1]!),
      users: USERS,
      callsPerUser: 24,
      parallelPerUser: 2,
      maxTokens: 100,
      stream: true,
    });
    const byUser = overshootByUser(llm.calls, USERS, BUDGETS.tokensPerMinute);
    console.log(byUser.map(({ user, tokens, overshoot }) => `${user}: ${tokens} tokens served, ${overshoot} above budget`).join('; '));
    for (const { overshoot } of byUser) expect(overshoot).toBeLessThanOrEqual(MAX_CALL_TOKENS);
    // Every user got its budget's worth, then 429s from the proxy.
    for (const { tokens } of byUser) expect(tokens).toBeGreaterThan(BUDGETS.tokensPerMinute - MAX_CALL_TOKENS);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200, 429]));
    // The users' tokens are more than one window of the API: it was paused for, never refused.
    expect(llm.calls.reduce((sum, call) => sum + call.tokens, 0)).toBeGreaterThan(UPSTREAM.tokensPerWindow);
    expect(llm.calls.filter((call) => call.status !== 200)).toEqual([]);
  });

  it('answers 400 to a body that is not a chat request, 401 without X-User, never 500', async () => {
    const proxy = proxies[0]!.match[1]!;
    const post = (body: string, headers: Record<string, string> = { 'x-user': 'eve' }) =>
      fetch(`${proxy}/v1/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    expect((await post('{"messages":')).status).toBe(400);
    expect((await post('{"prompt":"hi"}')).status).toBe(400);
    expect((await post('{"messages":[{"role":"user","content":"hi"}],"max_tokens":1e9}')).status).toBe(400);
    expect((await post('{"messages":[{"role":"user","content":"hi"}],"max_tokens":-1}')).status).toBe(400);
    expect((await post('{"messages":[{"role":"user","content":"hi"}]}', {})).status).toBe(401);
  });
});
