/**
 * max(1, floor(log10(n))): the step size Vegas scales with its limit. The same function as
 * Netflix concurrency-limits' `Log10RootIntFunction` (limit/functions/Log10RootIntFunction.java),
 * whose lookup table gives 1 below 1000 (log10 of 0 included).
 */
export function log10Root(n: number): number {
  return n < 1000 ? Math.max(1, Math.floor(Math.log10(Math.max(1, n)))) : Math.floor(Math.log10(n));
}
