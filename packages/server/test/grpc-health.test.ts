/** The standard gRPC health service beside Envoy's rate limit service: Envoy's gRPC health checks of the rate limit cluster. */
import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type Running, startServer } from './helpers/server.js';

const CONFIG = { domain: 'edge', descriptors: [{ key: 'k', rate_limit: { unit: 'second' as const, requests_per_unit: 1 } }] };
const RLS = 'envoy.service.ratelimit.v3.RateLimitService';

interface HealthClient extends grpc.Client {
  check(request: { service: string }, callback: (error: grpc.ServiceError | null, response?: { status: string }) => void): void;
  watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
}

function healthClient(port: number): HealthClient {
  const Client = grpc.makeGenericClientConstructor(healthService, 'Health');
  return new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as HealthClient;
}

const check = (client: HealthClient, service: string) =>
  new Promise<string>((resolve, reject) =>
    client.check({ service }, (error, response) => (error ? reject(error) : resolve(response!.status))),
  );

describe('grpc.health.v1.Health', () => {
  let running: Running | undefined;
  let client: HealthClient | undefined;
  afterEach(async () => {
    client?.close();
    await running?.close();
  });

  it('is SERVING while the store is reachable, NOT_SERVING while it is not, for the server and the rate limit service', async () => {
    let reachable = true;
    running = await startServer('memory', { config: CONFIG, storeReady: () => reachable });
    client = healthClient(running.server.grpcPort!);
    expect(await check(client, '')).toBe('SERVING');
    expect(await check(client, RLS)).toBe('SERVING');
    await expect(check(client, 'some.other.Service')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    reachable = false;
    await expect.poll(() => check(client!, RLS), { timeout: 5000, interval: 100 }).toBe('NOT_SERVING');
    reachable = true;
    await expect.poll(() => check(client!, ''), { timeout: 5000, interval: 100 }).toBe('SERVING');
  });

  it('tells a watcher NOT_SERVING as soon as shutdown begins', async () => {
    running = await startServer('memory', { config: CONFIG, shutdownTimeout: 500 });
    client = healthClient(running.server.grpcPort!);
    const statuses: string[] = [];
    const stream = client.watch({ service: RLS });
    stream.on('error', () => {});
    stream.on('data', ({ status }) => statuses.push(status));
    await expect.poll(() => statuses).toEqual(['SERVING']);
    // Readiness is also copied every second; the watcher hears it within the 500 ms the shutdown waits only if shutdown says so at once.
    await running.server.close();
    expect(statuses).toEqual(['SERVING', 'NOT_SERVING']);
  });
});
