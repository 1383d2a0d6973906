/** What every scratch project of the consumer matrix is: a fixture installed with a set of dependency ranges. */
interface ConsumerProject {
  /** Names the case in the test output. */
  name: string;
  /** Folder under `fixtures/` with its sources (and tsconfig.json when it is TypeScript). */
  fixture: string;
  /** `module` for an ESM project; CommonJS otherwise. */
  type: 'module' | 'commonjs';
  /** The @tollgate packages it installs, from their tarballs. */
  tollgate: string[];
  /** Everything else it installs from the registry. */
  dependencies: Record<string, string>;
  /** Needs REDIS_URL. */
  redis?: boolean;
}

/** A project whose own vitest suite runs in it (the ported peer suites), with this repository's vitest. */
export interface SuiteConsumer extends ConsumerProject {
  kind: 'suite';
}

/** An app that starts and takes a burst: three 200s, then 429s with Retry-After. */
export interface AppConsumer extends ConsumerProject {
  kind: 'app';
  /** Compiled with tsc before it runs (TypeScript fixtures). */
  compile: boolean;
  /** The file Node runs, relative to the project. */
  entry: string;
  /** The servers it starts: names in its `listening {...}` line. */
  servers: string[];
}

export type Consumer = AppConsumer | SuiteConsumer;

// The oldest and newest majors the peer ranges accept.
const EXPRESS = { oldest: { express: '^4.21.0', '@types/express': '^4.17.21' }, newest: { express: '^5.0.0', '@types/express': '^5.0.0' } };
const KOA = { oldest: { koa: '^2.15.0' }, newest: { koa: '^3.0.0' } };
const IOREDIS = { oldest: { ioredis: '^5.4.0' }, newest: { ioredis: '^6.0.0' } };
const NEST_PACKAGES = ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/platform-fastify'];
const nest = (range: string): Record<string, string> => ({
  ...Object.fromEntries(NEST_PACKAGES.map((name) => [name, range])),
  'reflect-metadata': '^0.2.0',
  rxjs: '^7.8.0',
});
const NEST = { oldest: nest('^10.0.0'), newest: nest('^12.0.0') };
const NODE_TYPES = { '@types/node': '^20.19.0' };

export const CONSUMERS: Consumer[] = (['oldest', 'newest'] as const).flatMap((age): Consumer[] => [
  {
    kind: 'app',
    name: `ESM TypeScript, Express + Redis (${age}: express ${EXPRESS[age].express}, ioredis ${IOREDIS[age].ioredis})`,
    fixture: 'express-redis-ts',
    type: 'module',
    tollgate: ['@tollgate/core', '@tollgate/express'],
    dependencies: { ...EXPRESS[age], ...IOREDIS[age], ...NODE_TYPES },
    compile: true,
    entry: 'dist/main.js',
    servers: ['express'],
    redis: true,
  },
  {
    kind: 'app',
    name: `CommonJS JavaScript, Express and Koa (${age}: express ${EXPRESS[age].express}, koa ${KOA[age].koa})`,
    fixture: 'cjs-js',
    type: 'commonjs',
    tollgate: ['@tollgate/core', '@tollgate/express', '@tollgate/koa'],
    dependencies: { express: EXPRESS[age].express, ...KOA[age] },
    compile: false,
    entry: 'src/main.js',
    servers: ['express', 'koa'],
  },
  {
    kind: 'app',
    name: `Nest on Express and on Fastify (${age}: @nestjs/* ${NEST[age]['@nestjs/core']})`,
    fixture: 'nest-ts',
    type: 'module',
    tollgate: ['@tollgate/core', '@tollgate/nestjs'],
    dependencies: { ...NEST[age], '@types/express': EXPRESS[age]['@types/express'], ...NODE_TYPES },
    compile: true,
    entry: 'dist/main.js',
    servers: ['express', 'fastify'],
  },
]);

// The gateway server: its command run with npx from the tarball, and createServer() in ESM TypeScript.
CONSUMERS.push({
  kind: 'app',
  name: 'ESM TypeScript, @tollgate/server: npx tollgate-server and createServer() (newest)',
  fixture: 'server-ts',
  type: 'module',
  tollgate: ['@tollgate/core', '@tollgate/prometheus', '@tollgate/server'],
  dependencies: { ...NODE_TYPES },
  compile: true,
  entry: 'dist/main.js',
  servers: ['cli', 'api'],
});

// A TypeScript app on the memory store must compile without ioredis installed.
CONSUMERS.push({
  kind: 'app',
  name: 'ESM TypeScript, Express on the memory store, ioredis not installed (newest)',
  fixture: 'memory-ts',
  type: 'module',
  tollgate: ['@tollgate/core', '@tollgate/express'],
  dependencies: { ...EXPRESS.newest, ...NODE_TYPES },
  compile: true,
  entry: 'dist/main.js',
  servers: ['express'],
});

// A TypeScript app half-way from express-rate-limit: its untouched express-rate-limit routes compile beside Tollgate's.
CONSUMERS.push({
  kind: 'app',
  name: 'ESM TypeScript, Express with express-rate-limit still on some routes (newest)',
  fixture: 'express-rate-limit-ts',
  type: 'module',
  tollgate: ['@tollgate/core', '@tollgate/express'],
  dependencies: { ...EXPRESS.newest, 'express-rate-limit': '^8.6.2', ...NODE_TYPES },
  compile: true,
  entry: 'dist/main.js',
  servers: ['express'],
});

/**
 * The peers' own tests (express-rate-limit, @nestjs/throttler, rate-limiter-flexible) ported to
 * Tollgate, and the three apps migrated by docs/MIGRATION.md compared with their originals: run
 * against the tarballs, with the peers installed beside them: the exact versions the suites were
 * ported from, so the original apps run the code the ported assertions describe. @nestjs/throttler's
 * commit 5936ae9 says 6.5.1 in its package.json, a version never published: its code (6.5.0 and
 * the timeout fix of 6.5.1) was published as 6.6.0, whose dist differs from 6.5.0's by that fix alone.
 */
CONSUMERS.push({
  kind: 'suite',
  name: 'the ported peer suites and the migrated apps (newest)',
  fixture: 'peer-suites',
  type: 'module',
  tollgate: ['@tollgate/core', '@tollgate/express', '@tollgate/nestjs'],
  dependencies: {
    ...EXPRESS.newest,
    ...nest('^11.0.0'),
    '@nestjs/testing': '^11.0.0',
    '@nestjs/throttler': '6.6.0',
    'express-rate-limit': '8.6.2',
    'rate-limiter-flexible': '11.1.0',
    'ratelimit-header-parser': '^0.1.0',
    chai: '^5.2.0',
    '@types/chai': '^5.2.0',
    ...IOREDIS.oldest,
    supertest: '^7.1.0',
    '@types/supertest': '^6.0.0',
    ...NODE_TYPES,
  },
  redis: true,
});

// Fastify: the plugin in ESM TypeScript (strict) and in CommonJS, on the oldest and newest major of its peer range.
const FASTIFY = { oldest: { fastify: '^4.29.0' }, newest: { fastify: '^5.0.0' } };
for (const age of ['oldest', 'newest'] as const) {
  CONSUMERS.push(
    {
      kind: 'app',
      name: `ESM TypeScript, Fastify (${age}: fastify ${FASTIFY[age].fastify})`,
      fixture: 'fastify-ts',
      type: 'module',
      tollgate: ['@tollgate/core', '@tollgate/fastify'],
      dependencies: { ...FASTIFY[age], ...NODE_TYPES },
      compile: true,
      entry: 'dist/main.js',
      servers: ['fastify'],
    },
    {
      kind: 'app',
      name: `CommonJS JavaScript, Fastify (${age}: fastify ${FASTIFY[age].fastify})`,
      fixture: 'fastify-cjs',
      type: 'commonjs',
      tollgate: ['@tollgate/core', '@tollgate/fastify'],
      dependencies: { ...FASTIFY[age] },
      compile: false,
      entry: 'src/main.js',
      servers: ['fastify'],
    },
  );
}

// Hono on @hono/node-server: the oldest minors the peer ranges accept, and the newest.
const HONO = { oldest: { hono: '~4.6.0', '@hono/node-server': '~1.12.0' }, newest: { hono: '^4.0.0', '@hono/node-server': '^1.0.0' } };
for (const age of ['oldest', 'newest'] as const) {
  const versions = `hono ${HONO[age].hono}, @hono/node-server ${HONO[age]['@hono/node-server']}`;
  CONSUMERS.push(
    {
      kind: 'app',
      name: `ESM TypeScript, Hono (${age}: ${versions})`,
      fixture: 'hono-ts',
      type: 'module',
      tollgate: ['@tollgate/core', '@tollgate/hono'],
      dependencies: { ...HONO[age], ...NODE_TYPES },
      compile: true,
      entry: 'dist/main.js',
      servers: ['hono'],
    },
    {
      kind: 'app',
      name: `CommonJS JavaScript, Hono (${age}: ${versions})`,
      fixture: 'hono-cjs',
      type: 'commonjs',
      tollgate: ['@tollgate/core', '@tollgate/hono'],
      dependencies: { ...HONO[age] },
      compile: false,
      entry: 'src/main.js',
      servers: ['hono'],
    },
  );
}
