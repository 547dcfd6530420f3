import { ConsoleLogger, LogLevel } from '@nestjs/common';

/** Nest's level names, most severe first, and the standard names we print and accept in LOG_LEVEL. */
const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
const FROM_NAME: Record<string, LogLevel> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  info: 'log',
  debug: 'debug',
  trace: 'verbose',
};
const TO_NAME: Record<LogLevel, string> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerOptions {
  /** Write every line to stderr (the CLI keeps stdout for its JSON output). */
  toStderr?: boolean;
  /** `json`, `pretty`, or `auto`: pretty when the output stream is a terminal, JSON otherwise. */
  format?: LogFormat;
}

/** One log record: `time` (ISO 8601 UTC), `level` (standard name), `context`, `msg`, then fields. */
export function logRecord(
  level: LogLevel,
  message: unknown,
  context: string | undefined,
  stack?: unknown,
  now = new Date(),
): Record<string, unknown> {
  const record: Record<string, unknown> = { time: now.toISOString(), level: TO_NAME[level] ?? level };
  if (context) record.context = context;
  if (message !== null && typeof message === 'object' && !(message instanceof Error)) {
    Object.assign(record, message);
  } else if (message instanceof Error) {
    record.msg = message.message;
    record.stack = message.stack;
  } else {
    record.msg = message;
  }
  if (typeof stack === 'string' && stack) record.stack = stack;
  return record;
}

/** `2026-11-23T10:00:00.000Z INFO  [Context] message key=value` for a person at a terminal. */
export function prettyLine(record: Record<string, unknown>): string {
  const { time, level, context, msg, stack, ...fields } = record;
  const parts = [String(time), String(level).toUpperCase().padEnd(5)];
  if (typeof context === 'string' && context) parts.push(`[${context}]`);
  if (msg !== undefined) parts.push(typeof msg === 'string' ? msg : JSON.stringify(msg));
  for (const [key, value] of Object.entries(fields)) {
    parts.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return typeof stack === 'string' ? `${parts.join(' ')}\n${stack}` : parts.join(' ');
}

/** Nest's ConsoleLogger with our record shape: JSON lines, or readable lines on a terminal. */
class AppLogger extends ConsoleLogger {
  constructor(
    logLevels: LogLevel[],
    private readonly toStderr: boolean,
    private readonly format: LogFormat,
  ) {
    super({ logLevels, colors: false });
  }

  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel: LogLevel = 'log',
    writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    const stream = this.toStderr ? process.stderr : process[writeStreamType ?? 'stdout'];
    const pretty = this.format === 'pretty' || (this.format === 'auto' && stream.isTTY === true);
    for (const message of messages) {
      const record = logRecord(logLevel, message, context, errorStack);
      stream.write(`${pretty ? prettyLine(record) : safeJson(record)}\n`);
    }
  }
}

function safeJson(record: Record<string, unknown>): string {
  try {
    return JSON.stringify(record);
  } catch {
    return JSON.stringify({ time: record.time, level: record.level, context: record.context, msg: String(record.msg) });
  }
}

/** The logger of every process at LOG_LEVEL (`fatal` .. `trace`, or `silent` for nothing). */
export function createLogger(level: string, options: LoggerOptions = {}): ConsoleLogger {
  const cut = level === 'silent' ? -1 : LEVELS.indexOf(FROM_NAME[level] ?? 'log');
  return new AppLogger(LEVELS.slice(0, cut + 1), options.toStderr ?? false, options.format ?? 'auto');
}
