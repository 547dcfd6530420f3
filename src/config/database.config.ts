import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Matches, Min } from 'class-validator';
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
}

export function readDatabaseEnv() {
  const env = validateEnv(DatabaseEnv);
  return { url: env.DATABASE_URL, migrationsRun: env.MIGRATIONS_RUN, poolSize: env.DATABASE_POOL_SIZE };
}

export const databaseConfig = registerAs('database', readDatabaseEnv);
export type DatabaseConfig = ReturnType<typeof databaseConfig>;
