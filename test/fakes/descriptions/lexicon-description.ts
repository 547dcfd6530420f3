import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type LexiconDoc, Lexicons, jsonToLex } from '@atproto/lexicon';
import { type DescribedRequest, type Description, type DescriptionCheck, parseBody, queryObject } from './description';

type Json = Record<string, unknown>;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The AT Protocol's lexicons (recorded from bluesky-social/atproto under
 * test/fixtures/networks/bluesky/lexicons/) as a request checker, with @atproto/lexicon's own validator:
 * an XRPC call (`/xrpc/<nsid>`) must name a method of the set and use its HTTP method (query: GET,
 * procedure: POST); its parameters are checked with assertValidXrpcParams, and a parameter the method
 * does not declare is refused; a JSON input with assertValidXrpcInput, a raw input's content type
 * against the method's encoding; the `record` of com.atproto.repo.createRecord/putRecord with
 * assertValidRecord of its collection. Blobs are checked against their `maxSize` and `accept`, which
 * the library leaves to the PDS.
 */
export class LexiconDescription implements Description {
  readonly source: string;
  private readonly lexicons = new Lexicons();

  constructor(docs: LexiconDoc[], source: string) {
    this.source = source;
    for (const doc of docs) this.lexicons.add(doc);
  }

  /** Loads every *.json of a folder (one lexicon document each). */
  static load(dir: string, source: string): LexiconDescription {
    const docs = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as LexiconDoc);
    return new LexiconDescription(docs, source);
  }

  check(req: DescribedRequest): DescriptionCheck {
    const nsid = req.path.startsWith('/xrpc/') ? req.path.slice('/xrpc/'.length) : undefined;
    if (!nsid) return { problems: [`${req.path} is not an XRPC path (/xrpc/<method>)`] };
    const def = this.lexicons.getDef(`lex:${nsid}`) as Json | undefined;
    if (!def || (def.type !== 'query' && def.type !== 'procedure')) {
      return { problems: [`${nsid} is not a method of ${this.source}`] };
    }
    const problems: string[] = [];
    const expected = def.type === 'query' ? 'GET' : 'POST';
    if (req.method !== expected) problems.push(`${nsid} is a ${String(def.type)}: ${expected}, not ${req.method}`);

    const declared = ((def.parameters as Json | undefined)?.properties ?? {}) as Record<string, Json>;
    const params: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(queryObject(req.query))) {
      const param = declared[name];
      if (!param) {
        problems.push(
          `${nsid} declares no parameter "${name}" (it takes ${Object.keys(declared).join(', ') || 'none'})`,
        );
        continue;
      }
      params[name] = coerce(param, raw);
    }
    try {
      this.lexicons.assertValidXrpcParams(`lex:${nsid}`, params);
    } catch (err) {
      problems.push(message(err));
    }

    if (def.type === 'procedure') problems.push(...this.checkInput(nsid, def, req));
    return { operation: nsid, problems };
  }

  private checkInput(nsid: string, def: Json, req: DescribedRequest): string[] {
    const input = def.input as { encoding?: string; schema?: unknown } | undefined;
    if (!input) return req.body.length > 0 ? [`${nsid} takes no input`] : [];
    const encoding = input.encoding ?? '';
    if (!encodingAccepts(encoding, req.contentType)) {
      return [`${nsid} takes ${encoding}, not "${req.contentType || 'no content type'}"`];
    }
    if (encoding !== 'application/json' || !input.schema) return [];
    const body = parseBody(req);
    if (body.kind !== 'json') return [`${nsid} takes a JSON object`];
    const problems: string[] = [];
    let value: unknown;
    try {
      value = this.lexicons.assertValidXrpcInput(`lex:${nsid}`, jsonToLex(body.value));
    } catch (err) {
      return [message(err)];
    }
    const obj = value as Json;
    if (
      (nsid === 'com.atproto.repo.createRecord' || nsid === 'com.atproto.repo.putRecord') &&
      typeof obj.collection === 'string' &&
      this.lexicons.getDef(`lex:${obj.collection}`)
    ) {
      try {
        this.lexicons.assertValidRecord(`lex:${obj.collection}`, obj.record);
        problems.push(...this.blobProblems(`lex:${obj.collection}`, obj.record, 'Record'));
      } catch (err) {
        problems.push(message(err));
      }
    }
    return problems;
  }

  /** Blobs against the `maxSize` and `accept` of their definition (walked through refs, unions and arrays). */
  private blobProblems(uri: string, value: unknown, path: string, depth = 0): string[] {
    const def = this.lexicons.getDef(uri) as Json | undefined;
    if (!def || depth > 12) return [];
    const schema = (def.type === 'record' ? def.record : def) as Json;
    return this.walk(uri, schema, value, path, depth);
  }

  private walk(base: string, schema: Json, value: unknown, path: string, depth: number): string[] {
    if (value === undefined || value === null) return [];
    const nsid = base.replace(/^lex:/, '').split('#')[0];
    const full = (ref: string) => (ref.startsWith('#') ? `lex:${nsid}${ref}` : `lex:${ref.replace(/^lex:/, '')}`);
    switch (schema.type) {
      case 'object': {
        const props = (schema.properties ?? {}) as Record<string, Json>;
        return Object.entries(props).flatMap(([name, prop]) =>
          this.walk(base, prop, (value as Json)[name], `${path}/${name}`, depth),
        );
      }
      case 'array':
        return Array.isArray(value)
          ? value.flatMap((v, i) => this.walk(base, schema.items as Json, v, `${path}/${i}`, depth))
          : [];
      case 'ref':
        return this.blobProblems(full(String(schema.ref)), value, path, depth + 1);
      case 'union': {
        const type = (value as Json).$type;
        if (typeof type !== 'string') return [];
        const ref = (schema.refs as string[])
          .map(full)
          .find((r) => r.replace(/#main$/, '') === `lex:${type}`.replace(/#main$/, ''));
        return ref ? this.blobProblems(ref, value, path, depth + 1) : [];
      }
      case 'blob': {
        const blob = value as { size?: number; mimeType?: string };
        const problems: string[] = [];
        const max = schema.maxSize as number | undefined;
        if (max !== undefined && typeof blob.size === 'number' && blob.size > max) {
          problems.push(`${path} is ${blob.size} bytes; the lexicon allows ${max}`);
        }
        const accept = schema.accept as string[] | undefined;
        if (accept && blob.mimeType && !accept.some((a) => encodingAccepts(a, blob.mimeType!))) {
          problems.push(`${path} is ${blob.mimeType}; the lexicon accepts ${accept.join(', ')}`);
        }
        return problems;
      }
      default:
        return [];
    }
  }
}

/** Whether an encoding or accept pattern (`image/*`, `*\/*`) admits a content type. */
function encodingAccepts(pattern: string, contentType: string): boolean {
  if (pattern === '*/*' || pattern === contentType) return true;
  if (pattern.endsWith('/*')) return contentType.startsWith(pattern.slice(0, -1));
  return false;
}

/** A parameter's text as the XRPC server decodes it for its type. */
function coerce(param: Json, raw: string | string[]): unknown {
  const one = (v: string, type: unknown): unknown =>
    type === 'integer'
      ? /^-?\d+$/.test(v)
        ? Number(v)
        : v
      : type === 'boolean'
        ? v === 'true'
          ? true
          : v === 'false'
            ? false
            : v
        : v;
  if (param.type === 'array') {
    const items = param.items as Json | undefined;
    return (Array.isArray(raw) ? raw : [raw]).map((v) => one(v, items?.type));
  }
  return Array.isArray(raw) ? raw.map((v) => one(v, param.type)) : one(raw, param.type);
}
