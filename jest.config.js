/** Two projects: unit specs beside the code, e2e specs in test/ on real Postgres and Redis. */
const swaggerPlugin = { path: '<rootDir>/test/setup/swagger-transformer.js' };
// content-disposition 3 (used by @fastify/static, which serves Swagger UI) is ESM-only; Node
// loads it with require(esm), Jest does not, so Jest compiles that one package to CommonJS.
const esmOnly = ['content-disposition'];
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', astTransformers: { before: [swaggerPlugin] } }],
  [`/node_modules/(${esmOnly.join('|')})/.+\\.js$`]: ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs' }, isolatedModules: true }],
};
const transformIgnorePatterns = [`/node_modules/(?!(${esmOnly.join('|')})/)`];
module.exports = {
  testTimeout: 60000,
  maxWorkers: process.env.CI ? 2 : '50%',
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
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
    },
  ],
};
