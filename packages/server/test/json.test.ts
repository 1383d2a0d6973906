/** `POST /json`: Envoy's `ShouldRateLimit` in the proto3 JSON mapping, as envoyproxy/ratelimit's HTTP port offers it. */
import { readFileSync } from 'node:fs';
import { markdownSample } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseToJson } from '../src/transport/json.js';
import { type Running, startServer } from './helpers/server.js';

interface StatusJson {
  code: string;
  currentLimit?: { name?: string; requestsPerUnit?: number; unit?: string };
  limitRemaining?: number;
  durationUntilReset?: string;
}
interface ResponseJson {
  overallCode: string;
  statuses: StatusJson[];
  responseHeadersToAdd?: { key: string; value: string }[];
}
const read = (response: Response) => response.json() as Promise<ResponseJson>;

describe('POST /json', () => {
  let running: Running;
  let base: string;

  beforeAll(async () => {
    running = await startServer('memory', {
      http: { host: '127.0.0.1', port: 0 },
      config: {
        domain: 'dummy',
        descriptors: [
          { key: 'one_per_minute', rate_limit: { unit: 'minute', requests_per_unit: 1 } },
          { key: 'two_per_minute', rate_limit: { unit: 'minute', requests_per_unit: 2 } },
          { key: 'tokens', rate_limit: { unit: 'second', requests_per_unit: 10 } },
        ],
      },
    });
    base = `http://127.0.0.1:${running.server.httpPort}`;
  });
  afterAll(() => running?.close());

  const post = (body: string) => fetch(`${base}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const request = (descriptors: unknown[], extra: object = {}) => post(JSON.stringify({ domain: 'dummy', descriptors, ...extra }));

  it('answers 200 while allowed and 429 over the limit, with the response as envoyproxy/ratelimit writes it', async () => {
    const descriptors = [{ entries: [{ key: 'one_per_minute', value: 'a' }] }, { entries: [{ key: 'two_per_minute', value: 'a' }] }];
    const first = await request(descriptors);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    const allowed = await read(first);
    expect(allowed.overallCode).toBe('OK');
    expect(allowed.statuses).toEqual([
      { code: 'OK', currentLimit: { name: 'one_per_minute', requestsPerUnit: 1, unit: 'MINUTE' }, durationUntilReset: '60s' },
      {
        code: 'OK',
        currentLimit: { name: 'two_per_minute', requestsPerUnit: 2, unit: 'MINUTE' },
        limitRemaining: 1,
        durationUntilReset: '60s',
      },
    ]);
    expect(allowed.responseHeadersToAdd).toContainEqual({ key: 'ratelimit-policy', value: expect.stringContaining('q=1;w=60') });

    const second = await request(descriptors);
    expect(second.status).toBe(429);
    const over = await read(second);
    expect(over.overallCode).toBe('OVER_LIMIT');
    expect(over.statuses[0]).toEqual({
      code: 'OVER_LIMIT',
      currentLimit: { name: 'one_per_minute', requestsPerUnit: 1, unit: 'MINUTE' },
      durationUntilReset: '60s',
    });
    // Every descriptor counts on its own: the second is now spent, and a remaining 0 is left out.
    expect(over.statuses[1]!.code).toBe('OK');
    expect(over.statuses[1]).not.toHaveProperty('limitRemaining');
    expect(over.responseHeadersToAdd).toContainEqual({ key: 'retry-after', value: '60' });
  });

  it('takes the .proto names and the JSON names, numbers as strings, and an unmatched descriptor as OK', async () => {
    const snake = await read(await request([{ entries: [{ key: 'tokens', value: 's' }], hits_addend: 4 }]));
    expect(snake.statuses[0]!.limitRemaining).toBe(6);
    const camel = await read(await request([{ entries: [{ key: 'tokens', value: 's' }] }], { hitsAddend: '5' }));
    expect(camel.statuses[0]!.limitRemaining).toBe(1);
    const unmatched = await request([{ entries: [{ key: 'nobody' }] }]);
    expect(unmatched.status).toBe(200);
    expect(await read(unmatched)).toEqual({ overallCode: 'OK', statuses: [{ code: 'OK' }] });
  });

  it('answers 400 naming the mistake for a body that is not a request', async () => {
    const cases: [string, string][] = [
      ['', 'the body is not JSON'],
      ['}', 'the body is not JSON'],
      ['[]', 'request must be a JSON object'],
      ['{"domain":"dummy","descriptor":[]}', 'request has no field descriptor'],
      ['{"descriptors":[{"entries":[{"key":"a"}]}]}', 'rate limit domain must not be empty'],
      ['{"domain":"dummy","descriptors":[]}', 'rate limit descriptor list must not be empty'],
      ['{"domain":"dummy","descriptors":[{"entries":[{"key":7}]}]}', 'descriptors[0].entries[0].key must be a string'],
      ['{"domain":"dummy","hitsAddend":-1,"descriptors":[{"entries":[{"key":"a"}]}]}', 'hitsAddend must be a whole number'],
      [
        '{"domain":"dummy","descriptors":[{"entries":[{"key":"a"}],"limit":{"unit":"FORTNIGHT"}}]}',
        'descriptors[0].limit.unit must be one of',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await post(body);
      expect(response.status, body).toBe(400);
      expect(await response.text(), body).toContain(message);
    }
  });

  it('takes a request-level limit by unit name or number', async () => {
    const limit = (unit: unknown) => request([{ entries: [{ key: 'custom', value: String(unit) }], limit: { requestsPerUnit: 1, unit } }]);
    expect((await limit('HOUR')).status).toBe(200);
    expect((await limit('HOUR')).status).toBe(429);
    const byNumber = await read(await limit(3));
    expect(byNumber.statuses[0]!.currentLimit).toEqual({ name: 'override-hour', requestsPerUnit: 1, unit: 'HOUR' });
  });

  it('refuses other methods and bodies over 1 MiB', async () => {
    const get = await fetch(`${base}/json`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const huge = await post(JSON.stringify({ domain: 'dummy', descriptors: [{ entries: [{ key: 'a', value: 'x'.repeat(1 << 20) }] }] }));
    expect(huge.status).toBe(413);
  });
});

describe('the JSON mapping of a response', () => {
  it('writes durations with 0, 3, 6 or 9 fractional digits and leaves default values out', () => {
    const durations = [0, 500_000_000, 1_500_000, 7].map((nanos) =>
      responseToJson({
        overall_code: 'OK',
        statuses: [{ code: 'OK', limit_remaining: 0, duration_until_reset: { seconds: 2, nanos } }],
        response_headers_to_add: [],
      }),
    );
    expect(durations.map((json) => (json.statuses as { durationUntilReset: string }[])[0]!.durationUntilReset)).toEqual([
      '2s',
      '2.500s',
      '2.001500s',
      '2.000000007s',
    ]);
    expect(durations[0]).toEqual({ overallCode: 'OK', statuses: [{ code: 'OK', durationUntilReset: '2s' }] });
  });
});

describe("the README's /json example", () => {
  it('answers the second call as the README shows', async () => {
    const readme = new URL('../README.md', import.meta.url);
    const text = readFileSync(readme, 'utf8');
    const body = /-d '([^']+)'/.exec(text.slice(text.indexOf('### `POST /json`')))![1]!;
    const shown = JSON.parse(markdownSample(readme, 'server-json-over-limit').join('\n'));
    const running = await startServer('memory', {
      http: { host: '127.0.0.1', port: 0 },
      config: { domain: 'dummy', descriptors: [{ key: 'one_per_minute', rate_limit: { unit: 'minute', requests_per_unit: 1 } }] },
    });
    try {
      const post = () => fetch(`http://127.0.0.1:${running.server.httpPort}/json`, { method: 'POST', body });
      expect((await post()).status).toBe(200);
      const second = await post();
      expect(second.status).toBe(429);
      expect(await read(second)).toEqual(shown);
    } finally {
      await running.close();
    }
  });
});
