import { dirname, resolve } from 'node:path';
import { invalidOption, parseDuration, readRuleFile, refuseUnknownFields } from '@tollgate/core';
import type { ConfigSource } from '../config/config-files.js';
import { configFiles } from '../config/config-files.js';
import type { DomainDocument } from '../config/document.js';
import { isRecord } from '../config/errors.js';
import { SERVER_FIELDS, type ServerOptions } from '../options.js';
import type { RedisConnection } from './redis.js';

/** The options of `createServer` a server file cannot hold: objects of a program, and `config`, which it names its own way. */
type ProgramOnly = 'config' | 'store' | 'storeReady' | 'clock' | 'registry' | 'logger';

/** `tollgate.yaml`: createServer's other settings as they are, and where its rate limit config is. */
export interface ServerFile extends Omit<ServerOptions, ProgramOnly | 'shutdownTimeout'> {
  /** envoyproxy/ratelimit config files or folders, relative to this file. */
  rules?: string | string[];
  /** The domains themselves, in place of `rules`. */
  domains?: DomainDocument[];
  /** Absent: the memory store (one process only). */
  redis?: string | RedisConnection;
  /** `10s`, or milliseconds. */
  shutdownTimeout?: string | number;
}

const { config, store, storeReady, clock, registry, logger, ...SETTING_FIELDS } = SERVER_FIELDS;
const FILE_FIELDS = { ...SETTING_FIELDS, rules: true, domains: true, redis: true } as const satisfies Record<keyof ServerFile, true>;

/** The server file read: the options for `createServer` (its config as a source of its own) and how to reach Redis. */
export interface ServerSetup {
  options: Omit<ServerOptions, 'config'>;
  source: ConfigSource;
  redis: string | RedisConnection | undefined;
}

export async function readServerFile(path: string): Promise<ServerSetup> {
  const file = resolve(path);
  const { document } = await readRuleFile(file);
  if (!isRecord(document)) throw invalidOption(file, 'must hold an object of server settings', document);
  refuseUnknownFields(document, FILE_FIELDS);
  const { rules, domains, redis, shutdownTimeout, ...rest } = document as ServerFile;
  if ((rules === undefined) === (domains === undefined))
    throw invalidOption('rules', 'or domains is required (exactly one of them)', rules);
  const source =
    rules !== undefined ? configFiles(paths(rules).map((rule) => resolve(dirname(file), rule))) : inlineDomains(configFiles([file]));
  const timeout = shutdownTimeout === undefined ? undefined : parseDuration(shutdownTimeout, 'shutdownTimeout');
  return { options: { ...rest, ...(timeout === undefined ? {} : { shutdownTimeout: timeout }) }, source, redis };
}

function paths(rules: unknown): string[] {
  const list = Array.isArray(rules) ? rules : [rules];
  if (list.length === 0 || !list.every((rule) => typeof rule === 'string' && rule !== '')) {
    throw invalidOption('rules', 'must be a path or a list of paths', rules);
  }
  return list as string[];
}

/** The server file as the config source: its `domains` are the config, reloaded when the file changes. */
function inlineDomains(source: ConfigSource): ConfigSource {
  return {
    ...source,
    async read() {
      const { text, files } = await source.read();
      return { text, files: files.map(({ name, document }) => ({ name, document: (document as { domains?: unknown }).domains })) };
    },
  };
}
