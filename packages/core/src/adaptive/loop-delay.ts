import { monitorEventLoopDelay } from 'node:perf_hooks';
import { invalidOption } from '../errors.js';
import { refuseUnknownFields } from '../option-fields.js';
import { numberWithin } from './checks.js';

export interface EventLoopDelayOptions {
  /** A request finishing while the event loop's delay is above this counts as a loss, in milliseconds. */
  maxMs: number;
  /** Which percentile of the delay is compared (0–100). Default 99. */
  percentile?: number;
  /** How long one reading of the delay covers, in milliseconds. Default 500. */
  intervalMs?: number;
  /** The sampling resolution of the monitor, in milliseconds. Default 10. */
  resolutionMs?: number;
}

export const EVENT_LOOP_DELAY_FIELDS = {
  maxMs: true,
  percentile: true,
  intervalMs: true,
  resolutionMs: true,
} as const satisfies Record<keyof EventLoopDelayOptions, true>;

/** The event loop's recent delay. */
export interface LoopDelayProbe {
  /** The delay over the last interval that ended by `now` (ms on the limiter's clock). */
  delayMs(now: number): number;
  readonly maxMs: number;
  close(): void;
}

/**
 * Reads `perf_hooks.monitorEventLoopDelay`: once an interval has passed, the chosen percentile of
 * what it recorded becomes the current delay and the histogram starts again. A busy loop delays
 * every request of the process, whatever its round trip says (`@fastify/under-pressure` sheds on
 * the same measure).
 */
export function createLoopDelayProbe(options: EventLoopDelayOptions, field: string): LoopDelayProbe {
  if (typeof options !== 'object' || options === null) throw invalidOption(field, 'must be an object with maxMs', options);
  refuseUnknownFields(options, EVENT_LOOP_DELAY_FIELDS, `${field}.`);
  if (options.maxMs === undefined) throw invalidOption(`${field}.maxMs`, 'is required', options.maxMs);
  const maxMs = numberWithin(options.maxMs, [0, Number.MAX_SAFE_INTEGER], `${field}.maxMs`, 0);
  const percentile = numberWithin(options.percentile, [0, 100], `${field}.percentile`, 99);
  const intervalMs = numberWithin(options.intervalMs, [1, Number.MAX_SAFE_INTEGER], `${field}.intervalMs`, 500);
  const resolutionMs = numberWithin(options.resolutionMs, [1, 10_000], `${field}.resolutionMs`, 10);
  const histogram = monitorEventLoopDelay({ resolution: Math.round(resolutionMs) });
  histogram.enable();
  let readAt: number | undefined;
  let current = 0;
  return {
    maxMs,
    delayMs(now) {
      if (readAt === undefined) readAt = now;
      else if (now - readAt >= intervalMs) {
        // The histogram is in nanoseconds; with nothing recorded it reads 0.
        current = histogram.count === 0 ? 0 : histogram.percentile(percentile) / 1e6;
        histogram.reset();
        readAt = now;
      }
      return current;
    },
    close: () => histogram.disable(),
  };
}
