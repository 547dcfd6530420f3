import type { DescriptionViolation } from './descriptions/description';
import type { FakeCounts, FakeHttpServer } from './fake-http-server';
import type { ContractRevocation } from './revocation';

/** A post as the fake network holds it, in the terms the contract suite checks. */
export interface ContractPost {
  /** The id the adapter returns as `platformPostId`. */
  platformPostId: string;
  text: string;
  mediaCount: number;
  /**
   * The alt text the network holds for each attached media item (null where it has none), in order;
   * absent for networks that take no alt text (the plugin's `capabilities.altText` says which).
   */
  mediaAltTexts?: Array<string | null>;
  /** The `platformPostId` of the post this one replies to; null for a top-level post. */
  inReplyTo: string | null;
}

/** A request sent as is to a fake (no adapter involved). */
export interface RawFakeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A message sent as is to a fake of a WebSocket network (a Nostr relay), no adapter involved. */
export interface RawFakeMessage {
  /** The fake's ws:// address. */
  url: string;
  /** One text frame, as sent. */
  message: string;
  /** Whether the fake's first answer is the network's refusal (a relay's `["OK", id, false, ...]`). */
  refused(answer: unknown): boolean;
}

/**
 * A fake that checks every request against the network's own description (FakeHttpServer.checkAgainst).
 * The contract suite checks that the adapter sent nothing the description refuses, and that the
 * check bites: the publish request with one body field renamed is refused.
 */
export interface DescribedContract {
  /** What the fake checks against (the recorded document and its origin). */
  readonly source: string;
  /** Requests the description refused so far. */
  violations(): DescriptionViolation[];
  /**
   * The publish call as the adapter sends it, one field of its body renamed (`from` -> `to`): an HTTP
   * request, or for a WebSocket network the message that publishes.
   */
  brokenPublish(): (RawFakeRequest | RawFakeMessage) & { renamed: { from: string; to: string } };
}

/** The DescribedContract of a fake (an HTTP server, a relay) that checks requests against its description. */
export function describedContract(
  fake: Pick<FakeHttpServer, 'describedBy' | 'descriptionViolations'>,
  brokenPublish: DescribedContract['brokenPublish'],
): DescribedContract {
  return {
    get source() {
      const description = fake.describedBy;
      if (!description) throw new Error('The fake checks no description (call checkAgainst)');
      return description.source;
    },
    violations: () => fake.descriptionViolations,
    brokenPublish,
  };
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
  /**
   * The network publishes no post without an image (Instagram): the suite attaches one to the posts
   * it would otherwise send as text only.
   */
  readonly requiresMedia?: boolean;
  /**
   * The network publishes videos only (YouTube, TikTok): the suite attaches a video
   * (test/fixtures/video) where it would send text or an image, and checks that a post with an image
   * alone is refused at validation.
   */
  readonly requiresVideo?: boolean;
  /**
   * The network publishes video among other media: a fixture of test/fixtures/video within its
   * limits. The suite publishes it alone through the pipeline (processing polled by delayed jobs)
   * and checks the network holds one post with it.
   */
  readonly videoFixture?: string;
  /** The network's own settings every post of the suite carries (`targets[i].options`), when it requires some. */
  readonly publishOptions?: Record<string, unknown>;
  /** Figures the network does not report (YouTube has no reposts): the suite expects null for them. */
  readonly unreportedFigures?: ReadonlyArray<'likes' | 'reposts' | 'replies'>;
  /**
   * Set when the fake checks requests against the network's own description (an OpenAPI document,
   * lexicons, an official package's schema); the contract spec's DESCRIPTIONS_PENDING names the others.
   */
  readonly described?: DescribedContract;
  /**
   * Set for networks that offer revocation (their adapter has `revokeAccess`): the fake serves the
   * network's revocation endpoint, and refuses the grant's tokens once it is revoked. Absent: the
   * network offers none, and the adapter must not pretend to (docs/networks.md says which).
   */
  readonly revocation?: ContractRevocation;
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

/** What an OAuth network's fake offers, for `oauthContractFake`. */
export interface OAuthNetworkFake {
  readonly baseUrl: string;
  start(): Promise<string>;
  stop(): Promise<void>;
  /** A valid access token of the fake's account. */
  issueToken(): string;
  failNext(n: number, status: number, route?: string): void;
  revokeAll(): void;
  setCounts(platformPostId: string, counts: Partial<FakeCounts>): void;
  appEnv(): Record<string, string>;
  consent(authorizationUrl: string): Promise<string>;
}

/**
 * The contract suite's view of an OAuth network's fake: the adapter is given an access token and the
 * fake's API base URL (what the token exchange would have stored).
 */
export function oauthContractFake(
  fake: OAuthNetworkFake,
  network: Pick<
    ProviderContractFake,
    'publishRoute' | 'rejectStatus' | 'posts' | 'videoFixture' | 'described' | 'revocation'
  >,
): ProviderContractFake {
  return {
    videoFixture: network.videoFixture,
    revocation: network.revocation,
    described: network.described,
    start: async () => {
      const baseUrl = await fake.start();
      return { accessToken: fake.issueToken(), apiBaseUrl: baseUrl };
    },
    stop: () => fake.stop(),
    wrongCredentials: () => ({ accessToken: 'wrong-token', apiBaseUrl: fake.baseUrl }),
    publishRoute: network.publishRoute,
    rejectStatus: network.rejectStatus,
    failNext: (n, status, route) => fake.failNext(n, status, route),
    revokeAll: () => fake.revokeAll(),
    posts: () => network.posts(),
    setCounts: (id, counts) => fake.setCounts(id, counts),
    appEnv: () => fake.appEnv(),
    consent: (url) => fake.consent(url),
  };
}
