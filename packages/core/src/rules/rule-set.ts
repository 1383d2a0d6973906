import { watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { TollgateError } from '../errors.js';
import type { LimiterListeners } from '../events.js';
import type { Limiter } from '../limiter-types.js';
import { refuseUnknownFields } from '../option-fields.js';
import { MemoryStore } from '../stores/memory-store.js';
import type { Clock, Store } from '../stores/store.js';
import { type CompiledRule, compileRules } from './compile.js';
import type { RuleRequest, SelectedKey } from './request.js';
import { readRuleFile } from './rule-file.js';

export interface RuleSetOptions {
  /** Where every rule keeps its state. Default: one MemoryStore shared by the rules (kept across reloads). */
  store?: Store;
  clock?: Clock;
  /** Listeners given to every limiter the rule set builds (e.g. `@tollgate/prometheus`'s `metrics.events`). */
  events?: LimiterListeners;
}

export interface LoadRuleSetOptions extends RuleSetOptions {
  /** Reload when the document changes. Default false. */
  watch?: boolean;
  /** Quiet time after the last change before reloading. Default 100 ms. */
  debounceMs?: number;
}

/** One entry per option of `RuleSetOptions`: the compiler refuses this object when one is missing. */
const RULE_SET_FIELDS = { store: true, clock: true, events: true } as const satisfies Record<keyof RuleSetOptions, true>;

/** One entry per option of `LoadRuleSetOptions`, likewise. */
export const LOAD_RULE_SET_FIELDS = { ...RULE_SET_FIELDS, watch: true, debounceMs: true } as const satisfies Record<
  keyof LoadRuleSetOptions,
  true
>;

/** The rule (and tier) a request falls under, and the identity to limit: `key`, read by `selector` as `value`. */
export interface RuleMatch extends SelectedKey {
  rule: string;
  tier: string | undefined;
  limiter: Limiter;
}

/** What a client is known by, for `RuleSet.keysOf`: its address, its user id, its headers (names in lower case). */
export type RuleClient = Partial<Pick<RuleRequest, 'ip' | 'user' | 'headers'>>;

export interface RuleSetEventMap {
  /** New rules are in force. */
  reload: { rules: string[] };
  /** A reload failed; the rules in force stay as they were. */
  error: TollgateError;
}

export interface RuleSet {
  /** Names of the rules in force, in order. */
  readonly rules: readonly string[];
  /** The epoch-millisecond clock of its limiters (`options.clock`, else `Date.now`). */
  readonly clock: Clock;
  /**
   * The first rule whose `match` accepts the request and whose key the request carries
   * (a rule keyed by `user` is passed over for anonymous requests); undefined when none.
   */
  match(request: RuleRequest): RuleMatch | undefined;
  /**
   * Every rule and tier that limits a client known by `client`, each with its limiter and the key
   * the client is limited under there, whatever the method, path and tier conditions: a rule set
   * keys each rule its own way, so resetting a client everywhere is `reset(key)` on each of them.
   */
  keysOf(client: RuleClient): RuleMatch[];
  /** Validates and applies a new rule-set document; on error throws and keeps the rules in force. */
  update(config: unknown): void;
  /** Reads the file (or Redis key) again; resolves false, reporting an `error` event, when the new rules were refused. */
  reload(): Promise<boolean>;
  on<E extends keyof RuleSetEventMap>(event: E, listener: (event: RuleSetEventMap[E]) => void): () => void;
  /** Stops watching for changes. */
  close(): void;
}

/** Where a rule-set document comes from, and how its changes are noticed. */
export interface RuleSource {
  /** Names the source in error messages (a file path, a Redis key). */
  readonly name: string;
  read(): Promise<{ text: string; document: unknown }>;
  /** Calls `changed` when the document may have changed; returns a function that stops. */
  watch(changed: () => void, failed: (error: TollgateError) => void): () => void;
}

/** A rule set from a document already in memory (parsed JSON/YAML or an object literal). */
export function createRuleSet(config: unknown, options: RuleSetOptions = {}): RuleSet {
  refuseUnknownFields(options, RULE_SET_FIELDS);
  return new SourcedRuleSet(config, options, undefined);
}

/** A rule set from a JSON or YAML file; rejects when the file is missing or invalid. */
export function loadRuleSet(path: string, options: LoadRuleSetOptions = {}): Promise<RuleSet> {
  return loadFromSource(fileSource(resolve(path)), options);
}

/** A rule set read from `source`, watched for changes when `options.watch` is set. */
export async function loadFromSource(source: RuleSource, options: LoadRuleSetOptions): Promise<RuleSet> {
  refuseUnknownFields(options, LOAD_RULE_SET_FIELDS);
  const { text, document } = await source.read();
  const set = new SourcedRuleSet(document, options, source);
  set.lastText = text;
  if (options.watch) set.watch(options.debounceMs ?? 100);
  return set;
}

function fileSource(file: string): RuleSource {
  return {
    name: file,
    read: () => readRuleFile(file),
    watch(changed, failed) {
      const name = basename(file);
      // The folder, not the file: editors often replace the file, which would end a watch on it.
      const watcher = watch(dirname(file), { persistent: false }, (_event, changedName) => {
        if (changedName === null || changedName === name) changed();
      });
      watcher.on('error', (error) =>
        failed(new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${file}: watching failed: ${error.message}`, undefined, { cause: error })),
      );
      return () => watcher.close();
    },
  };
}

class SourcedRuleSet implements RuleSet {
  lastText: string | undefined;
  private compiled: CompiledRule[];
  private readonly store: Store;
  private readonly listeners = { reload: new Set<(e: RuleSetEventMap['reload']) => void>(), error: new Set<(e: TollgateError) => void>() };
  private stopWatching: (() => void) | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private reloading: Promise<boolean> = Promise.resolve(true);

  constructor(
    config: unknown,
    private readonly options: RuleSetOptions,
    private readonly source: RuleSource | undefined,
  ) {
    this.store = options.store ?? new MemoryStore(options.clock ? { clock: options.clock } : {});
    this.compiled = this.compile(config);
  }

  get clock(): Clock {
    return this.options.clock ?? Date.now;
  }

  get rules(): readonly string[] {
    return this.compiled.map((rule) => rule.name);
  }

  match(request: RuleRequest): RuleMatch | undefined {
    for (const rule of this.compiled) {
      if (!rule.matches(request)) continue;
      for (const tier of rule.tiers) {
        if (tier.when !== undefined && !tier.when(request)) continue;
        const selected = tier.identity(request);
        if (selected !== undefined) return { rule: rule.name, tier: tier.name, limiter: tier.limiter, ...selected };
        break;
      }
    }
    return undefined;
  }

  keysOf(client: RuleClient): RuleMatch[] {
    const request: RuleRequest = { method: '', path: '', ip: client.ip, headers: client.headers ?? {}, user: client.user };
    const found: RuleMatch[] = [];
    for (const rule of this.compiled) {
      for (const tier of rule.tiers) {
        const selected = tier.identity(request);
        if (selected !== undefined) found.push({ rule: rule.name, tier: tier.name, limiter: tier.limiter, ...selected });
      }
    }
    return found;
  }

  update(config: unknown): void {
    this.compiled = this.compile(config);
    this.emit('reload', { rules: [...this.rules] });
  }

  reload(): Promise<boolean> {
    this.reloading = this.reloading.then(() => this.reloadNow());
    return this.reloading;
  }

  on<E extends keyof RuleSetEventMap>(event: E, listener: (event: RuleSetEventMap[E]) => void): () => void {
    const set = this.listeners[event] as Set<(event: RuleSetEventMap[E]) => void> | undefined;
    if (!set) throw new TypeError(`unknown rule set event "${String(event)}" (events: reload, error)`);
    set.add(listener);
    return () => set.delete(listener);
  }

  close(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
    clearTimeout(this.debounce);
  }

  watch(debounceMs: number): void {
    this.stopWatching = this.source!.watch(
      () => {
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.reload(), debounceMs);
      },
      (error) => this.emit('error', error),
    );
  }

  private async reloadNow(): Promise<boolean> {
    if (this.source === undefined) return false;
    try {
      const { text, document } = await this.source.read();
      if (text === this.lastText) return true;
      this.compiled = this.compile(document);
      this.lastText = text;
    } catch (error) {
      this.emit('error', error as TollgateError);
      return false;
    }
    this.emit('reload', { rules: [...this.rules] });
    return true;
  }

  private compile(config: unknown): CompiledRule[] {
    try {
      return compileRules(config, { store: this.store, clock: this.options.clock, events: this.options.events });
    } catch (error) {
      const cause = error as TollgateError;
      if (this.source === undefined) throw cause;
      throw new TollgateError(cause.code, `${this.source.name}: ${cause.message}`, cause.field, { cause });
    }
  }

  private emit<E extends keyof RuleSetEventMap>(event: E, payload: RuleSetEventMap[E]): void {
    for (const listener of this.listeners[event] as Set<(event: RuleSetEventMap[E]) => void>) {
      try {
        listener(payload);
      } catch (error) {
        process.emitWarning(
          `a tollgate rule set "${event}" listener threw: ${(error as Error)?.stack ?? String(error)}`,
          'TollgateListenerWarning',
        );
      }
    }
  }
}
