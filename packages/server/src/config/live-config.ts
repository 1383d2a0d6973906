import { TollgateError } from '@tollgate/core';
import type { ConfigSource } from './config-files.js';
import type { ConfigFile, RateLimitConfig } from './rate-limit-config.js';

export interface LiveConfigEvents {
  /** A new config is in force: the domains it holds. */
  reload: { domains: string[] };
  /** A reload failed: the config in force stays as it was. */
  error: TollgateError;
}

/**
 * The config in force, read from its source and, when watched, read again on every change:
 * a config that does not compile is refused with its coded error, and the last good one stays.
 */
export class LiveConfig {
  private stopWatching: (() => void) | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private reloading: Promise<boolean> = Promise.resolve(true);
  private readonly listeners = {
    reload: new Set<(event: LiveConfigEvents['reload']) => void>(),
    error: new Set<(event: TollgateError) => void>(),
  };

  private constructor(
    private config: RateLimitConfig,
    private lastText: string | undefined,
    private readonly compile: (files: ConfigFile[]) => RateLimitConfig,
    private readonly source: ConfigSource | undefined,
  ) {}

  /** Reads and compiles the source; rejects with the coded error of a config that does not compile. */
  static async load(source: ConfigSource, compile: (files: ConfigFile[]) => RateLimitConfig): Promise<LiveConfig> {
    const { text, files } = await source.read();
    return new LiveConfig(compile(files), text, compile, source);
  }

  /** A config given as documents, changed only by `update`. */
  static of(files: ConfigFile[], compile: (files: ConfigFile[]) => RateLimitConfig): LiveConfig {
    return new LiveConfig(compile(files), undefined, compile, undefined);
  }

  get current(): RateLimitConfig {
    return this.config;
  }

  /** Compiles and applies new documents; on error throws and keeps the config in force. */
  update(files: ConfigFile[]): void {
    this.config = this.compile(files);
    this.emit('reload', { domains: [...this.config.domains.keys()] });
  }

  /** Reads the source again; resolves false, after an `error` event, when the new config was refused. */
  reload(): Promise<boolean> {
    this.reloading = this.reloading.then(() => this.reloadNow());
    return this.reloading;
  }

  watch(debounceMs: number): void {
    if (this.source === undefined || this.stopWatching !== undefined) return;
    this.stopWatching = this.source.watch(
      () => {
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.reload(), debounceMs);
      },
      (error) => this.emit('error', error),
    );
  }

  on<E extends keyof LiveConfigEvents>(event: E, listener: (event: LiveConfigEvents[E]) => void): () => void {
    const set = this.listeners[event] as Set<(event: LiveConfigEvents[E]) => void>;
    set.add(listener);
    return () => set.delete(listener);
  }

  close(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
    clearTimeout(this.debounce);
  }

  private async reloadNow(): Promise<boolean> {
    if (this.source === undefined) return false;
    try {
      const { text, files } = await this.source.read();
      if (text === this.lastText) return true;
      this.config = this.compile(files);
      this.lastText = text;
    } catch (error) {
      const refused =
        error instanceof TollgateError
          ? error
          : new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${this.source.name}: ${(error as Error).message}`, undefined, {
              cause: error,
            });
      this.emit('error', refused);
      return false;
    }
    this.emit('reload', { domains: [...this.config.domains.keys()] });
    return true;
  }

  private emit<E extends keyof LiveConfigEvents>(event: E, payload: LiveConfigEvents[E]): void {
    for (const listener of this.listeners[event] as Set<(event: LiveConfigEvents[E]) => void>) {
      try {
        listener(payload);
      } catch (error) {
        process.emitWarning(
          `a tollgate server "${event}" listener threw: ${(error as Error)?.stack ?? String(error)}`,
          'TollgateListenerWarning',
        );
      }
    }
  }
}
