import type { CompiledDomain, DescriptorNode } from './domain.js';
import type { CompiledLimit } from './rate-limit.js';
import { wildcardMatch } from './wildcard.js';

export interface DescriptorEntry {
  key: string;
  value: string;
}

/** The limit a descriptor falls under, and what it is counted and reported as. */
export interface DescriptorMatch {
  limit: CompiledLimit;
  /** The values counted (a `share_threshold` wildcard's pattern in place of the value it matched). */
  identity: string;
  /** The descriptor's metric name, as envoyproxy/ratelimit names its stats (`detailed_metric`, `value_to_metric`). */
  metricKey: string;
}

/**
 * The limit of a descriptor, found as envoyproxy/ratelimit finds it: level by level, the entry's
 * `key_value` first, then the first wildcard matching it, then its `key` alone; the limit counts
 * only at the level of the descriptor's last entry (a descriptor deeper or shallower than the
 * config matches nothing).
 */
export function matchDescriptor(domain: CompiledDomain, entries: readonly DescriptorEntry[]): DescriptorMatch | undefined {
  let node: DescriptorNode = domain.root;
  let limit: CompiledLimit | undefined;
  const values: string[] = [];
  const metric: string[] = [];
  const detailed: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const { key, value } = entries[i]!;
    const keyValue = `${key}_${value}`;
    let next = node.children.get(keyValue);
    let wildcard: string | undefined;
    if (next === undefined) {
      wildcard = node.wildcards.find((entry) => wildcardMatch(entry.parts, keyValue))?.key;
      if (wildcard !== undefined) next = node.children.get(wildcard);
    }
    const byValue = next !== undefined;
    next ??= node.children.get(key);
    if (next === undefined) return undefined;
    const shared = wildcard === undefined ? undefined : next.sharedValue;
    values.push(shared ?? value);
    metric.push(metricPart(next, key, value, byValue ? (wildcard ?? keyValue) : undefined, shared));
    detailed.push(shared !== undefined ? `${key}_${shared}` : value === '' ? key : keyValue);
    if (i === entries.length - 1) limit = next.limit;
    if (next.children.size === 0) break;
    node = next;
  }
  if (limit === undefined) return undefined;
  const parts = limit.detailedMetric ? detailed : metric;
  return { limit, identity: JSON.stringify(values), metricKey: `${domain.name}.${parts.join('.')}` };
}

/** One level of the metric name: the config's `key_value` (wildcard as written), or the request's value where `value_to_metric` asks. */
function metricPart(node: DescriptorNode, key: string, value: string, configured: string | undefined, shared: string | undefined): string {
  if (shared !== undefined) return `${key}_${shared}`;
  if (node.valueToMetric && value !== '' && (configured === undefined || configured.includes('*'))) return `${key}_${value}`;
  return configured ?? key;
}
