import { createHash } from 'node:crypto';
import { TOLLGATE_SCRIPT } from '../../lua/script.js';

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

/** Redis answered without running the script because it does not have it. */
export function isNoScript(error: unknown): boolean {
  return errorMessage(error).startsWith('NOSCRIPT');
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

type Send = (command: 'evalsha' | 'eval', first: string) => Promise<unknown>;

/**
 * EVAL the first time on a connection (which loads the script there), EVALSHA after; EVAL again
 * only when Redis answered NOSCRIPT (a restart or SCRIPT FLUSH), which means nothing ran.
 */
export class ScriptCalls {
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
