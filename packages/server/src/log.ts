import type { Logger } from '@tollgate/core';

/** A `Logger` that also takes informational lines (console, pino and winston loggers do). */
export interface ServerLogger extends Logger {
  info(message: string): void;
}

/** The logger's `info`, or nothing when it has none. */
export function infoOf(logger: Logger): (message: string) => void {
  const info = (logger as Partial<ServerLogger>).info;
  return typeof info === 'function' ? info.bind(logger) : () => {};
}

/**
 * Structured logs: one JSON object per line (`time`, `level`, `msg`, and `err` with the error's
 * `name`, `message` and `code`), written to `write` (default: standard output).
 */
export function jsonLogger(write: (line: string) => void = (line) => process.stdout.write(line)): ServerLogger {
  const log = (level: string, msg: string, error?: unknown) => {
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, msg };
    if (error !== undefined) entry.err = errorFields(error);
    write(`${JSON.stringify(entry)}\n`);
  };
  return {
    info: (message) => log('info', message),
    warn: (message) => log('warn', message),
    error: (message, error) => log('error', message, error),
  };
}

function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, field } = error as { code?: unknown; field?: unknown };
  return { name: error.name, message: error.message, ...(code === undefined ? {} : { code }), ...(field === undefined ? {} : { field }) };
}
