import { describeValue, TollgateError } from '../errors.js';
import type { LimiterListeners } from '../events.js';
import { limiterOf } from '../limiter.js';
import { configureLimiter } from '../limiter-config.js';
import type { Limiter, LimiterOptions, StoreFailureMode } from '../limiter-types.js';
import { bindRule, type RuleSpec } from '../spec.js';
import type { BoundLimit, Clock, Store } from '../stores/store.js';
import { CONDITION_FIELDS, MATCH_FIELDS, OPTION_FIELDS, RULE_FIELDS, TIER_FIELDS, TOP_FIELDS } from './document.js';
import { compilePathPattern } from './path-pattern.js';
import { compileSelector, type KeyReader, type RuleRequest } from './request.js';

export interface CompileOptions {
  store: Store;
  clock?: Clock | undefined;
  events?: LimiterListeners | undefined;
}

export interface CompiledTier {
  name: string | undefined;
  /** Absent: the tier applies to every request that reaches it. */
  when: ((request: RuleRequest) => boolean) | undefined;
  identity: KeyReader;
  limiter: Limiter;
}

export interface CompiledRule {
  name: string;
  matches: (request: RuleRequest) => boolean;
  tiers: CompiledTier[];
}

const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,48}$/;

type Fields = Record<string, unknown>;
/** A rule bound once: its spec (a fallback scales it) and its limits. */
type BoundRule = { spec: RuleSpec; limits: BoundLimit[] };

/** Validates a rule-set document and builds one limiter per rule (per tier). Errors name the rule and field. */
export function compileRules(config: unknown, options: CompileOptions): CompiledRule[] {
  const top = record(config, 'rule set', 'the rule set', 'must be an object with a rules list');
  checkFields(top, TOP_FIELDS, '', 'the rule set');
  const prefix = top.prefix ?? 'tollgate';
  if (typeof prefix !== 'string' || !/^[^{}\s:]{1,15}$/.test(prefix)) {
    throw rulesError('prefix', 'the rule set', 'must be 1-15 characters without braces, spaces or colons', prefix);
  }
  const defaults = top.defaults === undefined ? {} : record(top.defaults, 'defaults', 'the rule set', 'must be an object');
  checkFields(defaults, OPTION_FIELDS, 'defaults.', 'the rule set');
  if (!Array.isArray(top.rules) || top.rules.length === 0) throw rulesError('rules', 'the rule set', 'must be a non-empty list', top.rules);
  const seen = new Set<string>();
  return top.rules.map((raw, i) => {
    const path = `rules[${i}]`;
    const rule = record(raw, path, path, 'must be an object');
    const who = typeof rule.name === 'string' ? `rule "${rule.name}" (${path})` : path;
    if (typeof rule.name !== 'string' || !NAME_PATTERN.test(rule.name)) {
      throw rulesError(`${path}.name`, who, 'must be 1-48 characters of A-Z a-z 0-9 _ . -', rule.name);
    }
    if (seen.has(rule.name)) throw rulesError(`${path}.name`, who, 'is used by an earlier rule', rule.name);
    seen.add(rule.name);
    checkFields(rule, RULE_FIELDS, `${path}.`, who);
    return compileRule(rule, path, who, { ...defaults, ...pick(rule, OPTION_FIELDS) }, `${prefix}:${rule.name}`, options);
  });
}

function compileRule(rule: Fields, path: string, who: string, ruleOptions: Fields, prefix: string, options: CompileOptions): CompiledRule {
  const matches = compileMatch(rule.match, `${path}.match`, who);
  const limiterOptions = toLimiterOptions(ruleOptions, path, who, prefix, options);
  const key = rule.key ?? 'ip';
  const ruleIdentity = selector(key, `${path}.key`, who).identity;
  const name = rule.name as string;
  if (rule.tiers === undefined) {
    const bound = boundRule(rule, path, who, name);
    return {
      name,
      matches,
      tiers: [{ name: undefined, when: undefined, identity: ruleIdentity, limiter: build(bound, name, limiterOptions, path, who) }],
    };
  }
  if (rule.limit !== undefined || rule.limits !== undefined) {
    throw rulesError(`${path}.tiers`, who, 'cannot be combined with limit or limits (give each tier its own)', rule.tiers);
  }
  if (!Array.isArray(rule.tiers) || rule.tiers.length === 0) throw rulesError(`${path}.tiers`, who, 'must be a non-empty list', rule.tiers);
  const tierNames = new Set<string>();
  const tiers = rule.tiers.map((raw, t): CompiledTier => {
    const tierPath = `${path}.tiers[${t}]`;
    const tier = record(raw, tierPath, who, 'must be an object');
    checkFields(tier, TIER_FIELDS, `${tierPath}.`, who);
    if (typeof tier.name !== 'string' || !NAME_PATTERN.test(tier.name) || tierNames.has(tier.name)) {
      throw rulesError(`${tierPath}.name`, who, 'must be a unique name of 1-48 characters of A-Z a-z 0-9 _ . -', tier.name);
    }
    tierNames.add(tier.name);
    const when = tier.when === undefined ? undefined : compileWhen(tier.when, `${tierPath}.when`, who, key);
    if (when === undefined && t !== (rule.tiers as unknown[]).length - 1) {
      throw rulesError(`${tierPath}.when`, who, 'is required on every tier but the last', undefined);
    }
    const identity = tier.key === undefined ? ruleIdentity : selector(tier.key, `${tierPath}.key`, who).identity;
    // Each tier counts under a prefix of its own: tiers never share a count, even on one key.
    const tierOptions = { ...limiterOptions, prefix: `${prefix}/${tier.name}` };
    const limiter = build(boundRule(tier, tierPath, who, name), `${name}/${tier.name}`, tierOptions, path, who);
    return { name: tier.name, when, identity, limiter };
  });
  return { name, matches, tiers };
}

function compileMatch(match: unknown, path: string, who: string): (request: RuleRequest) => boolean {
  if (match === undefined) return () => true;
  const fields = record(match, path, who, 'must be an object with method and/or path');
  checkFields(fields, MATCH_FIELDS, `${path}.`, who);
  let methods: Set<string> | undefined;
  if (fields.method !== undefined && fields.method !== '*') {
    const list = Array.isArray(fields.method) ? fields.method : [fields.method];
    if (list.length === 0 || !list.every((m) => typeof m === 'string' && /^[A-Za-z]+$/.test(m))) {
      throw rulesError(`${path}.method`, who, 'must be an HTTP method, a list of them or *', fields.method);
    }
    methods = new Set(list.map((m) => (m as string).toUpperCase()));
  }
  let pathMatches: ((path: string) => boolean) | undefined;
  if (fields.path !== undefined) {
    try {
      pathMatches = compilePathPattern(fields.path, `${path}.path`);
    } catch (error) {
      throw prefixed(error, who);
    }
  }
  return (request) =>
    (methods === undefined || methods.has(request.method.toUpperCase())) && (pathMatches === undefined || pathMatches(request.path));
}

function compileWhen(when: unknown, path: string, who: string, ruleKey: unknown): (request: RuleRequest) => boolean {
  const fields = record(when, path, who, 'must be { in: [values] } with an optional key');
  checkFields(fields, CONDITION_FIELDS, `${path}.`, who);
  const read = selector(fields.key ?? ruleKey, `${path}.key`, who).raw;
  const values = fields.in;
  if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw rulesError(`${path}.in`, who, 'must be a non-empty list of values', values);
  }
  const set = new Set(values.map(String));
  return (request) => {
    const value = read(request);
    return value !== undefined && set.has(value);
  };
}

/** Binds the `limit` or `limits` of a rule or tier at `path`; an unnamed single `limit` is called `rule` (what headers advertise). */
function boundRule(holder: Fields, path: string, who: string, rule: string): BoundRule {
  if ((holder.limit === undefined) === (holder.limits === undefined)) {
    throw rulesError(`${path}.limit`, who, 'or limits is required (exactly one of them)', holder.limit ?? holder.limits);
  }
  const [spec, specPath] = holder.limit !== undefined ? [holder.limit, `${path}.limit`] : [{ limits: holder.limits }, path];
  try {
    return { spec: spec as RuleSpec, limits: bindRule(spec, specPath, rule) };
  } catch (error) {
    throw prefixed(error, who);
  }
}

function toLimiterOptions(fields: Fields, path: string, who: string, prefix: string, options: CompileOptions): LimiterOptions {
  const { onStoreError, ...rest } = fields;
  let mode: StoreFailureMode | undefined;
  if (onStoreError === undefined || onStoreError === 'open' || onStoreError === 'closed') {
    mode = onStoreError;
  } else {
    const share = typeof onStoreError === 'object' && onStoreError !== null ? (onStoreError as { share?: unknown }).share : undefined;
    if (typeof share !== 'number' || Object.keys(onStoreError as object).length !== 1) {
      throw rulesError(`${path}.onStoreError`, who, 'must be open, closed or { share: <fraction of the limit> }', onStoreError);
    }
    mode = { fallback: { share } };
  }
  return {
    ...rest,
    ...(mode === undefined ? {} : { onStoreError: mode }),
    store: options.store,
    prefix,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.events ? { events: options.events } : {}),
  } as LimiterOptions;
}

/** Builds a limiter; its option errors (timeout, shadow, ...) are reported against the rule at `path`. */
function build({ spec, limits }: BoundRule, label: string, options: LimiterOptions, path: string, who: string): Limiter {
  try {
    return limiterOf(configureLimiter(spec, limits, { ...options, rule: label }, `${path}.`));
  } catch (error) {
    throw prefixed(error, who);
  }
}

function selector(value: unknown, path: string, who: string) {
  try {
    return compileSelector(value, path);
  } catch (error) {
    throw prefixed(error, who);
  }
}

function record(value: unknown, field: string, who: string, expectation: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw rulesError(field, who, expectation, value);
  return value as Fields;
}

function checkFields(fields: Fields, allowed: Readonly<Record<string, true>>, path: string, who: string): void {
  for (const field of Object.keys(fields)) {
    if (!Object.hasOwn(allowed, field)) {
      throw rulesError(`${path}${field}`, who, `is not a known field (fields: ${Object.keys(allowed).join(', ')})`, fields[field]);
    }
  }
}

function pick(fields: Fields, names: Readonly<Record<string, true>>): Fields {
  return Object.fromEntries(
    Object.keys(names)
      .filter((name) => fields[name] !== undefined)
      .map((name) => [name, fields[name]]),
  );
}

function rulesError(field: string, who: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${who}: ${field} ${expectation} (got ${describeValue(value)})`, field);
}

function prefixed(error: unknown, who: string): TollgateError {
  const cause = error as TollgateError;
  return new TollgateError(cause.code, `${who}: ${cause.message}`, cause.field);
}
