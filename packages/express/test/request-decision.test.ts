import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { createLimiter, type Decision, requestRateLimit } from '@tollgate/core';
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
      req.rateLimit = requestRateLimit(decision, 'k');
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
function expressLikeRequest(): IncomingMessage & { rateLimit?: unknown; plan?: unknown } {
  const expressRequest = Object.create(IncomingMessage.prototype) as object;
  const req = new IncomingMessage(new Socket());
  Object.setPrototypeOf(req, Object.create(expressRequest));
  return req;
}

describe('recordDecision', () => {
  const decision = { allowed: true, limit: 5, remaining: 3, resetAfterMs: 1500, decidedAtMs: 10_000 } as Decision;
  const shown = { ...decision, used: 2, resetTime: new Date(11_500), key: '10.0.0.1' };

  it('tells whether a decision was recorded on the request before', () => {
    const req = expressLikeRequest();
    expect(recordDecision(req, decision, '10.0.0.1')).toBe(false);
    expect(req.rateLimit).toEqual(shown);
    expect(req.rateLimit).toBe(req.rateLimit);
    expect(Object.hasOwn(req, 'rateLimit')).toBe(false);
    expect(recordDecision(req, decision, '10.0.0.1')).toBe(true);
  });

  it("puts express-rate-limit's fields beside the decision, under requestPropertyName when given", () => {
    const req = expressLikeRequest();
    expect(recordDecision(req, decision, 'user-1', 'plan')).toBe(false);
    expect(req.plan).toEqual({ ...shown, key: 'user-1' });
    expect(req.rateLimit).toBeUndefined();
    expect(recordDecision(req, decision, 'user-1')).toBe(true);
  });

  it('counts a value express-rate-limit wrote as an earlier limiter, and serves what it wrote', () => {
    const req = expressLikeRequest();
    recordDecision(expressLikeRequest(), decision, 'x');
    const info = { limit: 5, used: 1, remaining: 4, resetTime: undefined, key: 'x' };
    req.rateLimit = info;
    expect(req.rateLimit).toBe(info);
    expect(recordDecision(req, decision, 'x')).toBe(true);
  });

  it("leaves Node's IncomingMessage and requests of other kinds alone", () => {
    const plain: { rateLimit?: unknown } = {};
    expect(recordDecision(plain, decision, '10.0.0.1')).toBe(false);
    expect(plain.rateLimit).toEqual(shown);
    const node = new IncomingMessage(new Socket()) as IncomingMessage & { rateLimit?: unknown };
    expect(recordDecision(node, decision, '10.0.0.1')).toBe(false);
    expect(Object.hasOwn(node, 'rateLimit')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(IncomingMessage.prototype, 'rateLimit')).toBeUndefined();
  });

  it('writes through whatever serves req.rateLimit when something else shadows the accessor', () => {
    const shadowed = expressLikeRequest();
    Object.defineProperty(Object.getPrototypeOf(shadowed), 'rateLimit', { value: undefined, writable: true });
    expect(recordDecision(shadowed, decision, '10.0.0.1')).toBe(false);
    expect(shadowed.rateLimit).toEqual(shown);
    const own = expressLikeRequest();
    Object.defineProperty(own, 'rateLimit', { value: undefined, writable: true });
    expect(recordDecision(own, decision, '10.0.0.1')).toBe(false);
    expect(own.rateLimit).toEqual(shown);
  });
});
