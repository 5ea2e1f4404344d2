/**
 * Byte helpers for the envelope module: UTF-8, base64, hex, concatenation, random
 * bytes. Small on purpose, and free of Node's Buffer so the browser runs them as is.
 *
 * Invariants: every function returns a fresh Uint8Array over a plain ArrayBuffer (the
 * type WebCrypto accepts), never a view into a caller's buffer, so a caller that reuses
 * its buffer cannot change what was sealed or returned.
 */

/** A Uint8Array over an ArrayBuffer (not a SharedArrayBuffer): what WebCrypto takes. */
export type Bytes = Uint8Array<ArrayBuffer>;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function utf8(text: string): Bytes {
  // A fresh copy: some runtimes (jsdom) hand out arrays of another realm.
  return new Uint8Array(encoder.encode(text));
}

export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** The bytes as a WebCrypto-ready array: the same memory when it can be, else a copy. */
export function bufferSource(bytes: Uint8Array): Bytes {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Bytes) : new Uint8Array(bytes);
}

export function concat(...parts: readonly Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

export function randomBytes(n: number): Bytes {
  // getRandomValues takes at most 65,536 bytes a call; the module asks for far less.
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

export function fromHex(hex: string): Bytes {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new TypeError('not a hex string');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Standard base64 with padding (RFC 4648 §4), as Node's `Buffer#toString('base64')`. */
export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  // In slices: String.fromCharCode with a spread of a large array overflows the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function fromBase64(text: string): Bytes {
  let bin: string;
  try {
    bin = atob(text);
  } catch {
    throw new TypeError('not a base64 string');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
