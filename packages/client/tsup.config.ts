import { defineConfig } from 'tsup';

/** ESM (`import`) and CommonJS (`require`) builds with their type declarations, for Node >= 18 and browsers. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2020',
  platform: 'neutral',
  outDir: 'dist',
});
