/**
 * envoyproxy/ratelimit's config tests (`test/config/config_test.go` at f2fb15770f7fd1c88ca6c3a1b58ee513917ace96),
 * ported on the same files (`fixtures/envoyproxy-ratelimit/`). Where the peer reads a limit's stats
 * key, these read the descriptor's metric name; where it matches an error message, these match
 * the coded error, its field and the peer's words inside the message.
 */
import { fileURLToPath } from 'node:url';
import { MemoryStore, readRuleFile, type TollgateError } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import type { CompiledDomain } from '../src/config/domain.js';
import { type DescriptorEntry, matchDescriptor } from '../src/config/match.js';
import { type ConfigFile, compileConfig } from '../src/config/rate-limit-config.js';

const context = { store: new MemoryStore(), clock: undefined, events: undefined, prefix: 't' };

async function loadFile(name: string): Promise<ConfigFile> {
  const path = fileURLToPath(new URL(`./fixtures/envoyproxy-ratelimit/${name}`, import.meta.url));
  return { name, document: (await readRuleFile(path)).document };
}

async function load(...names: string[]) {
  return compileConfig(await Promise.all(names.map(loadFile)), context);
}

function domainOf(config: Awaited<ReturnType<typeof load>>, name = 'test-domain'): CompiledDomain {
  const domain = config.domains.get(name);
  if (domain === undefined) throw new Error(`no domain ${name}`);
  return domain;
}

const entries = (...pairs: [string, string][]): DescriptorEntry[] => pairs.map(([key, value]) => ({ key, value }));

async function configError(...names: string[]): Promise<TollgateError> {
  try {
    await load(...names);
  } catch (error) {
    return error as TollgateError;
  }
  throw new Error(`${names.join(', ')} compiled`);
}

describe('envoyproxy/ratelimit config files, read as they are', () => {
  it('TestBasicConfig', async () => {
    const config = await load('basic_config.yaml');
    expect(config.domains.size).toBeGreaterThan(0);
    expect(config.domains.get('foo_domain')).toBeUndefined();
    const domain = domainOf(config);
    expect(matchDescriptor(domain, [])).toBeUndefined();
    expect(matchDescriptor(domain, entries(['key1', 'something']))).toBeUndefined();
    expect(matchDescriptor(domain, entries(['key1', 'value1']))).toBeUndefined();
    expect(matchDescriptor(domain, entries(['key2', 'value2'], ['subkey', 'subvalue']))).toBeUndefined();
    expect(matchDescriptor(domain, entries(['key5', 'value5'], ['subkey5', 'subvalue']))).toBeUndefined();

    const cases: [DescriptorEntry[], number, string, string][] = [
      [entries(['key1', 'value1'], ['subkey1', 'something']), 5, 'SECOND', 'test-domain.key1_value1.subkey1'],
      [entries(['key1', 'value1'], ['subkey1', 'subvalue1']), 10, 'SECOND', 'test-domain.key1_value1.subkey1_subvalue1'],
      [entries(['key2', 'something']), 20, 'MINUTE', 'test-domain.key2'],
      [entries(['key2', 'value2']), 30, 'MINUTE', 'test-domain.key2_value2'],
      [entries(['key3', 'foo']), 1, 'HOUR', 'test-domain.key3'],
      [entries(['key4', 'foo']), 1, 'DAY', 'test-domain.key4'],
      [entries(['key7', 'unspecified_value']), 70, 'MINUTE', 'test-domain.key7_unspecified_value'],
      [entries(['key7', 'another_value']), 70, 'MINUTE', 'test-domain.key7_another_value'],
    ];
    for (const [descriptor, requestsPerUnit, unit, metricKey] of cases) {
      const match = matchDescriptor(domain, descriptor)!;
      expect(match.limit.configured).toMatchObject({ requests_per_unit: requestsPerUnit, unit });
      expect(match.metricKey).toBe(metricKey);
    }
    expect(matchDescriptor(domain, entries(['key2', 'value3']))).toBeUndefined();
    expect(matchDescriptor(domain, entries(['key3', 'foo']))!.limit.name).toBeUndefined();
    expect(matchDescriptor(domain, entries(['key4', 'foo']))!.limit.name).toBe('key4_rate_limit');
    const unlimited = matchDescriptor(domain, entries(['key6', 'foo']))!;
    expect(unlimited.limit.kind).toBe('unlimited');
    expect(unlimited.metricKey).toBe('test-domain.key6');
  });

  it('TestDomainMerge', async () => {
    const files = await Promise.all(['merge_domain_key1.yaml', 'merge_domain_key2.yaml'].map(loadFile));
    const domain = domainOf(compileConfig(files, context, { mergeDomains: true }));
    expect(matchDescriptor(domain, [])).toBeUndefined();
    expect(matchDescriptor(domain, entries(['key1', 'value1']))!.limit.configured?.requests_per_unit).toBe(10);
    expect(matchDescriptor(domain, entries(['key2', 'value2']))!.limit.configured?.requests_per_unit).toBe(20);
  });

  const refusals: [string, string[], string, string][] = [
    ['TestEmptyDomain', ['empty_domain.yaml'], 'domain', 'config file cannot have empty domain'],
    ['TestDuplicateDomain', ['basic_config.yaml', 'duplicate_domain.yaml'], 'domain', "duplicate domain 'test-domain' in config file"],
    ['TestEmptyKey', ['empty_key.yaml'], 'descriptors[0].key', 'descriptor has empty key'],
    ['TestDuplicateKey', ['duplicate_key.yaml'], 'descriptors[1]', "duplicate descriptor composite key 'test-domain.key1_value1'"],
    ['TestBadLimitUnit', ['bad_limit_unit.yaml'], 'descriptors[0].rate_limit.unit', "invalid rate limit unit 'foo'"],
    [
      'TestReplacesSelf',
      ['replaces_self.yaml'],
      'descriptors[0].descriptors[0].rate_limit.replaces[0].name',
      'replaces should not contain name of same descriptor',
    ],
    [
      'TestReplacesEmpty',
      ['replaces_empty.yaml'],
      'descriptors[0].descriptors[0].rate_limit.replaces[0].name',
      'should not have an empty replaces entry',
    ],
    ['TestMisspelledKey', ['misspelled_key.yaml'], 'descriptors[0].ratelimit', 'did you mean rate_limit?'],
    ['TestMisspelledKey (2)', ['misspelled_key2.yaml'], 'descriptors[0].rate_limit.requestsperunit', 'did you mean requests_per_unit?'],
    // YAML in JavaScript reads the key 0.25 as the text "0.25": refused as an unknown key.
    ['TestNonStringKey', ['non_string_key.yaml'], '0.25', '0.25 is not an option here'],
    ['TestNonMapList', ['non_map_list.yaml'], 'descriptors[0]', 'config error, yaml file contains list of type other than map (got "a")'],
    [
      'TestUnlimitedWithRateLimitUnit',
      ['unlimited_with_unit.yaml'],
      'descriptors[0].rate_limit.unit',
      'should not specify rate limit unit when unlimited',
    ],
  ];
  for (const [name, files, field, words] of refusals) {
    it(name, async () => {
      const error = await configError(...files);
      expect(error.code).toBe('ERR_TOLLGATE_INVALID_RULES');
      expect(error.field).toBe(field);
      expect(error.message).toContain(words);
      expect(error.message.startsWith(`${files.at(-1)}: `)).toBe(true);
    });
  }

  it('TestDuplicateKeyDomainMerge', async () => {
    const file = await loadFile('merge_domain_key1.yaml');
    expect(() => compileConfig([file, file], context, { mergeDomains: true })).toThrow(
      "merge_domain_key1.yaml: descriptors[0] duplicate descriptor composite key 'test-domain.key1_value1'",
    );
  });

  it('TestBadYaml', async () => {
    await expect(loadFile('bad_yaml.yaml')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_RULES', message: /not valid YAML/ });
  });

  it('TestShadowModeConfig', async () => {
    const domain = domainOf(await load('shadowmode_config.yaml'));
    const cases: [DescriptorEntry[], boolean, number, string][] = [
      [entries(['key1', 'value1'], ['subkey1', 'something']), false, 5, 'SECOND'],
      [entries(['key1', 'value1'], ['subkey1', 'subvalue1']), true, 10, 'SECOND'],
      [entries(['key2', 'something']), true, 20, 'MINUTE'],
      [entries(['key2', 'value2']), false, 30, 'MINUTE'],
    ];
    for (const [descriptor, shadow, requestsPerUnit, unit] of cases) {
      const { limit } = matchDescriptor(domain, descriptor)!;
      expect(limit.shadow).toBe(shadow);
      expect(limit.configured).toMatchObject({ requests_per_unit: requestsPerUnit, unit });
    }
  });

  it('TestWildcardConfig', async () => {
    const domain = domainOf(await load('wildcard.yaml'));
    const limitOf = (...pairs: [string, string][]) => matchDescriptor(domain, entries(...pairs));
    // Baseline to show wildcard works like no value
    const withoutVal1 = limitOf(['noVal', 'foo1'])!;
    const withoutVal2 = limitOf(['noVal', 'foo2'])!;
    expect(withoutVal1.limit).toBe(withoutVal2.limit);
    expect(withoutVal1.metricKey).toBe('test-domain.noVal');
    expect(withoutVal2.metricKey).toBe(withoutVal1.metricKey);
    // Matches multiple wildcard values and results are equal
    const wildcard1 = limitOf(['wild', 'foo1'])!;
    const wildcard2 = limitOf(['wild', 'foo2'])!;
    const wildcard3 = limitOf(['nestedWild', 'val1'], ['wild', 'goo2'])!;
    expect(wildcard1.limit).toBe(wildcard2.limit);
    expect(wildcard1.metricKey).toBe('test-domain.wild_foo*');
    expect(wildcard2.metricKey).toBe('test-domain.wild_foo*');
    expect(wildcard3.metricKey).toBe('test-domain.nestedWild_val1.wild_goo*');
    // Without share_threshold every value matching a wildcard counts on its own
    expect(wildcard1.identity).not.toBe(wildcard2.identity);
    // Doesn't match non-matching values; non-wildcard values don't eager match
    expect(limitOf(['wild', 'bar'])).toBeUndefined();
    expect(limitOf(['noWild', 'foo1'])).toBeUndefined();
    // Middle wildcard (single *): bar*b matches values with "bar" prefix and "b" suffix; * matches the empty string.
    for (const value of ['barab', 'bar123b', 'barb']) {
      expect(limitOf(['midWild', value])?.metricKey).toBe('test-domain.midWild_bar*b');
    }
    expect(limitOf(['midWild', 'bara'])).toBeUndefined();
    expect(limitOf(['midWild', 'xbarb'])).toBeUndefined();
    // Multiple wildcards: foo*bar*baz matches values containing "foo"..."bar"..."baz" in order.
    expect(limitOf(['multiWild', 'foo123bar456baz'])?.metricKey).toBe('test-domain.multiWild_foo*bar*baz');
    expect(limitOf(['multiWild', 'foobarbaz'])?.limit).toBe(limitOf(['multiWild', 'foo123bar456baz'])?.limit);
    expect(limitOf(['multiWild', 'foo123baz'])).toBeUndefined();
    expect(limitOf(['multiWild', 'bar456baz'])).toBeUndefined();
  });

  it('TestShareThreshold: every value matching a shared wildcard counts as one', async () => {
    const domain = domainOf(await load('share_threshold.yaml'));
    const matches = ['files/a.pdf', 'files/b.csv', 'files/c.txt'].map((value) => matchDescriptor(domain, entries(['files', value]))!);
    for (const match of matches) {
      expect(match.limit.configured?.requests_per_unit).toBe(100);
      expect(match.metricKey).toBe('test-domain.files_files/*');
      expect(match.identity).toBe(matches[0]!.identity);
    }
    const route = matchDescriptor(domain, entries(['route', 'api/v1'], ['method', 'GET']))!;
    expect(route.metricKey).toBe('test-domain.route_api/*.method');
    const service = matchDescriptor(domain, entries(['service', 'svc/user'], ['endpoint', 'get']))!;
    expect(service.metricKey).toBe('test-domain.service_svc/*.endpoint_get');
    const nested = matchDescriptor(domain, entries(['nested', 'parent'], ['files', 'nested/file1.txt']))!;
    expect(nested.limit.configured?.requests_per_unit).toBe(200);
    expect(nested.metricKey).toBe('test-domain.nested_parent.files_nested/*');
    const both = matchDescriptor(domain, entries(['files', 'top/file1.txt'], ['files', 'nested/file1.txt']))!;
    expect(both.metricKey).toBe('test-domain.files_top/*.files_nested/*');
    const mixed = matchDescriptor(domain, entries(['path', 'path/foo'], ['file', 'file/doc1'], ['type', 'pdf']))!;
    expect(mixed.metricKey).toBe('test-domain.path_path/*.file_file/*.type');
    const other = matchDescriptor(domain, entries(['path', 'path/bar'], ['file', 'file/doc2'], ['type', 'pdf']))!;
    // The shared level counts as one value, the unshared wildcard below it does not.
    expect(JSON.parse(other.identity)[0]).toBe(JSON.parse(mixed.identity)[0]);
    expect(other.identity).not.toBe(mixed.identity);
  });
});
