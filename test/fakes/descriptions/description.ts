/**
 * A network's own machine-readable description of its API (an OpenAPI document, a set of lexicons),
 * as a fake checks each request it receives against it. Written once per kind of description, not per
 * network: the network's figures come from the recorded document under test/fixtures/networks/<id>/.
 */

/** A request as a fake received it, in the terms a description checks. */
export interface DescribedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  /** The content-type header without parameters, lower case; '' when none. */
  contentType: string;
  /** The whole content-type header (multipart boundaries). */
  contentTypeHeader: string;
  body: Buffer;
  /** The request's headers, names in lower case (Google's resumable uploads state the media in X-Upload-*). */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** What a description says of one request. */
export interface DescriptionCheck {
  /** The operation the request matched (`POST /2/tweets`, an XRPC method id); undefined when none did. */
  operation?: string;
  /** What the description refuses, one sentence each; empty when the request is as described. */
  problems: string[];
}

export interface Description {
  /** What was recorded, e.g. "X API v2 OpenAPI 2.167 (xdevplatform/xdk specs/openapi.json)". */
  readonly source: string;
  check(req: DescribedRequest): DescriptionCheck;
}

/** One request a description refused, as the fake recorded it. */
export interface DescriptionViolation {
  method: string;
  path: string;
  operation?: string;
  problems: string[];
}

/** A body as a description checks it: parsed JSON, the fields of a form, or bytes it does not read. */
export type ParsedBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid-json'; error: string }
  | { kind: 'form'; value: Record<string, string | string[]> }
  | { kind: 'multipart'; fields: Record<string, string>; files: string[] }
  | { kind: 'raw'; bytes: number };

function addField(fields: Record<string, string | string[]>, name: string, value: string): void {
  const previous = fields[name];
  if (previous === undefined) fields[name] = value;
  else fields[name] = Array.isArray(previous) ? [...previous, value] : [previous, value];
}

/** The named parts of a multipart/form-data body: text fields by name, and the names of file parts. */
export function parseMultipart(
  body: Buffer,
  contentTypeHeader: string,
): { fields: Record<string, string>; files: string[] } {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentTypeHeader)?.[1];
  const fields: Record<string, string> = {};
  const files: string[] = [];
  if (!boundary) return { fields, files };
  const text = body.toString('latin1');
  for (const part of text.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) continue;
    const headers = part.slice(0, headerEnd);
    const name = /name="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) continue;
    const content = part.slice(headerEnd + 4).replace(/\r\n$/, '');
    if (/filename=/i.test(headers)) files.push(name);
    else fields[name] = Buffer.from(content, 'latin1').toString('utf8');
  }
  return { fields, files };
}

export function parseBody(req: DescribedRequest): ParsedBody {
  if (req.body.length === 0) return { kind: 'none' };
  if (req.contentType === 'application/json' || req.contentType.endsWith('+json')) {
    try {
      return { kind: 'json', value: JSON.parse(req.body.toString('utf8')) as unknown };
    } catch (err) {
      return { kind: 'invalid-json', error: err instanceof Error ? err.message : String(err) };
    }
  }
  if (req.contentType === 'application/x-www-form-urlencoded') {
    const value: Record<string, string | string[]> = {};
    for (const [name, v] of new URLSearchParams(req.body.toString('utf8'))) addField(value, name, v);
    return { kind: 'form', value };
  }
  if (req.contentType === 'multipart/form-data') {
    return { kind: 'multipart', ...parseMultipart(req.body, req.contentTypeHeader) };
  }
  return { kind: 'raw', bytes: req.body.length };
}

/** The query string's parameters, a name given twice as an array. */
export function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of query) addField(out, name, value);
  return out;
}
