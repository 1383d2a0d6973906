import type { RequestListener } from 'node:http';
import request from 'supertest';
import { expect } from 'vitest';

/**
 * Sends a request naming no client, then one with `X-Forwarded-For` and one with `Forwarded`,
 * each answered 200, and expects `warning` (core's untrusted-proxy warning) once: none before the
 * first field, none again after it.
 */
export async function expectOneProxyWarning(
  server: RequestListener,
  warn: { mock: { calls: unknown[][] } },
  warning: string,
): Promise<void> {
  await request(server).get('/').expect(200);
  expect(warn.mock.calls).toEqual([]);
  await request(server).get('/').set('X-Forwarded-For', '198.51.100.7').expect(200);
  await request(server).get('/').set('Forwarded', 'for=198.51.100.8').expect(200);
  expect(warn.mock.calls).toEqual([[warning]]);
}
