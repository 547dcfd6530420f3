import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Actor, consoleRoleScopes } from '../auth/scopes.format';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError } from '../common/errors';
import { prepareValidationRules, toErrorDetails } from '../common/validation.pipe';
import { ConsoleActor } from '../users/sessions.service';
import { UsersService } from '../users/users.service';
import { ConsoleCsrfService } from './console-csrf.service';
import { FLASH_COOKIE, clearCookie, readCookie, setCookie } from './console-http';
import { PageContext } from './views/layout';

/** What a page shows once after a redirect: a new secret, or a notice. */
export interface Flash {
  apiKey?: { key: string; name: string };
  webhookSecret?: { secret: string; url: string };
  inviteLink?: { url: string; email: string };
  ok?: string;
  error?: string;
}

const FLASH_MAX_AGE_S = 120;

/**
 * What every console page needs: the signed-in actor, the CSRF token, the workspace list, and a
 * one-time "flash" that carries a new secret from the POST to the page shown after the redirect
 * (sealed with the app key and bound to the session, in an HttpOnly cookie read once), so the
 * secret is never in a URL and a reload shows it no more.
 */
@Injectable()
export class ConsolePagesService {
  constructor(
    private readonly csrf: ConsoleCsrfService,
    private readonly users: UsersService,
    private readonly box: SecretBox,
  ) {}

  actor(req: FastifyRequest): ConsoleActor {
    if (!req.consoleActor) throw new Error('console page without a session');
    return req.consoleActor;
  }

  /** The signed-in user as the actor of a use case: their workspace, their role's scopes, their id. */
  scopedActor(req: FastifyRequest): Actor {
    const actor = this.actor(req);
    return {
      workspaceId: actor.workspaceId,
      scopes: consoleRoleScopes(actor.role),
      by: { type: 'user', id: actor.userId },
      identity: { kind: 'user', id: actor.userId, name: actor.email },
    };
  }

  async context(req: FastifyRequest, reply: FastifyReply, current?: PageContext['current']): Promise<PageContext> {
    const actor = req.consoleActor ?? null;
    return {
      actor,
      csrf: this.csrf.tokenFor(req, reply),
      memberships: actor ? await this.users.membershipsOf(actor.userId) : [],
      current,
    };
  }

  /** Plain context for pages without a session (sign-in, setup). */
  anonymousContext(req: FastifyRequest, reply: FastifyReply): PageContext {
    return { actor: req.consoleActor ?? null, csrf: this.csrf.tokenFor(req, reply) };
  }

  setFlash(req: FastifyRequest, reply: FastifyReply, flash: Flash): void {
    const actor = this.actor(req);
    setCookie(req, reply, FLASH_COOKIE, this.box.sealJson(flash, `flash:${actor.sessionId}`), FLASH_MAX_AGE_S);
  }

  /** Reads and clears the flash; anything unreadable counts as none. */
  takeFlash(req: FastifyRequest, reply: FastifyReply): Flash {
    const sealed = readCookie(req, FLASH_COOKIE);
    if (!sealed) return {};
    clearCookie(req, reply, FLASH_COOKIE);
    try {
      return this.box.openJson<Flash>(sealed, `flash:${this.actor(req).sessionId}`);
    } catch {
      return {};
    }
  }
}

/** Validates a form with the API's own DTO (same rules, same messages); throws 400 VALIDATION_ERROR. */
export function validateForm<T extends object>(dto: new () => T, plain: Record<string, unknown>): T {
  const instance = plainToInstance(dto, plain, { enableImplicitConversion: false, exposeDefaultValues: true });
  prepareValidationRules();
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  if (errors.length) throw AppError.invalid(toErrorDetails(errors));
  return instance;
}
