import { createServer, type Server } from 'node:http';
import { type ExecutionContext, type INestApplicationContext, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { TollgateError } from '@tollgate/core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimit, type RateLimitExchange, RateLimitGuard, RateLimitModule, type RateLimitRejectedException } from '../src/index.js';
import { parseRateLimitField } from './helpers/fields.js';

/** What a GraphQL resolver or a WebSocket gateway looks like to the guard: a provider with handlers. */
@Injectable()
class BooksResolver {
  @RateLimit({ perMinute: 2 })
  books() {
    return [];
  }
}

interface FakeSocket {
  handshake: { address: string; headers: Record<string, string> };
}
class TooManyMessages extends Error {
  constructor(readonly retryAfterMs: number) {
    super('too many messages');
  }
}

/** The README's recipe for WebSocket gateways, with a plain error standing in for WsException. */
@Injectable()
class WsRateLimitGuard extends RateLimitGuard {
  protected override getExchange(context: ExecutionContext): RateLimitExchange | undefined {
    if (context.getType() !== 'ws') return super.getExchange(context);
    const client = context.switchToWs().getClient<FakeSocket>();
    return {
      info: { ip: client.handshake.address, method: 'WS', path: 'books', headers: client.handshake.headers, raw: client },
      setHeaders: () => undefined,
      reject: (verdict) => {
        throw new TooManyMessages(verdict.decision.retryAfterMs);
      },
      // A message has no response to wait for: it is done once handled.
      onDone: (done) => done(200),
    };
  }
}

@Module({ imports: [RateLimitModule.forRoot()], providers: [BooksResolver, WsRateLimitGuard] })
class ContextsModule {}

let context: INestApplicationContext;
beforeAll(async () => {
  context = await NestFactory.createApplicationContext(ContextsModule, { logger: false });
});
afterAll(() => context.close());

function graphqlContext(gqlContext: object): ExecutionContextHost {
  const host = new ExecutionContextHost([{}, {}, gqlContext, {}], BooksResolver, BooksResolver.prototype.books);
  host.setType('graphql');
  return host;
}

describe('GraphQL context', () => {
  let server: Server;
  beforeAll(() => {
    const guard = context.get(RateLimitGuard);
    // Answers as a GraphQL server does: 200 with the error in the payload; the guard's headers stay.
    server = createServer(async (req, res) => {
      res.setHeader('Content-Type', 'application/json');
      try {
        await guard.canActivate(graphqlContext({ req, res }));
        res.end(JSON.stringify({ data: { books: [] } }));
      } catch (error) {
        const rejected = error as RateLimitRejectedException;
        res.end(JSON.stringify({ errors: [{ status: rejected.getStatus(), message: rejected.getResponse() }] }));
      }
    });
  });
  afterAll(() => server.close());

  it('limits resolvers, sets the headers, and carries the rejection in the exception', async () => {
    const first = await request(server).get('/graphql');
    expect(first.body).toEqual({ data: { books: [] } });
    expect(parseRateLimitField(first.headers.ratelimit).get('default')).toMatchObject({ r: 1 });
    await request(server).get('/graphql');
    const rejected = await request(server).get('/graphql');
    expect(rejected.status).toBe(200);
    expect(rejected.body.errors[0].status).toBe(429);
    expect(rejected.body.errors[0].message.length).toBeGreaterThan(0);
    expect(Number(rejected.headers['retry-after'])).toBeGreaterThan(0);
    expect(parseRateLimitField(rejected.headers.ratelimit).get('default')).toMatchObject({ r: 0 });
  });

  it('refuses a GraphQL context without the request and response', async () => {
    const error = await context
      .get(RateLimitGuard)
      .canActivate(graphqlContext({}))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'context' });
  });
});

describe('WebSocket context through an overridden getExchange', () => {
  it('limits messages per client address', async () => {
    const guard = context.get(WsRateLimitGuard);
    const sockets = new Map<string, FakeSocket>();
    const message = (address: string) => {
      if (!sockets.has(address)) sockets.set(address, { handshake: { address, headers: {} } });
      // One socket per client, one arguments array per message, as Nest's WebSocket context does.
      const host = new ExecutionContextHost([sockets.get(address), { text: 'hi' }], BooksResolver, BooksResolver.prototype.books);
      host.setType('ws');
      return guard.canActivate(host);
    };
    expect(await message('10.0.0.1')).toBe(true);
    expect(await message('10.0.0.1')).toBe(true);
    const error = await message('10.0.0.1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyMessages);
    expect((error as TooManyMessages).retryAfterMs).toBeGreaterThan(0);
    expect(await message('10.0.0.2')).toBe(true);
  });

  it('leaves WebSocket messages unlimited with the stock guard', async () => {
    const host = new ExecutionContextHost([{}, {}], BooksResolver, BooksResolver.prototype.books);
    host.setType('ws');
    for (let i = 0; i < 5; i++) expect(await context.get(RateLimitGuard).canActivate(host)).toBe(true);
  });
});
