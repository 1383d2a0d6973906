import type { RequestListener } from 'node:http';
import type { Redis } from 'ioredis';

/** The parts of a core `Decision` the contract reads. */
export interface ContractDecision {
  allowed: boolean;
  remaining: number;
  delayMs: number;
  retryAfterMs: number;
  limits: readonly { remaining: number }[];
}

/** The parts of a core `Limiter` the contract calls. */
export interface ContractLimiter {
  peek(key: string): Promise<ContractDecision>;
  consume(key: string): Promise<ContractDecision>;
  reset(key: string): Promise<unknown>;
}

/** The parts of a core `RuleSet` the contract calls. */
export interface ContractRuleSet {
  readonly rules: readonly string[];
  match(request: {
    method: string;
    path: string;
    ip: string;
    headers: Record<string, string>;
  }): { limiter: ContractLimiter; key: string } | undefined;
  on(event: 'reload', listener: (event: unknown) => void): () => void;
  on(event: 'error', listener: (error: Error & { field?: string | undefined }) => void): () => void;
  close(): void;
}

/**
 * What the contract needs from `@tollgate/core`, handed in by the adapter's test (this package
 * cannot depend on core: core's own tests depend on it).
 */
export interface CoreKit<Store> {
  RedisStore: new (options: { client: Redis; time: 'client' }) => Store;
  loadRuleSet(path: string, options: { clock: () => number; store?: Store; watch: boolean; debounceMs: number }): Promise<ContractRuleSet>;
  createRuleSet(config: unknown): ContractRuleSet;
  TollgateError: new (...args: never[]) => Error & { field?: string | undefined };
}

/** Options for the adapter's `rateLimit`, as the contract writes them (callbacks read `req.path`, `req.get()`). */
export type ContractOptions = Record<string, unknown>;

/** The request as a route handler of the contract sees it. */
export interface ContractRequest {
  path: string;
  query: Record<string, unknown>;
  /** The decision the adapter left on the request (`req.rateLimit`, `ctx.state.rateLimit`); with the `cost` option, its hold's settle and cancel. */
  rateLimit?:
    | (ContractDecision & { settle?(actual: Record<string, number>): Promise<ContractDecision>; cancel?(): Promise<ContractDecision> })
    | undefined;
}

/** What a route handler answers: a string is sent as text, an object as JSON. */
export interface ContractReply {
  status?: number;
  body: string | Record<string, unknown>;
}

export type ContractHandler = (req: ContractRequest) => ContractReply | Promise<ContractReply>;

export interface ContractRoute<Limit> {
  /** Default GET. */
  method?: 'GET' | 'POST';
  /** May hold `:name` parameters. */
  path: string;
  /** Route-level limiters, run in order before the handler. */
  limits?: Limit[];
  handler: ContractHandler;
}

/** An app in framework-neutral terms: app-level limiters, then the routes. */
export interface ContractApp<Limit> {
  /** Take the client address from X-Forwarded-For set by a loopback proxy. */
  trustProxy?: boolean;
  use?: Limit[];
  routes: ContractRoute<Limit>[];
}

/** One framework version under test. */
export interface ContractFramework<Limit> {
  name: string;
  /** Builds the app and answers its Node request listener. */
  serve(app: ContractApp<Limit>): RequestListener;
  /** The Content-Type of a problem+json rejection as the framework sends it. Default `application/problem+json` (Fastify adds the charset). */
  problemContentType?: string;
}

/** What an adapter does differently from the middleware adapters; each flag names the cases it turns off. */
export interface AdapterCapabilities {
  /**
   * `rateLimit()` refuses bad options when it is called. Default true; false when the app's boot
   * checks them (Nest's module), and the bad-rules-option case is then in the adapter's own tests.
   */
  checksOptionsWhenCalled?: boolean;
}

export interface HttpAdapter<Limit extends { limiter: ContractLimiter }, Store> {
  kit: CoreKit<Store>;
  /** The adapter's `rateLimit`, as it is: the contract calls it with `ContractOptions`. */
  rateLimit(options: never): Limit;
  frameworks: ContractFramework<Limit>[];
  /**
   * A `handler` option that, after an await, answers the rejection's status with the JSON
   * `{ tooMany: true, retryAfterMs }`, read from the decision the adapter left on the request.
   */
  tooManyHandler: unknown;
  /** Default: every capability (see `AdapterCapabilities`). */
  capabilities?: AdapterCapabilities;
  /**
   * For a framework with no app-wide trust-proxy setting (Hono): the options that make a limiter
   * trust a loopback proxy, given to the limiters of an app with `trustProxy`.
   */
  trustingProxy?: ContractOptions;
}

/** The adapter's `rateLimit`, typed for the options the contract writes. */
export function contractRateLimit<Limit extends { limiter: ContractLimiter }, Store>(adapter: HttpAdapter<Limit, Store>) {
  return (options: ContractOptions): Limit => adapter.rateLimit(options as never);
}

/** The adapter's `rateLimit` for an app behind a trusted loopback proxy (`ContractApp.trustProxy`). */
export function proxiedRateLimit<Limit extends { limiter: ContractLimiter }, Store>(adapter: HttpAdapter<Limit, Store>) {
  return (options: ContractOptions): Limit => adapter.rateLimit({ ...adapter.trustingProxy, ...options } as never);
}
