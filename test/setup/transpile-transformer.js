/**
 * Jest transform for the TypeScript files that need no type information: each file is transpiled
 * on its own (ts.transpileModule), which is what most of the suite's first-run compile time went to
 * under ts-jest's type-checking compiler. Files the @nestjs/swagger plugin reads (DTOs, entities,
 * credentials, controllers) still go through ts-jest with the whole program (jest.config.js).
 * Types are checked by `npm run typecheck`, which CI runs before the tests.
 *
 * Not ts-jest in transpile mode: ts-jest keeps one configuration per Jest project, so a second
 * ts-jest entry with other options would share the first one's.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const ts = require('typescript');
const { compilerOptions } = require('../../tsconfig.json');

const { options, errors } = ts.convertCompilerOptionsFromJson(
  { ...compilerOptions, isolatedModules: true, sourceMap: true, inlineSourceMap: false, declaration: false },
  process.cwd(),
);
if (errors.length) throw new Error(ts.flattenDiagnosticMessageText(errors[0].messageText, '\n'));
const configKey = `${ts.version}\0${JSON.stringify(options)}\0${readFileSync(__filename, 'utf8')}`;

module.exports = {
  getCacheKey(source, path) {
    return createHash('sha1').update(configKey).update('\0').update(path).update('\0').update(source).digest('hex');
  },
  process(source, path) {
    const out = ts.transpileModule(source, { compilerOptions: options, fileName: path, reportDiagnostics: false });
    // Stack traces name the source file by its absolute path, as with ts-jest.
    const map = { ...JSON.parse(out.sourceMapText), sources: [path], sourceRoot: undefined };
    return { code: out.outputText.replace(/\n\/\/# sourceMappingURL=.*$/, ''), map };
  },
};
