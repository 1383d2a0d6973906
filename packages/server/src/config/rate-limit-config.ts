import { TollgateError } from '@tollgate/core';
import { type CompiledDomain, compileDomain } from './domain.js';
import { configError, within } from './errors.js';
import type { CompileContext } from './rate-limit.js';

/** The domains in force. */
export interface RateLimitConfig {
  readonly domains: ReadonlyMap<string, CompiledDomain>;
}

/** A config file as read: its name (for errors) and its parsed document. */
export interface ConfigFile {
  name: string;
  /** One domain document, or a list of them. */
  document: unknown;
}

export interface CompileConfigOptions {
  /** Files naming the same domain add to it (envoyproxy/ratelimit's MERGE_DOMAIN_CONFIG); otherwise that is an error. */
  mergeDomains?: boolean;
  /** Options every descriptor starts from (the server's `defaults`, checked). */
  defaults?: Record<string, unknown>;
}

/** Compiles every domain of `files`; throws the first error, its message starting with the file's name. */
export function compileConfig(files: readonly ConfigFile[], context: CompileContext, options: CompileConfigOptions = {}): RateLimitConfig {
  const domains = new Map<string, CompiledDomain>();
  for (const file of files) {
    const documents = Array.isArray(file.document) ? file.document : [file.document];
    documents.forEach((document, i) => {
      const where = documents === file.document ? `${file.name} [${i}]` : file.name;
      try {
        addDomain(domains, document, context, options);
      } catch (error) {
        throw within(error, where);
      }
    });
  }
  return { domains };
}

function addDomain(domains: Map<string, CompiledDomain>, document: unknown, context: CompileContext, options: CompileConfigOptions): void {
  const name = (document as { domain?: unknown } | null)?.domain;
  const existing = typeof name === 'string' ? domains.get(name) : undefined;
  if (existing !== undefined && !options.mergeDomains) throw configError('domain', `duplicate domain '${name}' in config file`, name);
  const domain = compileDomain(document, context, options.defaults ?? {}, existing);
  domains.set(domain.name, domain);
}

/** The error of a config that holds no domain at all. */
export function noDomains(source: string): TollgateError {
  return new TollgateError(
    'ERR_TOLLGATE_INVALID_RULES',
    `${source}: no config file found (give .yaml, .yml or .json files, or a folder of them)`,
  );
}
