// The floor of rls.ts: a gRPC server of the same service from the same .proto files, with
// @grpc/grpc-js as the server uses it, answering every call with a fixed OK response and asking
// no limiter. What it costs per call is what any Node server of this API pays before deciding.
// Prints `listening <port>`. Usage (rls.ts runs it): tsx server/floor.ts
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

const protoDir = fileURLToPath(new URL('../../packages/server/proto', import.meta.url));
const definition = loadSync('envoy/service/ratelimit/v3/rls.proto', {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
  includeDirs: [protoDir],
})['envoy.service.ratelimit.v3.RateLimitService'] as grpc.ServiceDefinition;

const response = {
  overall_code: 'OK',
  statuses: [
    {
      code: 'OK',
      current_limit: { requests_per_unit: 4_000_000_000, unit: 'MINUTE' },
      limit_remaining: 1000,
      duration_until_reset: { seconds: 60, nanos: 0 },
    },
  ],
  response_headers_to_add: [
    { key: 'ratelimit-policy', value: '"user";q=4000000000;w=60' },
    { key: 'ratelimit', value: '"user";r=1000;t=60' },
  ],
};
// As the server has it: channelz off.
const server = new grpc.Server({ 'grpc.enable_channelz': 0 });
server.addService(definition, {
  ShouldRateLimit(_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
    callback(null, response);
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  console.log(`listening: gRPC ${port}`);
});
process.on('SIGTERM', () => server.forceShutdown());
