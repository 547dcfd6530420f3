// @ts-check
/**
 * Generates src/generated/ (types, low-level calls and the fetch client they use) from the
 * service's committed OpenAPI document. `npm run generate` rewrites it; `npm run check:generated`
 * (run by the root test suite) fails when the committed output differs from a fresh generation.
 * The generator is pinned in the root package.json (@hey-api/openapi-ts 0.95.0: the last release
 * that runs on Node 20).
 */
import { fileURLToPath } from 'node:url';

const here = (/** @type {string} */ p) => fileURLToPath(new URL(p, import.meta.url));

/** @type {import('@hey-api/openapi-ts').UserConfig} */
export default {
  input: here('../../docs/openapi.json'),
  output: { path: here('./src/generated'), clean: true },
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
};
