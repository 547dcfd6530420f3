import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { type DescribedRequest, type Description, type DescriptionCheck, parseBody, queryObject } from './description';

/**
 * A Google API Discovery document (`discovery#restDescription`, as googleapis publishes them for
 * every client library) as a request checker. Each method is an HTTP method and a path template
 * (`{name}` one segment, `{+name}` several) under the document's service path, with its parameters
 * (location, type, required, enum, pattern, minimum/maximum, repeated) and the schema of its request
 * body; a method that takes media adds its upload paths (`/upload/...`), the media types it accepts
 * and its `maxSize`. Unknown query parameters and unknown body fields are refused, as Google's front
 * end refuses them ("Cannot bind query parameter", "Unknown name ... Cannot find field").
 */

type Json = Record<string, unknown>;

interface DiscoveryParameter {
  type?: string;
  location?: 'query' | 'path';
  required?: boolean;
  repeated?: boolean;
  enum?: string[];
  pattern?: string;
  minimum?: string;
  maximum?: string;
}

interface DiscoveryMethod {
  id: string;
  httpMethod: string;
  path: string;
  parameters?: Record<string, DiscoveryParameter>;
  request?: { $ref: string };
  mediaUpload?: {
    accept: string[];
    maxSize?: string;
    protocols: Record<string, { multipart?: boolean; path: string }>;
  };
}

interface Route {
  method: DiscoveryMethod;
  pattern: RegExp;
  names: string[];
  /** Set for an upload path: the media protocol (`simple` or `resumable`). */
  upload?: string;
  literals: number;
}

export interface DiscoveryDescriptionOptions {
  /** What was recorded, for messages (see test/fixtures/networks/<id>/SOURCE.md). */
  source: string;
}

/** `2097152`, `2MB`, `256GB` -> bytes. */
export function discoveryBytes(size: string): number {
  const m = /^(\d+)\s*([KMGT]?B)?$/i.exec(size.trim());
  if (!m) return Number.POSITIVE_INFINITY;
  const unit = (m[2] ?? '').toUpperCase();
  const factor = { '': 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 }[unit] ?? 1;
  return Number(m[1]) * factor;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function templateToRoute(template: string): { pattern: RegExp; names: string[]; literals: number } {
  const names: string[] = [];
  const source = template.replace(/\{(\+?)([^}]+)\}|([^{]+)/g, (_m, plus: string, name: string, literal: string) => {
    if (name !== undefined) {
      names.push(name);
      return plus ? '(.+)' : '([^/]+)';
    }
    return escapeRegex(literal);
  });
  return {
    pattern: new RegExp(`^${source}$`),
    names,
    literals: template.split('/').filter((s) => !s.includes('{')).length,
  };
}

/** A discovery schema as JSON Schema, objects closed unless they declare additionalProperties. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const s = node as Json;
  const out: Json = {};
  if (typeof s.$ref === 'string') return { $ref: `#/definitions/${s.$ref}` };
  if (s.type === 'any') return {};
  if (s.type) out.type = s.type;
  if (s.enum) out.enum = s.enum;
  if (s.items) out.items = toJsonSchema(s.items);
  if (s.properties) {
    out.properties = Object.fromEntries(Object.entries(s.properties as Json).map(([k, v]) => [k, toJsonSchema(v)]));
  }
  if (s.additionalProperties) out.additionalProperties = toJsonSchema(s.additionalProperties);
  else if (s.type === 'object' || s.properties) out.additionalProperties = false;
  return out;
}

function formatErrors(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((e) => {
    const at = `${where}${e.instancePath}`;
    if (e.keyword === 'additionalProperties') {
      return `Invalid JSON payload received. Unknown name "${String(e.params.additionalProperty)}" at '${at}': Cannot find field.`;
    }
    if (e.keyword === 'enum') return `${at} ${e.message}: ${JSON.stringify(e.params.allowedValues)}`;
    return `${at} ${e.message ?? e.keyword}`;
  });
}

export class DiscoveryDescription implements Description {
  readonly source: string;
  private readonly routes: Route[] = [];
  private readonly globals: Record<string, DiscoveryParameter>;
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: Json, options: DiscoveryDescriptionOptions) {
    this.source = options.source;
    this.globals = (doc.parameters ?? {}) as Record<string, DiscoveryParameter>;
    const definitions = Object.fromEntries(
      Object.entries((doc.schemas ?? {}) as Json).map(([name, schema]) => [name, toJsonSchema(schema)]),
    );
    this.ajv.addSchema({ definitions }, 'discovery');
    const servicePath = typeof doc.servicePath === 'string' ? doc.servicePath : '';
    const walk = (resources: Json | undefined) => {
      for (const resource of Object.values(resources ?? {}) as Json[]) {
        for (const method of Object.values((resource.methods ?? {}) as Json) as DiscoveryMethod[]) {
          this.routes.push({ method, ...templateToRoute(`/${servicePath}${method.path}`) });
          for (const [protocol, { path }] of Object.entries(method.mediaUpload?.protocols ?? {})) {
            this.routes.push({ method, upload: protocol, ...templateToRoute(path) });
          }
        }
        walk(resource.resources as Json | undefined);
      }
    };
    walk(doc.resources as Json | undefined);
    this.routes.sort((a, b) => b.literals - a.literals);
  }

  /** Loads a recorded document (test/fixtures/networks/<id>/<api>.json). */
  static load(file: string, options: DiscoveryDescriptionOptions): DiscoveryDescription {
    return new DiscoveryDescription(JSON.parse(readFileSync(file, 'utf8')) as Json, options);
  }

  /** Whether one of the document's methods (or upload paths) is at this path. */
  covers(path: string): boolean {
    return this.routes.some((r) => r.pattern.test(path));
  }

  check(req: DescribedRequest): DescriptionCheck {
    const candidates = this.routes.filter((r) => r.pattern.test(req.path));
    if (candidates.length === 0) return { problems: [`${req.method} ${req.path} is not a method of ${this.source}`] };
    const route = candidates.find((r) => r.method.httpMethod === req.method);
    if (!route) {
      const allowed = [...new Set(candidates.map((c) => c.method.httpMethod))].join(', ');
      return { problems: [`${req.path} takes ${allowed}, not ${req.method} (${this.source})`] };
    }
    const { method } = route;
    const problems: string[] = [];
    const params = method.parameters ?? {};
    const match = route.pattern.exec(req.path)!;
    route.names.forEach((name, i) => {
      const value = decodeURIComponent(match[i + 1]);
      problems.push(...this.checkValue(name, params[name] ?? {}, value));
    });
    const query = queryObject(req.query);
    for (const [name, raw] of Object.entries(query)) {
      const param = params[name]?.location === 'query' ? params[name] : this.globals[name];
      if (!param) {
        const known = Object.keys(params).filter((n) => params[n].location === 'query');
        problems.push(
          `Cannot bind query parameter. Field '${name}' could not be found in request message (${method.id} takes ${known.join(', ') || 'none'}).`,
        );
        continue;
      }
      const values = Array.isArray(raw) ? raw : [raw];
      if (values.length > 1 && !param.repeated)
        problems.push(`query parameter ${name} is given ${values.length} times`);
      for (const value of values) problems.push(...this.checkValue(name, param, value));
    }
    for (const [name, param] of Object.entries(params)) {
      if (param.location === 'query' && param.required && !(name in query)) {
        problems.push(`Required parameter: ${name} (${method.id})`);
      }
    }
    problems.push(...this.checkBody(route, req, query));
    return { operation: method.id, problems };
  }

  private checkBody(route: Route, req: DescribedRequest, query: Record<string, string | string[]>): string[] {
    const { method } = route;
    const uploadType = typeof query.uploadType === 'string' ? query.uploadType : undefined;
    if (route.upload) {
      const media = method.mediaUpload!;
      const max = media.maxSize ? discoveryBytes(media.maxSize) : Number.POSITIVE_INFINITY;
      const accepts = (type: string) =>
        media.accept.some((a) => a === '*/*' || a === type || (a.endsWith('/*') && type.startsWith(a.slice(0, -1))));
      if (route.upload === 'resumable' || uploadType === 'resumable') {
        const problems: string[] = [];
        const header = (name: string) => {
          const value = req.headers?.[name];
          return Array.isArray(value) ? value[0] : value;
        };
        const length = Number(header('x-upload-content-length') ?? NaN);
        const type = String(header('x-upload-content-type') ?? '');
        if (Number.isFinite(length) && length > max) {
          problems.push(`Media larger than ${media.maxSize} bytes (${method.id} mediaUpload.maxSize): ${length}`);
        }
        if (type && !accepts(type)) problems.push(`Media type '${type}' is not supported by ${method.id}`);
        return [...problems, ...this.checkJson(method, req)];
      }
      if (uploadType === 'media' || uploadType === undefined) {
        const problems: string[] = [];
        if (req.body.length > max) {
          problems.push(
            `Media larger than ${media.maxSize} bytes (${method.id} mediaUpload.maxSize): ${req.body.length}`,
          );
        }
        if (!accepts(req.contentType))
          problems.push(`Media type '${req.contentType}' is not supported by ${method.id}`);
        return problems;
      }
      if (uploadType !== 'multipart') return [`uploadType ${uploadType} is not one Google takes`];
      return [];
    }
    return this.checkJson(method, req);
  }

  private checkJson(method: DiscoveryMethod, req: DescribedRequest): string[] {
    const body = parseBody(req);
    if (!method.request) return body.kind === 'none' ? [] : [`${method.id} takes no request body`];
    if (body.kind === 'none') return [];
    if (body.kind === 'invalid-json') return [`Invalid JSON payload received. ${body.error}`];
    if (body.kind !== 'json') return [`${method.id} takes a JSON body, not "${req.contentType}"`];
    const name = method.request.$ref;
    let fn = this.compiled.get(name);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `discovery#/definitions/${name}` });
      this.compiled.set(name, fn);
    }
    return fn(structuredClone(body.value)) ? [] : formatErrors(fn.errors, name);
  }

  private checkValue(name: string, param: DiscoveryParameter, value: string): string[] {
    const problems: string[] = [];
    if (param.enum && !param.enum.includes(value)) {
      problems.push(`Invalid value for ${name}: "${value}" is not one of ${param.enum.join(', ')}`);
    }
    if (param.pattern && !new RegExp(param.pattern).test(value)) {
      problems.push(`Invalid value for ${name}: "${value}" does not match ${param.pattern}`);
    }
    if (param.type === 'boolean' && !/^(true|false)$/.test(value)) {
      problems.push(`Invalid value for ${name}: "${value}" is not a boolean`);
    }
    if (param.type === 'integer') {
      const n = Number(value);
      if (!/^-?\d+$/.test(value)) problems.push(`Invalid value for ${name}: "${value}" is not an integer`);
      else if (param.minimum !== undefined && n < Number(param.minimum)) {
        problems.push(`Invalid value for ${name}: ${n} is below ${param.minimum}`);
      } else if (param.maximum !== undefined && n > Number(param.maximum)) {
        problems.push(`Invalid value for ${name}: ${n} is above ${param.maximum}`);
      }
    }
    return problems;
  }
}

/**
 * Several discovery documents of one network, each API on its own host (Business Profile: account
 * management, business information, the v4 local posts), checked together by a fake serving them
 * all: a request is checked by the document with a method at its path.
 */
export class DiscoveryDescriptions implements Description {
  readonly source: string;

  constructor(private readonly parts: DiscoveryDescription[]) {
    this.source = parts.map((p) => p.source).join('; ');
  }

  check(req: DescribedRequest): DescriptionCheck {
    const part = this.parts.find((p) => p.covers(req.path));
    if (!part) return { problems: [`${req.method} ${req.path} is not a method of ${this.source}`] };
    return part.check(req);
  }
}
