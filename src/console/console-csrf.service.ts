import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { appConfig } from '../config';
import { CONNECT_COOKIE, CONNECT_PAGE_PATH, PRE_SESSION_COOKIE, readCookie, setCookie } from './console-http';

const PRE_SESSION_MAX_AGE_S = 2 * 3600;

/**
 * Synchronizer tokens for every console form: an HMAC (server key) of the session id when signed
 * in, else of a random pre-session cookie (sign-in, setup and invitation forms). A form posted
 * without the right `_csrf` field gets 403.
 */
@Injectable()
export class ConsoleCsrfService {
  private readonly key: Buffer;

  constructor(@Inject(appConfig.KEY) app: ConfigType<typeof appConfig>) {
    this.key = createHmac('sha256', app.encryptionKey).update('console-csrf').digest();
  }

  private sign(value: string): string {
    return createHmac('sha256', this.key).update(value).digest('base64url');
  }

  /** The token this request's forms must carry; sets the pre-session cookie when needed. */
  tokenFor(req: FastifyRequest, reply: FastifyReply): string {
    if (req.consoleActor) return this.sign(`s:${req.consoleActor.sessionId}`);
    let pre = readCookie(req, PRE_SESSION_COOKIE);
    if (!pre || pre.length > 64) {
      pre = randomBytes(24).toString('base64url');
      setCookie(req, reply, PRE_SESSION_COOKIE, pre, PRE_SESSION_MAX_AGE_S);
      // Visible to this request's own later reads (the form and the check use the same value).
      req.headers.cookie = `${req.headers.cookie ? `${req.headers.cookie}; ` : ''}${PRE_SESSION_COOKIE}=${pre}`;
    }
    return this.sign(`p:${pre}`);
  }

  /** The token a posted form must carry, or null when the request cannot have one. */
  expected(req: FastifyRequest): string | null {
    if (req.consoleActor) return this.sign(`s:${req.consoleActor.sessionId}`);
    const pre = readCookie(req, PRE_SESSION_COOKIE);
    return pre ? this.sign(`p:${pre}`) : null;
  }

  /**
   * The token of a hosted connect page's forms, where nobody is signed in: an HMAC of the link (its
   * token's hash) and of a random HttpOnly cookie of this browser, set here when missing (a signed
   * double submit, docs/adr/0055). A form of another link, or posted from another browser, fails.
   */
  connectTokenFor(req: FastifyRequest, reply: FastifyReply, linkKey: string): string {
    let nonce = readCookie(req, CONNECT_COOKIE);
    if (!nonce || nonce.length > 64) {
      nonce = randomBytes(24).toString('base64url');
      setCookie(req, reply, CONNECT_COOKIE, nonce, PRE_SESSION_MAX_AGE_S, CONNECT_PAGE_PATH);
    }
    return this.sign(`c:${linkKey}:${nonce}`);
  }

  /** Whether a hosted connect page's form carries the token of this link and this browser. */
  verifyConnect(req: FastifyRequest, linkKey: string, given: string): boolean {
    const nonce = readCookie(req, CONNECT_COOKIE);
    return nonce !== undefined && this.matches(this.sign(`c:${linkKey}:${nonce}`), given);
  }

  verify(req: FastifyRequest, given: string): boolean {
    return this.matches(this.expected(req), given);
  }

  private matches(expected: string | null, given: string): boolean {
    if (!expected || !given) return false;
    const a = Buffer.from(expected);
    const b = Buffer.from(given);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
