import type * as grpc from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { RATE_LIMIT_SERVICE } from './proto.js';

/** How often readiness is copied into the health service (a store can become unreachable at any time). */
const REFRESH_MS = 1000;

export interface GrpcHealth {
  /** Reports NOT_SERVING from now on (shutdown) and stops following readiness. */
  stop(): void;
}

/**
 * The standard gRPC health service (`grpc.health.v1.Health`, `Check` and `Watch`) on `server`:
 * SERVING while `ready()` (config loaded, store reachable, not shutting down), else NOT_SERVING,
 * for the server as a whole (`""`) and for Envoy's rate limit service by name.
 */
export function addGrpcHealth(server: grpc.Server, ready: () => boolean): GrpcHealth {
  const health = new HealthImplementation();
  let last: ServingStatus | undefined;
  const set = (status: ServingStatus) => {
    if (status === last) return;
    last = status;
    for (const service of ['', RATE_LIMIT_SERVICE]) health.setStatus(service, status);
  };
  const refresh = () => set(ready() ? 'SERVING' : 'NOT_SERVING');
  refresh();
  health.addToServer(server);
  const timer = setInterval(refresh, REFRESH_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      set('NOT_SERVING');
    },
  };
}
