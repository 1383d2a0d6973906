// A service with bounded capacity, in virtual time: `cores` requests run at full speed; past
// that they share the cores (processor sharing) and contention (context switches, cache and
// pool thrashing) costs `contention` of the throughput per extra request, so an overloaded
// service does less work, not just slower work: the collapse a limiter has to prevent.

/** A min-heap of numbers with a payload, by key. */
export class Heap<T> {
  private readonly items: { key: number; value: T }[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): { key: number; value: T } | undefined {
    return this.items[0];
  }

  push(key: number, value: T): void {
    const items = this.items;
    items.push({ key, value });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.key <= items[i]!.key) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  pop(): { key: number; value: T } | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < items.length && items[left]!.key < items[smallest]!.key) smallest = left;
        if (right < items.length && items[right]!.key < items[smallest]!.key) smallest = right;
        if (smallest === i) break;
        [items[smallest], items[i]] = [items[i]!, items[smallest]!];
        i = smallest;
      }
    }
    return top;
  }
}

export interface ServiceModel {
  /** Requests served at full speed at once. */
  cores: number;
  /** Share of throughput lost per request in service beyond `cores`. */
  contention: number;
}

/**
 * Processor sharing with a virtual "service clock": every request in service progresses at the
 * same rate, so each is kept by the service clock value at which its work is done.
 */
export class Service<T> {
  private served = 0; // work done per request since the start, in ms of work
  private readonly running = new Heap<T>();

  constructor(private readonly model: ServiceModel) {}

  get active(): number {
    return this.running.size;
  }

  /** Work per request per ms of real time, with `n` requests in service. */
  private rate(n: number): number {
    const { cores, contention } = this.model;
    if (n <= cores) return 1;
    return cores / n / (1 + contention * (n - cores));
  }

  start(workMs: number, value: T): void {
    this.running.push(this.served + workMs, value);
  }

  /** When the next request finishes, from `now`; Infinity when none runs. */
  nextFinish(now: number): number {
    const next = this.running.peek();
    return next === undefined ? Number.POSITIVE_INFINITY : now + (next.key - this.served) / this.rate(this.running.size);
  }

  /** Moves the service on by `dt` ms (no request finishing within it). */
  advance(dt: number): void {
    if (this.running.size > 0) this.served += dt * this.rate(this.running.size);
  }

  /** Takes the request whose work is done. */
  finish(): T {
    const done = this.running.pop()!;
    this.served = done.key;
    return done.value;
  }
}
