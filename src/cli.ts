import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createLogger } from './common/logger';
import { ApiKeyDto } from './auth/dto/api-key.dto';
import { ApiKeysService } from './auth/api-keys.service';
import { parseArgs } from './cli/cli-args';
import { CliModule } from './cli/cli.module';
import { AppError } from './common/errors';
import { isRfc3339 } from './common/validators';
import { appConfig, databaseConfig, rateLimitConfig } from './config';
import { prepareDatabase } from './database/database-bootstrap';

const USAGE = `Usage: npm run cli -- <command>
  keys:create --workspace <name-or-id> [--name <label>] [--expires-at <RFC 3339>] [--rate-limit <per-minute>] [--burst <n>]
      Creates the workspace (by name) if needed and a key; prints {"id","key","workspaceId","name",...}.
  keys:list --workspace <name-or-id>     Lists the workspace's keys (never their secrets).
  keys:revoke <key-id>                   Revokes a key (effective on the next request).
Output is JSON on stdout; logs go to stderr.`;

function positiveInt(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new AppError('VALIDATION_ERROR', `--${flag} must be a positive integer`);
  return n;
}

async function main(): Promise<number> {
  const { command, positional, flags } = parseArgs(process.argv.slice(2));
  if (!command || command === 'help' || flags.help) {
    process.stderr.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  const cfg = appConfig();
  Logger.overrideLogger(createLogger(cfg.logLevel === 'info' ? 'warn' : cfg.logLevel, true));
  const db = databaseConfig();
  await prepareDatabase(db.url, db.migrationsRun);
  const app = await NestFactory.createApplicationContext(CliModule, { logger: createLogger('warn', true) });
  try {
    const keys = app.get(ApiKeysService);
    const limits = rateLimitConfig();
    let out: unknown;
    switch (command) {
      case 'keys:create': {
        if (!flags.workspace) throw new AppError('VALIDATION_ERROR', '--workspace is required');
        if (flags['expires-at'] && !isRfc3339(flags['expires-at'])) {
          throw new AppError('VALIDATION_ERROR', '--expires-at must be an RFC 3339 date-time with a zone');
        }
        const workspace = await keys.resolveWorkspace(flags.workspace, true);
        const { apiKey, key } = await keys.create(workspace.id, {
          name: flags.name ?? 'cli',
          expiresAt: flags['expires-at'] ? new Date(flags['expires-at']) : null,
          rateLimitPerMinute: positiveInt(flags['rate-limit'], 'rate-limit'),
          rateLimitBurst: positiveInt(flags.burst, 'burst'),
        });
        out = { id: apiKey.id, key, workspaceId: workspace.id, name: apiKey.name, prefix: apiKey.prefix };
        break;
      }
      case 'keys:list': {
        if (!flags.workspace) throw new AppError('VALIDATION_ERROR', '--workspace is required');
        const workspace = await keys.resolveWorkspace(flags.workspace, false);
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
        const id = positional[0];
        if (!id) throw new AppError('VALIDATION_ERROR', 'keys:revoke needs a key id');
        const key = await keys.revoke(null, id);
        out = { id: key.id, workspaceId: key.workspaceId, revokedAt: key.revokedAt?.toISOString() ?? null };
        break;
      }
      default:
        process.stderr.write(`Unknown command "${command}"\n${USAGE}\n`);
        return 2;
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

main()
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    const body =
      err instanceof AppError
        ? { error: err.code, message: err.message }
        : { error: 'INTERNAL_ERROR', message: String(err) };
    process.stderr.write(`${JSON.stringify(body)}\n`);
    process.exit(1);
  });
