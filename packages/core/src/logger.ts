/**
 * Where Tollgate reports what deserves an operator's attention without failing a request: a
 * store outage answered by the failure mode, a setup that shares one budget between clients.
 * `console` fits; so does a pino or winston logger (their `warn` and `error` take a message).
 */
export interface Logger {
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}
