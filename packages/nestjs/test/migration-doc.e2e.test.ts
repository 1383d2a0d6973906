import { Controller, Get } from '@nestjs/common';
import { createHttpLimiter, createLimiter } from '@tollgate/core';
import { markdownSample } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { RateLimit, RateLimitModule } from '../src/index.js';
import { startApp } from './helpers/apps.js';

const DOC = new URL('../../../docs/MIGRATION.md', import.meta.url);

/** The message a call is refused with, as `String(error)` shows it. */
async function refusal(call: () => unknown): Promise<string> {
  try {
    await call();
  } catch (error) {
    return String(error);
  }
  throw new Error('the call was not refused');
}

@Controller('named')
class NamedController {
  @Get()
  @RateLimit({ default: { limit: 3, ttl: 60_000 } } as never)
  handle() {
    return 'done';
  }
}

describe("docs/MIGRATION.md's refusals (the options each line's library takes, pasted)", () => {
  it('are the messages Tollgate refuses them with (a sample line ending in … shows their start)', async () => {
    const refusals = await Promise.all([
      refusal(() => createHttpLimiter({ windowMs: 60_000, limit: 5, standardHeaders: true } as never)),
      refusal(() => createHttpLimiter({ windowMs: 60_000, limit: 5, keyGenerator: () => 'k' } as never)),
      refusal(() => startApp('express', { imports: [RateLimitModule.forRoot([{ ttl: 60_000, limit: 10 }] as never)] })),
      refusal(() => startApp('express', { imports: [RateLimitModule.forRoot({})], controllers: [NamedController] })),
      refusal(() => createLimiter({ points: 5, duration: 60 } as never)),
      refusal(() => createLimiter({ algorithm: 'fixed-window', limit: 5, window: 60 })),
    ]);
    const sample = markdownSample(DOC, 'refusals');
    const elided = (line: string) => line.replace(/ \(…\)$/, '').replace(/; … \(got [^)]*\)$/, '');
    expect(refusals.map((message, i) => (sample[i]!.includes('…') ? message.slice(0, elided(sample[i]!).length) : message))).toEqual(
      sample.map(elided),
    );
  });
});
