// The client population the HTTP benchmarks send: BENCH_CLIENTS addresses (default 10,000) in
// rotation, each in `X-Forwarded-For` to a server that trusts its loopback proxy, so that every
// limiter keys on a different address request after request, as behind a load balancer.
// BENCH_CLIENTS=1 sends no such field: every request comes from the socket's one address.
import type { Options } from 'autocannon';

export const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 10_000);
/** 198.18.0.0/15 holds 131,072 addresses. */
if (!(CLIENTS >= 1 && CLIENTS <= 131_072)) throw new Error(`BENCH_CLIENTS must be 1 to 131072, not ${CLIENTS}`);

/** The i-th client address, in 198.18.0.0/15 (the range set aside for benchmarks, RFC 2544). */
export function clientAddress(i: number): string {
  const n = i % CLIENTS;
  return `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}

/** autocannon's requests: the next address of the rotation on each, or none with one client. */
export function clientRequests(): Pick<Options, 'requests'> {
  if (CLIENTS <= 1) return {};
  let next = 0;
  return {
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': clientAddress(next++) } }) }],
  };
}

export const describeClients = (): string =>
  CLIENTS <= 1 ? 'one client address' : `${CLIENTS.toLocaleString('en-US')} client addresses in rotation`;
