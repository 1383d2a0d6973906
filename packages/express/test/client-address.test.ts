import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAddress } from '../src/client-address.js';

const TRUST_SETTINGS = [
  undefined,
  false,
  true,
  'loopback',
  1,
  2,
  '127.0.0.1',
  'loopback, 10.0.0.0/8',
  ['loopback', 'uniquelocal'],
  (address: string) => address === '127.0.0.1',
  (address: string, hop: number) => hop < 2 || address.startsWith('10.'),
] as const;
const FORWARDED = [undefined, '', '203.0.113.7', '203.0.113.7, 198.51.100.2', ' , ', '10.0.0.1, 10.0.0.2', 'a b, ,c'];

/** Addresses and junk an `X-Forwarded-For` list may hold: trusted ranges, clients, IPv6, garbage. */
const entry = fc.oneof(
  fc.constantFrom('10.0.0.1', '10.1.2.3', '127.0.0.1', '::1', 'fd00::1', '203.0.113.7', '2001:db8::1', '::ffff:10.0.0.9'),
  fc.ipV4(),
  fc.ipV6(),
  fc.stringMatching(/^[ a-z0-9.:]{0,8}$/),
);
/** A field value as a client or a chain of proxies writes it: entries joined by commas, spaces anywhere around them. */
const forwardedFor = fc
  .array(fc.tuple(fc.constantFrom('', ' ', '  '), entry, fc.constantFrom('', ' ')), { maxLength: 5 })
  .map((entries) => entries.map(([before, address, after]) => `${before}${address}${after}`).join(','));

describe.each([
  ['Express 4', express4],
  ['Express 5', express5],
] as const)('%s: clientAddress', (_name, express) => {
  it.each(TRUST_SETTINGS.map((trust) => [String(trust), trust] as const))('is req.ip with trust proxy %s', async (_label, trust) => {
    const app = express();
    if (trust !== undefined) app.set('trust proxy', trust);
    app.get('/', (req, res) => {
      res.json({ address: clientAddress(req), ip: req.ip });
    });
    for (const forwarded of FORWARDED) {
      const get = request(app).get('/');
      const res = await (forwarded === undefined ? get : get.set('X-Forwarded-For', forwarded)).expect(200);
      expect(res.body.address, `X-Forwarded-For: ${forwarded}`).toBe(res.body.ip);
    }
  });
});

describe('clientAddress on one keep-alive connection, against req.ip', () => {
  const app = express5();
  let port: number;
  let server: ReturnType<typeof app.listen>;
  beforeAll(async () => {
    app.get('/', (req, res) => {
      res.json({ address: clientAddress(req) ?? null, ip: req.ip ?? null });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    agent.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  /** `X-Forwarded-For` in any case: a field name is matched without regard to case. */
  const fieldName = fc
    .array(fc.boolean(), { minLength: 15, maxLength: 15 })
    .map((upper) => [...'x-forwarded-for'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

  /** One request on the kept connection, with the field's lines as given, under `name`. */
  function ask(name: string, lines: readonly string[]): Promise<{ address: string | null; ip: string | null }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ port, host: '127.0.0.1', path: '/', agent }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve(JSON.parse(body)));
      });
      if (lines.length > 0) req.setHeader(name, [...lines]);
      req.on('error', reject);
      req.end();
    });
  }

  it.each(TRUST_SETTINGS.filter((trust) => trust !== undefined).map((trust) => [String(trust), trust] as const))(
    'agrees on random fields, in one line or several, with trust proxy %s (and after the setting changes)',
    async (_label, trust) => {
      app.set('trust proxy', trust);
      await fc.assert(
        fc.asyncProperty(fieldName, fc.array(forwardedFor, { maxLength: 3 }), async (name, lines) => {
          const { address, ip } = await ask(name, lines);
          expect(address).toBe(ip);
        }),
        { numRuns: 60 },
      );
    },
  );
});
