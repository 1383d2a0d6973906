import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { RequestHandler } from 'express';

/**
 * Load shedding on event-loop delay as `@fastify/under-pressure` does it (index.js: a
 * `monitorEventLoopDelay` histogram read every `sampleInterval`, delay = mean − resolution, 503
 * while it is above `maxEventLoopDelay`), as Express middleware for the comparison.
 */
export function eventLoopShedding({
  maxEventLoopDelayMs,
  sampleIntervalMs = 1000,
  resolutionMs = 10,
}: {
  maxEventLoopDelayMs: number;
  sampleIntervalMs?: number;
  resolutionMs?: number;
}): { middleware: RequestHandler; close(): void } {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  let delayMs = 0;
  const timer = setInterval(() => {
    delayMs = Math.max(0, histogram.mean / 1e6 - resolutionMs);
    histogram.reset();
  }, sampleIntervalMs);
  timer.unref();
  const middleware: RequestHandler = (_req, res, next) => {
    if (delayMs <= maxEventLoopDelayMs) return next();
    res.statusCode = 503;
    res.setHeader('retry-after', '10');
    res.end('Service Unavailable');
  };
  const close = () => {
    clearInterval(timer);
    histogram.disable();
  };
  return { middleware, close };
}
