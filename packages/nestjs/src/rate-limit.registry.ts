import { createHash } from 'node:crypto';
import { type ExecutionContext, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import {
  BEHAVIOUR_FIELDS,
  createHttpLimiter,
  type HttpLimiter,
  type HttpRuleSetLimiter,
  invalidOption,
  LIMITER_FIELDS,
  MemoryStore,
  type RuleClient,
  type RuleMatch,
  refusePeerOptions,
  refuseUnknownFields,
  type Store,
  TollgateError,
} from '@tollgate/core';
import { errorMessageOption } from './error-message.js';
import { caughtByAppFilter } from './exception-filters.js';
import type { RateLimitBudget, RateLimitModuleOptions, RateLimitRules, RateLimitSpec, RouteRule } from './options.js';
import { withHandler } from './route-rule.js';
import { ruleSetLimiter } from './rule-set-limiter.js';
import { RATE_LIMIT_OPTIONS, RATE_LIMIT_RULE, SKIP_RATE_LIMIT } from './tokens.js';
import { keyWatcher } from './user-key-check.js';

// biome-ignore lint/complexity/noBannedTypes: Nest hands guards classes and handlers as plain functions
type Target = Function;

/** A route (controller or resolver method) with a `@RateLimit()` of its own or of its class. */
export interface DecoratedRoute {
  classRef: Target;
  handler: Target;
}

/**
 * Where a rule's budget lives: its id (what follows the module's prefix in the default prefix),
 * its owner, and for a per-handler budget what follows an explicit `prefix`.
 */
interface Scope {
  id: string;
  owner: object;
  prefixSuffix?: string;
}

const MAX_PREFIX_LENGTH = 64;

/**
 * Builds one HttpLimiter per rule — the module's default rule, each decorated controller, each
 * decorated handler — once, and tells the guard which ones apply to a route. Every rule gets
 * its own key prefix (`<prefix>:<Controller>`, `<prefix>:<Controller>.<handler>`, `...[i]` for
 * the i-th of several; `<Controller>.<handler>` for every handler of a `'per-handler'` budget),
 * so no two rules ever share an identity; two rules claiming one prefix is an error.
 */
@Injectable()
export class RateLimitRegistry implements OnModuleInit {
  private readonly basePrefix: string;
  private readonly store: Store;
  private budget: RateLimitBudget = 'shared';
  private readonly defaults: Omit<RateLimitModuleOptions, 'defaultRule' | 'store' | 'prefix' | 'rules' | 'user' | 'budget'>;
  /** The module's rule set: routes without a decorator of their own are limited by the rule a request matches. */
  private ruleSet: (HttpRuleSetLimiter & RouteRule) | undefined;
  private readonly byPrefix = new Map<string, { owner: object; limiter: RouteRule }>();
  private readonly byRoute = new WeakMap<Target, Map<Target, readonly RouteRule[]>>();
  private readonly checked = new WeakMap<object, Set<RouteRule>>();
  private readonly decorated: DecoratedRoute[] = [];
  /** The execution context each request under check was seen in, for `errorMessage` functions. */
  private readonly contexts = new WeakMap<object, ExecutionContext>();
  /** Rules' `key`s, watched for a rate limit that ran before authentication (warned once). */
  private readonly watchKey = keyWatcher((message) => new Logger('RateLimitModule').warn(message));

  constructor(
    @Inject(RATE_LIMIT_OPTIONS) private readonly options: RateLimitModuleOptions,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(ApplicationConfig) private readonly appConfig: ApplicationConfig,
  ) {
    refuseThrottlerOptions(options);
    refuseUnknownFields(options, MODULE_FIELDS);
    const { defaultRule: _rule, store, prefix = 'tollgate', rules: _rules, user: _user, budget: _budget, ...defaults } = options;
    this.basePrefix = prefix;
    this.store = store ?? new MemoryStore(options.clock ? { clock: options.clock } : {});
    this.defaults = defaults;
  }

  /**
   * True when `limiter` already checked this invocation (the HTTP request, or the arguments array
   * of a message): the guard ran twice on one route (globally and on the controller), or the
   * guard and the interceptor both ran, and a request must count once per rule.
   */
  checkedBefore(invocation: object, limiter: RouteRule): boolean {
    const seen = this.checked.get(invocation);
    if (seen?.has(limiter)) return true;
    if (seen) seen.add(limiter);
    else this.checked.set(invocation, new Set([limiter]));
    return false;
  }

  /**
   * express-rate-limit's `resetKey` for the whole app: the client named by what a rule's `key`
   * returns, or by its address, starts afresh in every rule built from `@RateLimit()` or
   * `defaultRule` that can name it so (a rule without `key` cannot name a client by anything but
   * its address, and is passed over for another key). A module rule set resets through
   * `identitiesOf`.
   */
  async resetKey(keyOrAddress: string): Promise<void> {
    const resets: Promise<void>[] = [];
    for (const { limiter } of this.byPrefix.values()) {
      const rule = limiter as Partial<HttpLimiter>;
      if (rule.identityOf === undefined || rule.resetKey === undefined) continue;
      try {
        rule.identityOf(keyOrAddress);
      } catch (error) {
        if ((error as TollgateError).code === 'ERR_TOLLGATE_INVALID_KEY') continue;
        throw error;
      }
      resets.push(rule.resetKey(keyOrAddress));
    }
    await Promise.all(resets);
  }

  /**
   * The rules of the module's rule set (`rules`) that count `client` (its address, user id,
   * headers), each with its limiter and the key the client is counted under there, as the
   * rule-set middleware of Express and Koa tell it:
   * `for (const { limiter, key } of registry.identitiesOf({ ip, user })) await limiter.reset(key)`.
   * Throws `ERR_TOLLGATE_INVALID_OPTION` when the module has no `rules` (decorated rules reset
   * with `resetKey`), `ERR_TOLLGATE_INVALID_KEY` when `ip` is not an address.
   */
  identitiesOf(client: RuleClient): RuleMatch[] {
    if (this.ruleSet === undefined) {
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        'identitiesOf names the clients of the module rule set, and RateLimitModule has no `rules`: reset decorated rules with resetKey',
        'rules',
      );
    }
    return this.ruleSet.identitiesOf(client);
  }

  enter(context: ExecutionContext, request: unknown): void {
    if (typeof request === 'object' && request !== null) this.contexts.set(request, context);
  }

  caughtByAppFilter(context: ExecutionContext, exception: Error): boolean {
    return caughtByAppFilter(context, exception, this.appConfig, this.reflector);
  }

  /** Builds every rule at startup, so a bad spec or a prefix clash fails the boot, not a request. */
  onModuleInit(): void {
    this.budget = budgetOf(this.options.budget ?? 'shared', 'budget');
    this.ruleSet = ruleSetLimiter(this.options);
    for (const wrapper of [...this.discovery.getControllers(), ...this.discovery.getProviders()]) {
      const classRef = wrapper.metatype;
      if (typeof classRef !== 'function' || wrapper.isNotMetatype) continue;
      const prototype = classRef.prototype as Record<string, unknown> | undefined;
      if (prototype === undefined) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function') continue;
        const limited = this.limitersFor(classRef, handler).length > 0;
        if (limited && this.isDecorated(classRef, handler)) this.decorated.push({ classRef, handler });
      }
    }
  }

  /** The routes limited by a `@RateLimit()` (found at startup): what must be enforced by the guard or the interceptor. */
  decoratedRoutes(): readonly DecoratedRoute[] {
    return this.decorated;
  }

  /** The limiters of the route `classRef`/`handler`, in the order they are checked; none when the route is not limited. */
  limitersFor(classRef: Target, handler: Target): readonly RouteRule[] {
    let routes = this.byRoute.get(classRef);
    if (routes === undefined) {
      routes = new Map();
      this.byRoute.set(classRef, routes);
    }
    let limiters = routes.get(handler);
    if (limiters === undefined) {
      limiters = this.resolve(classRef, handler);
      routes.set(handler, limiters);
    }
    return limiters;
  }

  private isDecorated(classRef: Target, handler: Target): boolean {
    return this.reflector.get(RATE_LIMIT_RULE, handler) !== undefined || this.reflector.get(RATE_LIMIT_RULE, classRef) !== undefined;
  }

  private resolve(classRef: Target, handler: Target): readonly RouteRule[] {
    const className = classRef.name || 'anonymous';
    const own: Scope = { id: `${className}.${handler.name}`, owner: handler };
    if (this.reflector.get(SKIP_RATE_LIMIT, handler)) return [];
    const handlerRules = this.reflector.get<RateLimitRules | undefined>(RATE_LIMIT_RULE, handler);
    if (handlerRules) return this.buildAll(handlerRules, own, own);
    if (this.reflector.get(SKIP_RATE_LIMIT, classRef)) return [];
    const classRules = this.reflector.get<RateLimitRules | undefined>(RATE_LIMIT_RULE, classRef);
    const perHandler = { ...own, prefixSuffix: `.${handler.name}` };
    if (classRules) return this.buildAll(classRules, { id: className, owner: classRef }, perHandler);
    const { defaultRule } = this.options;
    if (defaultRule) {
      const scope = this.budget === 'per-handler' ? { id: `default.${own.id}`, owner: handler } : { id: 'default', owner: this.options };
      return [this.build(defaultRule, scope)];
    }
    return this.ruleSet ? [this.ruleSet] : [];
  }

  /** The limiters of `rules`: each under `shared` (one budget for the rule), or `perHandler` when its budget says so. */
  private buildAll(rules: RateLimitRules, shared: Scope, perHandler: Scope): RouteRule[] {
    const list: readonly RateLimitSpec[] = Array.isArray(rules) ? rules : [rules as RateLimitSpec];
    return list.map((rule, i) => {
      const field = Array.isArray(rules) ? `budget[${i}]` : 'budget';
      const scope = budgetOf(rule.budget ?? this.budget, field) === 'per-handler' ? perHandler : shared;
      return this.build(rule, { ...scope, id: Array.isArray(rules) ? `${scope.id}[${i}]` : scope.id });
    });
  }

  private build(rule: RateLimitSpec, { id, owner, prefixSuffix = '' }: Scope): RouteRule {
    const { budget: _budget, handler, errorMessage, ...spec } = rule;
    const prefix = spec.prefix === undefined ? this.prefixOf(id) : `${spec.prefix}${prefixSuffix}`;
    const existing = this.byPrefix.get(prefix);
    if (existing !== undefined) {
      if (existing.owner === owner) return existing.limiter;
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        `two rate-limit rules use the key prefix "${prefix}" (two controllers or handlers share the name "${id}"?): give one of them its own \`prefix\``,
        'prefix',
      );
    }
    const { handler: defaultHandler, errorMessage: defaultErrorMessage, ...defaults } = this.defaults;
    const message = this.messageOf(
      { message: defaults.message, errorMessage: defaultErrorMessage },
      { message: spec.message, errorMessage },
    );
    const key = this.watchKey(spec.key ?? defaults.key);
    const http = createHttpLimiter({ ...defaults, ...spec, ...message, ...(key && { key }), store: this.store, prefix });
    const limiter = withHandler(http, handler ?? defaultHandler);
    this.byPrefix.set(prefix, { owner, limiter });
    return limiter;
  }

  /** The `message` of a rule: its own `message` or `errorMessage`, else the module's; never both of one. */
  private messageOf(...levels: Pick<RateLimitSpec, 'message' | 'errorMessage'>[]): Pick<RateLimitSpec, 'message'> {
    let chosen: Pick<RateLimitSpec, 'message'> = {};
    for (const { message, errorMessage } of levels) {
      if (message !== undefined && errorMessage !== undefined) {
        throw invalidOption('errorMessage', 'cannot be combined with message: give one of them', errorMessage);
      }
      if (message !== undefined) chosen = { message };
      if (errorMessage !== undefined) {
        chosen = { message: errorMessageOption(errorMessage, (req) => this.contexts.get(req as object), 'errorMessage') };
      }
    }
    return chosen;
  }

  private prefixOf(id: string): string {
    const prefix = `${this.basePrefix}:${id}`;
    if (prefix.length <= MAX_PREFIX_LENGTH) return prefix;
    return `${this.basePrefix}:#${createHash('sha256').update(id).digest('base64url').slice(0, 16)}`;
  }
}

/** One entry per field of `RateLimitModuleOptions`: the compiler refuses this object when one is missing. */
const MODULE_FIELDS = {
  ...BEHAVIOUR_FIELDS,
  ...LIMITER_FIELDS,
  errorMessage: true,
  defaultRule: true,
  budget: true,
  rules: true,
  user: true,
} as const satisfies Record<keyof RateLimitModuleOptions, true>;

/** @nestjs/throttler's module options (`[{ ttl, limit }]`, `throttlers`, `storage`...), refused with what to write. */
function refuseThrottlerOptions(options: RateLimitModuleOptions): void {
  const { errorMessage: _taken, ...rest } = Array.isArray(options) ? { errorMessage: undefined } : options;
  refusePeerOptions(
    Array.isArray(options) ? options : rest,
    'RateLimitModule options',
    (rule) => `{ defaultRule: ${rule}, budget: 'per-handler' }`,
  );
}

function budgetOf(budget: unknown, field: string): RateLimitBudget {
  if (budget === 'shared' || budget === 'per-handler') return budget;
  throw invalidOption(field, "must be 'shared' or 'per-handler'", budget);
}
