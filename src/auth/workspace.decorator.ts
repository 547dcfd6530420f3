import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from './auth-context';
import { Actor, actorOfKey } from './scopes.format';

/** Injects the caller's workspace id; every query is scoped with it. */
export const WorkspaceId = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const auth = ctx.switchToHttp().getRequest<FastifyRequest>().auth;
  if (!auth) throw new Error('WorkspaceId used on a public route');
  return auth.workspaceId;
});

/** Injects the organization of the caller's key: the one whose workspaces `/workspaces` manages (docs/adr/0052). */
export const OrganizationId = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const auth = ctx.switchToHttp().getRequest<FastifyRequest>().auth;
  if (!auth) throw new Error('OrganizationId used on a public route');
  return auth.organizationId;
});

export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const auth = ctx.switchToHttp().getRequest<FastifyRequest>().auth;
  if (!auth) throw new Error('Auth used on a public route');
  return auth;
});

/** The request's API key as the actor of a use case (its workspace, scopes and id). */
export const KeyActor = createParamDecorator((_: unknown, ctx: ExecutionContext): Actor => {
  const auth = ctx.switchToHttp().getRequest<FastifyRequest>().auth;
  if (!auth) throw new Error('KeyActor used on a public route');
  return actorOfKey(auth);
});
