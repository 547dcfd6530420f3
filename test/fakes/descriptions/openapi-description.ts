import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { type DescribedRequest, type Description, type DescriptionCheck, parseBody, queryObject } from './description';

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
  style?: string;
  explode?: boolean;
}

interface Operation {
  key: string;
  pattern: RegExp;
  /** Literal segments of the template: the more, the better the match (`/media/metadata` before `/media/{id}`). */
  literals: number;
  names: string[];
  parameters: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Json }> };
}

export interface OpenApiDescriptionOptions {
  /** What was recorded, for messages (see test/fixtures/networks/<id>/SOURCE.md). */
  source: string;
  /**
   * Path prefix every request must carry before the document's paths; default: the path of the
   * document's first server URL (`https://discord.com/api/v10` -> `/api/v10`).
   */
  basePath?: string;
  /**
   * Reads the document's `oneOf` as `anyOf`, for documents whose alternatives overlap where the
   * server takes any of them (Pinterest lists `IMPRESSION` among both its standard and its video
   * metric types, so a strict oneOf refuses every request that names it). Say why at the call.
   */
  oneOfAsAnyOf?: boolean;
  /**
   * The multipart field that carries the request's JSON, checked as the JSON body would be: Discord's
   * `payload_json` (default), Tumblr's `json`.
   */
  jsonPart?: string;
}

const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function formatErrors(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((e) => {
    const at = `${where}${e.instancePath}`;
    if (e.keyword === 'additionalProperties') {
      return `${at} must not have the property "${String(e.params.additionalProperty)}"`;
    }
    if (e.keyword === 'enum') return `${at} ${e.message}: ${JSON.stringify(e.params.allowedValues)}`;
    return `${at} ${e.message ?? e.keyword}`;
  });
}

/** A copy of a schema tree with every `oneOf` read as `anyOf` (see oneOfAsAnyOf). */
function anyOfFor(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anyOfFor);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k === 'oneOf' ? 'anyOf' : k, anyOfFor(v)]));
}

/**
 * An OpenAPI 3.0/3.1 document (trimmed to the operations a provider uses) as a request checker: the
 * path must be one of the document's, the method one of the path's; path parameters, query
 * parameters (unknown ones refused, required ones demanded) and the body (JSON, form or the JSON of a
 * multipart `payload_json`) are checked against their schemas with Ajv, `additionalProperties`
 * included.
 */
export class OpenApiDescription implements Description {
  readonly source: string;
  private readonly doc: Json;
  private readonly basePath: string;
  private readonly jsonPart: string;
  private readonly operations: Array<Operation & { method: string }> = [];
  private readonly ajv: Ajv;
  /** Same document, coercing strings (query, path and form values arrive as text). */
  private readonly coercing: Ajv;
  private readonly compiled = new WeakMap<object, ValidateFunction>();
  private readonly compiledCoercing = new WeakMap<object, ValidateFunction>();
  private readonly oneOfAsAnyOf: boolean;

  constructor(doc: Json, options: OpenApiDescriptionOptions) {
    this.doc = doc;
    this.source = options.source;
    this.oneOfAsAnyOf = options.oneOfAsAnyOf ?? false;
    this.jsonPart = options.jsonPart ?? 'payload_json';
    const servers = doc.servers as Array<{ url: string }> | undefined;
    this.basePath = (options.basePath ?? (servers?.[0] ? new URL(servers[0].url).pathname : '')).replace(/\/$/, '');
    const v31 = String(doc.openapi).startsWith('3.1');
    const make = (coerceTypes: boolean): Ajv => {
      const opts = { strict: false, allErrors: true, validateSchema: false, logger: false, coerceTypes } as const;
      const ajv = v31 ? new Ajv2020(opts) : new Ajv(opts);
      addFormats(ajv);
      ajv.addSchema(options.oneOfAsAnyOf ? (anyOfFor(doc) as Json) : doc, 'doc');
      return ajv;
    };
    this.ajv = make(false);
    this.coercing = make(true);
    const paths = (doc.paths ?? {}) as Record<string, Json>;
    for (const [template, item] of Object.entries(paths)) {
      const names: string[] = [];
      const source = template
        .split('/')
        .map((segment) =>
          segment.replace(/\{([^}]+)\}|([^{]+)/g, (_m, name: string | undefined, literal: string | undefined) => {
            if (name !== undefined) {
              names.push(name);
              return '([^/]+)';
            }
            return escapeRegex(literal ?? '');
          }),
        )
        .join('/');
      const literals = template.split('/').filter((s) => s && !s.includes('{')).length;
      const shared = ((item.parameters as unknown[]) ?? []).map((p) => this.resolve(p) as Parameter);
      for (const method of methods) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        const own = ((op.parameters as unknown[]) ?? []).map((p) => this.resolve(p) as Parameter);
        const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
        this.operations.push({
          key: `${method.toUpperCase()} ${template}`,
          method: method.toUpperCase(),
          pattern: new RegExp(`^${source}$`),
          literals,
          names,
          parameters,
          requestBody: op.requestBody ? (this.resolve(op.requestBody) as Operation['requestBody']) : undefined,
        });
      }
    }
    this.operations.sort((a, b) => b.literals - a.literals);
  }

  /** Loads a recorded document (test/fixtures/networks/<id>/openapi.json). */
  static load(file: string, options: OpenApiDescriptionOptions): OpenApiDescription {
    return new OpenApiDescription(JSON.parse(readFileSync(file, 'utf8')) as Json, options);
  }

  check(req: DescribedRequest): DescriptionCheck {
    if (this.basePath && !req.path.startsWith(`${this.basePath}/`)) {
      return { problems: [`${req.path} is not under ${this.basePath}, the base path of ${this.source}`] };
    }
    const path = req.path.slice(this.basePath.length);
    const candidates = this.operations.filter((o) => o.pattern.test(path));
    if (candidates.length === 0) return { problems: [`${req.method} ${path} is not an operation of ${this.source}`] };
    const op = candidates.find((o) => o.method === req.method);
    if (!op) {
      const allowed = [...new Set(candidates.map((c) => c.method))].join(', ');
      return { problems: [`${path} takes ${allowed}, not ${req.method} (${this.source})`] };
    }
    const problems: string[] = [];
    const match = op.pattern.exec(path)!;
    op.names.forEach((name, i) => {
      const param = op.parameters.find((p) => p.in === 'path' && p.name === name);
      if (param?.schema) problems.push(...this.checkValue(param, decodeURIComponent(match[i + 1]), `path ${name}`));
    });

    const query = queryObject(req.query);
    for (const name of Object.keys(query)) {
      const param = op.parameters.find((p) => p.in === 'query' && p.name === name);
      if (!param) {
        const known = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
        problems.push(`query parameter "${name}" is not one of ${op.key}'s (${known.join(', ') || 'none'})`);
        continue;
      }
      if (param.schema) problems.push(...this.checkValue(param, query[name], `query ${name}`));
    }
    for (const param of op.parameters) {
      if (param.in === 'query' && param.required && !(param.name in query)) {
        problems.push(`query parameter "${param.name}" is required by ${op.key}`);
      }
    }
    problems.push(...this.checkBody(op, req));
    return { operation: op.key, problems };
  }

  private checkBody(op: Operation, req: DescribedRequest): string[] {
    const body = parseBody(req);
    const described = op.requestBody;
    if (!described) return body.kind === 'none' ? [] : [`${op.key} takes no request body`];
    if (body.kind === 'none') return described.required ? [`${op.key} requires a request body`] : [];
    const media = described.content[req.contentType];
    if (!media) {
      return [
        `${op.key} takes ${Object.keys(described.content).join(', ')}, not "${req.contentType || 'no content type'}"`,
      ];
    }
    switch (body.kind) {
      case 'invalid-json':
        return [`the body is not JSON: ${body.error}`];
      case 'json':
        return media.schema ? this.validate(this.ajv, this.compiled, media.schema, body.value, 'body') : [];
      case 'form':
        return media.schema
          ? this.validate(this.coercing, this.compiledCoercing, media.schema, body.value, 'form')
          : [];
      case 'multipart': {
        // The JSON of the request in one part (Discord's `payload_json`, Tumblr's `json`), checked as the JSON body would be.
        const json = described.content['application/json']?.schema;
        const part = body.fields[this.jsonPart];
        if (part !== undefined && json) {
          let payload: unknown;
          try {
            payload = JSON.parse(part);
          } catch {
            return [`${this.jsonPart} is not JSON`];
          }
          return this.validate(this.ajv, this.compiled, json, payload, this.jsonPart);
        }
        if (!media.schema) return [];
        const value: Record<string, unknown> = { ...body.fields };
        for (const name of body.files) value[name] = '';
        // A field the schema types as an object or an array goes as JSON text (the Telegram Bot API's
        // rule for multipart calls): parsed, then checked as the JSON body would be.
        const problems: string[] = [];
        const properties = ((this.resolve(media.schema) as Json).properties ?? {}) as Record<string, unknown>;
        for (const [name, text] of Object.entries(body.fields)) {
          const type = (this.resolve(properties[name]) as Json | undefined)?.type;
          if (type !== 'object' && type !== 'array') continue;
          try {
            value[name] = JSON.parse(text) as unknown;
          } catch {
            problems.push(`form/${name} is not JSON`);
          }
        }
        return [...problems, ...this.validate(this.coercing, this.compiledCoercing, media.schema, value, 'form')];
      }
      default:
        return [];
    }
  }

  /** A path or query value (text) against the parameter's schema; arrays split as the style says. */
  private checkValue(param: Parameter, raw: string | string[], where: string): string[] {
    const schema = this.resolve(param.schema) as Json;
    let value: unknown = raw;
    if (schema.type === 'array') {
      const explode = param.explode ?? (param.style ?? 'form') === 'form';
      const values = Array.isArray(raw) ? raw : [raw];
      value = explode ? values : values.flatMap((v) => v.split(','));
    } else if (Array.isArray(raw)) {
      return [`${where} is given ${raw.length} times`];
    }
    return this.validate(this.coercing, this.compiledCoercing, param.schema!, value, where);
  }

  private validate(
    ajv: Ajv,
    cache: WeakMap<object, ValidateFunction>,
    schema: Json,
    value: unknown,
    where: string,
  ): string[] {
    let fn = cache.get(schema);
    if (!fn) {
      fn = ajv.compile(this.rebase(schema) as Json);
      cache.set(schema, fn);
    }
    const copy = structuredClone(value);
    return fn(copy) ? [] : formatErrors(fn.errors, where);
  }

  /** A schema of the document whose local references point into the document added to Ajv as 'doc'. */
  private rebase(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.rebase(n));
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      const key = k === 'oneOf' && this.oneOfAsAnyOf ? 'anyOf' : k;
      out[key] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `doc${v}` : this.rebase(v);
    }
    return out;
  }

  /** Follows a local `$ref` (#/components/...) to its target. */
  private resolve(node: unknown): unknown {
    let current = node as Json | undefined;
    for (let depth = 0; current && typeof current.$ref === 'string' && depth < 20; depth += 1) {
      const pointer = current.$ref.replace(/^#\//, '').split('/');
      let target: unknown = this.doc;
      for (const part of pointer) target = (target as Json)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      current = target as Json | undefined;
    }
    return current;
  }
}
