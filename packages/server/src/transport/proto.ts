import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as grpc from '@grpc/grpc-js';
import { loadSync, type Options } from '@grpc/proto-loader';

const RLS_PROTO = 'envoy/service/ratelimit/v3/rls.proto';
export const RATE_LIMIT_SERVICE = 'envoy.service.ratelimit.v3.RateLimitService';

/**
 * How messages are handed over: field names as in the .proto files, enums by name, 64-bit
 * numbers as JavaScript numbers, unset fields left out (so an unset `hits_addend` wrapper is told
 * from one set to 0).
 */
const LOADER_OPTIONS: Options = { keepCase: true, longs: Number, enums: String, defaults: false, oneofs: true };

/** The folder of the vendored .proto files: beside `dist/` in the package, two levels up from `src/transport/`. */
export function protoDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', 'proto'), join(here, '..', '..', 'proto')];
  const found = candidates.find((dir) => existsSync(join(dir, RLS_PROTO)));
  if (found === undefined) throw new Error(`the .proto files of @tollgate/server are missing (looked in ${candidates.join(', ')})`);
  return found;
}

let definition: grpc.ServiceDefinition | undefined;

/** `envoy.service.ratelimit.v3.RateLimitService`, loaded from Envoy's own .proto files (once). */
export function rateLimitServiceDefinition(): grpc.ServiceDefinition {
  if (definition === undefined) {
    const packageDefinition = loadSync(RLS_PROTO, { ...LOADER_OPTIONS, includeDirs: [protoDir()] });
    definition = packageDefinition[RATE_LIMIT_SERVICE] as grpc.ServiceDefinition;
  }
  return definition;
}
