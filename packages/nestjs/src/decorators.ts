import { SetMetadata } from '@nestjs/common';
import type { RateLimitRules } from './options.js';
import { RATE_LIMIT_RULE, SKIP_RATE_LIMIT } from './tokens.js';

/**
 * Limits a controller (one budget shared by its handlers) or a handler (its own budget; overrides
 * the controller's). Several rules are checked in order; the first to reject answers the request.
 */
export const RateLimit = (rules: RateLimitRules): ClassDecorator & MethodDecorator => SetMetadata(RATE_LIMIT_RULE, rules);

/** Exempts a controller or a handler. On a controller, a handler's own `@RateLimit()` still applies. */
export const SkipRateLimit = (): ClassDecorator & MethodDecorator => SetMetadata(SKIP_RATE_LIMIT, true);
