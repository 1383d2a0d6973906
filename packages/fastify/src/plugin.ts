import { invalidOption } from '@tollgate/core';
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { RateLimitPluginOptions, RouteRateLimitOptions } from './options.js';
import { type RateLimitHook, type RequestHook, type RuleSetRateLimitHook, rateLimitHook } from './rate-limit-hook.js';
import { givesRule, refuseUnknownPluginFields, routeOptions } from './route-options.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * This route's own rule, on top of what the plugin applies to every route: options (any the
     * plugin takes; those left out are the plugin's, the rule too), a hook made by
     * `rateLimitHook`, or `false` to exempt the route from the plugin's rule.
     */
    rateLimit?: RouteRateLimitOptions | RateLimitHook | RuleSetRateLimitHook | false;
  }
}

/** Routes whose `config.rateLimit` a registration of the plugin has applied: the first to see a route applies it. */
const applied = new WeakSet<object>();
/**
 * The limiters a registration built for `config.rateLimit` objects, per URL: the HEAD route
 * Fastify adds beside a GET route carries the GET route's config, and shares its count (else HEAD
 * requests would be a second budget); another route, or another app, given the same object has a
 * count of its own.
 */
type BuiltHooks = WeakMap<object, Map<string, RequestHook>>;

/** Runs `hook` on the route, after the hooks the route already has there. */
function addRouteHook(route: RouteOptions, hook: RequestHook): void {
  const present = route[hook.hook];
  route[hook.hook] = present === undefined ? [hook] : ([...(Array.isArray(present) ? present : [present]), hook] as never);
}

/** The route's own limiter, from its `config.rateLimit`, unless another registration applied it or there is none. */
function ownHook(route: RouteOptions, defaults: object, builtFor: BuiltHooks): RequestHook | undefined {
  const own = route.config?.rateLimit;
  if (own === undefined || own === false || applied.has(route)) return undefined;
  applied.add(route);
  if (typeof own === 'function' && 'hook' in own) return own;
  if (typeof own !== 'object' || own === null) {
    throw invalidOption('config.rateLimit', 'must be an object of options, a hook made by rateLimitHook, or false', own);
  }
  const byUrl = builtFor.get(own) ?? new Map<string, RequestHook>();
  builtFor.set(own, byUrl);
  const hook = byUrl.get(route.url) ?? rateLimitHook(routeOptions(defaults, own));
  byUrl.set(route.url, hook);
  return hook;
}

/** Makes the property the decision is put on part of every request of the context, so requests keep one shape. */
function decorateRequests(fastify: FastifyInstance, options: object): void {
  const name = (options as { requestPropertyName?: unknown }).requestPropertyName;
  const property = typeof name === 'string' && name !== '' ? name : 'rateLimit';
  if (!fastify.hasRequestDecorator(property)) fastify.decorateRequest(property, undefined);
}

// Async: a bad option rejects the registration (`await app.register(...)`, `app.ready()`).
const tollgate: FastifyPluginAsync<RateLimitPluginOptions> = async (fastify, options) => {
  const { global = true, ...defaults } = options;
  if (typeof global !== 'boolean') throw invalidOption('global', 'must be a boolean', global);
  if (!global) refuseUnknownPluginFields(defaults);
  // @fastify/rate-limit limits 1000 per minute when given nothing: say what Tollgate needs instead.
  if (global && !givesRule(defaults)) {
    throw invalidOption(
      'global',
      "is true (the default) but the options give no rule: give one ({ qps: 10, burst: 20 }, { perMinute: 60 }, { max: 100, timeWindow: '1 minute' }), or global: false to limit only the routes with config.rateLimit",
      global,
    );
  }
  const shared = global ? rateLimitHook(defaults as never) : undefined;
  decorateRequests(fastify, defaults);
  const builtFor: BuiltHooks = new WeakMap();
  fastify.addHook('onRoute', (route) => {
    if (shared !== undefined && route.config?.rateLimit !== false) addRouteHook(route, shared);
    const own = ownHook(route, defaults, builtFor);
    if (own !== undefined) addRouteHook(route, own);
  });
};

/**
 * The Fastify plugin (Fastify 4 and 5): `await app.register(rateLimit, { qps: 10, burst: 20 })`
 * limits every route registered after it in that context (and its child contexts) — or, with
 * `global: false`, only the routes that give `config: { rateLimit: { ... } }` — sets the RateLimit
 * fields and answers 429 once the limit is reached. The client address is `request.ip`
 * (Fastify's `trustProxy` decides whether X-Forwarded-For is trusted); the decision is on
 * `request.rateLimit`.
 */
export const rateLimit = fp(tollgate, { fastify: '4.x || 5.x', name: '@tollgate/fastify' });
