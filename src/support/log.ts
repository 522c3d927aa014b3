/**
 * How modules report what an operator should know, without depending on a logger library:
 * the hub hands them a function backed by pino (src/logging.ts), tests a recorder.
 */
export type LogFunction = (level: 'warn' | 'error' | 'info', message: string, details?: Record<string, unknown>) => void;
