import { createHash } from 'node:crypto';
import {
  isS256Challenge,
  oauthDescription,
  oauthErrorOf,
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

  it('refuses control characters and what the URL parser would quietly repair', () => {
    // Each C0 control, DEL and C1 control, anywhere: CR/LF would split a Location header it reached.
    const controls = [...Array(0x20).keys(), 0x7f, ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i)];
    for (const code of controls) {
      const c = String.fromCharCode(code);
      for (const uri of [`https://a.example/cb${c}`, `https://a.example/${c}cb`, `${c}https://a.example/cb`]) {
        expect({ code, problem: redirectUriProblem(uri) }).toEqual({ code, problem: expect.stringMatching(/control/) });
      }
    }
    expect(redirectUriProblem('https://a.example/cb\r\nSet-Cookie: x=1')).toMatch(/control/);
    // Accepted by `new URL`, which would store one string and redirect to another.
    expect(redirectUriProblem(' https://a.example/cb')).toMatch(/RFC 3986/);
    expect(redirectUriProblem('https://a.example/c b')).toMatch(/RFC 3986/);
    expect(redirectUriProblem('https://a.example\\evil.example/cb')).toMatch(/RFC 3986/);
    expect(redirectUriProblem('https://a.example/caf\u00e9')).toMatch(/RFC 3986/);
    expect(redirectUriProblem('https:a.example/cb')).toMatch(/scheme:\/\/host/);
    expect(redirectUriProblem('http:127.0.0.1/cb')).toMatch(/scheme:\/\/host/);
    expect(redirectUriProblem('HTTPS://a.example/cb')).toBeNull();
    expect(redirectUriProblem('https://a.example/caf%C3%A9?x=%20y')).toBeNull();
    // A redirect URI in an authorization request is held to the same rule before it is compared.
    expect(redirectUriMatches('http://127.0.0.1:1000/cb', 'http://127.0.0.1:2000/cb\n')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:1000/cb', 'http://127.0.0.1:2000/c\tb')).toBe(false);
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

  it("keeps an error_description within RFC 6749's characters", () => {
    expect(oauthDescription('Strings must not contain NUL (\\u0000) characters')).toBe(
      'Strings must not contain NUL (U+0000) characters',
    );
    expect(oauthDescription('only "none"\r\n\\ é')).toBe("only 'none'/ ");
    expect(oauthDescription('x'.repeat(600))).toHaveLength(500);
  });

  it('maps what the API filter answered on an OAuth endpoint to an OAuth error', () => {
    const nul = {
      message: 'Strings must not contain NUL (\\u0000) characters',
      details: [{ field: 'redirect_uris.0', message: '' }],
    };
    expect(oauthErrorOf(400, nul, 'invalid_client_metadata')).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'Strings must not contain NUL (U+0000) characters (redirect_uris.0)',
    });
    expect(oauthErrorOf(400, nul, 'invalid_request').error).toBe('invalid_request');
    expect(oauthErrorOf(413, { message: 'Request body is too large' }, 'invalid_client_metadata')).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'Request body is too large',
    });
    expect(oauthErrorOf(429, { message: 'slow down' }, 'invalid_request').error).toBe('too_many_requests');
    expect(oauthErrorOf(503, { message: 'retry' }, 'invalid_request').error).toBe('temporarily_unavailable');
    expect(oauthErrorOf(500, { message: 'Internal server error' }, 'invalid_request').error).toBe('server_error');
  });
});
