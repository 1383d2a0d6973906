import { createRuleSet } from '@tollgate/core';
import express from 'express';
import request from 'supertest';
import { expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

it("a rule-set middleware names a client's key in every rule, to reset it everywhere", async () => {
  const rules = createRuleSet({
    rules: [
      { name: 'login', match: { path: '/login' }, limit: { perMinute: 1 } },
      { name: 'accounts', match: { path: '/me' }, key: 'user', limit: { perMinute: 1 } },
    ],
  });
  const limiter = rateLimit({ rules, user: (req) => req.get('x-user') });
  const app = express().use(limiter);
  app.get(['/login', '/me'], (_req, res) => {
    res.send('ok');
  });
  for (const path of ['/login', '/me']) {
    await request(app).get(path).set('X-User', 'ann').expect(200);
    await request(app).get(path).set('X-User', 'ann').expect(429);
  }
  const found = limiter.identitiesOf({ ip: '::ffff:127.0.0.1', user: 'ann' });
  expect(found.map(({ rule, key }) => [rule, key])).toEqual([
    ['login', 'ip:127.0.0.1'],
    ['accounts', 'user:ann'],
  ]);
  for (const { limiter: rule, key } of found) await rule.reset(key);
  for (const path of ['/login', '/me']) await request(app).get(path).set('X-User', 'ann').expect(200);
});
