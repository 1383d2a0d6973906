import express5 from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../src/client-address.js';

const TRUST_SETTINGS = [undefined, false, true, 'loopback', 1, (address: string) => address === '127.0.0.1'] as const;
const FORWARDED = [undefined, '', '203.0.113.7', '203.0.113.7, 198.51.100.2', ' , '];

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
