import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '@tollgate/core';
import type { Registry } from 'prom-client';
import type { RateLimitService } from '../service/should-rate-limit.js';
import type { CompiledCheck } from './check.js';
import { answerJson, JSON_PATH } from './json-endpoint.js';
import { send } from './reply.js';

export interface HttpEndpoints {
  service: RateLimitService;
  check: CompiledCheck | undefined;
  /** True while the service takes calls: config loaded, store reachable, not shutting down. */
  ready(): boolean;
  metrics: Registry;
  logger: Logger;
  onCall?: ((outcome: 'OK' | 'OVER_LIMIT' | 'error', seconds: number) => void) | undefined;
}

/**
 * The HTTP side: `GET /healthz` (the process answers), `GET /readyz` (200 when ready, else 503),
 * `GET /metrics` (Prometheus), `POST /json` (`ShouldRateLimit` in JSON, as envoyproxy/ratelimit
 * offers it), and the check (any method) for nginx `auth_request`, Traefik `ForwardAuth` and HAProxy.
 */
export function createHttpServer(endpoints: HttpEndpoints): Server {
  const { check } = endpoints;
  return createServer((req, res) => {
    const path = pathOf(req.url);
    if (check !== undefined && path === check.path) return void answerCheck(req, res, check, endpoints);
    if (path === JSON_PATH) return void answerJson(req, res, endpoints);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
    if (path === '/healthz') return send(res, 200, 'ok\n');
    if (path === '/readyz') return endpoints.ready() ? send(res, 200, 'ready\n') : send(res, 503, 'not ready\n');
    if (path === '/metrics') return void answerMetrics(res, endpoints.metrics);
    send(res, 404, 'not found\n');
  });
}

async function answerCheck(req: IncomingMessage, res: ServerResponse, check: CompiledCheck, endpoints: HttpEndpoints): Promise<void> {
  // The subrequest's body, if any, is not read: drain it so the connection can be reused.
  req.resume();
  const request = check.request(req.headers);
  if (request === undefined) return send(res, 200, 'OK\n');
  const started = performance.now();
  try {
    const response = await endpoints.service.shouldRateLimit(request);
    const over = response.overall_code === 'OVER_LIMIT';
    endpoints.onCall?.(over ? 'OVER_LIMIT' : 'OK', (performance.now() - started) / 1000);
    const headers: Record<string, string> = Object.fromEntries(response.response_headers_to_add.map(({ key, value }) => [key, value]));
    if (over) send(res, check.deniedStatus, 'Too Many Requests\n', { ...headers, 'cache-control': 'no-store' });
    else send(res, 200, 'OK\n', headers);
  } catch (error) {
    endpoints.onCall?.('error', (performance.now() - started) / 1000);
    endpoints.logger.error('the HTTP check failed', error);
    send(res, 500, 'the rate limit check failed; see its log\n');
  }
}

async function answerMetrics(res: ServerResponse, registry: Registry): Promise<void> {
  try {
    send(res, 200, await registry.metrics(), { 'content-type': registry.contentType });
  } catch {
    send(res, 500, 'metrics failed\n');
  }
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const at = url.indexOf('?');
  return at === -1 ? url : url.slice(0, at);
}
