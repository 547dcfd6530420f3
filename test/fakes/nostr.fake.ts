import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { finalizeEvent, generateSecretKey, getPublicKey, matchFilters, verifyEvent } from 'nostr-tools';
import type { Event, Filter } from 'nostr-tools';
import { WebSocketServer } from 'ws';
import type { DescriptionViolation } from './descriptions/description';
import { nostrDescription } from './descriptions/networks';
import type { FakeCounts } from './fake-http-server';
import { describedContract, type ProviderContractFake } from './provider-contract';

export interface NostrRelayFakeOptions {
  /** NIP-11 `limitation.max_content_length`; absent: not advertised. */
  maxContentLength?: number;
  /** Never answers EVENT messages (a relay that hangs). */
  silent?: boolean;
}

/** Every message the relay received, oldest first. */
export interface RelayLogEntry {
  type: string;
  at: number;
}

/**
 * A local Nostr relay (NIP-01 over WebSocket, NIP-11 over HTTP). Every EVENT is checked as relays do:
 * its id must be the hash of its serialization and its signature valid (`verifyEvent`), else
 * `["OK", id, false, "invalid: ..."]`; a known id is `OK true "duplicate: ..."`. REQ answers the
 * stored events matching the filters, then EOSE. Failures are injected with the same `failNext(n,
 * status)` as the HTTP fakes, mapped to relay answers: 503 `error:`, 429 `rate-limited:`, 400
 * `blocked:`, 401 `restricted:`.
 */
export class NostrRelayFake {
  /** NIP-01 (with NIP-10 and NIP-92 tags) as recorded: every message is checked against it first. */
  readonly describedBy = nostrDescription();
  /** Messages the description refused (answered as relays refuse: OK false, CLOSED or NOTICE `invalid:`). */
  readonly descriptionViolations: DescriptionViolation[] = [];
  readonly events: Event[] = [];
  readonly received: RelayLogEntry[] = [];
  /** EVENT messages refused as invalid (bad id or signature). */
  readonly invalid: Event[] = [];
  private server: http.Server | undefined;
  private wss: WebSocketServer | undefined;
  private url: string | undefined;
  private readonly failures: Array<{ remaining: number; status: number }> = [];
  private readonly restricted = new Set<string>();

  constructor(private readonly opts: NostrRelayFakeOptions = {}) {}

  async start(): Promise<string> {
    if (this.url) return this.url;
    const server = http.createServer((req, res) => {
      if ((req.headers.accept ?? '').includes('application/nostr+json')) {
        const doc = {
          name: 'fake relay',
          supported_nips: [1, 10, 11],
          software: 'test/fakes/nostr.fake.ts',
          limitation: {
            max_message_length: 131072,
            ...(this.opts.maxContentLength ? { max_content_length: this.opts.maxContentLength } : {}),
          },
        };
        res.writeHead(200, { 'content-type': 'application/nostr+json' }).end(JSON.stringify(doc));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('Please use a Nostr client to connect.');
    });
    this.wss = new WebSocketServer({ server });
    this.wss.on('connection', (ws) => {
      ws.on('message', (data: Buffer) => {
        let msg: unknown;
        try {
          msg = JSON.parse(data.toString());
        } catch {
          ws.send(JSON.stringify(['NOTICE', 'error: could not parse message']));
          return;
        }
        if (!Array.isArray(msg)) return void ws.send(JSON.stringify(['NOTICE', 'error: messages are arrays']));
        this.received.push({ type: String(msg[0]), at: Date.now() });
        const refusal = this.refusedByDescription(msg, data);
        if (refusal) return void ws.send(JSON.stringify(refusal));
        if (msg[0] === 'EVENT') {
          const answer = this.onEvent(msg[1] as Event);
          if (answer) ws.send(JSON.stringify(answer));
        } else if (msg[0] === 'REQ') {
          const [, sub, ...filters] = msg as [string, string, ...Filter[]];
          const limit = Math.min(...filters.map((f) => f.limit ?? 500));
          for (const event of this.events.filter((e) => matchFilters(filters, e)).slice(-limit)) {
            ws.send(JSON.stringify(['EVENT', sub, event]));
          }
          ws.send(JSON.stringify(['EOSE', sub]));
        } else if (msg[0] === 'CLOSE') {
          ws.send(JSON.stringify(['CLOSED', msg[1], '']));
        } else ws.send(JSON.stringify(['NOTICE', `error: unknown message type ${String(msg[0])}`]));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.url = undefined;
    for (const client of this.wss?.clients ?? []) client.terminate();
    this.wss?.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  get relayUrl(): string {
    if (!this.url) throw new Error('The fake relay is not started');
    return this.url;
  }

  /** The next `n` EVENT messages get the relay's answer for this status (see the class). */
  failNext(n: number, status: number): void {
    if (n > 0) this.failures.push({ remaining: n, status });
  }

  /** The relay stops taking notes of this key (`restricted:`), as a paid relay whose subscription ended. */
  restrict(pubkey: string): void {
    this.restricted.add(pubkey);
  }

  /** Reactions, reposts and replies by other keys to the event, as other users would publish them. */
  setCounts(eventId: string, counts: Partial<FakeCounts>): void {
    const add = (kind: number, content: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const sk = generateSecretKey();
        this.events.push(
          finalizeEvent(
            {
              kind,
              created_at: Math.floor(Date.now() / 1000),
              content,
              tags: [['e', eventId, '', kind === 1 ? 'root' : '']],
            },
            sk,
          ),
        );
      }
    };
    add(7, '+', counts.likes ?? 0);
    add(6, '', counts.reposts ?? 0);
    add(1, 'a reply', counts.replies ?? 0);
  }

  /**
   * The relay's answer when NIP-01 refuses the message, as relays answer a malformed one: an EVENT
   * with `["OK", <id>, false, "invalid: ..."]`, a REQ with `["CLOSED", <sub>, "invalid: ..."]`,
   * anything else with `["NOTICE", "invalid: ..."]`; undefined when the message is as described.
   */
  private refusedByDescription(msg: unknown[], data: Buffer): unknown[] | undefined {
    const { operation, problems } = this.describedBy.check({
      method: 'WS',
      path: '/',
      query: new URLSearchParams(),
      contentType: 'application/json',
      contentTypeHeader: 'application/json',
      body: data,
    });
    if (problems.length === 0) return undefined;
    this.descriptionViolations.push({ method: 'WS', path: '/', operation, problems });
    const said = `invalid: ${problems.join('; ')}`;
    const event = msg[1] as { id?: unknown } | undefined;
    if (msg[0] === 'EVENT') return ['OK', typeof event?.id === 'string' ? event.id : '', false, said];
    if (msg[0] === 'REQ' && typeof msg[1] === 'string') return ['CLOSED', msg[1], said];
    return ['NOTICE', said];
  }

  private onEvent(event: Event): unknown[] | undefined {
    const id = typeof event?.id === 'string' ? event.id : '';
    if (!event || typeof event !== 'object' || !verifyEvent(event)) {
      this.invalid.push(event);
      return ['OK', id, false, 'invalid: event id or signature does not verify'];
    }
    if (this.opts.silent) return undefined;
    const failure = this.failures[0];
    if (failure) {
      failure.remaining -= 1;
      if (failure.remaining <= 0) this.failures.shift();
      const message =
        failure.status === 429
          ? 'rate-limited: slow down'
          : failure.status === 401
            ? 'restricted: this pubkey is not allowed to write'
            : failure.status >= 500
              ? 'error: could not store the event'
              : 'blocked: the content is not allowed here';
      return ['OK', id, false, message];
    }
    if (this.restricted.has(event.pubkey)) return ['OK', id, false, 'restricted: this pubkey is not allowed to write'];
    if (this.opts.maxContentLength && [...event.content].length > this.opts.maxContentLength) {
      return ['OK', id, false, `invalid: content longer than ${this.opts.maxContentLength} characters`];
    }
    if (this.events.some((e) => e.id === id)) return ['OK', id, true, 'duplicate: already have this event'];
    this.events.push(event);
    return ['OK', id, true, ''];
  }
}

/** The tag of an event's reply, by NIP-10 markers: the `reply` one, else the `root` one. */
export function repliesTo(event: Event): string | null {
  const e = event.tags.filter((t) => t[0] === 'e');
  return (e.find((t) => t[3] === 'reply') ?? e.find((t) => t[3] === 'root'))?.[1] ?? null;
}

/** The alt texts of an event's `imeta` tags (NIP-92), null where none. */
export function imetaAlts(event: Event): Array<string | null> {
  return event.tags
    .filter((t) => t[0] === 'imeta')
    .map(
      (t) =>
        t
          .slice(1)
          .find((entry) => entry.startsWith('alt '))
          ?.slice(4) ?? null,
    );
}

/** A key for tests: hex and the public key. */
export function testKey(): { hex: string; pubkey: string } {
  const sk = generateSecretKey();
  return { hex: Buffer.from(sk).toString('hex'), pubkey: getPublicKey(sk) };
}

/** The relay fake for the shared provider contract suite: one relay, one key. */
export function contractFake(): ProviderContractFake {
  const relay = new NostrRelayFake();
  const key = testKey();
  return {
    start: async () => ({ privateKey: key.hex, relays: [await relay.start()] }),
    stop: () => relay.stop(),
    // A key is not refused by a relay it never wrote to: a wrong secret here is a relay no one answers at.
    wrongCredentials: () => ({ privateKey: key.hex, relays: ['ws://127.0.0.1:9'] }),
    publishRoute: 'EVENT',
    rejectStatus: 400,
    described: describedContract(relay, () => {
      // A note as the adapter signs it, its `content` sent as `text`.
      const { content, ...rest } = finalizeEvent(
        { kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: 'renamed' },
        Uint8Array.from(Buffer.from(key.hex, 'hex')),
      );
      return {
        url: relay.relayUrl,
        message: JSON.stringify(['EVENT', { ...rest, text: content }]),
        refused: (answer) => Array.isArray(answer) && answer[0] === 'OK' && answer[2] === false,
        renamed: { from: 'content', to: 'text' },
      };
    }),
    failNext: (n, status) => relay.failNext(n, status),
    revokeAll: () => relay.restrict(key.pubkey),
    posts: () =>
      relay.events
        .filter((e) => e.pubkey === key.pubkey && e.kind === 1)
        .map((e) => {
          const alts = imetaAlts(e);
          return {
            platformPostId: e.id,
            text: e.content,
            mediaCount: alts.length,
            mediaAltTexts: alts,
            inReplyTo: repliesTo(e),
          };
        }),
    setCounts: (id, counts) => relay.setCounts(id, counts),
  };
}
