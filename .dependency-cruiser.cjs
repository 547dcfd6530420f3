/**
 * Import rules the build checks (`npm run lint`). Layers: features (one Nest module each) may use
 * the shared layers (common, config, database, queue, redis, scheduling); shared layers never import
 * a feature; a feature reaches another only through its public roles; a table is queried only by
 * the module that owns its entity (docs/adr/0010); no cycles except between TypeORM entities
 * (relation pairs).
 */
const FEATURES =
  '(analytics|auth|channels|console|events|health|idempotency|media|metrics|posts|providers|oauth|rate-limit|retention|users|webhooks|cli|docs)';
/**
 * What another feature may import: its module, services, stores, ports, entities (types), queues,
 * errors, plugin list, guards, decorators and wire formats.
 */
const PUBLIC_ROLES =
  '\\.(module|service|store|port|entity|dto|queue|errors|interface|registry|list|guard|decorator|format)\\.ts$';
/** The interface features extend with their event payloads (declaration merging, docs/adr/0030). */
const EVENT_PAYLOADS = '^src/events/event-payloads\\.ts$';
/** Files that may read another feature's entity file for its vocabularies (status lists, event types) at run time. */
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
