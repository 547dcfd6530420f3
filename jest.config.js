/** Two projects: unit specs beside the code, e2e specs in test/ on real Postgres and Redis. */
const swaggerPlugin = { path: '<rootDir>/test/setup/swagger-transformer.js' };
// ESM-only packages: NestJS 12 and content-disposition 3 (used by @fastify/static, which serves
// Swagger UI). Node loads them with require(esm), Jest's module loader does not, so Jest compiles
// them to CommonJS (test/setup/transpile-transformer.js; docs/adr/0001). nostr-tools' CommonJS build
// requires the ESM-only @noble and @scure packages (docs/adr/0056).
const esmOnly = ['@nestjs', 'content-disposition', '@noble', '@scure'];
// Files the @nestjs/swagger plugin reads need ts-jest's whole-program compiler; every other file is
// transpiled on its own (test/setup/transpile-transformer.js), several times faster on a first run.
// ts-jest runs behind test/setup/ts-jest-transformer.js, whose cache key needs no TypeScript program.
const transform = {
  '\\.(dto|entity|credentials|controller)\\.ts$': [
    '<rootDir>/test/setup/ts-jest-transformer.js',
    { tsconfig: 'tsconfig.json', astTransformers: { before: [swaggerPlugin] } },
  ],
  '^.+\\.ts$': '<rootDir>/test/setup/transpile-transformer.js',
  [`/node_modules/(${esmOnly.join('|')})/.+\\.js$`]: '<rootDir>/test/setup/transpile-transformer.js',
};
// Nested copies too (nostr-tools keeps its own @noble/hashes under its node_modules).
const transformIgnorePatterns = [`/node_modules/(?!(${esmOnly.join('|')})/)(?!.*/node_modules/(${esmOnly.join('|')})/)`];
// The build copies package.json into dist/ (the OpenAPI version is read from it); Jest must not see two.
const modulePathIgnorePatterns = ['<rootDir>/dist/'];
module.exports = {
  testTimeout: 60000,
  maxWorkers: process.env.CI ? 2 : '50%',
  // Specs run in worker processes, each replaced once it holds more than this after a file: with one
  // worker (two cores) Jest would otherwise run every file in its own process, whose heap grows with each
  // file's module registry until it passes Node's default limit before the suite ends.
  workerIdleMemoryLimit: '2GB',
  transform,
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      modulePathIgnorePatterns,
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    {
      // The client package's unit specs, compiled with its own settings (DOM + Node types).
      displayName: 'client',
      rootDir: __dirname,
      testEnvironment: 'node',
      // One transform for the project: the global setup is compiled with it too.
      transform: {
        '^.+\\.ts$': [
          '<rootDir>/test/setup/ts-jest-transformer.js',
          { tsconfig: '<rootDir>/packages/client/tsconfig.spec.json' },
        ],
      },
      modulePathIgnorePatterns,
      testMatch: ['<rootDir>/packages/client/src/**/*.spec.ts'],
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      modulePathIgnorePatterns,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // Every answer of the service an e2e spec receives is checked against docs/openapi.json.
      setupFilesAfterEnv: ['<rootDir>/test/setup/response-conformance.ts'],
    },
  ],
};
