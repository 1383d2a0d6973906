import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { createHttpLimiter, type HttpLimiter, type HttpRequestChecker, MemoryStore, type Store, TollgateError } from '@tollgate/core';
import type { RateLimitModuleOptions, RateLimitRules, RateLimitSpec } from './options.js';
import { ruleSetLimiter } from './rule-set-limiter.js';
import { RATE_LIMIT_OPTIONS, RATE_LIMIT_RULE, SKIP_RATE_LIMIT } from './tokens.js';

// biome-ignore lint/complexity/noBannedTypes: Nest hands guards classes and handlers as plain functions
type Target = Function;

const MAX_PREFIX_LENGTH = 64;

/**
 * Builds one HttpLimiter per rule — the module's default rule, each decorated controller, each
 * decorated handler — once, and tells the guard which ones apply to a route. Every rule gets
 * its own key prefix (`<prefix>:<Controller>`, `<prefix>:<Controller>.<handler>`, `...[i]` for
 * the i-th of several), so no two rules ever share an identity; two rules claiming one prefix
 * is an error.
 */
@Injectable()
export class RateLimitRegistry implements OnModuleInit {
  private readonly basePrefix: string;
  private readonly store: Store;
  private readonly defaults: Omit<RateLimitModuleOptions, 'defaultRule' | 'store' | 'prefix' | 'rules' | 'user'>;
  /** The module's rule set: routes without a decorator of their own are limited by the rule a request matches. */
  private ruleSet: HttpRequestChecker | undefined;
  private readonly byPrefix = new Map<string, { owner: object; limiter: HttpLimiter }>();
  private readonly byRoute = new WeakMap<Target, Map<Target, readonly HttpRequestChecker[]>>();
  private readonly checked = new WeakMap<object, Set<HttpRequestChecker>>();

  constructor(
    @Inject(RATE_LIMIT_OPTIONS) private readonly options: RateLimitModuleOptions,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
  ) {
    const { defaultRule: _rule, store, prefix = 'tollgate', rules: _rules, user: _user, ...defaults } = options;
    this.basePrefix = prefix;
    this.store = store ?? new MemoryStore(options.clock ? { clock: options.clock } : {});
    this.defaults = defaults;
  }

  /**
   * True when `limiter` already checked this invocation (its arguments array, one per request or
   * message): the guard ran twice on one route (globally and on the controller), and a request
   * must count once per rule.
   */
  checkedBefore(invocation: object, limiter: HttpRequestChecker): boolean {
    const seen = this.checked.get(invocation);
    if (seen?.has(limiter)) return true;
    if (seen) seen.add(limiter);
    else this.checked.set(invocation, new Set([limiter]));
    return false;
  }

  /** Builds every rule at startup, so a bad spec or a prefix clash fails the boot, not a request. */
  onModuleInit(): void {
    this.ruleSet = ruleSetLimiter(this.options);
    for (const wrapper of [...this.discovery.getControllers(), ...this.discovery.getProviders()]) {
      const classRef = wrapper.metatype;
      if (typeof classRef !== 'function' || wrapper.isNotMetatype) continue;
      const prototype = classRef.prototype as Record<string, unknown> | undefined;
      if (prototype === undefined) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler === 'function') this.limitersFor(classRef, handler);
      }
    }
  }

  /** The limiters of the route `classRef`/`handler`, in the order they are checked; none when the route is not limited. */
  limitersFor(classRef: Target, handler: Target): readonly HttpRequestChecker[] {
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

  private resolve(classRef: Target, handler: Target): readonly HttpRequestChecker[] {
    const className = classRef.name || 'anonymous';
    if (this.reflector.get(SKIP_RATE_LIMIT, handler)) return [];
    const handlerRules = this.reflector.get<RateLimitRules | undefined>(RATE_LIMIT_RULE, handler);
    if (handlerRules) return this.buildAll(handlerRules, `${className}.${handler.name}`, handler);
    if (this.reflector.get(SKIP_RATE_LIMIT, classRef)) return [];
    const classRules = this.reflector.get<RateLimitRules | undefined>(RATE_LIMIT_RULE, classRef);
    if (classRules) return this.buildAll(classRules, className, classRef);
    const { defaultRule } = this.options;
    if (defaultRule) return [this.build(defaultRule, 'default', this.options)];
    return this.ruleSet ? [this.ruleSet] : [];
  }

  private buildAll(rules: RateLimitRules, id: string, owner: object): HttpLimiter[] {
    if (!Array.isArray(rules)) return [this.build(rules as RateLimitSpec, id, owner)];
    return rules.map((rule, i) => this.build(rule, `${id}[${i}]`, owner));
  }

  private build(spec: RateLimitSpec, id: string, owner: object): HttpLimiter {
    const prefix = spec.prefix ?? this.prefixOf(id);
    const existing = this.byPrefix.get(prefix);
    if (existing !== undefined) {
      if (existing.owner === owner) return existing.limiter;
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        `two rate-limit rules use the key prefix "${prefix}" (two controllers or handlers share the name "${id}"?): give one of them its own \`prefix\``,
        'prefix',
      );
    }
    const limiter = createHttpLimiter({ ...this.defaults, ...spec, store: this.store, prefix });
    this.byPrefix.set(prefix, { owner, limiter });
    return limiter;
  }

  private prefixOf(id: string): string {
    const prefix = `${this.basePrefix}:${id}`;
    if (prefix.length <= MAX_PREFIX_LENGTH) return prefix;
    return `${this.basePrefix}:#${createHash('sha256').update(id).digest('base64url').slice(0, 16)}`;
  }
}
