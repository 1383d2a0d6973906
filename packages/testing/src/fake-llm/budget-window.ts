/**
 * The fake upstream's own budget: `size` units per fixed window of `windowMs`, charged with what
 * each call actually used once it ends. A call is let in while anything of the window is left.
 */
export class BudgetWindow {
  private windowStart: number;
  private spentInWindow = 0;

  constructor(
    readonly size: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = this.now();
  }

  remaining(): number {
    this.roll();
    return Math.max(0, this.size - this.spentInWindow);
  }

  /** Milliseconds until the window ends and the budget is whole again. */
  resetMs(): number {
    this.roll();
    return this.windowStart + this.windowMs - this.now();
  }

  charge(units: number): void {
    this.roll();
    this.spentInWindow += units;
  }

  private roll(): void {
    const elapsed = this.now() - this.windowStart;
    if (elapsed < this.windowMs) return;
    this.windowStart += Math.floor(elapsed / this.windowMs) * this.windowMs;
    this.spentInWindow = 0;
  }
}
