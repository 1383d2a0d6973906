import { DESCRIPTOR_FIELDS, DOMAIN_FIELDS } from './document.js';
import { checkFields, configError, type Fields, isRecord } from './errors.js';
import { type CompileContext, type CompiledLimit, checkedDefaults, compileRateLimit, pickOptions } from './rate-limit.js';
import { splitWildcard, type WildcardEntry } from './wildcard.js';

/** One level of a domain's descriptor tree. */
export interface DescriptorNode {
  /** By `key_value`, or `key` for a descriptor without a value (a wildcard's `key_val*` too). */
  readonly children: Map<string, DescriptorNode>;
  /** The wildcard children, in the order the config lists them (the first that matches wins). */
  readonly wildcards: WildcardEntry[];
  readonly limit: CompiledLimit | undefined;
  readonly valueToMetric: boolean;
  /** With `share_threshold`: the wildcard value (`files/*`), counted as one value. */
  readonly sharedValue: string | undefined;
}

export interface CompiledDomain {
  readonly name: string;
  readonly root: DescriptorNode;
}

function emptyNode(): DescriptorNode {
  return { children: new Map(), wildcards: [], limit: undefined, valueToMetric: false, sharedValue: undefined };
}

/**
 * Compiles one domain document (envoyproxy/ratelimit's file format) into `into`, a new domain
 * unless given: a second file of the same domain adds its descriptors to the first one's.
 */
export function compileDomain(document: unknown, context: CompileContext, defaults: Fields, into?: CompiledDomain): CompiledDomain {
  if (!isRecord(document)) throw configError('domain', 'a config file must be an object with domain and descriptors', document);
  checkFields(document, DOMAIN_FIELDS, '');
  const name = document.domain;
  if (name === undefined || name === null || name === '') throw configError('domain', 'config file cannot have empty domain', name);
  if (typeof name !== 'string') throw configError('domain', 'must be a string', name);
  if (into !== undefined && into.name !== name) throw new Error(`compiling ${name} into ${into.name}`);
  const options = { ...defaults, ...checkedDefaults(document.defaults, 'defaults') };
  const domain = into ?? { name, root: emptyNode() };
  loadDescriptors(domain.root, document.descriptors, { path: 'descriptors', fullKey: `${name}.`, options }, context);
  return domain;
}

interface Level {
  path: string;
  /** The parent's full key and a dot (`domain.` at the top). */
  fullKey: string;
  options: Fields;
}

function loadDescriptors(node: DescriptorNode, list: unknown, level: Level, context: CompileContext): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw configError(level.path, 'must be a list of descriptors', list);
  list.forEach((raw, i) => {
    const path = `${level.path}[${i}]`;
    if (!isRecord(raw)) throw configError(path, 'config error, yaml file contains list of type other than map', raw);
    checkFields(raw, DESCRIPTOR_FIELDS, `${path}.`);
    const key = text(raw.key, `${path}.key`);
    if (key === '') throw configError(`${path}.key`, 'descriptor has empty key', raw.key);
    const value = raw.value === undefined || raw.value === null ? '' : text(raw.value, `${path}.value`);
    const finalKey = value === '' ? key : `${key}_${value}`;
    const fullKey = `${level.fullKey}${finalKey}`;
    if (node.children.has(finalKey)) throw configError(path, `duplicate descriptor composite key '${fullKey}'`, finalKey);
    const flags = booleans(raw, path);
    if (flags.share_threshold && !finalKey.includes('*')) {
      throw configError(
        `${path}.share_threshold`,
        `share_threshold can only be used with wildcard values (containing '*'), but found key '${finalKey}'`,
        true,
      );
    }
    if (raw.metadata !== undefined && raw.metadata !== null && !isRecord(raw.metadata)) {
      throw configError(`${path}.metadata`, 'must be a map', raw.metadata);
    }
    const options = { ...level.options, ...pickOptions(raw) };
    const owner = { fullKey, path, options, shadow: flags.shadow_mode, quota: flags.quota_mode, detailedMetric: flags.detailed_metric };
    const limit = raw.rate_limit === undefined || raw.rate_limit === null ? undefined : compileRateLimit(raw.rate_limit, owner, context);
    const child: DescriptorNode = {
      ...emptyNode(),
      limit,
      valueToMetric: flags.value_to_metric,
      sharedValue: flags.share_threshold ? value : undefined,
    };
    if (finalKey.includes('*')) node.wildcards.push(splitWildcard(finalKey));
    loadDescriptors(child, raw.descriptors, { path: `${path}.descriptors`, fullKey: `${fullKey}.`, options }, context);
    node.children.set(finalKey, child);
  });
}

const FLAGS = ['shadow_mode', 'quota_mode', 'detailed_metric', 'value_to_metric', 'share_threshold'] as const;

function booleans(raw: Fields, path: string): Record<(typeof FLAGS)[number], boolean> {
  const flags = {} as Record<(typeof FLAGS)[number], boolean>;
  for (const flag of FLAGS) {
    const value = raw[flag] ?? false;
    if (typeof value !== 'boolean') throw configError(`${path}.${flag}`, 'must be a boolean', value);
    flags[flag] = value;
  }
  return flags;
}

/** A key or value: YAML may read `5` or `true` as a number or boolean where the config meant the text. */
function text(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null) return '';
  throw configError(path, 'must be a string', value);
}
