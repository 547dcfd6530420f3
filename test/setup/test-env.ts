/** Where tests find Postgres and Redis; override with TEST_DATABASE_URL / TEST_REDIS_URL. */
export const TEST_PG_BASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Each `jest` run migrates its own template (named after the run's process id, passed to the
 * workers through the environment), so runs started side by side never drop each other's databases.
 */
export const RUN_ID = process.env.SPS_TEST_RUN_ID ?? String(process.pid);
export const TEMPLATE_DB = `sps_tpl_${RUN_ID}`;
export const CLONE_PREFIX = `sps_t_${RUN_ID}_`;

export function databaseUrl(name: string): string {
  const url = new URL(TEST_PG_BASE);
  url.pathname = `/${name}`;
  return url.toString();
}
