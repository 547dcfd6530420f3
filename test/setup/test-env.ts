/** Where tests find Postgres and Redis; override with TEST_DATABASE_URL / TEST_REDIS_URL. */
export const TEST_PG_BASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TEMPLATE_DB = 'sps_test_template';

export function databaseUrl(name: string): string {
  const url = new URL(TEST_PG_BASE);
  url.pathname = `/${name}`;
  return url.toString();
}
