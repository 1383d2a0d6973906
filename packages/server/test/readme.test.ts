/** The README's configs are the ones that run: its nginx config is the one the nginx test runs, its tollgate.yaml starts and enforces what it says. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readServerFile } from '../src/cli/server-file.js';
import { createRateLimitClient, createServer } from '../src/index.js';
import { ConfigFolder } from './helpers/cli.js';
import { fixture, memoryLogger } from './helpers/server.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function block(language: string, containing: string): string {
  const blocks = [...readme.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
  const found = blocks.find((text) => text.includes(containing));
  if (found === undefined) throw new Error(`no ${language} block with ${containing}`);
  return found;
}

describe('the README', () => {
  it('shows the nginx config the nginx test runs', () => {
    expect(block('nginx', 'auth_request')).toBe(readFileSync(fixture('nginx-server.conf'), 'utf8'));
  });

  it("its tollgate.yaml starts a server enforcing what it says, and Envoy's routes send descriptors it has limits for", async () => {
    const folder = await ConfigFolder.create();
    const file = await folder.write('tollgate.yaml', block('yaml', 'check:'));
    const { options, source, redis } = await readServerFile(file);
    expect(redis).toBe('redis://127.0.0.1:6379');
    const server = await createServer({
      ...options,
      config: source,
      grpc: { host: '127.0.0.1', port: 0 },
      http: false,
      logger: memoryLogger(),
    });
    const client = createRateLimitClient(`127.0.0.1:${server.grpcPort}`);
    try {
      const call = (...entries: [string, string][]) =>
        client.shouldRateLimit({ domain: 'edge', descriptors: [{ entries: entries.map(([key, value]) => ({ key, value })) }] });
      expect((await call(['remote_address', '10.0.0.1'])).statuses[0]!.current_limit).toMatchObject({
        requests_per_unit: 60,
        unit: 'MINUTE',
      });
      const login = await call(['remote_address', '10.0.0.1'], ['path', '/login']);
      expect(login.statuses[0]).toMatchObject({ limit_remaining: 4, current_limit: { requests_per_unit: 5, unit: 'MINUTE' } });
      const apiKey = await call(['api_key', 'k']);
      expect(apiKey.response_headers_to_add[0]).toEqual({ key: 'ratelimit-policy', value: '"burst";q=20;w=2, "daily";q=10000;w=86400' });

      const envoy = parse(block('yaml', 'envoy.filters.http.ratelimit'));
      const cluster = envoy.static_resources.clusters[0];
      expect(cluster.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value).toBe(8081);
      const manager = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
      expect(manager.http_filters[0].typed_config.domain).toBe('edge');
      const keys = manager.route_config.virtual_hosts[0].routes[0].route.rate_limits.map((limit: { actions: object[] }) =>
        limit.actions.map((action) => Object.values(action)[0].descriptor_key ?? Object.keys(action)[0]),
      );
      expect(keys).toEqual([['remote_address'], ['remote_address', 'path'], ['api_key']]);
    } finally {
      client.close();
      await server.close();
      await folder.remove();
    }
  });
});
