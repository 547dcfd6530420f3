import { AppError } from '../common/errors';
import { assertScope, consoleRoleScopes, holdsScope, normaliseScopes, SCOPES, scopesBeyond } from './scopes.format';

describe('scopes', () => {
  it('"*" holds every scope; a list holds what it names', () => {
    for (const s of SCOPES) expect(holdsScope(['*'], s)).toBe(true);
    expect(holdsScope(['posts:read'], 'posts:read')).toBe(true);
    expect(holdsScope(['posts:read'], 'posts:write')).toBe(false);
  });

  it('assertScope throws 403 FORBIDDEN naming the missing scope', () => {
    expect(() => assertScope({ scopes: ['posts:read'] }, 'posts:read')).not.toThrow();
    try {
      assertScope({ scopes: ['posts:read'] }, 'webhooks:manage');
      throw new Error('no error');
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('FORBIDDEN');
      expect((err as AppError).message).toContain('webhooks:manage');
    }
  });

  it('names what a new key would hold beyond its creator', () => {
    expect(scopesBeyond(['*'], ['*'])).toEqual([]);
    expect(scopesBeyond(['posts:read', 'keys:manage'], ['posts:read'])).toEqual([]);
    expect(scopesBeyond(['posts:read', 'keys:manage'], ['posts:read', 'posts:publish'])).toEqual(['posts:publish']);
    expect(scopesBeyond(['posts:read', 'keys:manage'], ['*'])).toEqual(['*']);
  });

  it('normalises to the canonical order, without duplicates, "*" alone', () => {
    expect(normaliseScopes(['posts:write', 'posts:read', 'posts:write'])).toEqual(['posts:read', 'posts:write']);
    expect(normaliseScopes(['posts:read', '*'])).toEqual(['*']);
  });

  it('gives console owners and approvers every scope, members all but posts:approve', () => {
    expect(consoleRoleScopes('owner')).toEqual(['*']);
    expect(consoleRoleScopes('approver')).toEqual(['*']);
    expect(consoleRoleScopes('member')).not.toContain('posts:approve');
    expect(consoleRoleScopes('member')).toHaveLength(SCOPES.length - 1);
  });
});
