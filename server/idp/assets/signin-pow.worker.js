// Solves the sign-in form's proof-of-work off the page's thread (signin.js), so
// typing never stutters. The same rule and search as src/api/pow.ts `solve` (which
// the SPA's worker and the server's check share): find a nonce, counted 0, 1, 2 …
// in base 36, so that SHA-256(challenge + ":" + nonce) starts with `difficulty`
// zero bits. A module worker: the SHA-256 is @noble/hashes', served from our own
// origin (/idp/realms/whistleblower/assets/noble/). Message in:
// { challenge, difficulty }; out: { nonce }.
import { sha256 } from './noble/sha2.js';

function leadingZeroBits(digest) {
  var bits = 0;
  for (var i = 0; i < digest.length; i++) {
    if (digest[i] === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(digest[i]) - 24;
  }
  return bits;
}

function solve(challenge, difficulty) {
  var prefix = new TextEncoder().encode(challenge + ':');
  var buf = new Uint8Array(prefix.length + 16);
  buf.set(prefix);
  for (var n = 0; ; n++) {
    var nonce = n.toString(36);
    for (var i = 0; i < nonce.length; i++) buf[prefix.length + i] = nonce.charCodeAt(i);
    if (leadingZeroBits(sha256(buf.subarray(0, prefix.length + nonce.length))) >= difficulty) return nonce;
  }
}

self.onmessage = function (e) {
  self.postMessage({ nonce: solve(e.data.challenge, e.data.difficulty) });
};
