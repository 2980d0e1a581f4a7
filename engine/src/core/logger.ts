/** Minimal structured logger (pino-compatible): what every layer may log through. */
export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
}

/** A logger that drops everything (tests, tools that print nothing). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };
