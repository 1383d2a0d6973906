import type { FakeLlmCall } from '@tollgate/testing';

export interface Load {
  /** Base URLs of the proxy processes; a user's calls go to each in turn. */
  proxies: readonly string[];
  users: readonly string[];
  callsPerUser: number;
  /** Calls of one user sent at once. */
  parallelPerUser: number;
  maxTokens: number;
  stream: boolean;
}

/** 40 characters: a prompt of 10 tokens. */
const PROMPT = 'Say something about rate limits, please.';

/** Sends the load; resolves with each call's user and status once every call has its answer. */
export async function sendLoad(load: Load): Promise<{ user: string; status: number }[]> {
  const answers: { user: string; status: number }[] = [];
  const body = JSON.stringify({ messages: [{ role: 'user', content: PROMPT }], max_tokens: load.maxTokens, stream: load.stream });
  await Promise.all(
    load.users.flatMap((user) => {
      let sent = 0;
      return Array.from({ length: load.parallelPerUser }, async () => {
        while (sent < load.callsPerUser) {
          const proxy = load.proxies[sent++ % load.proxies.length]!;
          const response = await fetch(`${proxy}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-user': user },
            body,
          });
          await response.arrayBuffer();
          answers.push({ user, status: response.status });
        }
      });
    }),
  );
  return answers;
}

/** Per user: the tokens the API served for the user's calls, and how far above `budget` that is. */
export function overshootByUser(calls: readonly FakeLlmCall[], users: readonly string[], budget: number) {
  return users.map((user) => {
    const served = calls.filter((call) => call.user === user && call.status === 200);
    const tokens = served.reduce((sum, call) => sum + call.tokens, 0);
    return { user, calls: served.length, tokens, overshoot: Math.max(0, tokens - budget) };
  });
}

/** A fixed sequence of numbers in [0, 1): the same answer lengths on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}
