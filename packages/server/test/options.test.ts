/** What the server refuses, with the coded error naming the field: its options, and Tollgate's extensions of the config format. */
import { MemoryStore } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import { compileConfig } from '../src/config/rate-limit-config.js';
import { createServer, type ServerOptions } from '../src/index.js';
import { memoryLogger } from './helpers/server.js';

const context = { store: new MemoryStore(), clock: undefined, events: undefined, prefix: 't' };
const domain = { domain: 'd', descriptors: [{ key: 'k', rate_limit: { unit: 'second', requests_per_unit: 1 } }] };

function compiled(rateLimit: unknown, descriptor: Record<string, unknown> = {}) {
  return () =>
    compileConfig(
      [{ name: 'rules.yaml', document: { domain: 'd', descriptors: [{ key: 'k', rate_limit: rateLimit, ...descriptor }] } }],
      context,
    );
}

describe('the config format: Tollgate extensions refused with the field named', () => {
  const cases: [string, unknown, Record<string, unknown>, string, RegExp][] = [
    [
      'burst on a window algorithm',
      { unit: 'second', requests_per_unit: 5, burst: 2 },
      {},
      'descriptors[0].rate_limit.burst',
      /applies to gcra, token-bucket, leaky-bucket, not fixed-window/,
    ],
    [
      'an algorithm with parameters of its own',
      { unit: 'second', requests_per_unit: 5, algorithm: 'warm-up' },
      {},
      'descriptors[0].rate_limit.algorithm',
      /give it as limit: \{ algorithm: warm-up/,
    ],
    [
      'an unknown algorithm',
      { unit: 'second', requests_per_unit: 5, algorithm: 'magic' },
      {},
      'descriptors[0].rate_limit.algorithm',
      /must be one of gcra, token-bucket, fixed-window/,
    ],
    [
      'unit next to limit',
      { unit: 'second', limit: { perSecond: 5 } },
      {},
      'descriptors[0].rate_limit.unit',
      /cannot be combined with limit/,
    ],
    [
      'a held request (shaping)',
      { limit: { algorithm: 'leaky-bucket', rate: 5, mode: 'shaping', maxDelay: '1s' } },
      {},
      'descriptors[0].rate_limit.limit.mode',
      /cannot be used here/,
    ],
    [
      'a held request (reserve)',
      { limits: [{ perSecond: 5 }, { qps: 1, mode: 'reserve', maxDelay: '1s' }] },
      {},
      'descriptors[0].rate_limit.limits[1].mode',
      /cannot be used here/,
    ],
    [
      'a bad limit spec',
      { limits: [{ perSecond: 5 }, { algorithm: 'fixed-window', limit: 3 }] },
      {},
      'descriptors[0].rate_limit.limits[1].window',
      /window/,
    ],
    [
      'requests_per_unit not a count',
      { unit: 'second', requests_per_unit: -1 },
      {},
      'descriptors[0].rate_limit.requests_per_unit',
      /whole number from 0/,
    ],
    [
      'a bad failure mode',
      { unit: 'second', requests_per_unit: 5 },
      { onStoreError: 'maybe' },
      'descriptors[0].onStoreError',
      /open, closed or \{ share/,
    ],
    ['a bad timeout', { unit: 'second', requests_per_unit: 5 }, { timeout: -5 }, 'descriptors[0].timeout', /timeout/],
    [
      'a misspelt Tollgate field',
      { unit: 'second', requests_per_unit: 5 },
      { onStoreEror: 'open' },
      'descriptors[0].onStoreEror',
      /did you mean onStoreError\?/,
    ],
    [
      'share_threshold without a wildcard',
      { unit: 'second', requests_per_unit: 5 },
      { share_threshold: true },
      'descriptors[0].share_threshold',
      /only be used with wildcard values/,
    ],
  ];
  for (const [name, rateLimit, descriptor, field, message] of cases) {
    it(name, () => {
      expect(compiled(rateLimit, descriptor)).toThrow(expect.objectContaining({ field, message: expect.stringMatching(message) }));
      try {
        compiled(rateLimit, descriptor)();
      } catch (error) {
        expect((error as { message: string }).message.startsWith('rules.yaml: ')).toBe(true);
        expect((error as { code: string }).code).toMatch(/^ERR_TOLLGATE_INVALID_(RULES|SPEC|OPTION)$/);
      }
    });
  }

  it('a descriptor and a domain take Tollgate options; a fallback share becomes a fallback limiter', () => {
    const config = compileConfig(
      [{ name: 'r', document: { ...domain, defaults: { timeout: 50, onStoreError: { share: 0.5 } } } }],
      context,
    );
    expect(config.domains.get('d')!.root.children.get('k')!.limit!.limiter).toBeDefined();
  });
});

describe('createServer options', () => {
  const start = (options: Partial<ServerOptions>) =>
    createServer({ config: domain, grpc: false, http: false, logger: memoryLogger(), ...options } as ServerOptions);

  it('refuses an unknown option, naming the closest one', async () => {
    await expect(start({ shaddow: true } as never)).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_OPTION',
      field: 'shaddow',
      message: expect.stringContaining('did you mean shadow?'),
    });
  });

  it('refuses a bad port, a bad check and a config that does not compile', async () => {
    await expect(start({ grpc: { port: 70_000 } })).rejects.toMatchObject({ field: 'grpc.port' });
    await expect(start({ http: { prot: 1 } as never })).rejects.toMatchObject({
      field: 'http.prot',
      message: expect.stringContaining('did you mean port?'),
    });
    await expect(start({ check: { domain: 'd', descriptors: [[{ key: 'a', from: 'cookie' }]] } as never })).rejects.toMatchObject({
      field: 'check.descriptors[0][0].from',
    });
    await expect(start({ check: { domain: 'd', descriptors: [[{ key: 'a', from: 'path' }]], deniedStatus: 200 } })).rejects.toMatchObject({
      field: 'check.deniedStatus',
    });
    await expect(start({ config: { domain: 'd', descriptors: [{ key: '' }] } as never })).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_RULES',
      field: 'descriptors[0].key',
    });
    await expect(start({ defaults: { onStoreError: 'sometimes' } as never })).rejects.toMatchObject({ field: 'defaults.onStoreError' });
  });

  it('global shadow mode answers OK while statuses say what was decided', async () => {
    const server = await start({ shadow: true });
    const request = { domain: 'd', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };
    await server.service.shouldRateLimit(request);
    const second = await server.service.shouldRateLimit(request);
    expect(second.overall_code).toBe('OK');
    expect(second.statuses[0]!.code).toBe('OVER_LIMIT');
    await server.close();
  });

  it('config.update() applies new domain documents; one that does not compile is refused and the config in force stays', async () => {
    const server = await start({});
    const request = { domain: 'd', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };
    const reloads: string[][] = [];
    server.config.on('reload', ({ domains }) => reloads.push(domains));
    server.config.update([
      { name: 'new', document: { domain: 'd', descriptors: [{ key: 'k', rate_limit: { unit: 'hour', requests_per_unit: 9 } }] } },
    ]);
    expect(reloads).toEqual([['d']]);
    expect((await server.service.shouldRateLimit(request)).statuses[0]!.current_limit).toMatchObject({
      requests_per_unit: 9,
      unit: 'HOUR',
    });
    expect(() =>
      server.config.update([{ name: 'bad', document: { domain: 'd', descriptors: [{ key: 'k', rate_limit: { unit: 'eon' } }] } }]),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_TOLLGATE_INVALID_RULES',
        message: expect.stringMatching(/^bad: descriptors\[0\]\.rate_limit\.unit invalid rate limit unit 'eon'/),
      }),
    );
    expect((await server.service.shouldRateLimit(request)).statuses[0]!.current_limit).toMatchObject({ requests_per_unit: 9 });
    expect(await server.config.reload()).toBe(false);
    await server.close();
  });
});
