import 'reflect-metadata';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import type { INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { GraphQLModule, Query, Resolver } from '@nestjs/graphql';
import { asCurlShows, markdownSample } from '@tollgate/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '../src/index.js';
import { startApp } from './helpers/apps.js';
import { parseRateLimitField } from './helpers/fields.js';

const typeDefs = /* GraphQL */ `
  type Query {
    books: [String!]
    authors: [String!]
  }
`;

/** Schema-first: `books` has a rule of its own, `authors` the module's default rule. Nullable fields: a limited one is null, the others still answer. */
@Resolver()
class LibraryResolver {
  @Query('books')
  @RateLimit({ perMinute: 3, name: 'books' })
  books(): string[] {
    return ['Dune'];
  }

  @Query('authors')
  authors(): string[] {
    return ['Herbert'];
  }
}

interface GraphQLResponse {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
}

/** An app with `LibraryResolver` behind the global guard, on Nest's Apollo driver configured with `driver`. */
function startGraphQLApp(driver: Partial<ApolloDriverConfig> = {}): Promise<INestApplication> {
  return startApp(
    'express',
    {
      imports: [
        RateLimitModule.forRoot({ defaultRule: { perMinute: 100, name: 'default' } }),
        GraphQLModule.forRoot<ApolloDriverConfig>({
          driver: ApolloDriver,
          typeDefs,
          context: ({ req, res }: { req: unknown; res: unknown }) => ({ req, res }),
          ...driver,
        }),
      ],
      providers: [LibraryResolver, { provide: APP_GUARD, useClass: RateLimitGuard }],
    },
    { trustProxy: true },
  );
}

let app: INestApplication;
// Nest's driver answers 200 whenever the payload has `data` unless told to keep the status errors carry.
beforeAll(async () => {
  app = await startGraphQLApp({ preserveHttpStatusForExecutionErrors: false });
});
afterAll(() => app.close());

const query = (text: string, ip: string, on = app) =>
  request(on.getHttpServer()).post('/graphql').set('X-Forwarded-For', ip).send({ query: text });

/** `books` under `count` aliases: `{ b0: books b1: books ... }`. */
const aliases = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `b${i}: books`).join(' ')} }`;

describe('GraphQL on Apollo', () => {
  it('answers a limited field with TOO_MANY_REQUESTS, the retry delay and 429, as the README shows', async () => {
    for (let i = 0; i < 3; i++) expect((await query('{ books }', '10.0.0.1')).status).toBe(200);
    const limited = await query('{ books }', '10.0.0.1');
    const body = limited.body as GraphQLResponse;
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(body.data).toEqual({ books: null });
    expect(body.errors).toHaveLength(1);
    const error = body.errors?.[0];
    expect(error?.path).toEqual(['books']);
    expect(error?.message).toMatch(/^Too many requests: retry in \d+ seconds?\.$/);
    expect(error?.extensions?.code).toBe('TOO_MANY_REQUESTS');
    expect(error?.extensions?.retryAfter).toBe(Number(limited.headers['retry-after']));
    // The transport's status is not repeated in the payload.
    expect(error?.extensions).not.toHaveProperty('http');
    // The README's sample is this answer.
    const [, ...curl] = markdownSample(new URL('../README.md', import.meta.url), 'graphql');
    const answer = { status: limited.status, statusText: 'Too Many Requests', headers: new Headers(limited.headers), body: limited.text };
    expect(asCurlShows(curl, answer)).toEqual(curl);
  });

  it('adds one header member per rule, however many aliases or fields it checked', async () => {
    const response = await query(`{ ${aliases(2).slice(2, -2)} authors a2: authors }`, '10.0.0.2');
    expect(response.status).toBe(200);
    // Fields resolve concurrently: the members' order is the order their rules last reported.
    expect([...parseRateLimitField(response.headers['ratelimit-policy']).keys()].sort()).toEqual(['books', 'default']);
    const state = parseRateLimitField(response.headers.ratelimit);
    expect([...state.keys()].sort()).toEqual(['books', 'default']);
    // The members tell the state after the last check of each rule.
    expect(state.get('books')?.r).toBe(1);
    expect(state.get('default')?.r).toBe(98);
  });

  it('keeps the header small under 300 aliases, and limits the aliases past the budget', async () => {
    const response = await query(aliases(300), '10.0.0.3');
    const body = response.body as GraphQLResponse;
    expect(response.status).toBe(429);
    expect(response.headers['ratelimit-policy']).toBe('"books";q=3;w=60');
    expect([...parseRateLimitField(response.headers.ratelimit).keys()]).toEqual(['books']);
    expect(body.errors).toHaveLength(297);
    expect(new Set((body.errors ?? []).map((error) => error.extensions?.code))).toEqual(new Set(['TOO_MANY_REQUESTS']));
  });

  it("keeps the code and the delay on the driver's default 200, and a stack trace asked for has no frames", async () => {
    const defaults = await startGraphQLApp({ includeStacktraceInErrorResponses: true });
    try {
      for (let i = 0; i < 3; i++) await query('{ books }', '10.0.0.4', defaults);
      const limited = await query('{ books }', '10.0.0.4', defaults);
      expect(limited.status).toBe(200);
      const error = (limited.body as GraphQLResponse).errors?.[0];
      const { stacktrace, ...extensions } = error?.extensions ?? {};
      expect(extensions).toEqual({ code: 'TOO_MANY_REQUESTS', retryAfter: Number(limited.headers['retry-after']) });
      // A rejection is no fault: the stack Apollo sends outside production has no frames.
      expect(stacktrace).toEqual([`RateLimitRejectedException: ${error?.message}`]);
    } finally {
      await defaults.close();
    }
  });
});
