import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';

/** What `@hono/node-server` passes as the app's env: the Node request and response, directly or under `server`. */
type NodeBindings = {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
  server?: { incoming?: IncomingMessage; outgoing?: ServerResponse };
};

/** The Node request of a request served by `@hono/node-server`, else undefined. */
export function nodeRequestOf(c: Context): IncomingMessage | undefined {
  const env = c.env as NodeBindings | undefined;
  return env?.incoming ?? env?.server?.incoming;
}

/** The Node response of a request served by `@hono/node-server`, else undefined. */
export function nodeResponseOf(c: Context): ServerResponse | undefined {
  const env = c.env as NodeBindings | undefined;
  const outgoing = env?.outgoing ?? env?.server?.outgoing;
  return typeof outgoing?.once === 'function' ? outgoing : undefined;
}
