import { ConsoleLogger, LogLevel } from '@nestjs/common';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
const BY_NAME: Record<string, LogLevel> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  info: 'log',
  debug: 'debug',
  trace: 'verbose',
};

/** A JSON logger that writes every line to stderr (the CLI keeps stdout for its JSON output). */
class StderrLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _stream?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack);
  }
}

/** Structured JSON logs at LOG_LEVEL (`info` is Nest's `log`, `silent` prints nothing). */
export function createLogger(level: string, toStderr = false): ConsoleLogger {
  const cut = level === 'silent' ? -1 : LEVELS.indexOf(BY_NAME[level] ?? 'log');
  const options = { json: true, logLevels: LEVELS.slice(0, cut + 1), colors: false };
  return toStderr ? new StderrLogger(options) : new ConsoleLogger(options);
}
