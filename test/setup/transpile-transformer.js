/**
 * Jest transform for the TypeScript files that need no type information: each file is transpiled
 * on its own (ts.transpileModule), which is what most of the suite's first-run compile time went to
 * under ts-jest's type-checking compiler. Files the @nestjs/swagger plugin reads (DTOs, entities,
 * credentials, controllers) still go through ts-jest with the whole program (jest.config.js).
 * Types are checked by `npm run typecheck`, which CI runs before the tests.
 *
 * Not ts-jest in transpile mode: ts-jest keeps one configuration per Jest project, so a second
 * ts-jest entry with other options would share the first one's.
 *
 * It also compiles the ES modules of node_modules (NestJS 12 and the few other ESM-only packages
 * that jest.config.js lets through) to CommonJS: Node loads them with require(esm), Jest's own
 * module loader cannot on Node.js 20 and 22. Their `createRequire(import.meta.url)` becomes Jest's
 * `require`, so what they load lazily (typeorm, swagger-ui-dist, ...) comes from the same module
 * registry as the rest of the test; a CommonJS file of such a package is passed through unchanged.
 */
const { createHash } = require('node:crypto');
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const ts = require('typescript');
const { compilerOptions } = require('../../tsconfig.json');

const { options, errors } = ts.convertCompilerOptionsFromJson(
  { ...compilerOptions, isolatedModules: true, sourceMap: true, inlineSourceMap: false, declaration: false },
  process.cwd(),
);
if (errors.length) throw new Error(ts.flattenDiagnosticMessageText(errors[0].messageText, '\n'));
const configKey = `${ts.version}\0${JSON.stringify(options)}\0${readFileSync(__filename, 'utf8')}`;

const packageTypes = new Map();
/** "module" or "commonjs": the `type` of the package.json nearest to `dir`. */
function packageType(dir) {
  if (packageTypes.has(dir)) return packageTypes.get(dir);
  let type = 'commonjs';
  const file = join(dir, 'package.json');
  if (existsSync(file)) type = JSON.parse(readFileSync(file, 'utf8')).type === 'module' ? 'module' : 'commonjs';
  else if (dirname(dir) !== dir) type = packageType(dirname(dir));
  packageTypes.set(dir, type);
  return type;
}

function isEsmDependency(path) {
  if (!path.includes('/node_modules/')) return false;
  if (path.endsWith('.mjs')) return true;
  if (path.endsWith('.cjs')) return false;
  return packageType(dirname(path)) === 'module';
}

/** What an ES module of node_modules means by `import.meta`, said in CommonJS. */
function withoutImportMeta(source) {
  return source
    .replace(/^(?:const|let|var) require = createRequire\(import\.meta\.url\);?$/gm, '')
    .replace(/createRequire\(import\.meta\.url\)/g, 'require')
    .replace(/import\.meta\.url/g, "require('node:url').pathToFileURL(__filename).href")
    .replace(/import\.meta\.dirname/g, '__dirname')
    .replace(/import\.meta\.filename/g, '__filename');
}

module.exports = {
  getCacheKey(source, path) {
    return createHash('sha1').update(configKey).update('\0').update(path).update('\0').update(source).digest('hex');
  },
  process(source, path) {
    if (path.includes('/node_modules/')) {
      if (!isEsmDependency(path)) return { code: source };
      source = withoutImportMeta(source);
    }
    const out = ts.transpileModule(source, { compilerOptions: options, fileName: path, reportDiagnostics: false });
    // Stack traces name the source file by its absolute path, as with ts-jest.
    const map = { ...JSON.parse(out.sourceMapText), sources: [path], sourceRoot: undefined };
    return { code: out.outputText.replace(/\n\/\/# sourceMappingURL=.*$/, ''), map };
  },
};
