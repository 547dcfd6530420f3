import { defineConfig } from 'tsup';

/** ESM (`import`) and CommonJS (`require`) builds with their type declarations, for Node >= 18 and browsers. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  // tsup 8 always hands its declaration bundler a `baseUrl`, which TypeScript 6 deprecates (tsup 9,
  // which does not, needs Node.js >= 22.18).
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  clean: true,
  sourcemap: true,
  target: 'es2020',
  platform: 'neutral',
  outDir: 'dist',
});
