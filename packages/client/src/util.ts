/** WebCrypto: global in browsers and Node >= 19; `node:crypto`'s `webcrypto` on Node 18. */
export async function getSubtle(): Promise<SubtleCrypto> {
  const global = (globalThis as { crypto?: Crypto }).crypto;
  if (global?.subtle) return global.subtle;
  // A name in a variable: bundlers for browsers leave it alone (browsers have the global).
  const moduleName: string = 'node:crypto';
  const nodeCrypto = (await import(/* webpackIgnore: true */ moduleName)) as { webcrypto: Crypto };
  return nodeCrypto.webcrypto.subtle;
}

export function toBytes(data: string | Uint8Array | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (typeof data === 'string') return new TextEncoder().encode(data);
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? B64[n & 63]! : '=';
  }
  return out;
}

/** Standard or URL-safe base64, padding optional; invalid characters give an empty array. */
export function base64ToBytes(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*$/.test(clean) || clean.length % 4 === 1) return new Uint8Array(0);
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (const ch of clean) {
    value = ((value << 6) | B64.indexOf(ch)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const subtle = await getSubtle();
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes as BufferSource));
  let hex = '';
  for (const b of digest) hex += HEX[b]!;
  return hex;
}
