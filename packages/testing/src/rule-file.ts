import { randomUUID } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The rule file the adapter tests share: a login rule (3 a minute per IP), an API rule with a
 * VIP tier by API key (6 a minute per key; 2 a minute per IP for everyone else), a multi-limit
 * rule (2 at once refilling 1 a second, and 3 an hour), a report rule holding one request in
 * flight, and a rule refunding failed requests. Every other route is not limited.
 */
export function httpRulesYaml(prefix: string): string {
  return `prefix: ${prefix}
rules:
  - name: login
    match: { method: POST, path: /login }
    key: ip
    limit: { perMinute: 3 }
  - name: api
    match: { path: /api/** }
    key: ip
    tiers:
      - name: vip
        when: { key: apiKey, in: [vip-key] }
        key: apiKey
        limit: { perMinute: 6 }
      - name: standard
        limit: { perMinute: 2 }
  - name: search
    match: { method: GET, path: /search/:term }
    limits:
      - { name: burst, qps: 1, burst: 2 }
      - { name: hourly, perHour: 3 }
  - name: export
    match: { path: /export }
    limit: { algorithm: concurrency, limit: 1, leaseTtl: 1m }
  - name: flaky
    match: { path: /flaky }
    limit: { perHour: 1 }
`;
}

/** A rule file in a folder of its own, to load, edit and remove. */
export class RuleFile {
  private constructor(
    readonly dir: string,
    readonly path: string,
    /** A storage prefix unique to this file, so tests sharing a Redis never share state. */
    readonly prefix: string,
  ) {}

  static async create(text: (prefix: string) => string = httpRulesYaml): Promise<RuleFile> {
    const dir = await mkdtemp(join(tmpdir(), 'tollgate-rules-'));
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const file = new RuleFile(dir, join(dir, 'rules.yaml'), prefix);
    await file.write(text(prefix));
    return file;
  }

  /**
   * Replaces the file whole (a new file renamed over it, as editors and deploy tools do): a
   * `writeFile` in place truncates first, and a reload falling between the truncation and the
   * write would read an empty rule set.
   */
  async write(text: string): Promise<void> {
    const next = `${this.path}.${randomUUID().slice(0, 8)}.tmp`;
    await writeFile(next, text);
    await rename(next, this.path);
  }

  /**
   * Rewrites the shared rule file (`httpRulesYaml`) with a first rule allowing `/health` once a
   * minute, and resolves once `rules` has reloaded it.
   */
  async limitHealth(rules: { on(event: 'reload', listener: (event: unknown) => void): unknown }): Promise<void> {
    const reloaded = new Promise((resolve) => rules.on('reload', resolve));
    await this.write(
      httpRulesYaml(this.prefix).replace(
        'rules:\n',
        'rules:\n  - name: health\n    match: { path: /health }\n    limit: { perMinute: 1 }\n',
      ),
    );
    await reloaded;
  }

  remove(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}
