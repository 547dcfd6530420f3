import { Logger } from '@nestjs/common';
import { finalizeEvent, nip19 } from 'nostr-tools';
import type { Event } from 'nostr-tools';
import { OutboundHttp, parseJsonBody } from '../../common/http/outbound-http';
import { setting } from '../../config/settings';
import { commonDraftProblems } from '../draft-validation.util';
import { asNonEmptyString, asNumber, asObject, at } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  TransientProviderError,
} from '../provider.errors';
import { defineProvider } from '../provider-plugin';
import type {
  ChannelLimits,
  ConnectedAccount,
  MetricsResult,
  PostDraft,
  Problem,
  PublishInput,
  PublishMedia,
  PublishResult,
  PublishedRef,
  SocialProvider,
} from '../social-provider.interface';
import { NostrRelayClient, RelayOutcome } from './nostr-relay.client';
import { NostrCredentials, NostrCredentialsDto, parseNostrCredentials } from './nostr.credentials';
import { NOSTR_DEFAULT_MAX_CHARACTERS, NOSTR_LIMITS } from './nostr.limits';

const NOSTR = 'Nostr';
/** Prefixes of an OK false (NIP-01) that a later try may get past. */
const TRANSIENT_PREFIXES = new Set(['rate-limited', 'error']);
/** The relay does not let this key write (a whitelist, a paid relay whose subscription ended). */
const RESTRICTED_PREFIXES = new Set(['restricted']);

/** The machine-readable prefix of a relay's message (`blocked: spam` -> `blocked`). */
function prefixOf(message: string): string {
  const m = /^([a-z-]+):/.exec(message.trim());
  return m ? m[1] : '';
}

function describe(outcomes: RelayOutcome[]): string {
  return outcomes
    .map((o) => `${o.relay} ${o.accepted ? 'accepted' : 'refused'}${o.message ? ` (${o.message})` : ''}`)
    .join('; ');
}

export interface NostrProviderOptions {
  /** Time budget of one relay, connection included (NOSTR_RELAY_TIMEOUT_MS). */
  relayTimeoutMs: number;
}

/**
 * Nostr adapter (NIP-01 notes, NIP-10 replies, NIP-92 media). A post is a kind-1 event signed with the
 * account's key and sent to every relay of the channel at once; it is published when at least one relay
 * accepts it (`OK` true), and the outcome of each relay is logged and, when none accepts, named in the
 * error. The event's `created_at` is the publication's due time, so a retry signs the same event (same
 * id) and relays answer `duplicate:`: idempotent without any lookup. Media are linked, not uploaded:
 * the item's permanent public URL goes in the content and in an `imeta` tag. A thread part or a first
 * comment is a reply: `e` tags marked `root` and `reply` with a relay that holds each.
 */
export class NostrProvider implements SocialProvider {
  readonly id = 'nostr' as const;
  private readonly logger = new Logger('NostrProvider');
  private readonly relays: NostrRelayClient;

  constructor(
    private readonly http: OutboundHttp,
    private readonly options: NostrProviderOptions,
  ) {
    this.relays = new NostrRelayClient({ allowPrivate: http.allowPrivate, timeoutMs: options.relayTimeoutMs });
  }

  private parse(raw: unknown): NostrCredentials {
    return parseNostrCredentials(raw, this.http.allowPrivate);
  }

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = this.parse(credentials);
    const answers = await Promise.all(
      creds.relays.map((relay) => this.relays.readEvents(relay, { kinds: [0], authors: [creds.publicKey], limit: 1 })),
    );
    if (answers.every((a) => a === null)) {
      throw new InvalidCredentialsError(`None of the relays could be reached: ${creds.relays.join(', ')}`);
    }
    const profileEvent = answers
      .flatMap((a) => a ?? [])
      .filter((e) => e.pubkey === creds.publicKey && e.kind === 0)
      .sort((a, b) => b.created_at - a.created_at)[0];
    let profile: Record<string, unknown> = {};
    try {
      profile = asObject(profileEvent ? JSON.parse(profileEvent.content) : {}) ?? {};
    } catch {
      // a malformed profile is no profile
    }
    const npub = nip19.npubEncode(creds.publicKey);
    const maxCharacters = await this.maxContentLength(creds.relays);
    return {
      externalId: creds.publicKey,
      name: asNonEmptyString(profile.display_name) ?? asNonEmptyString(profile.name) ?? `${npub.slice(0, 12)}…`,
      handle: asNonEmptyString(profile.nip05) ?? npub,
      avatarUrl: asNonEmptyString(profile.picture) ?? null,
      profileUrl: `https://njump.me/${npub}`,
      limits: { ...NOSTR_LIMITS, supportedMimeTypes: [...NOSTR_LIMITS.supportedMimeTypes], maxCharacters },
      credentials: { privateKey: creds.privateKey, relays: creds.relays },
    };
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(NOSTR, post.content, post.media, limits);
    const length = [...post.content].length;
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text is ${length} characters long; the smallest limit of this channel's relays is ${limits.maxCharacters}`,
      });
    }
    return problems;
  }

  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = this.parse(input.credentials);
    const urls: string[] = [];
    const tags: string[][] = [];
    for (const media of input.media) {
      const url = await this.urlOf(media);
      urls.push(url);
      tags.push([
        'imeta',
        `url ${url}`,
        `m ${media.mimeType}`,
        ...(media.width && media.height ? [`dim ${media.width}x${media.height}`] : []),
        `size ${media.size}`,
        ...(media.altText ? [`alt ${media.altText}`] : []),
      ]);
    }
    if (input.replyTo) {
      const { root, parent } = input.replyTo;
      const hint = (ref: { replyRef: Record<string, string> | null }) => ref.replyRef?.relay ?? creds.relays[0];
      tags.push(['e', root.platformPostId, hint(root), 'root', creds.publicKey]);
      if (parent.platformPostId !== root.platformPostId) {
        tags.push(['e', parent.platformPostId, hint(parent), 'reply', creds.publicKey]);
      }
      tags.push(['p', creds.publicKey]);
    }
    const event = finalizeEvent(
      {
        kind: 1,
        created_at: Math.floor(input.createdAt.getTime() / 1000),
        tags,
        content: [input.content, ...urls].filter((part) => part !== '').join('\n'),
      },
      Uint8Array.from(Buffer.from(creds.privateKey, 'hex')),
    );
    const outcomes = await Promise.all(creds.relays.map((relay) => this.relays.publish(relay, event)));
    const accepted = outcomes.filter((o) => o.accepted);
    this.logger.log({
      msg: 'Nostr note sent to relays',
      eventId: event.id,
      accepted: accepted.length,
      relays: describe(outcomes),
    });
    if (accepted.length === 0) throw this.failure(outcomes);
    return {
      platformPostId: event.id,
      url: `https://njump.me/${nip19.neventEncode({ id: event.id, author: creds.publicKey, kind: 1, relays: accepted.slice(0, 3).map((o) => o.relay) })}`,
      replyRef: { relay: accepted[0].relay },
    };
  }

  /** Replies (kind 1), reposts (kind 6) and reactions (kind 7, `-` not counted) the relays hold of the note. */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const creds = this.parse(credentials);
    const answers = await Promise.all(
      creds.relays.map((relay) =>
        this.relays.readEvents(relay, { kinds: [1, 6, 7], '#e': [ref.platformPostId], limit: 500 }),
      ),
    );
    if (answers.every((a) => a === null)) throw new TransientProviderError('None of the relays could be reached');
    const seen = new Map<string, Event>();
    for (const event of answers.flatMap((a) => a ?? [])) seen.set(event.id, event);
    const events = [...seen.values()].filter((e) => e.tags.some((t) => t[0] === 'e' && t[1] === ref.platformPostId));
    const count = (kind: number) => events.filter((e) => e.kind === kind && !(kind === 7 && e.content === '-')).length;
    const likes = count(7);
    const reposts = count(6);
    const replies = count(1);
    return {
      metrics: {
        likes,
        reposts,
        replies,
        quotes: null,
        impressions: null,
        raw: { reactions: likes, reposts, replies },
      },
    };
  }

  /** The error when no relay accepted: transient if any relay may accept later, revoked if all restrict the key. */
  private failure(outcomes: RelayOutcome[]): Error {
    const text = describe(outcomes);
    const transient = outcomes.filter((o) => !o.answered || TRANSIENT_PREFIXES.has(prefixOf(o.message)));
    if (transient.length > 0) {
      const rateLimited = transient.some((o) => prefixOf(o.message) === 'rate-limited');
      return new TransientProviderError(`No Nostr relay accepted the note: ${text}`, undefined, undefined, rateLimited);
    }
    if (outcomes.every((o) => RESTRICTED_PREFIXES.has(prefixOf(o.message)))) {
      return new CredentialsRevokedError(`Every relay refuses notes of this key: ${text}`);
    }
    return new ContentRejectedError(`No Nostr relay accepted the note: ${text}`);
  }

  /** The media's permanent public URL (it must outlive the note), or a signed one where none is offered. */
  private async urlOf(media: PublishMedia): Promise<string> {
    return media.permanentUrl ? media.permanentUrl() : media.publicUrl();
  }

  /** The smallest `limitation.max_content_length` of the relays' NIP-11 documents, or the default. */
  private async maxContentLength(relays: string[]): Promise<number> {
    const limits = await Promise.all(
      relays.map(async (relay) => {
        try {
          const res = await this.http.request({
            method: 'GET',
            url: relay.replace(/^ws/, 'http'),
            headers: { accept: 'application/nostr+json' },
            timeoutMs: this.options.relayTimeoutMs,
            maxResponseBytes: 256 * 1024,
          });
          const n =
            res.status === 200 ? asNumber(at(parseJsonBody(res.body), 'limitation', 'max_content_length')) : undefined;
          return n !== undefined && n > 0 ? Math.floor(n) : undefined;
        } catch {
          return undefined;
        }
      }),
    );
    const known = limits.filter((n): n is number => n !== undefined);
    return known.length > 0 ? Math.min(...known) : NOSTR_DEFAULT_MAX_CHARACTERS;
  }
}

/** The Nostr plugin, registered in provider.list.ts. */
export const nostrPlugin = defineProvider({
  id: 'nostr',
  apiVersion: {
    pinned: 'NIP-01',
    source:
      'Nostr NIPs (nostr-protocol/nips: 01, 10, 11, 19, 92), checked 2026-11-29; the protocol has no versions, NIPs are extended, not retired',
  },
  displayName: 'Nostr',
  connectKind: 'credentials',
  credentials: NostrCredentialsDto,
  defaultLimits: NOSTR_LIMITS,
  capabilities: { altText: true, metrics: ['likes', 'reposts', 'replies'] },
  settings: {
    relayTimeoutMs: setting.int('NOSTR_RELAY_TIMEOUT_MS', {
      default: 10_000,
      min: 500,
      description:
        'time budget of one relay (connection and answer) when a note is published or read; relays are reached at once',
    }),
  },
  create: ({ http, settings }) => new NostrProvider(http, { relayTimeoutMs: settings.relayTimeoutMs }),
});
