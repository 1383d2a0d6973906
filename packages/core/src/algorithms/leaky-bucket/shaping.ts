import { MAX_SPAN_MS } from '../fields.js';
import { heldByCharge, unitsBack } from '../refund.js';
import type { Charge, StepResult } from '../types.js';

export interface ShapingParams {
  mode: 'shaping';
  /** Time between two departures, in whole microseconds. */
  intervalUs: number;
  /** The longest a request may be held. */
  maxDelayUs: number;
  /** Requests admissible at once into an empty queue: floor(maxDelay / interval) + 1. */
  capacity: number;
}

/** When the queue is free again: the departure slot of the next request, in epoch microseconds. */
export type ShapingState = number;

/**
 * The shaper: a request takes the next free departure slot and waits for it (`delayMs`),
 * unless that wait exceeds `maxDelay`. A request of cost n takes n consecutive slots and
 * leaves at the first.
 */
export function shapingStep(
  nextFreeUs: ShapingState | undefined,
  nowMs: number,
  { intervalUs, maxDelayUs, capacity }: ShapingParams,
  cost: number,
): StepResult<ShapingState> {
  const nowUs = nowMs * 1000;
  const startUs = nextFreeUs === undefined || nextFreeUs < nowUs ? nowUs : nextFreeUs;
  const waitUs = startUs - nowUs;
  const remaining = slotsWithin(waitUs, maxDelayUs, intervalUs);
  if (cost > capacity || waitUs > maxDelayUs) {
    const retryAfterMs = cost > capacity ? Infinity : Math.ceil((waitUs - maxDelayUs) / 1000);
    return { allowed: false, remaining, resetAfterMs: Math.ceil(waitUs / 1000), retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
  }
  const next = startUs + cost * intervalUs;
  const resetAfterMs = Math.ceil((next - nowUs) / 1000);
  return {
    allowed: true,
    remaining: slotsWithin(next - nowUs, maxDelayUs, intervalUs),
    resetAfterMs,
    retryAfterMs: 0,
    delayMs: Math.ceil(waitUs / 1000),
    next,
    ttlMs: resetAfterMs,
  };
}

/** Gives back the `cost` last slots, but never a slot already past; with a charge, at most its slots not yet past. */
export function shapingRefund(
  nextFreeUs: ShapingState | undefined,
  nowMs: number,
  { intervalUs }: ShapingParams,
  cost: number,
  charge?: Charge,
): { state: ShapingState; ttlMs: number } | undefined {
  const nowUs = nowMs * 1000;
  const backUs = Math.min(unitsBack(cost, charge) * intervalUs, heldByCharge(charge, nowMs, intervalUs, 1000));
  if (nextFreeUs === undefined || nextFreeUs <= nowUs || backUs <= 0) return undefined;
  const freed = Math.max(nowUs, nextFreeUs - backUs);
  return { state: freed, ttlMs: Math.ceil((freed - nowUs) / 1000) };
}

/** Takes the `cost` next departure slots, even beyond `maxDelay` (up to 50 years ahead): later requests queue behind them. */
export function shapingPenalty(
  nextFreeUs: ShapingState | undefined,
  nowMs: number,
  { intervalUs }: ShapingParams,
  cost: number,
): { state: ShapingState; ttlMs: number } {
  const nowUs = nowMs * 1000;
  const startUs = nextFreeUs === undefined || nextFreeUs < nowUs ? nowUs : nextFreeUs;
  const next = Math.min(startUs + cost * intervalUs, Math.max(startUs, nowUs + MAX_SPAN_MS * 1000));
  return { state: next, ttlMs: Math.ceil((next - nowUs) / 1000) };
}

/** Requests of cost 1 that would still be admitted when the queue is `waitUs` long. */
function slotsWithin(waitUs: number, maxDelayUs: number, intervalUs: number): number {
  return waitUs > maxDelayUs ? 0 : Math.floor((maxDelayUs - waitUs) / intervalUs) + 1;
}
