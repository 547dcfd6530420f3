import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createLogger } from './common/logger';
import { ApiKeyDto } from './auth/dto/api-key.dto';
import { ApiKeysService } from './auth/api-keys.service';
import { KEY_ENVIRONMENTS, KeyEnvironment } from './auth/api-key.format';
import { KEY_SCOPES } from './auth/scopes.format';
import { parseArgs } from './cli/cli-args';
import { CliModule } from './cli/cli.module';
import { AppError } from './common/errors';
import { isRfc3339 } from './common/validators';
import { appConfig, databaseConfig, rateLimitConfig } from './config';
import { mediaConfig } from './config/media.config';
import { secretsNotices } from './config/secrets-file';
import { prepareDatabase } from './database/database-bootstrap';
import { usersCreate } from './users/users.cli';

const RUN = 'npm run -s cli --';

/** Every command with its usage line and description; `help <command>` prints one of them. */
const COMMANDS: Record<string, { usage: string; about: string }> = {
  'keys:create': {
    usage:
      'keys:create --workspace <name-or-id> [--name <label>] [--environment production|development|local] [--expires-at <RFC 3339>] [--rate-limit <per-minute>] [--burst <n>] [--scopes <scope,scope,...>]',
    about:
      'Creates the workspace (by name) if needed and an API key in it; prints {"id","key","workspaceId","name","prefix","environment","scopes"}.\n' +
      'The key is shown this once. --rate-limit and --burst override the default limits for this key.\n' +
      '--scopes limits what the key may do (default *, every scope): posts:read, posts:write, posts:publish,\n' +
      'posts:approve, media:write, channels:read, channels:manage, webhooks:manage, analytics:read, keys:manage, events:read.\n' +
      'Workspace "default" is the one of the key printed at first start and of the console\'s first owner.',
  },
  'keys:list': {
    usage: 'keys:list --workspace <name-or-id>',
    about: 'Lists the workspace\'s keys (never their secrets); prints {"workspaceId","data":[...]}.',
  },
  'keys:revoke': {
    usage: 'keys:revoke <key-id>',
    about: 'Revokes a key, effective from the next request; prints {"id","workspaceId","revokedAt"}.',
  },
  'users:create': {
    usage: 'users:create --email <email> --workspace <name-or-id> [--role owner|approver|member]',
    about:
      'Creates the workspace (by name) if needed and a console user in it; prints {"email","workspaceId","role","setupLink",...}:\n' +
      'a one-time link where the person sets a password (an existing account is added directly).',
  },
  help: { usage: 'help [<command>]', about: 'Prints this help, or the help of one command.' },
};

function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}`);
  return [
    `Usage: ${RUN} <command> [options]`,
    '',
    'Commands:',
    ...lines,
    '',
    `Run "${RUN} help <command>" for details. Output is one JSON document on stdout; errors are one`,
    'line on stderr with exit status 1. Configuration comes from the environment and ./.env.',
  ].join('\n');
}

function commandHelp(name: string): string {
  const c = COMMANDS[name];
  return `Usage: ${RUN} ${c.usage}\n\n${c.about}`;
}

/** A user-facing failure: printed as one line, exit status 1. */
class CliError extends Error {}

function positiveInt(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--${flag} must be a positive integer`);
  return n;
}

function required(value: string | undefined, what: string, command: string): string {
  if (value === undefined || value === '' || value === 'true') {
    throw new CliError(`${command} needs ${what} (see "${RUN} help ${command}")`);
  }
  return value;
}

/** Logs of the command line go to stderr, and only when LOG_LEVEL asks for debug or trace. */
function cliLogLevel(level: string): string {
  return level === 'debug' || level === 'trace' ? level : 'silent';
}

async function main(): Promise<void> {
  const { command, positional, flags } = parseArgs(process.argv.slice(2));
  if (command === undefined || command === '--help' || command === '-h' || (command === 'help' && !positional[0])) {
    if (command === undefined) throw new CliError(`no command given (see "${RUN} --help")`);
    process.stdout.write(`${usage()}\n`);
    return;
  }
  const topic = command === 'help' ? positional[0] : command;
  if (!(topic in COMMANDS) || topic === 'help') {
    throw new CliError(`unknown command "${topic}" (see "${RUN} --help")`);
  }
  if (command === 'help' || flags.help !== undefined || flags.h !== undefined) {
    process.stdout.write(`${commandHelp(topic)}\n`);
    return;
  }

  // The first config read loads ./.env (src/config/env-file.ts), before the database is touched.
  const cfg = appConfig();
  const logger = createLogger(cliLogLevel(cfg.logLevel), { toStderr: true, format: cfg.logFormat });
  Logger.overrideLogger(logger);
  if (cliLogLevel(cfg.logLevel) === 'silent' && !['fatal', 'error', 'silent'].includes(cfg.logLevel)) {
    // Keys generated by this command (a first run without them) are announced even when the CLI is quiet;
    // with its logs on, the crypto module says it like in the other processes.
    const warnings = createLogger('warn', { toStderr: true, format: cfg.logFormat });
    for (const { level, record } of secretsNotices(cfg.encryptionKeyFile, mediaConfig().signingKeysFile)) {
      if (level === 'warn') warnings.warn(record, 'Secrets');
    }
  }
  const db = databaseConfig();
  await prepareDatabase(db.url, db.migrationsRun, db.timeouts.connectMs);
  const app = await NestFactory.createApplicationContext(CliModule, { logger, abortOnError: false });
  try {
    const keys = app.get(ApiKeysService);
    let out: unknown;
    switch (command) {
      case 'keys:create': {
        const workspaceName = required(flags.workspace, '--workspace', command);
        if (flags['expires-at'] && !isRfc3339(flags['expires-at'])) {
          throw new CliError('--expires-at must be an RFC 3339 date-time with a zone');
        }
        const environment = flags.environment as KeyEnvironment | undefined;
        if (environment !== undefined && !KEY_ENVIRONMENTS.includes(environment)) {
          throw new CliError(`--environment must be one of ${KEY_ENVIRONMENTS.join(', ')}`);
        }
        const scopes = flags.scopes?.split(',').map((s) => s.trim());
        const unknown = scopes?.filter((s) => !(KEY_SCOPES as readonly string[]).includes(s)) ?? [];
        if (scopes && (unknown.length || scopes.length === 0)) {
          throw new CliError(
            `--scopes takes a comma-separated list of ${KEY_SCOPES.join(', ')}; unknown: ${unknown.join(', ')}`,
          );
        }
        const workspace = await keys.resolveWorkspace(workspaceName, true);
        const { apiKey, key } = await keys.create(workspace.id, {
          scopes,
          name: flags.name ?? 'cli',
          environment,
          expiresAt: flags['expires-at'] ? new Date(flags['expires-at']) : null,
          rateLimitPerMinute: positiveInt(flags['rate-limit'], 'rate-limit'),
          rateLimitBurst: positiveInt(flags.burst, 'burst'),
        });
        out = {
          id: apiKey.id,
          key,
          workspaceId: workspace.id,
          name: apiKey.name,
          prefix: apiKey.prefix,
          environment: apiKey.environment,
          scopes: apiKey.scopes,
        };
        break;
      }
      case 'keys:list': {
        const workspace = await keys.resolveWorkspace(required(flags.workspace, '--workspace', command), false);
        const limits = rateLimitConfig();
        const all: ApiKeyDto[] = [];
        let cursor: string | undefined;
        do {
          const page = await keys.list(workspace.id, 100, cursor);
          all.push(...page.data.map((k) => ApiKeyDto.from(k, limits)));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        out = { workspaceId: workspace.id, data: all };
        break;
      }
      case 'keys:revoke': {
        const key = await keys.revoke(null, required(positional[0], 'a key id', command));
        out = { id: key.id, workspaceId: key.workspaceId, revokedAt: key.revokedAt?.toISOString() ?? null };
        break;
      }
      case 'users:create':
        out = await usersCreate(app, flags);
        break;
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await app.close();
  }
}

/** One line for any failure: our own message, the error code, or the first cause's message. */
function oneLineError(err: unknown): string {
  let message: string;
  if (err instanceof AppError) message = `${err.message} (${err.code})`;
  else if (err instanceof AggregateError && !err.message && err.errors.length > 0) {
    message = oneLineError(err.errors[0]);
  } else if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    message = err.message || (typeof code === 'string' ? code : err.name);
  } else message = String(err);
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

main()
  .then(() => process.exit(0))
  .catch((err: unknown) => {
    process.stderr.write(`error: ${oneLineError(err)}\n`);
    process.exit(1);
  });
