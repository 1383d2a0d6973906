import 'reflect-metadata';
import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

export type Platform = 'express' | 'fastify';
export const PLATFORMS: Platform[] = ['express', 'fastify'];

/** Boots a Nest application on `platform` with a root module made of `metadata`; `configure` runs before init. */
export async function startApp(
  platform: Platform,
  metadata: ModuleMetadata,
  configure: (app: INestApplication) => void = () => undefined,
): Promise<INestApplication> {
  @Module(metadata)
  class TestRootModule {}
  if (platform === 'express') {
    const app = await NestFactory.create(TestRootModule, new ExpressAdapter(), { logger: false });
    configure(app);
    await app.init();
    return app;
  }
  const app = await NestFactory.create<NestFastifyApplication>(TestRootModule, new FastifyAdapter(), { logger: false });
  configure(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
