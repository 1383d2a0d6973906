/**
 * A real nginx with `auth_request` in front of a small upstream, asking the server's HTTP check
 * (`fixtures/nginx-server.conf`, the config the README shows, on free ports).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NginxProcess } from './helpers/nginx.js';
import { fixture, type Running, startServer } from './helpers/server.js';

const LIMIT = 5;

describe('nginx auth_request in front of an upstream, asking the HTTP check', () => {
  let running: Running;
  let upstream: Server;
  let upstreamCalls = 0;
  let nginx: NginxProcess;

  beforeAll(async () => {
    running = await startServer('memory', {
      http: { host: '127.0.0.1', port: 0 },
      config: {
        domain: 'edge',
        descriptors: [{ key: 'remote_address', descriptors: [{ key: 'path', rate_limit: { unit: 'minute', requests_per_unit: LIMIT } }] }],
      },
      check: {
        domain: 'edge',
        deniedStatus: 403,
        descriptors: [
          [
            { key: 'remote_address', from: 'address' },
            { key: 'path', from: 'path' },
          ],
        ],
      },
    });
    upstream = createServer((_req, res) => {
      upstreamCalls++;
      res.end('hello from upstream\n');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as AddressInfo).port;
    const server = readFileSync(fixture('nginx-server.conf'), 'utf8');
    nginx = await NginxProcess.start(
      (port, dir) => `http {
  access_log off;
  ${NginxProcess.tempPaths(dir)}
  ${server
    .replace('127.0.0.1:8080', `127.0.0.1:${running.server.httpPort}`)
    .replace('listen 127.0.0.1:80', `listen 127.0.0.1:${port}`)
    .replace('127.0.0.1:3000', `127.0.0.1:${upstreamPort}`)}
}`,
    );
  });

  afterAll(async () => {
    await nginx?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
    await running?.close();
  });

  it('a burst gets exactly the limit through; the rest see 429 with Retry-After and the draft-11 fields', async () => {
    const burst = await Promise.all(
      Array.from({ length: 3 * LIMIT }, () =>
        fetch(`http://127.0.0.1:${nginx.port}/reports?page=1`).then(async (response) => ({ response, body: await response.text() })),
      ),
    );
    const passed = burst.filter(({ response }) => response.status === 200);
    const limited = burst.filter(({ response }) => response.status === 429);
    expect(passed).toHaveLength(LIMIT);
    expect(limited).toHaveLength(2 * LIMIT);
    expect(upstreamCalls).toBe(LIMIT);
    expect(passed.every(({ body }) => body === 'hello from upstream\n')).toBe(true);
    expect(passed[0]!.response.headers.get('ratelimit-policy')).toBe('"remote_address.path";q=5;w=60');
    expect(passed.map(({ response }) => response.headers.get('ratelimit')).sort()).toEqual(
      [0, 1, 2, 3, 4].map((left) => `"remote_address.path";r=${left};t=60`),
    );
    for (const { response, body } of limited) {
      expect(body).toBe('Too Many Requests\n');
      expect(response.headers.get('retry-after')).toBe('60');
      expect(response.headers.get('ratelimit-policy')).toBe('"remote_address.path";q=5;w=60');
      expect(response.headers.get('ratelimit')).toBe('"remote_address.path";r=0;t=60');
    }
    // Another path is another descriptor, with its own count.
    expect((await fetch(`http://127.0.0.1:${nginx.port}/other`)).status).toBe(200);
    expect(nginx.errorLog).not.toMatch(/\[(error|crit|alert|emerg)\]/);
  });
});
