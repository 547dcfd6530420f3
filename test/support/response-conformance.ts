import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Response conformance (test/setup/response-conformance.ts runs it for every e2e spec): each answer the
 * service gives to a `fetch` of the spec, on an `/api` operation of the committed docs/openapi.json, is
 * checked against the document: its status is one the operation declares, its content type one that
 * status declares, and a JSON body matches that schema, closed (a field the document does not name is a
 * failure, so the document and the service cannot drift apart). Violations fail the test that received
 * the answer.
 *
 * Only answers of our service are looked at (they carry `X-Request-Id`); fakes of networks are not.
 * The document itself and Swagger UI are not operations.
 */
interface Schema {
  [key: string]: unknown;
}
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const doc = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8')) as Doc;

/** OpenAPI 3.0 schema -> JSON Schema ajv reads: `nullable` as a null type, objects closed, no discriminator. */
function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === 'nullable' || key === 'discriminator' || key === 'example' || key === 'examples') continue;
    if (key === '$ref') out.$ref = (value as string).replace('#/components/schemas/', '#/definitions/');
    else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, toJsonSchema(v)]));
    } else if (key === 'enum' || key === 'required' || key === 'default') out[key] = value;
    else out[key] = toJsonSchema(value);
  }
  if (s.properties && s.additionalProperties === undefined) out.additionalProperties = false;
  if (s.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    if (out.$ref || out.allOf || out.oneOf || out.anyOf) return { anyOf: [{ type: 'null' }, out] };
  }
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
const definitions = Object.fromEntries(
  Object.entries(doc.components.schemas).map(([name, schema]) => [name, toJsonSchema(schema)]),
);
const validators = new Map<Schema, ValidateFunction>();
function validatorOf(schema: Schema): ValidateFunction {
  let v = validators.get(schema);
  if (!v) {
    v = ajv.compile({ ...(toJsonSchema(schema) as Schema), definitions });
    validators.set(schema, v);
  }
  return v;
}

const templates = Object.entries(doc.paths)
  .map(([template, item]) => ({
    template,
    item,
    pattern: new RegExp(`^/api${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    literals: template.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
  }))
  // The router prefers a literal segment to a parameter (/posts/validate before /posts/{id}).
  .sort((a, b) => b.literals - a.literals);

function operationOf(method: string, path: string): { template: string; op: Operation } | undefined {
  const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  for (const { template, item, pattern } of templates) {
    if (pattern.test(path) && item[m]) return { template, op: item[m] };
  }
  return undefined;
}

/** What is wrong with one answer of the service, measured against the document; undefined when it conforms. */
export async function nonConformance(method: string, url: URL, res: Response): Promise<string | undefined> {
  const path = url.pathname;
  if (!path.startsWith('/api/') || path === '/api/openapi.json' || path.startsWith('/api/docs')) return undefined;
  if (!res.headers.get('x-request-id')) return undefined;
  const found = operationOf(method, path);
  if (!found) return undefined; // no such operation: 404 or 405, checked by their own specs
  const label = `${method} ${path} (${found.template}) -> ${res.status}`;
  const declared = found.op.responses[String(res.status)] ?? found.op.responses[`${String(res.status)[0]}XX`];
  if (!declared) {
    return `${label}: status not declared (${Object.keys(found.op.responses).join(', ')})`;
  }
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (method === 'HEAD' || res.status === 204 || res.status === 304) return undefined;
  if (!declared.content) {
    return type && res.headers.get('content-length') !== '0'
      ? `${label}: a ${type} body where none is declared`
      : undefined;
  }
  const media = Object.entries(declared.content).find(
    ([declaredType]) => declaredType === type || new RegExp(`^${declaredType.replace('*', '[^/]+')}$`).test(type),
  );
  if (!media) {
    return `${label}: content type ${type || '(none)'} not among ${Object.keys(declared.content).join(', ')}`;
  }
  const schema = media[1].schema;
  if (!schema || !type.endsWith('json')) return undefined;
  const text = await res.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${label}: body is not JSON`;
  }
  const validate = validatorOf(schema);
  if (!validate(body)) {
    const errors = (validate.errors ?? []).slice(0, 5);
    return `${label}: ${errors.map((e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`).join('; ')}`;
  }
  return undefined;
}
