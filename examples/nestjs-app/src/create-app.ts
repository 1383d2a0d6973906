import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import type { AppConfig } from './config.js';

export async function createApp(config: AppConfig, { logger = true } = {}): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.with(config), { logger: logger ? ['error', 'warn', 'log'] : false });
  app.enableShutdownHooks();
  return app;
}
