import type { FakeCounts } from './fake-http-server';

/** A post as the fake network holds it, in the terms the contract suite checks. */
export interface ContractPost {
  /** The id the adapter returns as `platformPostId`. */
  platformPostId: string;
  text: string;
  mediaCount: number;
  /** The `platformPostId` of the post this one replies to; null for a top-level post. */
  inReplyTo: string | null;
}

/**
 * What every provider fake (`test/fakes/<id>.fake.ts`, exported as `contractFake`) offers the shared
 * provider contract suite (`test/providers/provider-contract.e2e-spec.ts`).
 */
export interface ProviderContractFake {
  /**
   * Starts the fake with one account and returns what a user sends to connect it, pointed at the
   * fake (`POST /api/channels` body `credentials`). OAuth networks: the credentials the adapter is
   * given after the token exchange (access token and API base URL).
   */
  start(): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
  /** The same account with a wrong secret: connect must be refused. */
  wrongCredentials(): Record<string, unknown>;
  /** Route key of the call that creates the post (for failNext). */
  readonly publishRoute: string;
  /** Status the network answers when it refuses a post for good (4xx other than 401/429). */
  readonly rejectStatus: number;
  /** The next `n` calls to `route` answer `status` with the network's error body. */
  failNext(n: number, status: number, route?: string): void;
  /** The account's credentials stop working (token or app password revoked). */
  revokeAll(): void;
  /** Posts created on the fake, oldest first. */
  posts(): ContractPost[];
  /** Sets the engagement figures the network reports for a post. */
  setCounts(platformPostId: string, counts: Partial<FakeCounts>): void;
  /** OAuth networks: environment the app needs (client id and secret, hosts pointed at the fake). */
  appEnv?(): Record<string, string>;
  /**
   * OAuth networks: acts as the user consenting on the network's authorization page; returns the
   * URL the network redirects the browser to (our callback with `code` and `state`).
   */
  consent?(authorizationUrl: string): Promise<string>;
}
