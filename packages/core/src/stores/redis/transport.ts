import { createHash } from 'node:crypto';
import { TOLLGATE_SCRIPT, tollgateLibrary } from '../../lua/script.js';

/**
 * How the RedisStore reaches Redis, whatever the client library: one script call, sent once.
 * A transport never re-sends a call that may have reached Redis (after a timeout, a lost
 * connection or a reconnect); it only follows NOSCRIPT with EVAL, and cluster redirections
 * that Redis answered without running the script (MOVED, ASK, TRYAGAIN).
 */
export interface ScriptTransport {
  readonly isCluster: boolean;
  /** Runs the script over `keys` (all in hash slot `slot`) with `args`; resolves to its reply. */
  run(keys: readonly string[], args: readonly string[], slot: number): Promise<unknown>;
  /** What fails together with the node serving `slot`: its address (a constant off Cluster). */
  domainOf(slot: number): string;
}

export const SCRIPT_SHA = createHash('sha1').update(TOLLGATE_SCRIPT).digest('hex');
/**
 * The function (and its library) FCALL runs: named by the script's digest, so processes running
 * different versions side by side each call their own.
 */
export const FUNCTION_NAME = `tollgate_${SCRIPT_SHA}`;
export const LIBRARY = tollgateLibrary(FUNCTION_NAME);

/** Redis answered without running the script because it does not have it. */
export function isNoScript(error: unknown): boolean {
  return errorMessage(error).startsWith('NOSCRIPT');
}

/** Redis answered FCALL without running anything: the library is not loaded there (a restart, FUNCTION FLUSH, a new node). */
export function isFunctionNotFound(error: unknown): boolean {
  return errorMessage(error).startsWith('ERR Function not found');
}

/** Redis refused the command itself: older than 7, the command renamed or disabled, or not allowed to this user. */
export function isCommandRefused(error: unknown): boolean {
  return /^(ERR unknown (sub)?command|NOPERM)/i.test(errorMessage(error));
}

/**
 * Redis refused FCALL before running it, its memory full (maxmemory, noeviction): a function may
 * write, so it is refused whole, where a script is refused only at its first write.
 */
export function isOutOfMemory(error: unknown): boolean {
  return errorMessage(error).startsWith('OOM ');
}

/**
 * The cluster answered that the keys' slot is moving or has moved, so the call did not run:
 * TRYAGAIN, ASK, or MOVED still there once the client gave up following redirections (node-redis
 * 4 races its ASKING against other commands on the connection).
 */
export function isMigrating(error: unknown): boolean {
  return /^(TRYAGAIN|ASK |MOVED )/.test(errorMessage(error));
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Sends FCALL, EVALSHA or EVAL (named by `first`: the function, the digest or the script) with the call's keys and arguments. */
type Send = (command: 'fcall' | 'evalsha' | 'eval', first: string) => Promise<unknown>;
/** Sends `FUNCTION LOAD REPLACE <LIBRARY>` on the connection the call goes to. */
type Load = () => Promise<unknown>;

/** How a connection runs the driver: FCALL of the loaded library, or the script (EVALSHA / EVAL). */
type Way = 'function' | 'script';

/**
 * FCALL where Redis has functions (7 and later): the library is loaded once per connection
 * (`FUNCTION LOAD`), so a call runs the driver alone rather than the whole script. Where FUNCTION
 * or FCALL is refused, the script, as ScriptCalls does. A call that meets "Function not found"
 * (nothing ran) loads the library again and is sent once more; one refused for full memory is
 * sent once more as the script.
 */
export class DriverCalls {
  /** Per connection (named by the transport), the way found or being found. */
  private readonly ways = new Map<string, Way | Promise<Way>>();
  private readonly script = new ScriptCalls();

  async run(connection: string, send: Send, load: Load): Promise<unknown> {
    let way = this.ways.get(connection) ?? this.load(connection, load);
    if (typeof way !== 'string') way = await way;
    if (way === 'script') return this.script.run(connection, send);
    try {
      return await send('fcall', FUNCTION_NAME);
    } catch (error) {
      if (isCommandRefused(error)) this.ways.set(connection, 'script');
      // A peek (or any call that writes nothing) still answers, as it did by script.
      else if (isOutOfMemory(error)) return this.script.run(connection, send);
      else if (!isFunctionNotFound(error)) throw error;
      else if ((await this.reload(connection, load)) === 'function') return send('fcall', FUNCTION_NAME);
      return this.script.run(connection, send);
    }
  }

  /**
   * Loads the library on the connection (one load for every call asking meanwhile). Refused, the
   * connection keeps to the script; failing otherwise (a lost connection, a full memory), this
   * call takes the script and the next loads again.
   */
  private load(connection: string, load: Load): Promise<Way> {
    const loading: Promise<Way> = load().then(
      () => this.settle(connection, loading, 'function'),
      (error: unknown) => this.settle(connection, loading, isCommandRefused(error) ? 'script' : undefined),
    );
    this.ways.set(connection, loading);
    return loading;
  }

  /** Records the way `loading` found (undefined: none yet), unless another load took its place. */
  private settle(connection: string, loading: Promise<Way>, way: Way | undefined): Way {
    if (this.ways.get(connection) === loading) {
      if (way) this.ways.set(connection, way);
      else this.ways.delete(connection);
    }
    return way ?? 'script';
  }

  /** The library went missing: loads it again, unless a call that met the same is already doing so. */
  private reload(connection: string, load: Load): Promise<Way> {
    const way = this.ways.get(connection);
    return way instanceof Promise ? way : this.load(connection, load);
  }
}

/**
 * EVAL the first time on a connection (which loads the script there), EVALSHA after; EVAL again
 * only when Redis answered NOSCRIPT (a restart or SCRIPT FLUSH), which means nothing ran.
 */
class ScriptCalls {
  /** Connections (named by the transport) the script was sent to in full. */
  private readonly sentTo = new Set<string>();

  async run(connection: string, send: Send): Promise<unknown> {
    if (!this.sentTo.has(connection)) {
      // Marked at once: later calls on this connection are behind this one and find the script.
      this.sentTo.add(connection);
      return send('eval', TOLLGATE_SCRIPT).catch((error: unknown) => {
        this.sentTo.delete(connection);
        throw error;
      });
    }
    try {
      return await send('evalsha', SCRIPT_SHA);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return send('eval', TOLLGATE_SCRIPT);
    }
  }
}

/** A connection was lost with this call unanswered: it may or may not have run, and is not re-sent. */
export class UnansweredCallError extends Error {
  constructor() {
    super('the connection to Redis was lost before the script call was answered; it is not re-sent');
  }
}
