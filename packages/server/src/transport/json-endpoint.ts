import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@tollgate/core';
import { RequestError } from '../service/request-error.js';
import type { RateLimitService } from '../service/should-rate-limit.js';
import { requestFromJson, responseToJson } from './json.js';
import { send } from './reply.js';

export const JSON_PATH = '/json';

/** The largest body taken: far above 64 descriptors of 32 entries with keys and values of usual length. */
const MAX_BODY_BYTES = 1 << 20;

export interface JsonEndpoint {
  service: RateLimitService;
  logger: Logger;
  onCall?: ((outcome: 'OK' | 'OVER_LIMIT' | 'error', seconds: number) => void) | undefined;
}

/**
 * `POST /json`: a `RateLimitRequest` in proto3 JSON; 200 with the `RateLimitResponse` when the
 * request is allowed, 429 when it is over the limit (envoyproxy/ratelimit's statuses), 400 for a
 * body that is not a request, 413 for one over 1 MiB.
 */
export async function answerJson(req: IncomingMessage, res: ServerResponse, endpoint: JsonEndpoint): Promise<void> {
  if (req.method !== 'POST') {
    req.resume();
    return send(res, 405, 'method not allowed\n', { allow: 'POST' });
  }
  const body = await readBody(req);
  if (body === null) return; // the client went away mid-body
  if (body === undefined) return send(res, 413, `the body is over ${MAX_BODY_BYTES} bytes\n`, { connection: 'close' });
  const started = performance.now();
  try {
    const response = await endpoint.service.shouldRateLimit(requestFromJson(parse(body)));
    const over = response.overall_code === 'OVER_LIMIT';
    endpoint.onCall?.(over ? 'OVER_LIMIT' : 'OK', (performance.now() - started) / 1000);
    sendJson(res, over ? 429 : 200, responseToJson(response));
  } catch (error) {
    if (error instanceof RequestError) return send(res, 400, `${error.message}\n`);
    endpoint.onCall?.('error', (performance.now() - started) / 1000);
    endpoint.logger.error('ShouldRateLimit over /json failed', error);
    send(res, 500, 'the rate limit service failed; see its log\n');
  }
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new RequestError('the body is not JSON');
  }
}

/** The body as text; undefined when it grows past the limit (the rest is not read), null when the request breaks off. */
function readBody(req: IncomingMessage): Promise<string | undefined | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
