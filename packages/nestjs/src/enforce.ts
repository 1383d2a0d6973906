import type { ExecutionContext } from '@nestjs/common';
import { requestRateLimit } from '@tollgate/core';
import { invocationOf } from './context-exchange.js';
import { ClientClosedRequestException, RateLimitRejectedException } from './exceptions.js';
import type { PassVerdict, RateLimitExchange, RejectVerdict } from './exchange.js';
import type { RouteRule } from './options.js';
import { forwardedButUntrusted } from './proxy-check.js';

/** What the guard and the interceptor share: which rules apply, and whether one already ran on this request. */
export interface RuleSource {
  /** True when `rule` already checked this invocation (its arguments array): a request counts once per rule. */
  checkedBefore(invocation: object, rule: RouteRule): boolean;
  /** Lets a rule's `errorMessage` see the execution context of the request it answers. */
  enter(context: ExecutionContext, request: unknown): void;
  /** True when an exception filter of the app would render `exception` thrown on this route. */
  caughtByAppFilter(context: ExecutionContext, exception: Error): boolean;
}

/**
 * Checks `rules` in order for one request: sets the decision on the request and the headers on
 * the response, holds shaped requests, and on the first rejection throws
 * `RateLimitRejectedException`, an `HttpException`, through Nest's exception filters: an app's
 * filter that catches it renders the 429 (the rate-limit headers are set); without one it is
 * answered here as the options say (or by the rule's `handler`), and the exception only stops
 * Nest's pipeline.
 */
export async function enforce(
  rules: readonly RouteRule[],
  exchange: RateLimitExchange,
  context: ExecutionContext,
  source: RuleSource,
): Promise<void> {
  const invocation = invocationOf(context);
  source.enter(context, exchange.info.raw);
  for (const rule of rules) {
    if (source.checkedBefore(invocation, rule)) continue;
    if (rule.untrustedProxy !== undefined && forwardedButUntrusted(exchange.info.raw)) rule.untrustedProxy();
    const verdict = await rule.check(exchange.info);
    if (verdict.action === 'skip') continue;
    exchange.record?.(
      requestRateLimit(verdict.decision, verdict.key, verdict.action === 'pass' ? verdict.held : undefined),
      rule.requestPropertyName ?? 'rateLimit',
    );
    if (verdict.action === 'reject') {
      const exception = new RateLimitRejectedException(verdict);
      if (rule.handler === undefined && source.caughtByAppFilter(context, exception)) exchange.setHeaders(verdict.headers, rule);
      else await reject(rule, exchange, verdict);
      throw exception;
    }
    await pass(rule, exchange, verdict);
  }
}

async function reject(rule: RouteRule, exchange: RateLimitExchange, verdict: RejectVerdict): Promise<void> {
  if (rule.handler === undefined) {
    await exchange.reject(verdict, rule);
    return;
  }
  // The handler answers (or throws an exception of its own, which Nest's filters render).
  exchange.setHeaders(verdict.headers, rule);
  await rule.handler(exchange.info.raw, exchange.response, verdict);
}

/**
 * Sets the headers, settles when the response is done, and holds a shaped request for its
 * delay. The hold is our own (not core's `holdUnlessClosed`): an exchange need not be a Node
 * response, it only reports when it is done.
 */
async function pass(rule: RouteRule, exchange: RateLimitExchange, verdict: PassVerdict): Promise<void> {
  exchange.setHeaders(verdict.headers, rule);
  if (verdict.delayMs <= 0) {
    exchange.onDone(verdict.settle);
    return;
  }
  let closedEarly = false;
  let wake: (() => void) | undefined;
  exchange.onDone((statusCode, response) => {
    verdict.settle(statusCode, response);
    if (statusCode === undefined) {
      closedEarly = true;
      wake?.();
    }
  });
  if (!closedEarly) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, verdict.delayMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  if (closedEarly) throw new ClientClosedRequestException();
}
