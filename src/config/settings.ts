import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { toBool, validateEnv } from './validate-env';

/**
 * Settings declared as data rather than as an env class: for modules that must not be listed here
 * (a provider plugin declares its own, `src/providers/`), while reading and validating the
 * environment stays in `src/config/`. A declared setting goes through `validateEnv` with the same
 * class-validator rules and messages as the namespaces of this folder, and is listed in
 * `.env.example` from its declaration (`envExampleLine`).
 */

/** One environment variable: its name, its rules, its default, and its line in `.env.example`. */
export interface Setting<T> {
  /** The variable's name (`X_CLIENT_ID`). Declared, never derived: TikTok's client id is `TIKTOK_CLIENT_KEY`. */
  readonly env: string;
  /** The comment of its line in `.env.example`; after a newline, further comment lines. */
  readonly description: string;
  /** Its value in `.env.example`: the default, '' when it has none. */
  readonly example: string;
  /** class-validator rules (and class-transformer conversions) the raw value passes. */
  readonly rules: readonly PropertyDecorator[];
  /** What the rules see when the variable is unset or empty. */
  readonly fallback: unknown;
  /** The value from what passed the rules. */
  read(value: unknown): T;
}

/** Settings by the name their reader uses (`clientId`), each naming its variable. */
export type SettingsSpec = Readonly<Record<string, Setting<unknown>>>;

/** The values of a spec's settings, typed by the spec. */
export type SettingsOf<S extends SettingsSpec> = { [K in keyof S]: S[K] extends Setting<infer T> ? T : never };

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

const optionalString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Builders of the usual kinds of setting. */
export const setting = {
  /** Optional text (an app's client id or secret); null when unset. */
  text(env: string, description = ''): Setting<string | null> {
    return {
      env,
      description,
      example: '',
      rules: [IsOptional(), IsString()],
      fallback: undefined,
      read: optionalString,
    };
  },

  /** Optional http(s) URL (a host override); null when unset, trailing slashes removed. */
  url(env: string, description = ''): Setting<string | null> {
    return {
      env,
      description,
      example: '',
      rules: [IsOptional(), IsUrl(URL_OPTIONS)],
      fallback: undefined,
      read: (value) => optionalString(value)?.replace(/\/+$/, '') ?? null,
    };
  },

  /** Text matching `pattern` (`message` says how), with a default. */
  matches(env: string, o: { pattern: RegExp; message: string; default: string; description: string }): Setting<string> {
    return {
      env,
      description: o.description,
      example: o.default,
      rules: [Matches(o.pattern, { message: o.message })],
      fallback: o.default,
      read: (value) => String(value),
    };
  },

  /** Optional list, each item separated by `separator`, the whole matching `pattern`; null when unset. */
  list(
    env: string,
    o: { pattern: RegExp; message: string; separator: string; description: string },
  ): Setting<string[] | null> {
    return {
      env,
      description: o.description,
      example: '',
      rules: [IsOptional(), Matches(o.pattern, { message: o.message })],
      fallback: undefined,
      read: (value) => optionalString(value)?.split(o.separator) ?? null,
    };
  },

  /** Whole number within bounds, with a default. */
  int(env: string, o: { default: number; min?: number; max?: number; description: string }): Setting<number> {
    const rules: PropertyDecorator[] = [Type(() => Number), IsInt()];
    if (o.min !== undefined) rules.push(Min(o.min));
    if (o.max !== undefined) rules.push(Max(o.max));
    return {
      env,
      description: o.description,
      example: String(o.default),
      rules,
      fallback: o.default,
      read: Number,
    };
  },

  /** `true/false/1/0/yes/no/on/off`, with a default. */
  bool(env: string, o: { default: boolean; description: string }): Setting<boolean> {
    return {
      env,
      description: o.description,
      example: String(o.default),
      rules: [Transform(toBool), IsBoolean()],
      fallback: o.default,
      read: (value) => value === true,
    };
  },
};

/**
 * Reads and validates settings from the environment (`process.env` after `.env`, see validateEnv),
 * all at once: a ConfigValidationError names every bad variable. A variable declared by several
 * readers must be the same declaration. Returns the values by variable name.
 */
export function readSettings(settings: Iterable<Setting<unknown>>, env?: NodeJS.ProcessEnv): Map<string, unknown> {
  const byEnv = new Map<string, Setting<unknown>>();
  for (const s of settings) {
    const known = byEnv.get(s.env);
    if (known && known !== s) throw new Error(`Invalid configuration: ${s.env} is declared twice, differently`);
    byEnv.set(s.env, s);
  }
  const declared = [...byEnv.values()];
  if (declared.length === 0) return new Map();
  class DeclaredEnv {
    constructor() {
      for (const s of declared) (this as Record<string, unknown>)[s.env] = s.fallback;
    }
  }
  for (const s of declared) for (const rule of s.rules) rule(DeclaredEnv.prototype, s.env);
  const values = validateEnv(DeclaredEnv, env) as Record<string, unknown>;
  return new Map(declared.map((s) => [s.env, s.read(values[s.env])]));
}

/** The values of one spec, from what readSettings returned. */
export function settingsOf<S extends SettingsSpec>(spec: S, values: ReadonlyMap<string, unknown>): SettingsOf<S> {
  return Object.fromEntries(Object.entries(spec).map(([key, s]) => [key, values.get(s.env)])) as SettingsOf<S>;
}

/** Column at which `.env.example` comments start, when the assignment leaves room. */
const COMMENT_COLUMN = 32;

/** The setting's lines in `.env.example`: `NAME=default` and its description as comments. */
export function envExampleLines(s: Setting<unknown>): string[] {
  const assignment = `${s.env}=${s.example}`;
  const [first, ...more] = s.description ? s.description.split('\n') : [];
  if (first === undefined) return [assignment];
  const pad = assignment.length <= COMMENT_COLUMN - 2 ? assignment.padEnd(COMMENT_COLUMN) : `${assignment}  `;
  return [`${pad}# ${first}`, ...more.map((line) => `${' '.repeat(COMMENT_COLUMN)}# ${line}`)];
}
