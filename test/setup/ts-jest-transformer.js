/**
 * ts-jest (whole-program compile, for the files the @nestjs/swagger plugin reads and for the client
 * project) with a cache key that needs no TypeScript program.
 *
 * ts-jest's own getCacheKey builds its compiler first, and the compiler builds the program of every
 * file tsconfig.json includes (`languageService.getProgram()`), even when every file then comes from
 * Jest's cache: several seconds of CPU in each Jest worker process, and Jest starts a new one each time
 * a worker passes workerIdleMemoryLimit. This key holds what ts-jest's does (the transformer's options,
 * the Jest project, the file, and the local files it imports, directly or not, found by the same module
 * resolution), with their contents instead of their modification times; ts-jest, and its program, are
 * only created when a file is not in the cache and has to be compiled.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { dirname, resolve } = require('node:path');
const ts = require('typescript');
const { TsJestTransformer } = require('ts-jest');

const VERSIONS = ['ts-jest', 'typescript', '@nestjs/swagger']
  .map((name) => `${name}@${require(`${name}/package.json`).version}`)
  .join(',');
const OWN_SOURCE = readFileSync(__filename, 'utf8');

/** One per process: file contents and resolved imports do not change while Jest runs. */
const digests = new Map();
function digestOf(path) {
  let digest = digests.get(path);
  if (digest === undefined) {
    digest = createHash('sha1').update(readFileSync(path)).digest('hex');
    digests.set(path, digest);
  }
  return digest;
}

class CachedKeyTsJestTransformer extends TsJestTransformer {
  constructor(options = {}) {
    super(options);
    this.options = options;
    /** Per tsconfig: its compiler options, a resolution cache, and each file's local imports. */
    this.projects = new Map();
  }

  project(rootDir) {
    const tsconfig = resolve(rootDir, (this.options.tsconfig ?? 'tsconfig.json').replace('<rootDir>', rootDir));
    let project = this.projects.get(tsconfig);
    if (!project) {
      const { config, error } = ts.readConfigFile(tsconfig, ts.sys.readFile);
      if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
      const { options } = ts.parseJsonConfigFileContent(config, ts.sys, dirname(tsconfig));
      const cache = ts.createModuleResolutionCache(rootDir, (x) => x, options);
      // The tsconfig files it extends are part of what it says.
      const configText = [tsconfig, ...(options.configFile?.extendedSourceFiles ?? [])]
        .map((file) => `${file}\0${digestOf(file)}`)
        .join('\0');
      project = { options, cache, configText, imports: new Map() };
      this.projects.set(tsconfig, project);
    }
    return project;
  }

  /** The local (non-node_modules) files `path` imports, resolved as ts-jest resolves them. */
  importsOf(project, path, source) {
    let found = project.imports.get(path);
    if (!found) {
      found = [];
      for (const { fileName } of ts.preProcessFile(source ?? readFileSync(path, 'utf8'), true, true).importedFiles) {
        const { resolvedModule } = ts.resolveModuleName(fileName, path, project.options, ts.sys, project.cache);
        if (resolvedModule && !resolvedModule.isExternalLibraryImport)
          found.push(resolve(resolvedModule.resolvedFileName));
      }
      project.imports.set(path, found);
    }
    return found;
  }

  getCacheKey(fileContent, filePath, transformOptions) {
    const { config, configString, instrument = false, supportsStaticESM = false } = transformOptions;
    const project = this.project(config.rootDir);
    const hash = createHash('sha1')
      .update(`${VERSIONS}\0${OWN_SOURCE}\0${JSON.stringify(this.options)}\0${project.configText}\0`)
      .update(`${configString}\0instrument:${instrument}\0esm:${supportsStaticESM}\0${filePath}\0${fileContent}`);
    const seen = new Set([resolve(filePath)]);
    const queue = this.importsOf(project, resolve(filePath), fileContent).slice();
    while (queue.length) {
      const dep = queue.shift();
      if (seen.has(dep)) continue;
      seen.add(dep);
      hash.update(`\0${dep}\0${digestOf(dep)}`);
      queue.push(...this.importsOf(project, dep));
    }
    // The transformers named in the options (the Swagger plugin's settings) are part of the output too.
    for (const { path } of this.options.astTransformers?.before ?? []) {
      const file = resolve(config.rootDir, path.replace('<rootDir>', config.rootDir));
      hash.update(`\0${file}\0${digestOf(file)}`);
    }
    return hash.digest('hex');
  }

  getCacheKeyAsync(fileContent, filePath, transformOptions) {
    return Promise.resolve(this.getCacheKey(fileContent, filePath, transformOptions));
  }
}

module.exports = {
  createTransformer: (options) => new CachedKeyTsJestTransformer(options),
};
