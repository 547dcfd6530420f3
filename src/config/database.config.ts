import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Matches, Max, Min } from 'class-validator';
import { toBool, validateEnv } from './validate-env';

export class DatabaseEnv {
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres:postgres@localhost:5432/social_publishing';

  @Transform(toBool)
  @IsBoolean()
  MIGRATIONS_RUN: boolean = true;

  @IsInt()
  @Min(1)
  DATABASE_POOL_SIZE: number = 20;

  /** Longest wait to connect to Postgres (TCP, TLS, authentication), and for a free pooled connection. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_CONNECT_TIMEOUT_MS: number = 5_000;

  /** Postgres's `statement_timeout` for the service's sessions: a longer statement is cancelled; 0 = none. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  DATABASE_STATEMENT_TIMEOUT_MS: number = 15_000;

  /**
   * Longest wait for Postgres's answer to a query: when a server or network stops answering, the
   * connection is dropped. Above DATABASE_STATEMENT_TIMEOUT_MS, so a server that answers is always
   * given the time to cancel a statement itself.
   */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  DATABASE_QUERY_TIMEOUT_MS: number = 20_000;

  /**
   * A query or connect still waiting after this long starts a check of Postgres on a new connection
   * (`SELECT 1`, within the same time): when it fails, every connection is dropped and requests answer
   * 503 at once until a check succeeds. Below DATABASE_QUERY_TIMEOUT_MS; 0 = no check.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  DATABASE_PROBE_TIMEOUT_MS: number = 2_000;

  /** Postgres's `idle_in_transaction_session_timeout`: a transaction left idle this long is ended; 0 = none. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: number = 60_000;
}

/** How long any wait on Postgres may last (docs/adr/0028-bounded-database-waits.md). */
export interface DatabaseTimeouts {
  connectMs: number;
  statementMs: number;
  queryMs: number;
  idleInTransactionMs: number;
  /** A wait this long starts a check on a new connection, which must answer within it (0 = none). */
  probeMs: number;
}

export function readDatabaseEnv(source?: NodeJS.ProcessEnv) {
  const env = validateEnv(DatabaseEnv, source);
  if (env.DATABASE_STATEMENT_TIMEOUT_MS > 0 && env.DATABASE_QUERY_TIMEOUT_MS <= env.DATABASE_STATEMENT_TIMEOUT_MS) {
    throw new Error(
      `Invalid configuration: DATABASE_QUERY_TIMEOUT_MS (${env.DATABASE_QUERY_TIMEOUT_MS}) must be above ` +
        `DATABASE_STATEMENT_TIMEOUT_MS (${env.DATABASE_STATEMENT_TIMEOUT_MS})`,
    );
  }
  if (env.DATABASE_PROBE_TIMEOUT_MS > 0 && env.DATABASE_PROBE_TIMEOUT_MS >= env.DATABASE_QUERY_TIMEOUT_MS) {
    throw new Error(
      `Invalid configuration: DATABASE_PROBE_TIMEOUT_MS (${env.DATABASE_PROBE_TIMEOUT_MS}) must be below ` +
        `DATABASE_QUERY_TIMEOUT_MS (${env.DATABASE_QUERY_TIMEOUT_MS})`,
    );
  }
  const timeouts: DatabaseTimeouts = {
    connectMs: env.DATABASE_CONNECT_TIMEOUT_MS,
    statementMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    queryMs: env.DATABASE_QUERY_TIMEOUT_MS,
    idleInTransactionMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    probeMs: env.DATABASE_PROBE_TIMEOUT_MS,
  };
  return { url: env.DATABASE_URL, migrationsRun: env.MIGRATIONS_RUN, poolSize: env.DATABASE_POOL_SIZE, timeouts };
}

export const databaseConfig = registerAs('database', () => readDatabaseEnv());
export type DatabaseConfig = ReturnType<typeof databaseConfig>;
