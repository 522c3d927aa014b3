import { pino, type Logger } from 'pino';
import type { LogFunction } from './support/log.js';

/**
 * The hub's logger. Request headers are never logged, and the redaction below is a second
 * line of defence for anything that looks like a credential.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { name: 'a2a-hub' },
    redact: { paths: ['token', '*.token', 'authorization', '*.authorization', 'headers.authorization'], censor: '[redacted]' },
  });
}

export function logFunction(logger: Logger): LogFunction {
  return (level, message, details) => logger[level](details ?? {}, message);
}
