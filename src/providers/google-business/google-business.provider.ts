import type { OutboundHttp } from '../../common/http/outbound-http';
import { commonDraftProblems } from '../draft-validation.util';
import { comparableText, copyLimits } from '../plugin-helpers.util';
import { asArray, asObject, asString } from '../provider-json.util';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings, oauthClientSettings } from '../provider-settings';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  TransientProviderError,
} from '../provider.errors';
import type {
  ChannelLimits,
  ConnectedAccount,
  MetricsResult,
  PostDraft,
  Problem,
  PublishInput,
  PublishResult,
  SocialProvider,
} from '../social-provider.interface';
import {
  GOOGLE_BUSINESS_API_HOST,
  GOOGLE_BUSINESS_NAME,
  GoogleBusinessApi,
  googleErrorText,
  mapGoogleBusinessFailure,
} from './google-business-api.client';
import {
  GBP_ACCOUNT_NAME,
  GBP_LOCATION_NAME,
  GoogleBusinessCredentialsDto,
  parseGoogleBusinessCredentials,
} from './google-business.credentials';
import { GOOGLE_BUSINESS_LIMITS, GOOGLE_BUSINESS_MAX_LOCATIONS } from './google-business.limits';
import {
  GOOGLE_BUSINESS_OPTIONS_SCHEMA,
  type GoogleBusinessOptions,
  googleBusinessOptionProblems,
  googleDateTime,
} from './google-business.options';
import { revokeAt, storedToken, withRevocation } from '../token-revocation.util';

/** How far before the publication's start the lookup of a retry reaches. */
const LOOKUP_SLACK_MS = 60_000;
/** Local posts of the location read by the lookup (newest first). */
const LOOKUP_COUNT = 20;
/** Fields of a location read at connection (the Business Information API needs a read mask). */
const LOCATION_FIELDS = 'name,title,storefrontAddress,metadata';

interface Location {
  accountName: string;
  locationName: string;
  title: string;
  locality: string | null;
  mapsUri: string | null;
}

/**
 * Google Business Profile with a Google account's OAuth 2.0 token (offline access). One
 * authorization reaches every location the account manages; each chosen location is its own
 * channel. Posts are local posts of the v4 API (`summary` and one photo by URL): STANDARD by default,
 * or an EVENT or OFFER with a call-to-action button, as the target's options say (docs/adr/0045).
 */
export class GoogleBusinessProvider implements SocialProvider {
  readonly id = 'google_business';

  constructor(private readonly http: OutboundHttp) {}

  /** The location of the credentials (or the first one the account manages). */
  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const locations = await this.locations(credentials);
    const wanted = parseGoogleBusinessCredentials(credentials).locationName;
    const location = wanted ? locations.find((l) => l.locationName === wanted) : locations[0];
    if (!location) {
      throw new InvalidCredentialsError(
        wanted
          ? `The Google account does not manage ${wanted}`
          : 'The Google account manages no Business Profile location',
      );
    }
    return this.account(credentials, location);
  }

  /** Every location the account manages, for the caller to choose from when there are several. */
  async connectTargets(credentials: unknown): Promise<ConnectedAccount[]> {
    const locations = await this.locations(credentials);
    if (locations.length === 0) {
      throw new InvalidCredentialsError('The Google account manages no Business Profile location');
    }
    return locations.map((l) => this.account(credentials, l));
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return [...text].length;
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(GOOGLE_BUSINESS_NAME, post.content, post.media, limits);
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text has ${length} characters; a Google Business Profile post allows ${limits.maxCharacters}`,
      });
    }
    problems.push(...googleBusinessOptionProblems(post.options));
    return problems;
  }

  /**
   * Creates a STANDARD local post on the channel's location. The v4 API has no idempotency key: a
   * retry first looks for a post with this summary created since the publication started.
   */
  async publish(input: PublishInput<GoogleBusinessOptions>): Promise<PublishResult> {
    const creds = parseGoogleBusinessCredentials(input.credentials);
    if (!creds.accountName || !creds.locationName) {
      throw new CredentialsRevokedError('The Google Business Profile channel has no location: connect it again');
    }
    const api = new GoogleBusinessApi(this.http, creds);
    const parent = `/v4/${creds.accountName}/${creds.locationName}/localPosts`;
    if ((input.attempt ?? 1) > 1) {
      const found = await this.findRecent(api, parent, input);
      if (found) return found;
    }
    const body = localPostBody(input.content, input.options ?? {});
    if (input.media.length > 0) {
      body.media = [{ mediaFormat: 'PHOTO', sourceUrl: await input.media[0].publicUrl() }];
    }
    const res = await api.call('posts', { method: 'POST', path: parent, json: body, timeoutMs: 60_000 }, 'content');
    const post = asObject(res.data);
    const name = asString(post?.name);
    if (!name) throw new TransientProviderError('Google accepted the post but returned no name', res.status);
    if (asString(post?.state) === 'REJECTED') {
      throw new ContentRejectedError(
        `Google rejected the post (${name}): it breaks Google's content policy`,
        res.status,
      );
    }
    return { platformPostId: name, url: asString(post?.searchUrl) ?? 'https://business.google.com/' };
  }

  /**
   * Google offers no figures of a local post any more (the v4 insights are retired and the
   * Performance API reports locations, not posts): every figure is null, and Google is not called.
   */
  fetchMetrics(): Promise<MetricsResult> {
    return Promise.resolve({
      metrics: { likes: null, reposts: null, replies: null, quotes: null, impressions: null, raw: {} },
    });
  }

  private async findRecent(api: GoogleBusinessApi, parent: string, input: PublishInput): Promise<PublishResult | null> {
    const res = await api.call('posts', { method: 'GET', path: `${parent}?pageSize=${LOOKUP_COUNT}` }, 'content');
    const since = input.createdAt.getTime() - LOOKUP_SLACK_MS;
    const wanted = comparableText(input.content);
    for (const item of asArray(asObject(res.data)?.localPosts) ?? []) {
      const post = asObject(item);
      const name = asString(post?.name);
      const createdAt = Date.parse(asString(post?.createTime) ?? '');
      if (name && createdAt >= since && comparableText(asString(post?.summary) ?? '') === wanted) {
        return { platformPostId: name, url: asString(post?.searchUrl) ?? 'https://business.google.com/' };
      }
    }
    return null;
  }

  /** The accounts (Account Management API), then each one's locations (Business Information API). */
  private async locations(credentials: unknown): Promise<Location[]> {
    const api = new GoogleBusinessApi(this.http, parseGoogleBusinessCredentials(credentials));
    let first;
    try {
      first = await api.send('accounts', { method: 'GET', path: '/v1/accounts?pageSize=20' });
    } catch (err) {
      throw new InvalidCredentialsError(`Google could not be reached: ${(err as Error).message}`);
    }
    if (first.status === 429 || first.status >= 500) throw mapGoogleBusinessFailure(first, 'content');
    if (first.status !== 200) {
      throw new InvalidCredentialsError(
        `Google refused the access token: ${googleErrorText(first.data) || `HTTP ${first.status}`}`,
      );
    }
    const accounts: string[] = [];
    let page = first;
    for (;;) {
      for (const item of asArray(asObject(page.data)?.accounts) ?? []) {
        const name = asString(asObject(item)?.name);
        if (name && GBP_ACCOUNT_NAME.test(name)) accounts.push(name);
      }
      const token = asString(asObject(page.data)?.nextPageToken);
      if (!token || accounts.length >= GOOGLE_BUSINESS_MAX_LOCATIONS) break;
      page = await api.call(
        'accounts',
        { method: 'GET', path: `/v1/accounts?pageSize=20&pageToken=${encodeURIComponent(token)}` },
        'content',
      );
    }
    const locations: Location[] = [];
    for (const accountName of accounts) {
      let token: string | undefined;
      do {
        const query = new URLSearchParams({ readMask: LOCATION_FIELDS, pageSize: '100' });
        if (token) query.set('pageToken', token);
        const res = await api.call(
          'locations',
          { method: 'GET', path: `/v1/${accountName}/locations?${query.toString()}` },
          'content',
        );
        for (const item of asArray(asObject(res.data)?.locations) ?? []) {
          const location = asObject(item);
          const locationName = asString(location?.name);
          // A location shows under every account that manages it (a group and its owner): listed once.
          if (!locationName || !GBP_LOCATION_NAME.test(locationName)) continue;
          if (locations.some((l) => l.locationName === locationName)) continue;
          if (locations.length >= GOOGLE_BUSINESS_MAX_LOCATIONS) break;
          locations.push({
            accountName,
            locationName,
            title: asString(location?.title) || locationName,
            locality: asString(asObject(location?.storefrontAddress)?.locality) ?? null,
            mapsUri: asString(asObject(location?.metadata)?.mapsUri) ?? null,
          });
        }
        token = asString(asObject(res.data)?.nextPageToken) || undefined;
      } while (token && locations.length < GOOGLE_BUSINESS_MAX_LOCATIONS);
    }
    return locations;
  }

  private account(raw: unknown, location: Location): ConnectedAccount {
    const creds = parseGoogleBusinessCredentials(raw);
    const stored = asObject(raw) ?? {};
    return {
      externalId: location.locationName,
      kind: 'organization',
      name: location.title,
      handle: location.locality ? `${location.title} (${location.locality})` : location.title,
      avatarUrl: null,
      profileUrl: location.mapsUri,
      limits: copyLimits(GOOGLE_BUSINESS_LIMITS),
      credentials: {
        accessToken: creds.accessToken,
        refreshToken: stored.refreshToken ?? null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        accountName: location.accountName,
        locationName: location.locationName,
      },
    };
  }
}

/** A v4 local post from the text and the target's options (checked against their schema before). */
function localPostBody(summary: string, options: Partial<GoogleBusinessOptions>): Record<string, unknown> {
  const body: Record<string, unknown> = { summary, topicType: options.topicType ?? 'STANDARD' };
  if (options.languageCode) body.languageCode = options.languageCode;
  if (options.callToAction) {
    body.callToAction = {
      actionType: options.callToAction.actionType,
      ...(options.callToAction.url ? { url: options.callToAction.url } : {}),
    };
  }
  if (options.event) {
    const start = googleDateTime(options.event.schedule.start);
    const end = googleDateTime(options.event.schedule.end);
    body.event = {
      title: options.event.title,
      schedule: {
        startDate: start.date,
        endDate: end.date,
        ...(start.time ? { startTime: start.time } : {}),
        ...(end.time ? { endTime: end.time } : {}),
      },
    };
  }
  if (options.offer) body.offer = { ...options.offer };
  return body;
}

/** The one scope of the Business Profile APIs. */
const GOOGLE_BUSINESS_SCOPES = ['https://www.googleapis.com/auth/business.manage'];

/** The Google Business Profile plugin: Google OAuth 2.0 with offline access, one channel per location. */
export const googleBusinessPlugin = defineProvider({
  id: 'google_business',
  apiVersion: {
    pinned: 'v4 (local posts), v1 (accounts and locations)',
    source: 'Google Business Profile APIs reference, checked 2026-11-29; no retirement date stated for these versions',
  },
  displayName: 'Google Business Profile',
  connectKind: 'oauth',
  credentials: GoogleBusinessCredentialsDto,
  defaultLimits: GOOGLE_BUSINESS_LIMITS,
  // Google reads a photo's description as a caption, not alt text; local posts take none.
  capabilities: { altText: false, metrics: [] },
  optionsSchema: GOOGLE_BUSINESS_OPTIONS_SCHEMA,
  oauth: {
    defaultHosts: {
      auth: 'https://accounts.google.com',
      api: GOOGLE_BUSINESS_API_HOST,
      token: 'https://oauth2.googleapis.com',
    },
    // Offline access for a refresh token; consent asked each time so Google issues one on a reconnect too.
    authorizeUrl: (hosts) => `${hosts.auth}/o/oauth2/v2/auth?access_type=offline&prompt=consent`,
    tokenUrl: (hosts) => `${hosts.token ?? 'https://oauth2.googleapis.com'}/token`,
    scopes: GOOGLE_BUSINESS_SCOPES,
    clientAuthentication: 'body',
  },
  settings: oauthAppSettings('GOOGLE_BUSINESS', {
    clientId:
      'Google Cloud OAuth client (web application; redirect URI {PUBLIC_BASE_URL}/api/oauth/google_business/callback) ' +
      'of a project with the Business Profile APIs enabled; Google Business Profile is listed disabled without both',
    authBaseUrl: 'override of https://accounts.google.com (consent page)',
    apiBaseUrl:
      'override of the Business Profile API hosts (mybusiness, mybusinessaccountmanagement and ' +
      'mybusinessbusinessinformation.googleapis.com): one host serving all three, e.g. a test server',
    tokenBaseUrl: 'override of https://oauth2.googleapis.com (token endpoint)',
  }),
  create: ({ http, settings }) =>
    withRevocation(new GoogleBusinessProvider(http), async (credentials) => {
      // Google revokes the whole grant from either token: the refresh token when there is one.
      const token = storedToken(credentials, 'refreshToken') ?? storedToken(credentials, 'accessToken');
      if (!token) return;
      const url = `${(oauthClientSettings(settings).tokenBaseUrl ?? 'https://oauth2.googleapis.com').replace(/\/+$/, '')}/revoke`;
      await revokeAt(http, 'Google Business Profile', { method: 'POST', url, form: { token } });
    }),
});
