import { setting } from '../../config/settings';
import type { OutboundHeaders, OutboundHttp } from '../../common/http/outbound-http';
import { ApiResponse, CallKind, clipErrorText, retryAfterSeconds, sendWithBearer } from '../provider-http.util';
import { asNumber, asObject, asString } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  MediaRejectedError,
  ProviderError,
  TransientProviderError,
} from '../provider.errors';

/**
 * Meta's Graph APIs (Threads at graph.threads.net, Instagram at graph.instagram.com, Facebook at
 * graph.facebook.com): one client and one reading of their errors for the three plugins.
 */

/** Default Graph API version of Facebook and Instagram calls (Threads has its own, v1.0). Meta retires a version about two years after its release. */
export const META_GRAPH_VERSION = 'v25.0';

/** META_GRAPH_VERSION, shared by the Facebook and Instagram plugins (declared by both, read once). */
export const META_GRAPH_SETTINGS = {
  graphVersion: setting.matches('META_GRAPH_VERSION', {
    pattern: /^v\d+\.\d+$/,
    message: 'must be a Graph API version such as v25.0',
    default: META_GRAPH_VERSION,
    description:
      'Graph API version of Facebook and Instagram calls (vNN.N); Meta retires a version about two years after its release',
  }),
};

/** The configured Graph API version, as the oauth module hands a plugin's settings to its URLs. */
export function graphVersionOf(hosts: { settings?: Readonly<Record<string, unknown>> }): string {
  const v = hosts.settings?.graphVersion;
  return typeof v === 'string' ? v : META_GRAPH_VERSION;
}

/** An error object as Graph APIs answer it: `{error: {message, type, code, error_subcode, is_transient}}`. */
export interface GraphError {
  code: number | null;
  subcode: number | null;
  type: string | null;
  message: string;
  transient: boolean;
}

/** Expired, revoked or invalid access token (OAuthException), API session, or an inactive token. */
const REVOKED_CODES = new Set([190, 102, 2500]);
/**
 * Throttling: app (4), user (17), page (32), call-rate (613), application limit (341), publishing
 * limits (9), and the Business Use Case limits (80001 to 80014).
 */
const THROTTLE_CODES = new Set([4, 9, 17, 32, 341, 613]);
const isBucThrottle = (code: number) => code >= 80001 && code <= 80014;
/** Temporary failures: unknown (1), service (2), media not ready yet (Instagram 9007). */
const TEMPORARY_CODES = new Set([1, 2, 9007]);
/** Duplicate status update. */
export const GRAPH_DUPLICATE_CODE = 506;

/** The error object of a Graph answer, if it carries one. */
export function graphError(data: unknown): GraphError | null {
  const error = asObject(asObject(data)?.error);
  if (!error) return null;
  return {
    code: asNumber(error.code) ?? null,
    subcode: asNumber(error.error_subcode) ?? null,
    type: asString(error.type) ?? null,
    message: asString(error.error_user_msg) ?? asString(error.message) ?? '',
    transient: error.is_transient === true,
  };
}

/** The error's text for messages: `(#code) message`. */
export function graphErrorText(error: GraphError | null, status: number): string {
  if (!error) return `HTTP ${status}`;
  const code = error.code !== null ? `(#${error.code}${error.subcode !== null ? `/${error.subcode}` : ''}) ` : '';
  return clipErrorText(`${code}${error.message}`);
}

/** Whether a Graph answer signals throttling (any of the throttle codes, or HTTP 429). */
export function isGraphThrottle(status: number, data: unknown): boolean {
  const code = graphError(data)?.code;
  return status === 429 || (code !== null && code !== undefined && (THROTTLE_CODES.has(code) || isBucThrottle(code)));
}

/**
 * Seconds to wait after a throttled call: Retry-After when sent, else the largest
 * `estimated_time_to_regain_access` (minutes) of X-Business-Use-Case-Usage.
 */
export function graphRetryAfterSeconds(headers: OutboundHeaders, now = Date.now()): number | undefined {
  const plain = retryAfterSeconds(headers, now);
  if (plain !== undefined) return plain;
  const raw = headers['x-business-use-case-usage'];
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (!text) return undefined;
  let minutes: number | undefined;
  try {
    const usage = asObject(JSON.parse(text) as unknown) ?? {};
    for (const entries of Object.values(usage)) {
      for (const entry of Array.isArray(entries) ? entries : []) {
        const m = asNumber(asObject(entry)?.estimated_time_to_regain_access);
        if (m !== undefined) minutes = Math.max(minutes ?? 0, m);
      }
    }
  } catch {
    return undefined;
  }
  return minutes !== undefined && minutes > 0 ? minutes * 60 : undefined;
}

/**
 * Maps a failed Graph answer to the adapter error contract: an invalid or revoked token is
 * CredentialsRevokedError; throttling codes and 429 are rate limits (retried after the reset the
 * headers announce); unknown/service errors and 5xx are transient; anything else refuses the post
 * (MediaRejectedError for a media call).
 */
export function mapGraphFailure(
  name: string,
  status: number,
  headers: OutboundHeaders,
  data: unknown,
  kind: CallKind,
): ProviderError {
  const error = graphError(data);
  const text = graphErrorText(error, status);
  const code = error?.code ?? null;
  if ((code !== null && REVOKED_CODES.has(code)) || (status === 401 && code === null)) {
    return new CredentialsRevokedError(`${name} no longer accepts the stored access token: ${text}`, status);
  }
  if (isGraphThrottle(status, data)) {
    return new TransientProviderError(
      `${name} rate limit reached: ${text}`,
      status,
      graphRetryAfterSeconds(headers),
      true,
    );
  }
  if ((code !== null && TEMPORARY_CODES.has(code)) || error?.transient || status >= 500 || status === 408) {
    return new TransientProviderError(`${name} is unavailable: ${text}`, status, graphRetryAfterSeconds(headers));
  }
  if (status >= 300 && status < 400) {
    return new TransientProviderError(`${name} answered with an unexpected redirect (HTTP ${status})`, status);
  }
  if (kind === 'media') return new MediaRejectedError(`${name} rejected the media: ${text}`, status);
  return new ContentRejectedError(`${name} rejected the post: ${text}`, status);
}

/** Insights values by metric name, as `/{media}/insights` answers them (`data[].values[0].value` or `total_value.value`). */
export function insightValues(data: unknown): Record<string, number> {
  const values: Record<string, number> = {};
  const items = asObject(data)?.data;
  for (const item of Array.isArray(items) ? items : []) {
    const metric = asObject(item);
    const name = asString(metric?.name);
    const first = asObject(Array.isArray(metric?.values) ? metric.values[0] : undefined);
    const value = asNumber(first?.value) ?? asNumber(asObject(metric?.total_value)?.value);
    if (name && value !== undefined) values[name] = value;
  }
  return values;
}

export type GraphResponse = ApiResponse;

export interface GraphApiOptions {
  /** The network's name in messages (Threads, Instagram, Facebook). */
  name: string;
  /** API host, e.g. https://graph.threads.net (or a test server). */
  baseUrl: string;
  /** Path prefix of the version, e.g. v1.0. */
  version: string;
  accessToken: string;
}

/**
 * A Graph API client bound to one access token, sent as a Bearer header (never in the URL, so it
 * stays out of logs). GET parameters go in the query, POST parameters in a form body.
 */
export class GraphApi {
  constructor(
    private readonly http: OutboundHttp,
    private readonly options: GraphApiOptions,
  ) {}

  get name(): string {
    return this.options.name;
  }

  /** Sends the request; transport failures are mapped to provider errors, any status is returned. */
  send(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    params: Record<string, string | number | boolean | undefined> = {},
  ): Promise<GraphResponse> {
    const fields = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) fields.set(k, String(v));
    const query = method === 'GET' && fields.size > 0 ? `?${fields.toString()}` : '';
    const { name, baseUrl, version, accessToken } = this.options;
    return sendWithBearer(this.http, name, `${baseUrl}/${version}`, accessToken, {
      method,
      path: `${path}${query}`,
      ...(method === 'GET' ? {} : { body: fields.toString(), contentType: 'application/x-www-form-urlencoded' }),
    });
  }

  /** Like send(), but an answer other than 2xx (or carrying an error object) is thrown as a provider error. */
  async call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    params: Record<string, string | number | boolean | undefined>,
    kind: CallKind,
  ): Promise<GraphResponse> {
    const res = await this.send(method, path, params);
    if (res.status < 200 || res.status >= 300 || graphError(res.data)) {
      throw mapGraphFailure(this.options.name, res.status, res.headers, res.data, kind);
    }
    return res;
  }
}
