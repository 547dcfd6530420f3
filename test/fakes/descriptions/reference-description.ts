import { readFileSync } from 'node:fs';
import type { DescribedRequest, Description, DescriptionCheck } from './description';
import { OpenApiDescription } from './openapi-description';

type Json = Record<string, unknown>;

/** One operation of a reference page, its request as the page's field table gives it. */
export interface ReferenceOperation {
  /** Where the page says it (page and anchor, or the package's type), for messages and for people. */
  reference: string;
  /**
   * The query parameters: a JSON Schema object (`properties`, `required`) or a `$ref` to one of the
   * definitions; a parameter not among `properties` is refused.
   */
  query?: Json;
  /** The body per content type (`application/json`, `multipart/form-data`, ...), each a JSON Schema. */
  body?: Record<string, Json>;
  /** The page marks the body required. */
  bodyRequired?: boolean;
}

/**
 * A network's reference pages (prose: Mastodon's documentation, LinkedIn's field tables, the Telegram
 * Bot API, Slack's method pages, TikTok's Content Posting API) recorded field by field as JSON under
 * test/fixtures/networks/<id>/reference.json, its SOURCE.md citing each page:
 *
 * ```json
 * { "source": "...", "basePath": "/v2",
 *   "operations": { "POST /api/v1/statuses": { "reference": "...", "body": { "application/json": {...} } } },
 *   "definitions": { "Name": { ... } } }
 * ```
 *
 * Operation keys are `METHOD /path`, path parameters as `{name}`; schemas refer to each other as
 * `#/definitions/Name`. The recording is turned into an OpenAPI 3.1 document and checked by
 * OpenApiDescription, so a page and an OpenAPI document are held to the same rules (unknown
 * parameters refused, required ones demanded, bodies validated with Ajv).
 */
export interface ReferenceDocument {
  source: string;
  /** Prefix every request carries before the operations' paths ('' when none). */
  basePath?: string;
  operations: Record<string, ReferenceOperation>;
  definitions?: Record<string, Json>;
}

/** The OpenAPI 3.1 document a recorded reference stands for. */
export function referenceToOpenApi(ref: ReferenceDocument): Json {
  const paths: Record<string, Json> = {};
  for (const [key, op] of Object.entries(ref.operations)) {
    const [method, path] = key.split(' ');
    if (!method || !path) throw new Error(`"${key}" is not "METHOD /path"`);
    const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const queryRef = typeof op.query?.$ref === 'string' ? op.query.$ref.replace('#/definitions/', '') : undefined;
    const query = queryRef ? ref.definitions?.[queryRef] : op.query;
    if (queryRef && !query) throw new Error(`${key}: no definition ${queryRef}`);
    const properties = (query?.properties ?? {}) as Record<string, Json>;
    const required = (query?.required ?? []) as string[];
    const queryParams = Object.entries(properties).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.includes(name),
      // Arrays in a query go comma-separated (Pinterest's and LinkedIn's way) unless the page says otherwise.
      ...(schema.type === 'array' ? { style: 'form', explode: false } : {}),
      schema,
    }));
    const operation: Json = { summary: op.reference, parameters: [...pathParams, ...queryParams] };
    if (op.body) {
      operation.requestBody = {
        required: op.bodyRequired ?? false,
        content: Object.fromEntries(Object.entries(op.body).map(([type, schema]) => [type, { schema }])),
      };
    }
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
  }
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node as Json).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? v.replace('#/definitions/', '#/components/schemas/') : rewrite(v),
      ]),
    );
  };
  return {
    openapi: '3.1.0',
    info: { title: ref.source, version: 'recorded' },
    paths: rewrite(paths),
    components: { schemas: rewrite(ref.definitions ?? {}) },
  };
}

/** A recorded reference (see ReferenceDocument) as a request checker. */
export class ReferenceDescription implements Description {
  readonly source: string;
  private readonly openApi: OpenApiDescription;

  constructor(ref: ReferenceDocument) {
    this.source = ref.source;
    this.openApi = new OpenApiDescription(referenceToOpenApi(ref), {
      source: ref.source,
      basePath: ref.basePath ?? '',
    });
  }

  /** Loads test/fixtures/networks/<id>/reference.json. */
  static load(file: string): ReferenceDescription {
    return new ReferenceDescription(JSON.parse(readFileSync(file, 'utf8')) as ReferenceDocument);
  }

  check(req: DescribedRequest): DescriptionCheck {
    return this.openApi.check(req);
  }
}
