import type { McpToolSpec } from './mcp-tools';

/** The parts of an OpenAPI 3 document read here (the one docs/openapi.ts builds). */
export interface OpenApiLike {
  paths: Record<string, Record<string, OperationLike | undefined> | undefined>;
  components?: { schemas?: Record<string, unknown> };
}

interface OperationLike {
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
}

export type JsonSchema = Record<string, unknown>;

/** A tool's input schema and where each of its fields goes in the API call. */
export interface ToolInput {
  schema: JsonSchema;
  /** Path parameters (`id`, `postId`). */
  path: string[];
  /** Query parameters. */
  query: string[];
  /** Whether the rest of the input is the JSON body. */
  body: boolean;
  /** Whether it takes `idempotencyKey`. */
  idempotent: boolean;
}

export const IDEMPOTENCY_KEY_FIELD = 'idempotencyKey';
const REF = '#/components/schemas/';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value with `#/components/schemas/X` references rewritten to `#/$defs/X`; collects the names met. */
function rewriteRefs(value: unknown, seen: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, seen));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(REF)) {
      seen.add(v.slice(REF.length));
      out[k] = `#/$defs/${v.slice(REF.length)}`;
    } else if (k !== 'example' && k !== 'examples') {
      out[k] = rewriteRefs(v, seen);
    }
  }
  return out;
}

/**
 * The input of a tool from its API operation: path and query parameters and the JSON body's
 * properties side by side, with the API's own field names, descriptions and rules, as one closed
 * object schema (JSON Schema 2020-12, referenced schemas under `$defs`). Write tools that create
 * get `idempotencyKey` too.
 */
export function toolInput(spec: McpToolSpec, doc: OpenApiLike): ToolInput {
  const op = doc.paths[spec.operation.path]?.[spec.operation.method.toLowerCase()];
  if (!op) throw new Error(`MCP tool ${spec.name}: no operation ${spec.operation.method} ${spec.operation.path}`);
  const components = doc.components?.schemas ?? {};
  const refs = new Set<string>();
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const path: string[] = [];
  const query: string[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    (p.in === 'path' ? path : query).push(p.name);
    const schema = rewriteRefs(p.schema ?? {}, refs) as JsonSchema;
    properties[p.name] = p.description ? { ...schema, description: p.description } : schema;
    if (p.required) required.push(p.name);
  }
  let body = false;
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  if (isObject(bodySchema)) {
    body = true;
    const ref = typeof bodySchema.$ref === 'string' ? bodySchema.$ref.slice(REF.length) : null;
    const resolved = ref ? components[ref] : bodySchema;
    if (!isObject(resolved)) throw new Error(`MCP tool ${spec.name}: body schema ${ref} not found`);
    for (const [name, schema] of Object.entries((resolved.properties ?? {}) as Record<string, unknown>)) {
      properties[name] = rewriteRefs(schema, refs);
    }
    for (const name of (resolved.required ?? []) as string[]) required.push(name);
  }
  if (spec.idempotent) {
    properties[IDEMPOTENCY_KEY_FIELD] = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description:
        'Any unique string (a UUID, say) naming this creation: a retried call with the same key and input returns ' +
        'the first result instead of creating again. Generated when absent.',
    };
  }
  // Referenced schemas, and the ones they reference in turn.
  const defs: Record<string, unknown> = {};
  const pending = [...refs];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in defs) continue;
    const more = new Set<string>();
    defs[name] = rewriteRefs(components[name] ?? {}, more);
    for (const m of more) if (!(m in defs)) pending.push(m);
  }
  const schema: JsonSchema = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(Object.keys(defs).length > 0 ? { $defs: Object.fromEntries(Object.entries(defs).sort()) } : {}),
  };
  return { schema, path, query, body, idempotent: spec.idempotent };
}

/** A tool as MCP's `tools/list` describes it. */
export interface ToolDescription {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

/** What `tools/list` says of a tool, the same from the remote server and the stdio package. */
export function describeTool(spec: McpToolSpec, input: ToolInput): ToolDescription {
  return {
    name: spec.name,
    title: spec.title,
    description: `${spec.description} Requires the scope ${spec.scope}.`,
    inputSchema: input.schema,
    annotations: {
      title: spec.title,
      readOnlyHint: spec.readOnly,
      destructiveHint: spec.destructive,
      // Calling again with the same input changes nothing more: reads, PUT, DELETE, and creations by key.
      idempotentHint: spec.readOnly || spec.operation.method !== 'POST',
      openWorldHint: !spec.readOnly,
    },
  };
}

/** A tool's arguments split into the API call's path, query and body, the idempotency key, and the unknown. */
export interface SplitArguments {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
  idempotencyKey: string | undefined;
  /** Fields of an operation without a body that are none of its parameters. */
  unknown: string[];
}

/** Splits a tool's arguments into the API call's path, query and body (and the idempotency key). */
export function splitArguments(input: ToolInput, args: Record<string, unknown>): SplitArguments {
  const out: SplitArguments = {
    path: {},
    query: {},
    body: input.body ? {} : undefined,
    idempotencyKey: undefined,
    unknown: [],
  };
  for (const [k, v] of Object.entries(args)) {
    if (k === IDEMPOTENCY_KEY_FIELD && input.idempotent) {
      out.idempotencyKey = typeof v === 'string' ? v : String(v);
    } else if (input.path.includes(k)) out.path[k] = v;
    else if (input.query.includes(k)) out.query[k] = v;
    else if (out.body) out.body[k] = v;
    else out.unknown.push(k);
  }
  return out;
}
