import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRuleSet, type RuleRequest, type RuleSet, TollgateError } from '../../src/index.js';

let dir: string;
const sets: RuleSet[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-rules-'));
});
afterEach(() => {
  for (const set of sets.splice(0)) set.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function load(path: string, watch = false): Promise<RuleSet> {
  const set = await loadRuleSet(path, { watch, debounceMs: 30 });
  sets.push(set);
  return set;
}

async function errorOf(path: string): Promise<TollgateError> {
  const error = await loadRuleSet(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TollgateError);
  return error as TollgateError;
}

const api: RuleRequest = { method: 'GET', path: '/api/items', ip: '192.0.2.1', headers: {} };

async function admitted(set: RuleSet, count: number, ip = api.ip): Promise<number> {
  let passed = 0;
  for (let i = 0; i < count; i++) {
    const match = set.match({ ...api, ip })!;
    if ((await match.limiter.consume(match.key)).allowed) passed++;
  }
  return passed;
}

const yamlRules = (burst: number) => `# API limits
rules:
  - name: api
    match: { method: GET, path: /api/** }
    key: ip
    limit: { qps: 1, burst: ${burst} }
`;

describe('rule files', () => {
  it('loads YAML and JSON', async () => {
    const yaml = await load(file('rules.yaml', yamlRules(3)));
    expect(await admitted(yaml, 5)).toBe(3);
    const json = await load(file('rules.json', JSON.stringify({ rules: [{ name: 'api', limit: { perMinute: 2 } }] })));
    expect(await admitted(json, 5)).toBe(2);
  });

  it.each([
    [
      'a YAML syntax error, with its line',
      'rules:\n  - name: api\n    limit: { qps: 1\n',
      undefined,
      /rules\.yaml: not valid YAML: .*at line 4, column 1/s,
    ],
    [
      'an unknown rule field',
      'rules:\n  - name: api\n    limt: { qps: 1 }\n',
      'rules[0].limt',
      /rule "api" \(rules\[0\]\): rules\[0\]\.limt is not a known field/,
    ],
    [
      'a bad limit field',
      'rules:\n  - name: ok\n    limit: { qps: 1 }\n  - name: login\n    limit: { qps: -5 }\n',
      'rules[1].limit.qps',
      /rule "login" \(rules\[1\]\): rules\[1\]\.limit\.qps must be a finite number > 0 \(got -5\)/,
    ],
    [
      'a bad field of a multi-limit rule',
      'rules:\n  - name: m\n    limits:\n      - { qps: 1 }\n      - { algorithm: fixed-window, limit: -1, window: 1m }\n',
      'rules[0].limits[1].limit',
      /rule "m" \(rules\[0\]\): rules\[0\]\.limits\[1\]\.limit must be a whole number >= 0/,
    ],
    [
      'a tier without a limit',
      'rules:\n  - name: t\n    tiers:\n      - { name: vip, when: { in: [a] } }\n',
      'rules[0].tiers[0].limit',
      /rule "t" .*tiers\[0\]\.limit or limits is required/,
    ],
    [
      'a tier condition that is not last and missing',
      'rules:\n  - name: t\n    tiers:\n      - { name: a, limit: { qps: 1 } }\n      - { name: b, limit: { qps: 2 } }\n',
      'rules[0].tiers[0].when',
      /is required on every tier but the last/,
    ],
    [
      'a bad key',
      'rules:\n  - name: k\n    key: cookie\n    limit: { qps: 1 }\n',
      'rules[0].key',
      /rule "k" .*rules\[0\]\.key must be ip, user, apiKey or \{ header: <name> \}/,
    ],
    [
      'a bad path pattern',
      'rules:\n  - name: p\n    match: { path: "/a/**/b" }\n    limit: { qps: 1 }\n',
      'rules[0].match.path',
      /rule "p" .*\*\* may only end a pattern/,
    ],
    [
      'a duplicate rule name',
      'rules:\n  - { name: a, limit: { qps: 1 } }\n  - { name: a, limit: { qps: 2 } }\n',
      'rules[1].name',
      /is used by an earlier rule/,
    ],
    [
      'a bad option',
      'rules:\n  - { name: a, timeout: 0, limit: { qps: 1 } }\n',
      'rules[0].timeout',
      /rule "a" \(rules\[0\]\): rules\[0\]\.timeout must be a whole number/,
    ],
    [
      'a bad store-failure mode',
      'rules:\n  - { name: a, onStoreError: maybe, limit: { qps: 1 } }\n',
      'rules[0].onStoreError',
      /must be open, closed or \{ share/,
    ],
    [
      'a bad deny-cache option',
      'rules:\n  - { name: a, denyCache: { maxEntries: 0 }, limit: { qps: 1 } }\n',
      'rules[0].denyCache.maxEntries',
      /rule "a" \(rules\[0\]\): rules\[0\]\.denyCache\.maxEntries must be a whole number >= 1 \(got 0\)/,
    ],
    [
      'a limit name used twice in a multi-limit rule',
      'rules:\n  - name: m\n    limits:\n      - { name: x, qps: 1 }\n      - { name: x, perHour: 5 }\n',
      'rules[0].limits[1].name',
      /rule "m" \(rules\[0\]\): rules\[0\]\.limits\[1\]\.name "x" is used twice/,
    ],
    ['no rules', 'rules: []\n', 'rules', /rules must be a non-empty list/],
  ])('refuses %s, naming the rule and field', async (_what, text, field, message) => {
    const path = file('rules.yaml', text);
    const error = await errorOf(path);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
    expect(error.message.startsWith(path)).toBe(true);
  });

  it('loads the example of the README', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const example = /```yaml\n# rules\.yaml\n([\s\S]*?)```/.exec(readme)![1]!;
    const set = await load(file('rules.yaml', example));
    expect(set.rules).toEqual(['login', 'data', 'accounts', 'tenants']);
    const vip = set.match({ ...api, path: '/api/v1/data/x', headers: { 'x-api-key': 'vip-secret-key' } })!;
    expect([vip.rule, vip.tier, vip.limiter.limits[0]!.algorithm.limit(vip.limiter.limits[0]!.params)]).toEqual(['data', 'vip', 100]);
    expect(set.match({ ...api, path: '/users/7/orders', user: '7' })?.limiter.limits).toHaveLength(2);
  });

  it('refuses a missing file', async () => {
    expect((await errorOf(join(dir, 'nope.yaml'))).message).toMatch(/cannot read the rule file/);
  });
});

describe('hot reload', () => {
  function next<T>(set: RuleSet, event: 'reload' | 'error'): Promise<T> {
    return new Promise((resolve) => {
      const off = set.on(event, (e) => {
        off();
        resolve(e as T);
      });
    });
  }

  it('applies an edit without a restart', async () => {
    const path = file('rules.yaml', yamlRules(2));
    const set = await load(path, true);
    expect(await admitted(set, 5, '192.0.2.10')).toBe(2);
    const reloaded = next<{ rules: string[] }>(set, 'reload');
    await writeFile(path, yamlRules(6));
    expect(await reloaded).toEqual({ rules: ['api'] });
    expect(await admitted(set, 10, '192.0.2.11')).toBe(6);
  });

  it('follows a file replaced by rename, as editors save', async () => {
    const path = file('rules.yaml', yamlRules(2));
    const set = await load(path, true);
    const reloaded = next(set, 'reload');
    await writeFile(join(dir, 'rules.yaml.tmp'), yamlRules(4));
    await rename(join(dir, 'rules.yaml.tmp'), path);
    await reloaded;
    expect(await admitted(set, 10)).toBe(4);
  });

  it('keeps the last good rules after a broken edit and reports the error', async () => {
    const path = file('rules.yaml', yamlRules(2));
    const set = await load(path, true);
    const failed = next<TollgateError>(set, 'error');
    await writeFile(path, yamlRules(2).replace('qps: 1', 'qps: zero'));
    const error = await failed;
    expect(error.field).toBe('rules[0].limit.qps');
    expect(await admitted(set, 5)).toBe(2);
    // A fixed edit is picked up again.
    const reloaded = next(set, 'reload');
    await writeFile(path, yamlRules(3));
    await reloaded;
    expect(await admitted(set, 5, '192.0.2.99')).toBe(3);
  });

  it('reloads on demand', async () => {
    const path = file('rules.yaml', yamlRules(2));
    const set = await load(path);
    writeFileSync(path, yamlRules(5));
    expect(await set.reload()).toBe(true);
    expect(await admitted(set, 10)).toBe(5);
    writeFileSync(path, 'rules: 7');
    expect(await set.reload()).toBe(false);
    expect(set.rules).toEqual(['api']);
  });

  it('stops watching on close', async () => {
    const path = file('rules.yaml', yamlRules(2));
    const set = await load(path, true);
    let reloads = 0;
    set.on('reload', () => reloads++);
    set.close();
    await writeFile(path, yamlRules(5));
    // Several debounce periods pass: a watcher still running would have reloaded by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reloads).toBe(0);
    expect(await admitted(set, 5)).toBe(2);
  });
});
