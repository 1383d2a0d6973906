import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { createLimiter, type Decision } from '@tollgate/core';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { recordDecision } from '../src/request-decision.js';

const remaining: RequestHandler = (req, res) => {
  res.json({ remaining: req.rateLimit?.remaining ?? null, own: Object.hasOwn(req, 'rateLimit') });
};

describe.each([
  ['Express 4', express4],
  ['Express 5', express5],
] as const)('req.rateLimit on %s', (_name, express) => {
  it('is readable in a mounted app of its own prototype, and is no own property of the request', async () => {
    const app = express();
    const inner = express();
    inner.get('/', remaining);
    app.use(rateLimit({ perMinute: 5 }));
    app.use('/inner', inner);
    const res = await request(app).get('/inner').expect(200);
    expect(res.body).toEqual({ remaining: 4, own: false });
  });

  it('keeps the RateLimit fields of an earlier limiter that wrote req.rateLimit (as express-rate-limit does)', async () => {
    const app = express();
    const decision = await createLimiter({ perMinute: 9, rule: 'other' }).consume('k');
    app.use((req, res, next) => {
      req.rateLimit = decision;
      res.setHeader('RateLimit-Policy', '"other";q=9;w=60');
      res.setHeader('RateLimit', '"other";r=8;t=7');
      next();
    });
    app.use(rateLimit({ perMinute: 5 }));
    app.get('/', remaining);
    const res = await request(app).get('/').expect(200);
    expect(res.headers['ratelimit-policy']).toBe('"other";q=9;w=60, "default";q=5;w=60');
  });
});

/** A request as Express builds one: its app's `request`, above Express's `request`, above Node's. */
function expressLikeRequest(): IncomingMessage & { rateLimit?: Decision } {
  const expressRequest = Object.create(IncomingMessage.prototype) as object;
  const req = new IncomingMessage(new Socket());
  Object.setPrototypeOf(req, Object.create(expressRequest));
  return req;
}

describe('recordDecision', () => {
  const decision = {} as Decision;

  it('tells whether a decision was recorded on the request before', () => {
    const req = expressLikeRequest();
    expect(recordDecision(req, decision)).toBe(false);
    expect(req.rateLimit).toBe(decision);
    expect(Object.hasOwn(req, 'rateLimit')).toBe(false);
    expect(recordDecision(req, decision)).toBe(true);
  });

  it("leaves Node's IncomingMessage and requests of other kinds alone", () => {
    const plain: { rateLimit?: Decision } = {};
    expect(recordDecision(plain, decision)).toBe(true);
    expect(plain.rateLimit).toBe(decision);
    const node = new IncomingMessage(new Socket()) as IncomingMessage & { rateLimit?: Decision };
    expect(recordDecision(node, decision)).toBe(true);
    expect(Object.hasOwn(node, 'rateLimit')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(IncomingMessage.prototype, 'rateLimit')).toBeUndefined();
  });

  it('writes through whatever serves req.rateLimit when something else shadows the accessor', () => {
    const shadowed = expressLikeRequest();
    Object.defineProperty(Object.getPrototypeOf(shadowed), 'rateLimit', { value: undefined, writable: true });
    expect(recordDecision(shadowed, decision)).toBe(true);
    expect(shadowed.rateLimit).toBe(decision);
    const own = expressLikeRequest();
    Object.defineProperty(own, 'rateLimit', { value: undefined, writable: true });
    expect(recordDecision(own, decision)).toBe(true);
    expect(own.rateLimit).toBe(decision);
  });
});
