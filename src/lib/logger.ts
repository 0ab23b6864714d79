// Minimal structured-logger shape (pino-compatible) so engines and services log without depending on Fastify.

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
};
