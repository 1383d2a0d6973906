import { describe } from 'vitest';
import { useBackends } from './per-file-servers.js';
import type { TracedRule } from './trace.js';
import { virtualLimiter } from './virtual-limiter.js';

export type TraceLimiter = ReturnType<typeof virtualLimiter>;

/**
 * Reference traces, once per store: memory, a redis-server and a 3-master cluster, started for
 * the calling file. `setup(rule)` builds a limiter on that store under a virtual clock.
 */
export function describeTraces(subject: string, body: (setup: (rule: TracedRule) => TraceLimiter) => void): void {
  const storeNamed = useBackends();
  describe.each(['memory', 'redis', 'cluster'] as const)(`${subject} on the %s store`, (name) => {
    body((rule) => virtualLimiter(storeNamed(name), rule));
  });
}
