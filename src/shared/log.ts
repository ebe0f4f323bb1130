/**
 * Operator logging: one JSON line per record to the process's log file, tagged by module.
 * CLI output for people never goes through here.
 */
import { appendFileSync } from 'node:fs';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

let destination: string | undefined;

export function setLogFile(path: string): void {
  destination = path;
}

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export function createLogger(service: string): Logger {
  const write = (level: LogLevel, msg: string, data?: Record<string, unknown>): void => {
    if (destination === undefined) return;
    const record = { time: new Date().toISOString(), level, service, msg, ...data };
    try {
      appendFileSync(destination, JSON.stringify(record) + '\n');
    } catch {
      // Logging must never take the process down.
    }
  };
  return {
    debug: (msg, data) => write('debug', msg, data),
    info: (msg, data) => write('info', msg, data),
    warn: (msg, data) => write('warn', msg, data),
    error: (msg, data) => write('error', msg, data),
  };
}
