import { AppError } from '../common/errors';
import type { AuthContext, Credential, Identity } from './auth-context';

/** Which kind of credential authenticated a request (auth-context.ts), for features that word refusals by it. */
export type { Credential } from './auth-context';

/**
 * What an API key may do (docs/guide.md, "Key scopes"; docs/adr/0034). The one list: the guard, key
 * creation, the OpenAPI document, the console's key form, the CLI and the MCP tools all read it.
 */
export const SCOPES = [
  'posts:read',
  'posts:write',
  'posts:publish',
  'posts:approve',
  'media:write',
  'channels:read',
  'channels:manage',
  'webhooks:manage',
  'analytics:read',
  'keys:manage',
  'events:read',
  'workspaces:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Every scope, today's and tomorrow's: what keys made before scopes hold. */
export const ALL_SCOPES = '*';
export type KeyScope = Scope | typeof ALL_SCOPES;
export const KEY_SCOPES: readonly KeyScope[] = [ALL_SCOPES, ...SCOPES];

/** Plain descriptions (console key form, OpenAPI, guide). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'posts:read': 'Read posts and their outcome per channel; read the workspace settings',
  'posts:write': 'Create drafts, edit and delete posts (scheduling needs posts:publish, or an approval)',
  'posts:publish': 'Schedule and publish posts without an approval',
  'posts:approve': 'Approve or reject posts waiting for approval; change whether approval is required',
  'media:write': 'Upload, read, describe and delete media',
  'channels:read': 'List channels, networks, posting schedules and free slots',
  'channels:manage': 'Connect and disconnect channels; set posting schedules',
  'webhooks:manage': 'Create, change, test and delete webhooks; see and replay deliveries',
  'analytics:read': 'Read and refresh post and channel analytics',
  'keys:manage': 'List, create and revoke API keys (never with more scopes than this key holds)',
  'events:read': 'Read the event log (GET /events)',
  'workspaces:manage':
    "Create, change, erase and read the usage of the organization's workspaces; act in any of them (X-Workspace-Id)",
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Whether a key holding `held` may do what `scope` allows (`*` holds every scope). */
export function holdsScope(held: readonly string[], scope: Scope): boolean {
  return held.includes(ALL_SCOPES) || held.includes(scope);
}

/** The scopes of `wanted` that `held` does not cover (for a key creating a key: never more than it holds). */
export function scopesBeyond(held: readonly string[], wanted: readonly string[]): string[] {
  if (held.includes(ALL_SCOPES)) return [];
  if (wanted.includes(ALL_SCOPES)) return [ALL_SCOPES];
  return wanted.filter((s) => !held.includes(s));
}

/** What a refusal calls the credential: an agent's developer must tell a key from an access token. */
export function credentialName(credential: Credential | undefined): string {
  return credential === 'access_token' ? 'access token' : 'API key';
}

/** The 403 of a request outside its key's (or access token's) scopes, naming the scope it lacks. */
export function missingScopeError(scope: Scope, credential?: Credential): AppError {
  return new AppError(
    'FORBIDDEN',
    `This ${credentialName(credential)} lacks the scope ${scope} (${SCOPE_DESCRIPTIONS[scope]})`,
  );
}

/**
 * Throws 403 FORBIDDEN naming `scope` unless the principal holds it. The guard runs it for every
 * route (@RequiredScope()); callers outside HTTP routes (MCP tools) call it themselves. Pure: the
 * scopes came with the key lookup, so this costs no query and no Redis round trip.
 */
export function assertScope(auth: Pick<AuthContext, 'scopes'> & { credential?: Credential }, scope: Scope): void {
  if (!holdsScope(auth.scopes, scope)) throw missingScopeError(scope, auth.credential);
}

/** Normalises a requested scope list: unique, in the canonical order, `*` alone when present. */
export function normaliseScopes(scopes: readonly string[]): KeyScope[] {
  if (scopes.includes(ALL_SCOPES)) return [ALL_SCOPES];
  return SCOPES.filter((s) => scopes.includes(s));
}

/** Who did something, as recorded on what they did (an approval, a rejection). */
export interface ActorRef {
  type: 'api_key' | 'user';
  id: string;
}

/**
 * The principal of a use case outside the guard's view: an API key (its scopes), or a console user
 * (the scopes of their role, consoleRoleScopes). Services take it where what may happen depends on it.
 */
export interface Actor {
  workspaceId: string;
  scopes: readonly string[];
  by: ActorRef;
  /** For an API key's actor: whether a key or an access token standing for it was presented (refusals name it). */
  credential?: Credential;
  /** Who the actor speaks for, recorded as a post's `createdBy`; absent where unknown. */
  identity?: Identity;
}

/** The actor of a request authenticated with an API key (or an OAuth access token, which stands for one). */
export function actorOfKey(
  auth: Pick<AuthContext, 'workspaceId' | 'scopes' | 'apiKeyId'> & { credential?: Credential; identity?: Identity },
): Actor {
  return {
    workspaceId: auth.workspaceId,
    scopes: auth.scopes,
    by: { type: 'api_key', id: auth.apiKeyId },
    ...(auth.credential ? { credential: auth.credential } : {}),
    ...(auth.identity ? { identity: auth.identity } : {}),
  };
}

/**
 * What a console role may do (docs/adr/0034): owners and approvers every scope (owners alone also manage
 * members, a console matter), members every scope but posts:approve, so they neither approve posts nor
 * create a key that could. The services check these as they check a key's.
 */
export function consoleRoleScopes(role: string): readonly string[] {
  if (role === 'owner' || role === 'approver') return [ALL_SCOPES];
  return SCOPES.filter((s) => s !== 'posts:approve');
}
