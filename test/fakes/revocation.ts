import type { FakeRequest } from './fake-http-server';

/** A revocation request as a fake network received it (its form fields decoded). */
export interface RevocationRequest {
  method: string;
  path: string;
  /** The Authorization header, null when none. */
  authorization: string | null;
  contentType: string | null;
  form: Record<string, string>;
}

/**
 * What a fake of a network that offers revocation gives the contract suite (ProviderContractFake):
 * the revocation requests it received, the access token its token endpoint issued last (the channel
 * just connected), and what the network requires of the revocation of that grant.
 */
export interface ContractRevocation {
  requests(): RevocationRequest[];
  lastAccessToken(): string;
  /** The requests a revocation of the grant of `accessToken` sends, in order. */
  expected(accessToken: string): Array<Partial<RevocationRequest>>;
}

/** Records a request to a revocation endpoint in `log` and returns it. */
export function recordRevocation(req: FakeRequest, log: RevocationRequest[]): RevocationRequest {
  const type = req.headers['content-type'] ?? null;
  const form =
    type?.startsWith('application/x-www-form-urlencoded') === true
      ? Object.fromEntries(new URLSearchParams(req.body.toString('utf8')))
      : {};
  const entry: RevocationRequest = {
    method: req.method,
    path: req.path,
    authorization: typeof req.headers.authorization === 'string' ? req.headers.authorization : null,
    contentType: type,
    form,
  };
  log.push(entry);
  return entry;
}

/** `Basic` credentials of a client id and secret, as RFC 6749 2.3.1 encodes them. */
export function basicOf(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** The client id and secret of an HTTP Basic header, or null. */
export function basicPair(authorization: string | null): [string, string] | null {
  const m = /^Basic (.+)$/.exec(authorization ?? '');
  if (!m) return null;
  const [id, secret] = Buffer.from(m[1], 'base64').toString().split(':').map(decodeURIComponent);
  return secret === undefined ? null : [id, secret];
}
