/**
 * Envoy's rate limit service, driven over gRPC by a client built from Envoy's own .proto files:
 * the config examples of envoyproxy/ratelimit's README (`fixtures/envoyproxy-ratelimit/readme/`)
 * enforced as it documents them, and what Tollgate adds, on the memory store and on Redis.
 */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimitDescriptor, RateLimitRequest, RateLimitResponse } from '../src/index.js';
import { type Backend, fixture, type Running, startServer } from './helpers/server.js';

type Pairs = [string, string][];

const descriptor = (...pairs: Pairs): RateLimitDescriptor => ({ entries: pairs.map(([key, value]) => ({ key, value })) });

describe.each<Backend>(['memory', 'redis'])('ShouldRateLimit over gRPC, %s store', (backend) => {
  let running: Running;

  beforeAll(async () => {
    running = await startServer(backend, {
      config: [fixture('envoyproxy-ratelimit/readme'), fixture('tollgate-extensions.yaml')],
      mergeDomains: true,
    });
  });
  afterAll(() => running?.close());

  const call = (request: RateLimitRequest) => running.client.shouldRateLimit(request);
  const one = (domain: string, ...pairs: Pairs) => call({ domain, descriptors: [descriptor(...pairs)] });
  const codes = (response: RateLimitResponse) => [response.overall_code, ...response.statuses.map((s) => s.code)];
  async function admitted(times: number, request: () => Promise<RateLimitResponse>): Promise<number> {
    let ok = 0;
    for (let i = 0; i < times; i++) if ((await request()).overall_code === 'OK') ok++;
    return ok;
  }

  it('Example 1: 500 a second for each listed database value; other values are not limited', async () => {
    const users = await call({ domain: 'mongo_cps', hits_addend: 500, descriptors: [descriptor(['database', 'users'])] });
    expect(users.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0, current_limit: { requests_per_unit: 500, unit: 'SECOND' } });
    expect(codes(await one('mongo_cps', ['database', 'users']))).toEqual(['OVER_LIMIT', 'OVER_LIMIT']);
    expect((await one('mongo_cps', ['database', 'default'])).statuses[0]!.limit_remaining).toBe(499);
    expect((await one('mongo_cps', ['database', 'other'])).statuses[0]).toEqual({ code: 'OK', limit_remaining: 0 });
    running.clock.advance(1000);
    expect((await one('mongo_cps', ['database', 'users'])).overall_code).toBe('OK');
  });

  it('Example 2: nested descriptors, and several descriptors in one request limited on all of them', async () => {
    const marketing = () =>
      call({
        domain: 'messaging',
        descriptors: [descriptor(['message_type', 'marketing'], ['to_number', '2061111111']), descriptor(['to_number', '2061111111'])],
      });
    expect(await admitted(5, marketing)).toBe(5);
    const sixth = await marketing();
    expect(codes(sixth)).toEqual(['OVER_LIMIT', 'OVER_LIMIT', 'OK']);
    expect(sixth.statuses[1]).toMatchObject({ current_limit: { requests_per_unit: 100, unit: 'DAY' }, limit_remaining: 94 });
    // Each number has 5 marketing messages of its own; the marketing level alone sets no limit.
    expect((await one('messaging', ['message_type', 'marketing'], ['to_number', '2062222222'])).overall_code).toBe('OK');
    expect((await one('messaging', ['message_type', 'marketing'])).statuses[0]).toEqual({ code: 'OK', limit_remaining: 0 });
  });

  it('Example 3: the key with its value is matched before the key alone (a blocked address)', async () => {
    expect(await admitted(11, () => one('edge_proxy_per_ip', ['remote_address', '50.0.0.1']))).toBe(10);
    const blocked = await one('edge_proxy_per_ip', ['remote_address', '50.0.0.5']);
    expect(blocked.overall_code).toBe('OVER_LIMIT');
    expect(blocked.statuses[0]).toMatchObject({ limit_remaining: 0, current_limit: { requests_per_unit: 0, unit: 'SECOND' } });
  });

  it('Example 4: a descriptor matches the config level of its last entry only', async () => {
    const nested = await one('example4', ['key', 'value'], ['subkey', 'subvalue']);
    expect(nested.statuses[0]).toMatchObject({ current_limit: { requests_per_unit: 300, unit: 'SECOND' }, limit_remaining: 299 });
    expect((await one('example4', ['key', 'value'])).statuses[0]).toEqual({ code: 'OK', limit_remaining: 0 });
    const flat = await startServer(backend, { config: fixture('envoyproxy-ratelimit/readme-example-4a'), grpc: false });
    try {
      const request = { domain: 'example4', descriptors: [descriptor(['key', 'value'], ['subkey', 'subvalue'])] };
      expect((await flat.server.service.shouldRateLimit(request)).statuses[0]).toEqual({ code: 'OK', limit_remaining: 0 });
    } finally {
      await flat.server.close();
    }
  });

  it('Example 5: an unlimited descriptor is OK with the most remaining; a listed one is limited', async () => {
    const ldap = await call({ domain: 'internal', hits_addend: 1000, descriptors: [descriptor(['ldap', 'x'])] });
    expect(ldap.statuses[0]).toEqual({ code: 'OK', limit_remaining: 4294967295 });
    expect((await one('internal', ['azure', 'x'])).statuses[0]!.limit_remaining).toBe(99);
  });

  it('Example 6: shadow_mode never limits user-a, but user-b is limited to 20 a second', async () => {
    const userA = () => one('example6', ['service', 'auth-service'], ['user', 'user-a']);
    expect(await admitted(15, userA)).toBe(15);
    expect((await userA()).statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0 });
    expect(await admitted(21, () => one('example6', ['service', 'auth-service'], ['user', 'user-b']))).toBe(20);
  });

  it("Example 7: a limit that replaces another leaves the other's count alone", async () => {
    const both = () =>
      call({
        domain: 'example7',
        descriptors: [descriptor(['key_1', 'value_1'], ['user', 'bkthomps']), descriptor(['key_2', 'value_2'], ['user', 'bkthomps'])],
      });
    const first = await both();
    expect(first.statuses[0]).toEqual({ code: 'OK', limit_remaining: 0 });
    expect(first.statuses[1]!.current_limit).toMatchObject({ requests_per_unit: 10 });
    expect(await admitted(9, both)).toBe(9);
    expect((await both()).overall_code).toBe('OVER_LIMIT');
    // specific_limit was never counted: its 5 a second are all there.
    const alone = await one('example7', ['key_1', 'value_1'], ['user', 'bkthomps']);
    expect(alone.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 4, current_limit: { requests_per_unit: 5 } });
  });

  it('Example 8: detailed_metric names each value in the descriptor metric; limits stay as configured', async () => {
    expect((await one('example8', ['key1', 'unspecified_value'])).statuses[0]!.limit_remaining).toBe(9);
    expect((await one('example8', ['key1', 'value1'])).statuses[0]!.limit_remaining).toBe(19);
    const metric = await running.server.registry.getSingleMetricAsString('tollgate_server_descriptors_total');
    expect(metric).toContain('descriptor="example8.key1_unspecified_value"');
    expect(metric).toContain('descriptor="example8.key1_value1"');
  });

  it('Example 9: * in a value matches any run of characters, trailing, in the middle or several times', async () => {
    for (const [pairs, limit] of [
      [[['key1', 'valueXYZ']], 20],
      [[['path', '/api/123/action']], 20],
      [[['route', '/api/v2/resource/456/action']], 20],
    ] as [Pairs, number][]) {
      expect((await one('example9', ...pairs)).statuses[0]!.current_limit).toMatchObject({ requests_per_unit: limit, unit: 'MINUTE' });
    }
    expect((await one('example9', ['path', '/api/123/other'])).statuses[0]).toEqual({ code: 'OK', limit_remaining: 0 });
    // Each value a wildcard matches counts on its own.
    await call({ domain: 'example9', hits_addend: 20, descriptors: [descriptor(['key1', 'value1'])] });
    expect((await one('example9', ['key1', 'value1'])).overall_code).toBe('OVER_LIMIT');
    expect((await one('example9', ['key1', 'value2'])).overall_code).toBe('OK');
  });

  it('Example 10: value_to_metric puts the values sent in the descriptor metric', async () => {
    await one('example10', ['route', 'api'], ['http_method', 'GET'], ['subject_id', '123']);
    await one('example10_wildcard', ['user', 'alice'], ['action', 'readfile'], ['resource', 'documents']);
    const metric = await running.server.registry.getSingleMetricAsString('tollgate_server_descriptors_total');
    expect(metric).toContain('descriptor="example10.route_api.http_method_GET.subject_id"');
    expect(metric).toContain('descriptor="example10_wildcard.user_alice.action_readfile.resource"');
  });

  it('Example 11: share_threshold makes the values of a wildcard share one count', async () => {
    const shared = (value: string) => one('example11', ['files', value]);
    const unshared = (value: string) => one('example11', ['files_no_share', value]);
    for (const value of ['files/a.pdf', 'files/b.csv'])
      await call({ domain: 'example11', hits_addend: 5, descriptors: [descriptor(['files', value])] });
    expect((await shared('files/c.txt')).overall_code).toBe('OVER_LIMIT');
    await call({ domain: 'example11', hits_addend: 10, descriptors: [descriptor(['files_no_share', 'files_no_share/a.pdf'])] });
    expect((await unshared('files_no_share/a.pdf')).overall_code).toBe('OVER_LIMIT');
    expect(await admitted(10, () => unshared('files_no_share/b.csv'))).toBe(10);
  });

  it("hits_addend: the request's is the cost of each descriptor; a descriptor's own wins, and 0 checks without counting", async () => {
    const request = (hits: number | undefined, own?: number): RateLimitRequest => ({
      domain: 'internal',
      hits_addend: hits ?? 0,
      descriptors: [{ ...descriptor(['azure', 'costs']), ...(own === undefined ? {} : { hits_addend: { value: own } }) }],
    });
    expect((await call(request(40))).statuses[0]!.limit_remaining).toBe(60);
    expect((await call(request(40, 0))).statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 60 });
    expect((await call(request(1, 59))).statuses[0]!.limit_remaining).toBe(1);
    expect(codes(await call(request(2)))).toEqual(['OVER_LIMIT', 'OVER_LIMIT']);
    expect((await call(request(undefined))).statuses[0]!.limit_remaining).toBe(0);
    expect((await call(request(undefined, 0))).statuses[0]!.code).toBe('OVER_LIMIT');
  });

  it('a request-level limit override is enforced in place of the configured limit, and counted per descriptor', async () => {
    const overridden = (requests: number, value = 'something') =>
      call({
        domain: 'messaging',
        descriptors: [{ ...descriptor(['to_number', value]), limit: { requests_per_unit: requests, unit: 'HOUR' } }],
      });
    const first = await overridden(2);
    expect(first.statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 1, current_limit: { requests_per_unit: 2, unit: 'HOUR' } });
    expect((await overridden(2)).overall_code).toBe('OK');
    expect((await overridden(2)).overall_code).toBe('OVER_LIMIT');
    // A larger override keeps what was counted.
    expect((await overridden(3)).statuses[0]).toMatchObject({ code: 'OK', limit_remaining: 0 });
    expect((await overridden(2, 'other')).overall_code).toBe('OK');
    expect((await overridden(0, 'third')).overall_code).toBe('OVER_LIMIT');
  });

  it('quota mode reports a descriptor over its limit but fails the request only when every quota descriptor is over', async () => {
    const both = (who: string) => call({ domain: 'tollgate', descriptors: [descriptor(['tenant', who]), descriptor(['plan', who])] });
    expect(codes(await both('acme'))).toEqual(['OK', 'OK', 'OK']);
    expect(codes(await both('acme'))).toEqual(['OK', 'OK', 'OVER_LIMIT']);
    expect(codes(await both('acme'))).toEqual(['OVER_LIMIT', 'OVER_LIMIT', 'OVER_LIMIT']);
    // A descriptor outside quota mode over its limit fails the request, whatever the quota ones say.
    const withUser = (user: string) =>
      call({ domain: 'tollgate', descriptors: [descriptor(['plan', 'globex']), descriptor(['user', user])] });
    expect(codes(await withUser('u1'))).toEqual(['OK', 'OK', 'OK']);
    expect(await admitted(2, () => withUser('u1'))).toBe(0);
  });

  it('response headers: RateLimit-Policy and RateLimit of every limit checked, and Retry-After when over the limit', async () => {
    const request = { domain: 'tollgate', descriptors: [descriptor(['sliding', 'h1']), descriptor(['multi', 'h1'])] };
    const ok = await call(request);
    expect(ok.response_headers_to_add).toEqual([
      { key: 'ratelimit-policy', value: '"sliding";q=3;w=60, "per-second";q=2;w=1, "per-minute";q=3;w=60' },
      { key: 'ratelimit', value: '"sliding";r=2;t=60, "per-second";r=1;t=1, "per-minute";r=2;t=119' },
    ]);
    await call(request);
    running.clock.advance(1000);
    await call(request);
    const over = await call(request);
    expect(codes(over)).toEqual(['OVER_LIMIT', 'OVER_LIMIT', 'OVER_LIMIT']);
    // The longest wait of the descriptors over the limit: the sliding-window counter's, whose previous window must weigh less (the log's is 59 s).
    expect(over.response_headers_to_add.find((h) => h.key === 'retry-after')).toEqual({ key: 'retry-after', value: '78' });
    expect(over.statuses[1]!.current_limit).toEqual({ name: 'per-minute', requests_per_unit: 3, unit: 'MINUTE' });
  });

  it('every algorithm per descriptor: GCRA and token bucket with a burst, concurrency slots', async () => {
    expect(await admitted(4, () => one('tollgate', ['burst', 'b1']))).toBe(3);
    running.clock.advance(1000);
    expect(await admitted(2, () => one('tollgate', ['burst', 'b1']))).toBe(1);
    expect(await admitted(5, () => one('tollgate', ['bucket', 'b1']))).toBe(4);
    running.clock.advance(500);
    expect(await admitted(2, () => one('tollgate', ['bucket', 'b1']))).toBe(1);
    const slots = await admitted(3, () => one('tollgate', ['concurrent', 'c1']));
    expect(slots).toBe(2);
    expect((await one('tollgate', ['concurrent', 'c1'])).statuses[0]!.current_limit).toEqual({
      name: 'concurrent',
      requests_per_unit: 2,
      unit: 'UNKNOWN',
    });
    running.clock.advance(30_000);
    expect((await one('tollgate', ['concurrent', 'c1'])).overall_code).toBe('OK');
  });

  it('duration_until_reset counts down on the clock, and the window starts again after it', async () => {
    expect((await one('internal', ['azure', 'clock'])).statuses[0]!.duration_until_reset).toEqual({ seconds: 60, nanos: 0 });
    running.clock.advance(20_500);
    expect((await one('internal', ['azure', 'clock'])).statuses[0]!.duration_until_reset).toEqual({ seconds: 39, nanos: 500_000_000 });
    running.clock.advance(39_500);
    expect((await one('internal', ['azure', 'clock'])).statuses[0]!.limit_remaining).toBe(99);
  });

  it('an unknown domain, or a descriptor no limit matches, is OK', async () => {
    const response = await call({ domain: 'nowhere', descriptors: [descriptor(['a', 'b']), descriptor(['c', 'd'])] });
    expect(response).toEqual({
      overall_code: 'OK',
      statuses: [
        { code: 'OK', limit_remaining: 0 },
        { code: 'OK', limit_remaining: 0 },
      ],
    });
  });

  it('refuses a request the protocol does not allow with INVALID_ARGUMENT', async () => {
    const refused: [RateLimitRequest, string][] = [
      [{ domain: '', descriptors: [descriptor(['a', 'b'])] }, 'rate limit domain must not be empty'],
      [{ domain: 'internal', descriptors: [] }, 'rate limit descriptor list must not be empty'],
      [{ domain: 'internal', descriptors: [{ entries: [] }] }, 'every descriptor must have 1 to 32 entries'],
      [{ domain: 'internal', descriptors: [descriptor(['', 'b'])] }, 'every descriptor entry must have a key'],
      [{ domain: 'internal', descriptors: Array.from({ length: 65 }, () => descriptor(['a', 'b'])) }, 'at most 64 descriptors'],
    ];
    for (const [request, message] of refused) {
      await expect(call(request)).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringContaining(message) });
    }
  });
});
