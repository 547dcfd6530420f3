/**
 * Import rules the build checks (`npm run lint:deps`, tools/lint-deps.mjs, which adds the checks a rule of
 * this file cannot express: no import loop between two folders, SQL calls only in stores, one idiom for
 * periodic work). Layers (tools/house-layout.cjs): features (one Nest module each) may use infrastructure
 * (common, config, database, queue, redis, scheduling); infrastructure never imports a feature; a feature
 * reaches another only through its public roles; `events/` and `providers/` import no feature; a table is
 * queried only by the module that owns its entity (docs/adr/0010), and only from its `*.store.ts`; Bull only
 * in queue files; no cycles between files except between TypeORM entities (relation pairs).
 */
const { FEATURES: FEATURE_LIST } = require('./tools/house-layout.cjs');

const FEATURES = `(${FEATURE_LIST.join('|')})`;
/**
 * What another feature may import: its module, services, stores, ports, entities (types), queues,
 * errors, plugin list, guards, decorators and wire formats.
 */
const PUBLIC_ROLES =
  '\\.(module|service|store|port|entity|dto|queue|errors|interface|registry|list|guard|decorator|format)\\.ts$';
/** The interface features extend with their event payloads, and the event names (docs/adr/0030). */
const EVENT_PAYLOADS = '^src/events/event-payloads\\.ts$';
/** The tenant every row belongs to and the request's principal: what events/ may read of auth/. */
const TENANCY = '^src/auth/(workspace\\.entity|workspace\\.decorator|auth-context|scope\\.decorator|scopes\\.format)\\.ts$';
/** The scope a route declares (docs/adr/0034): every controller states one, those of providers/ and events/ too. */
const ROUTE_SCOPE = '^src/auth/(scope\\.decorator|scopes\\.format)\\.ts$';
/** Where raw SQL may run: stores, the database layer; entities and modules use TypeORM to declare, not to query. */
const SQL_PLACES = ['\\.store\\.ts$', '^src/database/', '\\.entity\\.ts$', '\\.module\\.ts$'];
/** Files that may read another feature's entity file for its vocabularies (status lists) at run time. */
const VOCABULARY_READERS = ['\\.(entity|dto|controller)\\.ts$', '/views/'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, except between TypeORM entities (relation pairs reference each other).',
      severity: 'error',
      from: {},
      to: { circular: true, viaSomeNot: '\\.entity\\.ts$' },
    },
    {
      name: 'config-imports-no-feature',
      comment: 'src/config is read by every feature; it must not depend on one.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: `^src/${FEATURES}/` },
    },
    {
      name: 'common-imports-no-feature',
      comment: 'src/common is cross-cutting only.',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: `^src/${FEATURES}/` },
    },
    {
      name: 'shared-layers-import-no-feature',
      comment: 'database, queue, redis and scheduling serve features; they never import one.',
      severity: 'error',
      from: { path: '^src/(database|queue|redis|scheduling)/' },
      to: { path: `^src/${FEATURES}/` },
    },
    {
      name: 'providers-import-no-feature',
      comment:
        'A network is a plugin in its own folder behind SocialProvider: src/providers reaches no feature. ' +
        'What a plugin needs from one is a port it owns, bound by the feature (docs/adr/0031). Its controller ' +
        'declares the scope of GET /providers (auth/scope.decorator, docs/adr/0034).',
      severity: 'error',
      from: { path: '^src/providers/' },
      to: { path: `^src/${FEATURES}/`, pathNot: ['^src/providers/', ROUTE_SCOPE] },
    },
    {
      name: 'feature-internals-are-private',
      comment: `Another feature is reached only through what its module exports (files named ${PUBLIC_ROLES}).`,
      severity: 'error',
      from: { path: `^src/${FEATURES}/` },
      to: { path: `^src/${FEATURES}/`, pathNot: ['^src/$1/', PUBLIC_ROLES, EVENT_PAYLOADS] },
    },
    {
      name: 'entities-are-queried-by-their-owner',
      comment:
        "Another feature's entity is imported for its type only (docs/adr/0010): a value import is how a " +
        "repository, forFeature() or a query builder reaches its table. Use the owner module's exported " +
        'service or store. Entity files may reference each other (relations); DTOs, controllers and views ' +
        'may read vocabularies exported beside an entity (status lists, event types).',
      severity: 'error',
      from: { path: `^src/${FEATURES}/`, pathNot: VOCABULARY_READERS },
      to: {
        path: `^src/${FEATURES}/.+\\.entity\\.ts$`,
        pathNot: '^src/$1/',
        dependencyTypesNot: ['type-only', 'pre-compilation-only'],
      },
    },
    {
      name: 'controllers-do-not-query',
      comment: 'Controllers and console pages call services; they never reach the database themselves.',
      severity: 'error',
      from: { path: ['\\.controller\\.ts$', '^src/console/'] },
      to: {
        path: 'node_modules/(typeorm|@nestjs/typeorm|pg)/',
        dependencyTypesNot: ['type-only', 'pre-compilation-only'],
      },
    },
    {
      name: 'bull-only-in-queue-files',
      comment: 'One queue idiom (docs/adr/0009): only *.queue.ts and src/queue/ know Bull.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['\\.queue\\.ts$', '^src/queue/'] },
      to: { path: 'node_modules/(bull|@nestjs/bull)/' },
    },
    {
      name: 'events-import-no-feature',
      comment:
        'events/ knows no feature: each feature declares its payloads on EventPayloads (declaration merging, ' +
        'docs/adr/0030). It may read the tenant (workspace), the request principal and route scopes of auth/.',
      severity: 'error',
      from: { path: '^src/events/' },
      to: { path: `^src/${FEATURES}/`, pathNot: ['^src/events/', TENANCY] },
    },
    {
      name: 'sql-only-in-stores',
      comment:
        "Every statement of a module lives in its *.store.ts (docs/adr/0010): elsewhere TypeORM's DataSource, " +
        'EntityManager, repositories and operators, and pg, are imported as types at most. Services delimit ' +
        'transactions with database/transactions.ts. (tools/lint-deps.mjs also refuses the query calls.)',
      severity: 'error',
      from: { path: '^src/', pathNot: SQL_PLACES },
      to: {
        path: 'node_modules/(typeorm|@nestjs/typeorm|pg)/',
        dependencyTypesNot: ['type-only', 'pre-compilation-only'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    // 'specify' keeps type-only imports in the graph, tagged, so rules can tell a type from a value use.
    tsPreCompilationDeps: 'specify',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
