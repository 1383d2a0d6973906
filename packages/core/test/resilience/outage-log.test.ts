import { describe, expect, it, vi } from 'vitest';
import { createLimiter, type Logger, TollgateError } from '../../src/index.js';
import { ControlledStore } from '../helpers/controlled-store.js';

function recordingLogger() {
  return { warn: vi.fn<Logger['warn']>(), error: vi.fn<Logger['error']>() };
}

describe('a store outage in the log', () => {
  it('is one error line per outage, whatever the number of failed calls; a success ends the outage', async () => {
    const store = new ControlledStore();
    const logger = recordingLogger();
    const limiter = createLimiter({ qps: 10, store, breaker: false, logger, rule: 'api' });
    store.mode = 'reject';
    for (let i = 0; i < 5; i++) expect(await limiter.consume('a')).toMatchObject({ allowed: true, source: 'policy' });
    expect(logger.error).toHaveBeenCalledTimes(1);
    const [message, error] = logger.error.mock.calls[0]!;
    expect(message).toMatch(
      /^tollgate: the store of rule "api" failed \(store call failed: .+\); allowing requests without limiting them until it answers again$/,
    );
    expect(error).toBeInstanceOf(TollgateError);
    store.mode = 'ok';
    expect(await limiter.consume('a')).toMatchObject({ source: 'store' });
    store.mode = 'reject';
    await limiter.consume('a');
    await limiter.consume('a');
    expect(logger.error).toHaveBeenCalledTimes(2);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it("says what answers meanwhile under 'closed', and goes to console by default", async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const logger = recordingLogger();
    await createLimiter({ qps: 10, store, breaker: false, logger, onStoreError: 'closed' }).consume('a');
    expect(logger.error.mock.calls[0]![0]).toMatch(/refusing requests until it answers again$/);
    const console = vi.spyOn(globalThis.console, 'error').mockImplementation(() => {});
    try {
      await createLimiter({ qps: 10, store, breaker: false }).consume('a');
      expect(console).toHaveBeenCalledTimes(1);
    } finally {
      console.mockRestore();
    }
  });

  it('refuses a logger without warn and error', () => {
    expect(() => createLimiter({ qps: 10, logger: { info() {} } as never })).toThrow(
      expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'logger' }),
    );
  });
});
