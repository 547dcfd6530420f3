import { mapHttpFailure, mapThrown } from '../provider-http.util';
import { asNonEmptyString, asObject } from '../provider-json.util';
import { CredentialsRevokedError } from '../provider.errors';
import { BlueskyLogin, BlueskyStoredCredentials } from './bluesky.credentials';
import { BLUESKY, BlueskyXrpc, XrpcCall, XrpcResponse, xrpcErrorName, xrpcErrorText } from './bluesky-xrpc.client';

/** Session fields returned by createSession / refreshSession. */
export interface BlueskySessionTokens {
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
}

const TOKEN_ERRORS = new Set(['ExpiredToken', 'InvalidToken']);

/** True when the answer means "this token does not work" (expired, invalid, revoked). */
export function isAuthFailure(res: XrpcResponse): boolean {
  if (res.status === 401) return true;
  return res.status === 400 && TOKEN_ERRORS.has(xrpcErrorName(res.data) ?? '');
}

/** Reads a session answer; undefined when a field is missing. */
export function parseSessionTokens(data: unknown): BlueskySessionTokens | undefined {
  const obj = asObject(data);
  const did = asNonEmptyString(obj?.did);
  const handle = asNonEmptyString(obj?.handle);
  const accessJwt = asNonEmptyString(obj?.accessJwt);
  const refreshJwt = asNonEmptyString(obj?.refreshJwt);
  if (!did || !handle || !accessJwt || !refreshJwt) return undefined;
  return { did, handle, accessJwt, refreshJwt };
}

/** POST com.atproto.server.createSession; returns the raw answer (transport errors are thrown). */
export function createSession(xrpc: BlueskyXrpc, login: BlueskyLogin): Promise<XrpcResponse> {
  return xrpc.send({
    method: 'POST',
    nsid: 'com.atproto.server.createSession',
    json: { identifier: login.identifier, password: login.appPassword },
  });
}

/**
 * An authenticated Bluesky session built from stored credentials. On an expired or refused access
 * token it refreshes the session with the refresh token, then logs in again with the app password;
 * when that is refused too it throws CredentialsRevokedError. `credentials` holds the current tokens.
 */
export class BlueskySession {
  private current: BlueskyStoredCredentials;
  private renewing: Promise<void> | undefined;
  private renewed = false;

  constructor(
    private readonly xrpc: BlueskyXrpc,
    credentials: BlueskyStoredCredentials,
  ) {
    this.current = { ...credentials };
  }

  get credentials(): BlueskyStoredCredentials {
    return this.current;
  }

  /** True when the tokens changed and should be stored again. */
  get changed(): boolean {
    return this.renewed;
  }

  /**
   * Sends an authenticated call and returns the answer, whatever its status, except authentication
   * failures (renewed once, then CredentialsRevokedError). Transport failures become TransientProviderError.
   */
  async call(call: XrpcCall): Promise<XrpcResponse> {
    try {
      if (!this.current.accessJwt) await this.renew();
      const token = this.current.accessJwt;
      const first = await this.xrpc.send(call, token);
      if (!isAuthFailure(first)) return first;
      if (this.current.accessJwt === token) await this.renew();
      const second = await this.xrpc.send(call, this.current.accessJwt);
      if (!isAuthFailure(second)) return second;
      throw new CredentialsRevokedError(
        `Bluesky refused a freshly created session: ${xrpcErrorText(second.data) || `HTTP ${second.status}`}`,
        second.status,
      );
    } catch (err) {
      throw mapThrown(BLUESKY, err);
    }
  }

  /** Sends an unauthenticated call to the same service. */
  async callAnonymous(call: XrpcCall): Promise<XrpcResponse> {
    try {
      return await this.xrpc.send(call);
    } catch (err) {
      throw mapThrown(BLUESKY, err);
    }
  }

  private renew(): Promise<void> {
    this.renewing ??= this.refreshOrLogin().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async refreshOrLogin(): Promise<void> {
    if (this.current.refreshJwt) {
      const refreshed = await this.xrpc.send(
        { method: 'POST', nsid: 'com.atproto.server.refreshSession' },
        this.current.refreshJwt,
      );
      const tokens = refreshed.status === 200 ? parseSessionTokens(refreshed.data) : undefined;
      if (tokens) return this.adopt(tokens);
      if (refreshed.status === 429 || refreshed.status >= 500) {
        throw mapHttpFailure(BLUESKY, refreshed.status, refreshed.headers, xrpcErrorText(refreshed.data), 'content');
      }
    }
    const login = await createSession(this.xrpc, this.current);
    const tokens = login.status === 200 ? parseSessionTokens(login.data) : undefined;
    if (tokens) return this.adopt(tokens);
    if (login.status === 429 || login.status >= 500) {
      throw mapHttpFailure(BLUESKY, login.status, login.headers, xrpcErrorText(login.data), 'content');
    }
    const reason = xrpcErrorText(login.data) || `HTTP ${login.status}`;
    throw new CredentialsRevokedError(`Bluesky no longer accepts the stored app password: ${reason}`, login.status);
  }

  private adopt(tokens: BlueskySessionTokens): void {
    if (tokens.did !== this.current.did) {
      throw new CredentialsRevokedError('The Bluesky login now belongs to a different account');
    }
    this.current = { ...this.current, ...tokens };
    this.renewed = true;
  }
}
