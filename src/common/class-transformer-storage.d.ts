/**
 * class-transformer keeps its decorators' metadata in this module and exports no path to it from the
 * package root; its declaration lives under `types/` (query-check.compiler.ts reads it).
 */
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
