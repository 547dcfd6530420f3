import { codeChallengeS256, hashState, newCodeVerifier, newState } from './pkce';

describe('PKCE', () => {
  it('computes the S256 challenge of the RFC 7636 appendix B example', () => {
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('makes verifiers of 43 allowed characters, different each time', () => {
    const a = newCodeVerifier();
    expect(a).toMatch(/^[A-Za-z0-9\-._~]{43}$/);
    expect(newCodeVerifier()).not.toBe(a);
  });

  it('stores only the hash of a state', () => {
    const { state, hash } = newState();
    expect(hash).toBe(hashState(state));
    expect(hash).not.toContain(state);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
