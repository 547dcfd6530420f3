import { createHash } from 'node:crypto';
import {
  isS256Challenge,
  redirectUriMatches,
  redirectUriProblem,
  verifiesChallenge,
  withParams,
} from './oauth-protocol';

describe('OAuth protocol helpers', () => {
  it('registers https redirect URIs, and http on loopback addresses only', () => {
    expect(redirectUriProblem('https://agent.example.com/callback')).toBeNull();
    expect(redirectUriProblem('http://127.0.0.1:33418/callback')).toBeNull();
    expect(redirectUriProblem('http://localhost/cb')).toBeNull();
    expect(redirectUriProblem('http://[::1]:8080/cb')).toBeNull();
    expect(redirectUriProblem('http://agent.example.com/callback')).toMatch(/https/);
    expect(redirectUriProblem('javascript:alert(1)')).toMatch(/https/);
    expect(redirectUriProblem('https://agent.example.com/cb#x')).toMatch(/fragment/);
    expect(redirectUriProblem('https://user:pw@agent.example.com/cb')).toMatch(/credentials/);
    expect(redirectUriProblem('/relative')).toMatch(/absolute/);
    expect(redirectUriProblem(42)).toMatch(/URL/);
  });

  it('matches a redirect URI exactly, or up to the port on loopback', () => {
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example/cb')).toBe(true);
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example/cb2')).toBe(false);
    expect(redirectUriMatches('https://a.example:443/cb', 'https://a.example:8443/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:1000/cb', 'http://127.0.0.1:2000/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:1000/cb', 'http://127.0.0.1:2000/other')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://localhost/cb')).toBe(false);
  });

  it('verifies PKCE S256 as RFC 7636 appendix B computes it', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    expect(isS256Challenge(challenge)).toBe(true);
    expect(verifiesChallenge(verifier, challenge)).toBe(true);
    expect(verifiesChallenge(`${verifier}x`, challenge)).toBe(false);
    expect(verifiesChallenge('short', createHash('sha256').update('short').digest('base64url'))).toBe(false);
    expect(isS256Challenge(verifier.slice(0, 20))).toBe(false);
  });

  it('adds parameters to a redirect URI that has a query of its own', () => {
    expect(withParams('https://a.example/cb?x=1', { code: 'c', state: 's&t', skipped: undefined })).toBe(
      'https://a.example/cb?x=1&code=c&state=s%26t',
    );
  });
});
