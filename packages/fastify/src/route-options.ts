import {
  type FieldSet,
  HTTP_OPTION_FIELDS,
  type HttpBehaviourOptions,
  type HttpRuleSetOptions,
  type LimiterOptions,
  refusePeerOptions,
  refuseUnknownFields,
} from '@tollgate/core';
import type { HookPlacement, RateLimitOptions, RouteRateLimitOptions, RuleSetRateLimitOptions, TimeWindowRule } from './options.js';
import { refuseFastifyPeerOptions } from './peer-options.js';

/** The fields of the plugin's options besides the rule, and whether a route's `config.rateLimit` inherits them. */
type SharedField = keyof HttpBehaviourOptions | keyof LimiterOptions | keyof HookPlacement | keyof Omit<HttpRuleSetOptions, 'rules'>;

/**
 * Whether a route's own rule takes each option of the plugin it does not give itself; the
 * compiler refuses this object when a field is missing. Every field not here is the rule's. The
 * storage `prefix`, the `rule` name and `blockDuration` stay the plugin's rule's own: a route's rule is another.
 */
const INHERITED = {
  key: true,
  cost: true,
  skip: true,
  allowList: true,
  ipv6Subnet: true,
  checkProxy: true,
  headers: true,
  requestPropertyName: true,
  responseType: true,
  message: true,
  handler: true,
  statusCode: true,
  storeErrorStatusCode: true,
  skipFailedRequests: true,
  skipSuccessfulRequests: true,
  requestWasSuccessful: true,
  user: true,
  store: true,
  clock: true,
  prefix: false,
  rule: false,
  timeout: true,
  onStoreError: true,
  breaker: true,
  denyCache: true,
  shadow: true,
  blockDuration: false,
  events: true,
  logger: true,
  hook: true,
} as const satisfies Record<SharedField, boolean>;

const isRuleField = (field: string) => !Object.hasOwn(INHERITED, field);

/** Every field the plugin's options may hold: core's HTTP options, where the hook runs, and @fastify/rate-limit's rule. */
const PLUGIN_FIELDS: FieldSet = {
  ...HTTP_OPTION_FIELDS,
  ...({ hook: true, name: true, max: true, timeWindow: true } as const satisfies Record<keyof HookPlacement | keyof TimeWindowRule, true>),
};

/**
 * Refuses plugin options holding a field no limiter takes, naming it and the closest one: with
 * `global: false` the plugin builds no limiter of its own, and a misspelt field would count as a
 * rule field, dropped wherever a route gives its own rule.
 */
export function refuseUnknownPluginFields(options: object): void {
  refuseFastifyPeerOptions(options);
  refusePeerOptions(options);
  refuseUnknownFields(options, PLUGIN_FIELDS);
}

/** Whether `options` give a rule (or a rule set), not only what a rule's limiter and HTTP behaviour take. */
export const givesRule = (options: object): boolean => Object.keys(options).some(isRuleField);

/** @fastify/rate-limit's rule fields: a route giving one of them takes the other from the plugin, as there. */
const TIME_WINDOW_RULE = new Set(['max', 'timeWindow']);

/** Whether every rule field of `options` is `max` or `timeWindow` (none counts). */
const inTimeWindowForm = (options: object) => Object.keys(options).every((field) => !isRuleField(field) || TIME_WINDOW_RULE.has(field));

/**
 * The options of a route's own limiter: the route's `config.rateLimit` over what it inherits of
 * the plugin's options, and the plugin's rule when the route gives none of its own (or, both in
 * @fastify/rate-limit's `{ max, timeWindow }` form, the half the route leaves out).
 */
export function routeOptions(plugin: object, route: RouteRateLimitOptions): RateLimitOptions | RuleSetRateLimitOptions {
  const mergesRule = inTimeWindowForm(route) && inTimeWindowForm(plugin);
  const routeRule = !mergesRule && givesRule(route);
  const inherited = Object.entries(plugin).filter(([field]) => (isRuleField(field) ? !routeRule : INHERITED[field as SharedField]));
  return { ...Object.fromEntries(inherited), ...route } as RateLimitOptions | RuleSetRateLimitOptions;
}
