import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { createLimiter, type Decision } from '@tollgate/core';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { defineRateLimitProperty, recordDecision } from '../src/request-decision.js';

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

describe('recordDecision', () => {
  const decision = {} as Decision;

  it('tells whether a decision was recorded on the request before', () => {
    defineRateLimitProperty();
    const req = new IncomingMessage(new Socket()) as IncomingMessage & { rateLimit?: Decision };
    expect(recordDecision(req, decision)).toBe(false);
    expect(req.rateLimit).toBe(decision);
    expect(recordDecision(req, decision)).toBe(true);
  });

  it('answers "maybe" for a request the accessor does not serve', () => {
    const req: { rateLimit?: Decision } = {};
    expect(recordDecision(req, decision)).toBe(true);
    expect(req.rateLimit).toBe(decision);
  });

  it('writes through whatever serves req.rateLimit when something else shadows the accessor', () => {
    defineRateLimitProperty();
    const shadowing = Object.create(IncomingMessage.prototype) as object;
    Object.defineProperty(shadowing, 'rateLimit', { value: undefined, writable: true });
    const req = Object.create(shadowing) as { rateLimit?: Decision };
    expect(recordDecision(req, decision)).toBe(true);
    expect(req.rateLimit).toBe(decision);
    const own = new IncomingMessage(new Socket()) as { rateLimit?: Decision };
    Object.defineProperty(own, 'rateLimit', { value: undefined, writable: true });
    expect(recordDecision(own, decision)).toBe(true);
    expect(own.rateLimit).toBe(decision);
  });
});
