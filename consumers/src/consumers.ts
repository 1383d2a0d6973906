/** One scratch project of the consumer matrix: a fixture installed with a set of dependency ranges. */
export interface Consumer {
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
  /** Compiled with tsc before it runs (TypeScript fixtures). */
  compile: boolean;
  /** The file Node runs, relative to the project. */
  entry: string;
  /** The servers it starts: names in its `listening {...}` line. */
  servers: string[];
  /** Needs REDIS_URL. */
  redis?: boolean;
}

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
  name: 'ESM TypeScript, Express on the memory store, ioredis not installed (newest)',
  fixture: 'memory-ts',
  type: 'module',
  tollgate: ['@tollgate/core', '@tollgate/express'],
  dependencies: { ...EXPRESS.newest, ...NODE_TYPES },
  compile: true,
  entry: 'dist/main.js',
  servers: ['express'],
});
