import { TollgateError } from '../errors.js';
import { refuseUnknownFields } from '../option-fields.js';
import { MemoryStore } from '../stores/memory-store.js';
import { compileRules } from './compile.js';
import { parseRuleText } from './rule-file.js';
import { LOAD_RULE_SET_FIELDS, type LoadRuleSetOptions, loadFromSource, type RuleSet, type RuleSource } from './rule-set.js';

/**
 * What the rule set uses of an ioredis or iovalkey `Redis` or `Cluster` (described by shape, so the
 * type declarations import neither library).
 */
export interface RuleSetRedisClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  duplicate(): RuleSetSubscriber;
  once(event: 'end', listener: () => void): unknown;
  off(event: 'end', listener: () => void): unknown;
}

interface RuleSetSubscriber {
  on(event: 'message', listener: (channel: string) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  subscribe(channel: string): Promise<unknown>;
  disconnect(): void;
}

export interface RedisRuleLocation {
  /** The string key holding the rule-set document (YAML or JSON). Default `tollgate:rules`. */
  key?: string;
  /** Where changes are announced. Default `<key>:changed`. */
  channel?: string;
}

export interface RedisRuleSetOptions extends LoadRuleSetOptions, RedisRuleLocation {
  /**
   * Reads the document; a duplicate of it subscribes to the channel. The duplicate lives as long
   * as this client: it is closed by `rules.close()` or when this client ends (`quit()`, `disconnect()`).
   */
  client: RuleSetRedisClient;
}

/** One entry per field of `RedisRuleLocation`: the compiler refuses this object when one is missing. */
const LOCATION_FIELDS = { key: true, channel: true } as const satisfies Record<keyof RedisRuleLocation, true>;

/** One entry per option of `RedisRuleSetOptions`, likewise. */
const REDIS_RULE_SET_FIELDS = { ...LOAD_RULE_SET_FIELDS, ...LOCATION_FIELDS, client: true } as const satisfies Record<
  keyof RedisRuleSetOptions,
  true
>;

/**
 * A rule set held in Redis: every instance reads it from `key` and reloads when a change is
 * published on `channel` (and after reconnecting, to catch up). `watch` defaults to true. Watching
 * stops with `rules.close()` or when `client` ends, whichever comes first.
 */
export async function loadRedisRuleSet(options: RedisRuleSetOptions): Promise<RuleSet> {
  refuseUnknownFields(options, REDIS_RULE_SET_FIELDS);
  const { client, key = 'tollgate:rules', channel = `${key}:changed`, ...rest } = options;
  return loadFromSource(redisSource(client, key, channel), { watch: true, ...rest });
}

/** Validates a rule-set document, stores it and tells every instance. Throws, storing nothing, when it is invalid. */
export async function publishRuleSet(client: RuleSetRedisClient, text: string, location: RedisRuleLocation = {}): Promise<void> {
  refuseUnknownFields(location, LOCATION_FIELDS);
  const { key = 'tollgate:rules', channel = `${key}:changed` } = location;
  compileRules(parseRuleText(text, `redis key ${key}`), { store: new MemoryStore() });
  await client.set(key, text);
  await client.publish(channel, 'changed');
}

function redisSource(client: RuleSetRedisClient, key: string, channel: string): RuleSource {
  const name = `redis key ${key}`;
  return {
    name,
    async read() {
      let text: string | null;
      try {
        text = await client.get(key);
      } catch (error) {
        throw new TollgateError('ERR_TOLLGATE_STORE', `${name}: cannot read the rule set: ${(error as Error).message}`, undefined, {
          cause: error,
        });
      }
      if (text === null) throw new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${name}: no rule set is stored there`);
      return { text, document: parseRuleText(text, name) };
    },
    watch(changed, failed) {
      const subscriber = client.duplicate();
      subscriber.on('message', (from: string) => {
        if (from === channel) changed();
      });
      // Changes published while disconnected were missed: read again after every (re)connect.
      subscriber.on('ready', changed);
      subscriber.on('error', () => {
        // Connection errors: ioredis reconnects on its own, and 'ready' then triggers a reload.
      });
      // Once subscribed, read again: a change published before the subscription is not missed.
      subscriber.subscribe(channel).then(changed, (error: Error) => {
        failed(
          new TollgateError('ERR_TOLLGATE_STORE', `${name}: cannot subscribe to ${channel}: ${error.message}`, undefined, { cause: error }),
        );
      });
      // The subscriber is ours, not the user's: it must not keep the process alive once their client is closed.
      const stop = () => {
        client.off('end', stop);
        subscriber.disconnect();
      };
      client.once('end', stop);
      return stop;
    },
  };
}
