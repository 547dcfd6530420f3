// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'packages/client/dist/**',
      'packages/client/src/generated/**',
      'eslint.config.mjs',
      'jest.config.js',
      'test/setup/swagger-transformer.js',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    // Tests and benchmarks read loosely typed JSON responses; the CLI prints JSON to stdout.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'src/cli.ts', 'src/**/*.spec.ts', 'packages/client/src/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      'no-console': 'off',
    },
  },
  {
    // The client's specs are compiled with Node and Jest types (packages/client/tsconfig.spec.json).
    files: ['packages/client/src/**/*.spec.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './packages/client/tsconfig.spec.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
);
