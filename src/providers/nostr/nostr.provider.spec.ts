import { nip19 } from 'nostr-tools';
import { InvalidCredentialsError } from '../provider.errors';
import { normalizeRelayUrl, parseNostrCredentials } from './nostr.credentials';

// NIP-19's own example key pair.
const HEX = '67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa';
const NSEC = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5';
const PUB = '7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e';

describe('Nostr credentials', () => {
  it('takes the key as nsec or hex, derives the public key, and normalizes and dedupes relays', () => {
    const fromNsec = parseNostrCredentials(
      { privateKey: NSEC, relays: ['wss://Relay.Example/', 'wss://relay.example'] },
      false,
    );
    expect(fromNsec).toEqual({ privateKey: HEX, publicKey: PUB, relays: ['wss://relay.example'] });
    expect(parseNostrCredentials({ privateKey: HEX.toUpperCase(), relays: ['wss://a.example/x/'] }, false)).toEqual({
      privateKey: HEX,
      publicKey: PUB,
      relays: ['wss://a.example/x'],
    });
    expect(nip19.npubEncode(PUB)).toBe('npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg');
  });

  it('refuses an nsec whose checksum fails, a key outside the curve, and ws:// unless private addresses are allowed', () => {
    const bad = `${NSEC.slice(0, -1)}q`;
    expect(() => parseNostrCredentials({ privateKey: bad, relays: ['wss://r.example'] }, false)).toThrow(
      /not a valid nsec/,
    );
    expect(() => parseNostrCredentials({ privateKey: '0'.repeat(64), relays: ['wss://r.example'] }, false)).toThrow(
      InvalidCredentialsError,
    );
    expect(() => normalizeRelayUrl('ws://127.0.0.1:7777', false)).toThrow(/must be a wss:\/\/ URL/);
    expect(normalizeRelayUrl('ws://127.0.0.1:7777', true)).toBe('ws://127.0.0.1:7777');
    expect(() => normalizeRelayUrl('wss://user:pw@r.example', false)).toThrow(/without credentials/);
  });
});
