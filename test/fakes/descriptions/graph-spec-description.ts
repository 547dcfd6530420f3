import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DescribedRequest, type Description, type DescriptionCheck, parseBody, queryObject } from './description';

/**
 * Meta's Graph API node specifications, in the format of facebook/facebook-business-sdk-codegen
 * (`api_specs/specs/<Node>.json`: per node type its edges with the parameters each takes and their
 * types, and its fields; `enum_types.json`: the values of each enum parameter type), as a request
 * checker. A Graph path is `/vNN.N/{id}` or `/vNN.N/{id}/{edge}`; the node type of an id is known to
 * the fake (it created the object), so the fake says it (`nodeOf`). The edge must be one of the
 * node's for the method, every parameter one the edge declares (unknown ones refused, required ones
 * demanded), each value of its declared type (bool, int, unsigned int, float, enum, list, JSON
 * object), and every name in `fields` a field or an edge of the node the answer describes.
 */

interface SpecParam {
  name: string;
  type: string;
  required?: boolean;
  /** Longest value in characters, where a transcribed reference states one (Meta's generated specs carry none). */
  max_length?: number;
}

interface SpecApi {
  method: string;
  endpoint?: string;
  name?: string;
  return?: string;
  params?: SpecParam[];
}

export interface GraphNodeSpec {
  apis: SpecApi[];
  fields: Array<{ name: string; type: string }>;
}

export interface GraphSpecDescriptionOptions {
  /** What was recorded, for messages (see test/fixtures/networks/<id>/SOURCE.md). */
  source: string;
  /** The node type of an object id in a path (`me` included); undefined for an object the fake does not know. */
  nodeOf: (id: string) => string | undefined;
  /**
   * Names an edge has in the live API where the generated spec spells it otherwise, per node type
   * (the Instagram Login spec's `mediapublish` is `media_publish` on graph.instagram.com). Said in SOURCE.md.
   */
  edgeAliases?: Record<string, Record<string, string>>;
  /**
   * Fields the owner documents on a node that its spec does not list, per node type, each said in
   * SOURCE.md with its reference page (the Page's `tasks` on /me/accounts).
   */
  documentedFields?: Record<string, string[]>;
  /**
   * The recorded node a return type names in the network's own API (the Instagram Login spec returns
   * `Media` and `Comment`, its IGMediaForIGOnlyAPI and IGComment nodes).
   */
  typeAliases?: Record<string, string>;
}

/**
 * Parameters Graph takes on every read, whatever the edge: field selection and the cursor- and
 * time-based paging of "Using the Graph API: paginated results".
 */
const READ_PARAMS = new Set(['fields', 'limit', 'after', 'before', 'since', 'until']);

/** The top-level names of a `fields` value: `a,b.limit(0),c{d,e}` -> a, b, c. */
export function topLevelFields(value: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '{' || ch === '(') depth += 1;
    if (ch === '}' || ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      names.push(current);
      current = '';
    } else current += ch;
  }
  names.push(current);
  return names.map((n) => n.trim().split(/[.{(]/)[0]).filter(Boolean);
}

export class GraphSpecDescription implements Description {
  readonly source: string;

  constructor(
    private readonly specs: Record<string, GraphNodeSpec>,
    private readonly enums: Record<string, string[]>,
    private readonly options: GraphSpecDescriptionOptions,
  ) {
    this.source = options.source;
  }

  /** Loads a recorded directory: one `<Node>.json` per node type and `enum_types.json`. */
  static load(dir: string, options: GraphSpecDescriptionOptions): GraphSpecDescription {
    const specs: Record<string, GraphNodeSpec> = {};
    let enums: Record<string, string[]> = {};
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const json = JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
      if (file === 'enum_types.json') {
        enums = Object.fromEntries((json as Array<{ name: string; values: string[] }>).map((e) => [e.name, e.values]));
      } else specs[file.replace(/\.json$/, '')] = json as GraphNodeSpec;
    }
    return new GraphSpecDescription(specs, enums, options);
  }

  check(req: DescribedRequest): DescriptionCheck {
    const m = /^\/v\d+\.\d+\/([^/]+)(?:\/([^/]+))?$/.exec(req.path);
    if (!m) return { problems: [`${req.path} is not a Graph path (/vNN.N/{id} or /vNN.N/{id}/{edge})`] };
    const id = decodeURIComponent(m[1]);
    const edge = m[2];
    const node = this.options.nodeOf(id);
    if (!node) return { problems: [] }; // an object the fake does not hold: it answers Graph's own error
    const spec = this.specs[node];
    if (!spec) return { problems: [`node type ${node} is not recorded in ${this.source}`] };
    const specEdge = edge ? (this.options.edgeAliases?.[node]?.[edge] ?? edge) : undefined;
    const api = spec.apis.find(
      (a) => a.method === req.method && (specEdge ? a.endpoint === specEdge : a.name === `#${verbOf(req.method)}`),
    );
    const operation = `${req.method} ${node}${edge ? `/${edge}` : ''}`;
    if (!api) {
      const known = spec.apis
        .filter((a) => a.endpoint === specEdge || (!specEdge && a.name))
        .map((a) => a.method)
        .join(', ');
      return {
        operation,
        problems: [
          edge
            ? `${node} has no edge "${edge}" taking ${req.method}${known ? ` (it takes ${known})` : ''} in ${this.source}`
            : `${node} takes no ${req.method} on the node itself in ${this.source}`,
        ],
      };
    }
    const params: Record<string, string | string[]> = { ...queryObject(req.query) };
    const body = parseBody(req);
    if (body.kind === 'form') Object.assign(params, body.value);
    else if (body.kind === 'multipart') Object.assign(params, body.fields);
    else if (body.kind !== 'none') {
      return { operation, problems: [`Graph takes parameters as a query or a form, not "${req.contentType}"`] };
    }
    const problems: string[] = [];
    const declared = new Map((api.params ?? []).map((p) => [p.name, p]));
    for (const [name, raw] of Object.entries(params)) {
      if (Array.isArray(raw)) {
        problems.push(`parameter "${name}" is given ${raw.length} times`);
        continue;
      }
      if (name === 'fields' && req.method === 'GET') {
        problems.push(...this.checkFields(api.return ?? node, raw));
        continue;
      }
      const param = declared.get(name);
      if (!param) {
        if (req.method === 'GET' && READ_PARAMS.has(name)) continue;
        const known = [...declared.keys()].join(', ') || 'none';
        problems.push(`(#100) parameter "${name}" is not one of ${operation}'s (${known})`);
        continue;
      }
      const wrong = this.checkType(param.type, raw);
      if (wrong) problems.push(`(#100) parameter "${name}" ${wrong}`);
      const length = [...raw].length;
      if (param.max_length !== undefined && length > param.max_length) {
        problems.push(`(#100) parameter "${name}" has ${length} characters; at most ${param.max_length} are allowed`);
      }
    }
    for (const param of api.params ?? []) {
      if (param.required && !(param.name in params)) {
        problems.push(`(#100) The parameter ${param.name} is required by ${operation}`);
      }
    }
    return { operation, problems };
  }

  private checkFields(returned: string, value: string): string[] {
    const type = this.options.typeAliases?.[returned] ?? returned;
    const spec = this.specs[type];
    if (!spec) return [`fields of ${type} asked for, but ${type} is not recorded in ${this.source}`];
    const known = new Set([
      ...spec.fields.map((f) => f.name),
      ...spec.apis.filter((a) => a.method === 'GET' && a.endpoint).map((a) => a.endpoint!),
      ...(this.options.documentedFields?.[type] ?? []),
    ]);
    return topLevelFields(value)
      .filter((name) => !known.has(name))
      .map((name) => `(#100) Tried accessing nonexisting field (${name}) on node type (${type})`);
  }

  /** Why a value is not of a spec type, or undefined when it is. */
  private checkType(type: string, raw: string): string | undefined {
    const list = /^list<(.+)>$/.exec(type);
    if (list) {
      let items: unknown[];
      if (raw.trim().startsWith('[')) {
        try {
          items = JSON.parse(raw) as unknown[];
        } catch {
          return `must be a list (JSON array or comma-separated), got ${JSON.stringify(raw)}`;
        }
      } else items = raw.split(',');
      for (const item of items) {
        const wrong = this.checkType(list[1], typeof item === 'string' ? item : JSON.stringify(item));
        if (wrong) return `has an item that ${wrong}`;
      }
      return undefined;
    }
    switch (type) {
      case 'bool':
        return /^(true|false|0|1)$/.test(raw) ? undefined : `must be a boolean, got ${JSON.stringify(raw)}`;
      case 'int':
        return /^-?\d+$/.test(raw) ? undefined : `must be an integer, got ${JSON.stringify(raw)}`;
      case 'unsigned int':
        return /^\d+$/.test(raw) ? undefined : `must be an unsigned integer, got ${JSON.stringify(raw)}`;
      case 'float':
        return Number.isFinite(Number(raw)) ? undefined : `must be a number, got ${JSON.stringify(raw)}`;
      case 'string':
      case 'datetime':
        return undefined;
      case 'list':
      case 'map':
      case 'Object':
        try {
          JSON.parse(raw);
          return undefined;
        } catch {
          return type === 'Object' && !raw.trim().startsWith('{')
            ? undefined
            : `must be JSON, got ${JSON.stringify(raw)}`;
        }
      default: {
        const values = this.enums[type];
        if (values) {
          return values.includes(raw) ? undefined : `must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`;
        }
        return undefined; // a node type given by id (e.g. a Page id): any id
      }
    }
  }
}

function verbOf(method: string): string {
  return method === 'GET' ? 'get' : method === 'DELETE' ? 'delete' : 'update';
}
