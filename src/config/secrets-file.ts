import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseEnv } from 'node:util';

/** The secrets the service generates when it is not given them (outside production). */
export const GENERATED_SECRETS = ['APP_ENCRYPTION_KEY', 'MEDIA_URL_SIGNING_KEYS'] as const;
export type GeneratedSecret = (typeof GENERATED_SECRETS)[number];

export interface SecretsFile {
  /** Absolute path of the file. */
  path: string;
  values: Record<GeneratedSecret, string>;
  /** True in the process that created the file (it says so in its log). */
  created: boolean;
  /** The file can be read by other users than its owner (it was made 0600; someone changed it). */
  readableByOthers: boolean;
}

const FORMAT: Record<GeneratedSecret, RegExp> = {
  APP_ENCRYPTION_KEY: /^[0-9a-f]{64}$/,
  MEDIA_URL_SIGNING_KEYS: /^[0-9a-f]{64}$/,
};

const opened = new Map<string, SecretsFile>();

function freshContent(): string {
  return [
    `# Written by the Social Publishing Service on ${new Date().toISOString()}, on a start without`,
    '# APP_ENCRYPTION_KEY / MEDIA_URL_SIGNING_KEYS: random keys, read again on every later start.',
    "# Keep this file private and in your backups: APP_ENCRYPTION_KEY seals the channels' credentials",
    '# and webhook secrets, which cannot be read without it. Variables set in the environment win.',
    ...GENERATED_SECRETS.map((name) => `${name}=${randomBytes(32).toString('hex')}`),
    '',
  ].join('\n');
}

/** Creates `path` with `content` (mode 0600) unless it exists; atomic: a reader never sees half a file. */
function createOnce(path: string, content: string): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temporary, 0o600); // whatever the umask
    linkSync(temporary, path); // fails with EEXIST when another process was first
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw err;
    // A file system without hard links: an exclusive create (a concurrent reader may retry).
    try {
      writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    try {
      unlinkSync(temporary);
    } catch {
      // already gone
    }
  }
}

function readValues(path: string): Record<GeneratedSecret, string> {
  const parsed = parseEnv(readFileSync(path, 'utf8'));
  const values = {} as Record<GeneratedSecret, string>;
  for (const name of GENERATED_SECRETS) {
    const value = parsed[name]?.trim() ?? '';
    if (!FORMAT[name].test(value)) {
      throw new Error(
        `Invalid configuration: ${path} has no valid ${name} (64 hexadecimal characters); ` +
          'fix or remove the file, or set the variable in the environment',
      );
    }
    values[name] = value;
  }
  return values;
}

/**
 * The secrets file (`APP_SECRETS_FILE`): read if it exists, else created first with fresh random keys
 * (mode 0600, in a directory created 0700). Read once per process and path. Several processes starting
 * at once agree: the first to link its file in place wins, the others read it.
 */
export function openSecretsFile(file: string): SecretsFile {
  const path = resolve(file);
  const known = opened.get(path);
  if (known) return known;
  let created = false;
  let values: Record<GeneratedSecret, string> | undefined;
  try {
    values = readValues(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (!values) {
    try {
      created = createOnce(path, freshContent());
    } catch (err) {
      throw new Error(
        `Invalid configuration: cannot create ${path} for the generated APP_ENCRYPTION_KEY and ` +
          `MEDIA_URL_SIGNING_KEYS (${(err as Error).message}); set APP_SECRETS_FILE to a writable place, ` +
          'or set both variables',
        { cause: err },
      );
    }
    values = readValues(path);
  }
  const readableByOthers = (statSync(path).mode & 0o077) !== 0;
  const result: SecretsFile = { path, values, created, readableByOthers };
  opened.set(path, result);
  return result;
}

/** What a process says about generated keys: where they are (never a key), and how loud. */
export interface SecretsNotice {
  level: 'warn' | 'log';
  record: { msg: string; path: string };
}

/**
 * The notices of a process whose APP_ENCRYPTION_KEY (`encryptionKeyFile`) or MEDIA_URL_SIGNING_KEYS
 * (`signingKeysFile`) came from the secrets file: a warning in the process that wrote it, a line of
 * information in the others, and a warning when other users can read it.
 */
export function secretsNotices(
  encryptionKeyFile: SecretsFile | null,
  signingKeysFile: SecretsFile | null,
): SecretsNotice[] {
  const file = encryptionKeyFile ?? signingKeysFile;
  if (!file) return [];
  const names = [
    ...(encryptionKeyFile ? ['APP_ENCRYPTION_KEY'] : []),
    ...(signingKeysFile ? ['MEDIA_URL_SIGNING_KEYS'] : []),
  ].join(' and ');
  const notices: SecretsNotice[] = [
    file.created
      ? {
          level: 'warn',
          record: {
            msg:
              `No ${names} was set: generated random keys into ${file.path} (mode 0600), read again on every ` +
              "later start. Keep that file and back it up: the channels' credentials and webhook secrets cannot " +
              'be read without it. Production (NODE_ENV=production) needs the variables set.',
            path: file.path,
          },
        }
      : { level: 'log', record: { msg: `Using ${names} from ${file.path}`, path: file.path } },
  ];
  if (file.readableByOthers) {
    notices.push({
      level: 'warn',
      record: { msg: `${file.path} can be read by other users: chmod 600 it`, path: file.path },
    });
  }
  return notices;
}
