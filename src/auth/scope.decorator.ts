import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Scope } from './scopes.format';

export const REQUIRED_SCOPE = 'sps:requiredScope';
/** The OpenAPI extension naming an operation's scope (docs/openapi.ts adds a line to its description too). */
export const REQUIRED_SCOPE_EXTENSION = 'x-required-scope';

/**
 * The one place a route states the scope its API key needs (scopes.format.ts). The global guard reads
 * it after the key lookup and answers 403 FORBIDDEN naming the scope when the key lacks it; start-up
 * fails on an authenticated route that declares none (ScopedRoutesCheck).
 */
export const RequiredScope = (scope: Scope): MethodDecorator =>
  applyDecorators(SetMetadata(REQUIRED_SCOPE, scope), ApiExtension(REQUIRED_SCOPE_EXTENSION, scope));
