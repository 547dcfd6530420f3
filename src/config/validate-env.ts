import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { loadEnvFile } from './env-file';

/** Thrown at start-up when an environment variable is missing or malformed; names every bad variable. */
export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigValidationError';
  }
}

type Ctor<T> = new () => T;

/**
 * Reads `process.env` into a class whose properties carry defaults and class-validator rules.
 * Empty strings count as unset, so `FOO=` in `.env` falls back to the default. The first call loads
 * `.env` (see env-file.ts), so no value is read before the file is.
 */
export function validateEnv<T extends object>(cls: Ctor<T>, env?: NodeJS.ProcessEnv): T {
  loadEnvFile();
  env ??= process.env;
  const defaults = new cls() as Record<string, unknown>;
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(defaults)) {
    const value = env[key];
    raw[key] = value === undefined || value === '' ? defaults[key] : value;
  }
  const instance = plainToInstance(cls, raw, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: false, skipMissingProperties: false });
  if (errors.length > 0) {
    throw new ConfigValidationError(
      errors.map(
        (e) =>
          `${e.property}=${JSON.stringify(env[e.property] ?? '')}: ${Object.values(e.constraints ?? {}).join(', ')}`,
      ),
    );
  }
  return instance;
}

/**
 * `true/false/1/0/yes/no` as boolean; anything else is left as is so the validator names it.
 * Reads the raw source value: implicit conversion would already have turned 'false' into true.
 */
export function toBool({ obj, key }: { obj: Record<string, unknown>; key: string }): unknown {
  const value = obj[key];
  if (typeof value === 'boolean') return value;
  const v = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return value;
}
