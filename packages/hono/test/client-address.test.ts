import { getRequestListener } from '@hono/node-server';
import { TollgateError } from '@tollgate/core';
import { Hono } from 'hono';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { clientAddressReader } from '../src/client-address.js';
import type { TrustProxy } from '../src/options.js';

/** An app answering the address the reader finds, served by @hono/node-server from 127.0.0.1. */
function addressApp(trustProxy: TrustProxy | undefined) {
  const read = clientAddressReader({ trustProxy });
  return getRequestListener(new Hono().get('/', (c) => c.text(read(c) ?? 'none')).fetch);
}

async function addressFor(trustProxy: TrustProxy | undefined, forwardedFor?: string): Promise<string> {
  const get = request(addressApp(trustProxy)).get('/');
  return (await (forwardedFor === undefined ? get : get.set('X-Forwarded-For', forwardedFor)).expect(200)).text;
}

describe('the client address', () => {
  const socket = '127.0.0.1';

  it("is the connection's without trustProxy, whatever X-Forwarded-For says", async () => {
    expect(await addressFor(undefined, '203.0.113.7')).toBe(socket);
    expect(await addressFor(false, '203.0.113.7')).toBe(socket);
  });

  it('is the nearest untrusted hop of X-Forwarded-For, as Express reads it', async () => {
    const chain = '203.0.113.7, 198.51.100.2, 10.0.0.1';
    expect(await addressFor(true, chain)).toBe('203.0.113.7');
    expect(await addressFor('loopback', chain)).toBe('10.0.0.1');
    expect(await addressFor('loopback, 10.0.0.0/8', chain)).toBe('198.51.100.2');
    expect(await addressFor(['loopback', '10.0.0.0/8', '198.51.100.0/24'], chain)).toBe('203.0.113.7');
    expect(await addressFor(1, chain)).toBe('10.0.0.1');
    expect(await addressFor(2, chain)).toBe('198.51.100.2');
    expect(await addressFor((address) => address === socket || address.startsWith('10.'), chain)).toBe('198.51.100.2');
    expect(await addressFor('loopback')).toBe(socket);
  });

  it('is not read from X-Forwarded-For sent past an untrusted proxy', async () => {
    expect(await addressFor('10.0.0.0/8', '203.0.113.7')).toBe(socket);
  });

  it.each([
    ['an unknown name', 'intranet'],
    ['a negative hop count', -1],
    ['a fractional hop count', 1.5],
    ['an object', { loopback: true }],
  ])('refuses %s as trustProxy, naming it', (_what, value) => {
    expect(() => clientAddressReader({ trustProxy: value as TrustProxy })).toThrow(
      expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'trustProxy' }),
    );
  });

  it('refuses a getConnInfo that is not a function', () => {
    expect(() => clientAddressReader({ getConnInfo: 'node' as never })).toThrow(TollgateError);
  });
});
