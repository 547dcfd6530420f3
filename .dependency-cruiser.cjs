/**
 * Import rules the build checks (`npm run lint`). Layers: features (one Nest module each) may use
 * the shared layers (common, config, database, queue, redis, scheduling); shared layers never import
 * a feature; a feature reaches another only through its public roles; no cycles except between
 * TypeORM entities (relation pairs).
 */
const FEATURES = '(analytics|auth|channels|events|health|media|posts|providers|oauth|rate-limit|webhooks|cli|docs)';
/** What another feature may import: its module, services, stores, ports, entities (types), queues, errors, plugin list. */
const PUBLIC_ROLES = '\\.(module|service|store|port|entity|dto|queue|errors|interface|registry|list|guard)\\.ts$';

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
      to: { path: `^src/${FEATURES}/`, pathNot: ['^src/$1/', PUBLIC_ROLES] },
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
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
