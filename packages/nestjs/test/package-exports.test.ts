import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * A Nest app in plain JavaScript (decorators applied by hand, so no decorator metadata at all)
 * on the built package: two requests to a route allowing one.
 */
const APP = (load: (name: string) => string) => `
  ${load('reflect-metadata')};
  const { Controller, Get, Module } = ${load('@nestjs/common')};
  const { NestFactory, APP_GUARD } = ${load('@nestjs/core')};
  const { RateLimit, RateLimitGuard, RateLimitModule } = ${load('@tollgate/nestjs')};
  class Hello { get() { return 'hello'; } }
  const method = Object.getOwnPropertyDescriptor(Hello.prototype, 'get');
  Get()(Hello.prototype, 'get', method);
  RateLimit({ perMinute: 1 })(Hello.prototype, 'get', method);
  Controller('hello')(Hello);
  class App {}
  Module({ imports: [RateLimitModule.forRoot()], controllers: [Hello], providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }] })(App);
  (async () => {
    const app = await NestFactory.create(App, { logger: false });
    await app.listen(0, '127.0.0.1');
    const url = 'http://127.0.0.1:' + app.getHttpServer().address().port + '/hello';
    const statuses = [(await fetch(url)).status, (await fetch(url)).status];
    await app.close();
    console.log(statuses.join(','));
  })();
`;

function runNode(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: packageDir, encoding: 'utf8' }).trim();
}

describe('the built package (run `pnpm build` first; `pnpm test` does)', () => {
  it('guards a Nest app through require()', () => {
    expect(runNode(['-e', APP((name) => `require('${name}')`)])).toBe('200,429');
  });

  it('guards a Nest app through import', () => {
    expect(runNode(['--input-type=module', '-e', APP((name) => `(await import('${name}'))`)])).toBe('200,429');
  });
});
