/**
 * The folders of src/ by kind, read by the import rules (.dependency-cruiser.cjs) and by
 * tools/lint-deps.mjs, which fails on a folder that is in neither list (README, "Architecture").
 *
 * Infrastructure serves every feature and imports none: the process's plumbing (config, database,
 * Redis, Bull, the periodic-job runner) and cross-cutting code (errors, validation, HTTP helpers).
 * A feature is one Nest module (or a few) with its controllers, services, stores and tables.
 */
const INFRASTRUCTURE = ['common', 'config', 'database', 'redis', 'queue', 'scheduling'];

const FEATURES = [
  'analytics',
  'auth',
  'channels',
  'cli',
  'connect-links',
  'console',
  'docs',
  'events',
  'health',
  'idempotency',
  'mcp',
  'media',
  'metrics',
  'oauth',
  'oauth-server',
  'platform',
  'posting-schedules',
  'posts',
  'providers',
  'rate-limit',
  'retention',
  'sandbox',
  'users',
  'webhooks',
];

/**
 * Imports allowed for now, each `{from, to}` (path patterns) with a comment naming the change that
 * removes it. Empty: keep it so.
 */
const TEMPORARY_EXCEPTIONS = [];

module.exports = { INFRASTRUCTURE, FEATURES, TEMPORARY_EXCEPTIONS };
