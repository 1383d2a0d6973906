import type { LimiterEventName, LimiterListeners, Logger } from '@tollgate/core';
import { infoOf } from './log.js';

/** What deserves a log line among a limiter's events: the breaker opening (the store is failing) and closing again. */
export function loggingListeners(logger: Logger): LimiterListeners {
  const info = infoOf(logger);
  return {
    breakerOpen: ({ rule, failures, coolDownMs, error }) =>
      logger.error(`store failing for ${rule}: ${failures} failures, left alone for ${coolDownMs} ms; the failure mode answers`, error),
    breakerClose: ({ rule, openForMs }) => info(`store answering again for ${rule} after ${openForMs} ms`),
  };
}

/** Listeners calling both `a`'s and `b`'s for every event either has. */
export function combineListeners(a: LimiterListeners, b: LimiterListeners): LimiterListeners {
  const combined: Record<string, (event: never) => void> = {};
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)]) as Set<LimiterEventName>) {
    const first = a[name] as ((event: never) => void) | undefined;
    const second = b[name] as ((event: never) => void) | undefined;
    combined[name] =
      first && second
        ? (event) => {
            first(event);
            second(event);
          }
        : (first ?? second)!;
  }
  return combined as LimiterListeners;
}
