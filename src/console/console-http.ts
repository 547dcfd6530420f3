import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ConsoleActor } from '../users/sessions.service';
import { Html } from './views/html';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in console user, set by ConsoleGuard from the session cookie (never from an API key). */
    consoleActor?: ConsoleActor | null;
  }
}

export const CONSOLE_PATH = '/console';
export const SESSION_COOKIE = 'sps_session';
export const PRE_SESSION_COOKIE = 'sps_pre';
export const FLASH_COOKIE = 'sps_flash';
/** The hosted connect pages (no session): `/connect/{token}`, the token standing for the link. */
export const CONNECT_PAGE_PATH = '/connect';
/** The random value of the hosted connect page's double-submit CSRF token (docs/adr/0055). */
export const CONNECT_COOKIE = 'sps_connect';
/**
 * The link (its token's hash) an OAuth authorization was started from in this browser: the page
 * choosing among the accounts it reaches belongs to that link.
 */
export const CONNECT_LINK_COOKIE = 'sps_connect_link';

/** A request path fit for a log line: a connect page's token (a secret) replaced by `{token}`. */
export function loggablePath(path: string): string {
  return path.replace(/^\/connect\/[^/?]+/, '/connect/{token}');
}

/**
 * The console's Content-Security-Policy. Forms post to the console only, except where a page names
 * more `formActions`: the Channels page's OAuth buttons post to the console, which redirects to the
 * network's consent page, and browsers hold that redirect to the form's `form-action` too.
 */
export function consoleCsp(formActions: string[] = []): string {
  const targets = ["'self'", ...formActions].join(' ');
  return (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; connect-src 'self'; " +
    `form-action ${targets}; frame-ancestors 'none'; base-uri 'none'`
  );
}

/** Headers of every console response: no inline script, no framing, no caching, no referrer. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': consoleCsp(),
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

function isConsolePath(url: string): boolean {
  return url === CONSOLE_PATH || url.startsWith(`${CONSOLE_PATH}/`) || url.startsWith(`${CONSOLE_PATH}?`);
}

/**
 * Fastify-level wiring of the console (called by app.factory): security headers on /console.
 * HTML form bodies (application/x-www-form-urlencoded) are parsed by Nest's own Fastify parser.
 */
export function registerConsoleHttp(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (isConsolePath(request.url)) void reply.headers(SECURITY_HEADERS);
    done();
  });
}

/** A field of a parsed form as one string ('' when absent; the first of repeated fields). */
export function field(req: FastifyRequest, name: string): string {
  const body = req.body as Record<string, string | string[]> | undefined;
  const v = body?.[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** Every value of a repeated field (checkboxes). */
export function fields(req: FastifyRequest, name: string): string[] {
  const body = req.body as Record<string, string | string[]> | undefined;
  const v = body?.[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

export function readCookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** HttpOnly, SameSite=Lax, path /console (or `path`); Secure when the request came over HTTPS. */
export function setCookie(
  req: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeSeconds: number,
  path = CONSOLE_PATH,
): void {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${path}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (req.protocol === 'https') parts.push('Secure');
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  void reply.header('set-cookie', [...list, parts.join('; ')]);
}

export function clearCookie(req: FastifyRequest, reply: FastifyReply, name: string): void {
  setCookie(req, reply, name, '', 0);
}

export function sendPage(reply: FastifyReply, page: Html, status = 200): void {
  void reply.status(status).header('content-type', 'text/html; charset=utf-8').send(page.value);
}

/** 303 See Other: after a POST, the browser GETs the target (reload never re-posts). */
export function redirect(reply: FastifyReply, to: string): void {
  void reply.status(303).header('location', to).send();
}

/**
 * Where the sign-in may send the browser on to (`next`): the consent page of an agent's authorization
 * only, a path on this console, so the parameter is never an open redirect.
 */
export function isSignInReturn(next: string): boolean {
  return next.startsWith(`${CONSOLE_PATH}/oauth/authorize?`) && !/[\\\r\n]/.test(next);
}
