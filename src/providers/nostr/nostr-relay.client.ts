import type { LookupFunction } from 'node:net';
import WebSocket from 'ws';
import { SsrfBlockedError, assertPublicLiteralHost, createGuardedLookup } from '../../common/http/ssrf';
import type { Event, Filter } from 'nostr-tools';

/** What one relay answered to an event (NIP-01 `["OK", id, accepted, message]`), or why it did not. */
export interface RelayOutcome {
  relay: string;
  accepted: boolean;
  /** The relay's message (`duplicate: ...`, `blocked: ...`), or the transport failure. */
  message: string;
  /** The relay answered (false: unreachable, timed out or closed without OK). */
  answered: boolean;
}

export interface RelayClientOptions {
  /** Private and loopback addresses may be reached (development, tests). */
  allowPrivate: boolean;
  /** Time budget per relay, connection included. */
  timeoutMs: number;
}

/**
 * Talks NIP-01 to relays over WebSocket (`ws`: Node 20 has no global WebSocket). Each relay is reached
 * through the SSRF guard: a literal private address is refused before any socket, and a host name is
 * resolved by the guarded lookup, which refuses non-public addresses and connects to the address it
 * checked (so DNS rebinding cannot reach an internal one).
 */
export class NostrRelayClient {
  private readonly lookup: LookupFunction = createGuardedLookup();

  constructor(private readonly options: RelayClientOptions) {}

  /** Opens the relay's socket, runs `exchange` until it resolves, and closes; bounded by the time budget. */
  private session<T>(
    relay: string,
    onOpen: (ws: WebSocket) => void,
    onMessage: (msg: unknown[], done: (value: T) => void) => void,
    onFailure: (reason: string) => T,
  ): Promise<T> {
    return new Promise<T>((resolve) => {
      let settled = false;
      let ws: WebSocket | undefined;
      const finish = (value: T) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        try {
          ws?.terminate();
        } catch {
          // already closed
        }
        resolve(value);
      };
      const timer = setTimeout(
        () => finish(onFailure(`no answer within ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      try {
        const url = new URL(relay);
        if (!this.options.allowPrivate) {
          assertPublicLiteralHost(new URL(`https://${url.host}`));
        }
        ws = new WebSocket(relay, {
          handshakeTimeout: this.options.timeoutMs,
          followRedirects: false,
          maxPayload: 1024 * 1024,
          headers: { 'user-agent': 'SocialPublishingService/0.1' },
          ...(this.options.allowPrivate ? {} : { lookup: this.lookup }),
        });
      } catch (err) {
        finish(onFailure(err instanceof SsrfBlockedError ? `not allowed: ${err.message}` : String(err)));
        return;
      }
      const socket = ws;
      socket.on('open', () => onOpen(socket));
      socket.on('message', (data: Buffer) => {
        let msg: unknown;
        try {
          msg = JSON.parse(data.toString());
        } catch {
          return;
        }
        if (Array.isArray(msg)) onMessage(msg, finish);
      });
      socket.on('error', (err) => finish(onFailure(err.message)));
      socket.on('close', () => finish(onFailure('the relay closed the connection')));
    });
  }

  /** Sends `["EVENT", event]` and waits for the relay's OK (NIP-01). */
  publish(relay: string, event: Event): Promise<RelayOutcome> {
    return this.session<RelayOutcome>(
      relay,
      (ws) => ws.send(JSON.stringify(['EVENT', event])),
      (msg, done) => {
        if (msg[0] === 'OK' && msg[1] === event.id) {
          done({ relay, accepted: msg[2] === true, message: typeof msg[3] === 'string' ? msg[3] : '', answered: true });
        }
      },
      (reason) => ({ relay, accepted: false, message: reason, answered: false }),
    );
  }

  /** Events matching `filter` that the relay holds (REQ until EOSE), or null when it could not be read. */
  readEvents(relay: string, filter: Filter): Promise<Event[] | null> {
    const events: Event[] = [];
    return this.session<Event[] | null>(
      relay,
      (ws) => ws.send(JSON.stringify(['REQ', 'sps', filter])),
      (msg, done) => {
        if (msg[0] === 'EVENT' && msg[1] === 'sps' && msg[2] && typeof msg[2] === 'object')
          events.push(msg[2] as Event);
        if ((msg[0] === 'EOSE' || msg[0] === 'CLOSED') && msg[1] === 'sps') done(msg[0] === 'EOSE' ? events : null);
      },
      () => null,
    );
  }
}
