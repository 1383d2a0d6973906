// An open-loop load generator: Poisson arrivals at a rate set per phase, each request sent when
// its time comes whatever happened to the earlier ones, abandoned by its client after a timeout.
import http from 'node:http';

export interface Phase {
  factor: number;
  durationMs: number;
}

export interface Sent {
  phase: number;
  /** When it was sent, ms since the run began. */
  atMs: number;
  critical: boolean;
  /** The status, or undefined when the client gave up (timeout) or the connection failed. */
  status: number | undefined;
  latencyMs: number;
}

export interface LoadOptions {
  port: number;
  phases: Phase[];
  capacity: number;
  /** Critical traffic, as a multiple of capacity (at most the phase's load): the rest is batch. */
  critical: number;
  timeoutMs: number;
  priorityHeader: string;
  random: () => number;
}

const TICK_MS = 2;

/** Sends the phases' arrivals and resolves with every request once the last has answered or timed out. */
export async function offerLoad(options: LoadOptions): Promise<Sent[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const pending: Promise<Sent>[] = [];
  const startedAt = performance.now();
  let phaseStart = 0;
  for (const [index, phase] of options.phases.entries()) {
    const rate = (phase.factor * options.capacity) / 1000;
    const criticalShare = Math.min(options.critical, phase.factor) / phase.factor;
    let nextAt = phaseStart + exponential(options.random, rate);
    while (nextAt < phaseStart + phase.durationMs) {
      const now = performance.now() - startedAt;
      if (nextAt > now) await sleep(Math.min(TICK_MS, nextAt - now));
      while (nextAt <= performance.now() - startedAt && nextAt < phaseStart + phase.durationMs) {
        const critical = options.random() < criticalShare;
        pending.push(send(agent, options, index, critical, startedAt));
        nextAt += exponential(options.random, rate);
      }
    }
    phaseStart += phase.durationMs;
  }
  const sent = await Promise.all(pending);
  agent.destroy();
  return sent;
}

function send(agent: http.Agent, options: LoadOptions, phase: number, critical: boolean, startedAt: number): Promise<Sent> {
  const sentAt = performance.now();
  const headers = { [options.priorityHeader]: critical ? 'critical' : 'batch' };
  return new Promise((resolve) => {
    let done = false;
    const finish = (status: number | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ phase, atMs: sentAt - startedAt, critical, status, latencyMs: performance.now() - sentAt });
    };
    const req = http.get({ host: '127.0.0.1', port: options.port, path: '/work', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => finish(res.statusCode));
    });
    req.on('error', () => finish(undefined));
    const timer = setTimeout(() => {
      finish(undefined);
      req.destroy();
    }, options.timeoutMs);
  });
}

const exponential = (random: () => number, ratePerMs: number) => -Math.log(1 - random()) / ratePerMs;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
