/** A clock tests move by hand: time passes only when the test says so. */
export class VirtualClock {
  constructor(private nowMs = Date.UTC(2026, 0, 1)) {}

  readonly now = (): number => this.nowMs;

  advance(ms: number): void {
    this.nowMs += ms;
  }

  set(ms: number): void {
    this.nowMs = ms;
  }
}
