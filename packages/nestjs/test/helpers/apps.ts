import 'reflect-metadata';
import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

export type Platform = 'express' | 'fastify';
export const PLATFORMS: Platform[] = ['express', 'fastify'];

export interface StartOptions {
  /** Runs before init (CORS, ...). */
  configure?: (app: INestApplication) => void;
  /** The platform's trust-proxy setting: Express `trust proxy`, Fastify `trustProxy`. */
  trustProxy?: boolean;
}

/** Boots a Nest application on `platform` with a root module made of `metadata`. */
export async function startApp(
  platform: Platform,
  metadata: ModuleMetadata,
  { configure = () => undefined, trustProxy = false }: StartOptions = {},
): Promise<INestApplication> {
  @Module(metadata)
  class TestRootModule {}
  if (platform === 'express') {
    const app = await NestFactory.create<NestExpressApplication>(TestRootModule, new ExpressAdapter(), {
      logger: false,
      abortOnError: false,
    });
    app.set('trust proxy', trustProxy);
    configure(app);
    await app.init();
    return app;
  }
  const app = await NestFactory.create<NestFastifyApplication>(TestRootModule, new FastifyAdapter({ trustProxy }), {
    logger: false,
    abortOnError: false,
  });
  configure(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
