import { defineConfig } from 'tsup';

/**
 * CommonJS for Node (the bin and the library), with the tool definitions (src/tools.generated.json)
 * bundled in; the client and the MCP SDK stay dependencies.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  format: ['cjs'],
  // tsup 8 always hands its declaration bundler a `baseUrl`, which TypeScript 6 deprecates.
  dts: { entry: { index: 'src/index.ts' }, compilerOptions: { ignoreDeprecations: '6.0' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  external: ['@social-publishing/client', '@modelcontextprotocol/sdk'],
});
