// Solves the sign-in form's proof-of-work off the page's thread (signin.js), so
// typing never stutters. The same rule and search as core/pow.ts `solveProof` (the
// SPA's worker; the server's check shares the rule), written out here because the
// provider serves its assets unbundled: find a nonce, counted 0, 1, 2 … in base 36,
// so that SHA-256(challenge + ":" + nonce) starts with `difficulty` zero bits; the
// first such nonce is the answer, whichever SHA-256 finds it.
// Two SHA-256s: WebCrypto's, native, asked for in batches, costs the same with or
// without the JavaScript JIT (Tor Browser's "Safer" level turns it off); @noble/hashes'
// plain JavaScript, served from our own origin (/idp/realms/whistleblower/assets/noble/),
// is faster where the JIT runs and the only one where the page is no secure context
// (no crypto.subtle). Both are timed on the first nonces and the faster goes on.
// A module worker. Message in: { challenge, difficulty }; out: { nonce }.

var BATCH = 1024;
// The plain search runs this long first (ms), its rate read on the second half once the
// JIT (if any) has compiled the hash; then one native round of NATIVE_TRIAL is timed.
var PLAIN_TRIAL_MS = 80;
var NATIVE_TRIAL = 1024;

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

// The bytes of challenge + ":" + nonce n, in one reused buffer (digest copies its input).
function candidates(challenge) {
  var prefix = new TextEncoder().encode(challenge + ':');
  var buf = new Uint8Array(prefix.length + 16);
  buf.set(prefix);
  return function (n) {
    var nonce = n.toString(36);
    for (var i = 0; i < nonce.length; i++) buf[prefix.length + i] = nonce.charCodeAt(i);
    return buf.subarray(0, prefix.length + nonce.length);
  };
}

// The first n in [start, end) that solves, with plain JavaScript; -1 if none.
function plainRange(sha256, input, difficulty, start, end) {
  for (var n = start; n < end; n++) if (leadingZeroBits(sha256(input(n))) >= difficulty) return n;
  return -1;
}

function nativeRound(subtle, input, start, batch) {
  var digests = new Array(batch);
  for (var k = 0; k < batch; k++) digests[k] = subtle.digest('SHA-256', input(start + k));
  return Promise.all(digests);
}

function firstSolved(digests, difficulty) {
  for (var k = 0; k < digests.length; k++) if (leadingZeroBits(new Uint8Array(digests[k])) >= difficulty) return k;
  return -1;
}

async function solveNative(subtle, input, difficulty, from) {
  var next = nativeRound(subtle, input, from, BATCH);
  for (var start = from; ; start += BATCH) {
    var current = next;
    next = nativeRound(subtle, input, start + BATCH, BATCH);
    var k = firstSolved(await current, difficulty);
    if (k >= 0) {
      next.catch(function () {});
      return start + k;
    }
  }
}

async function solve(challenge, difficulty) {
  var subtle = self.crypto && self.crypto.subtle && typeof self.crypto.subtle.digest === 'function' ? self.crypto.subtle : null;
  var sha256 = null;
  try {
    sha256 = (await import('./noble/sha2.js')).sha256;
  } catch (e) {
    // Without the plain SHA-256 the native one does it all.
    if (!subtle) throw e;
    return (await solveNative(subtle, candidates(challenge), difficulty, 0)).toString(36);
  }
  var input = candidates(challenge);
  var n = 0;
  if (subtle) {
    var t0 = performance.now();
    var half = null;
    var plainRate;
    for (;;) {
      var found = plainRange(sha256, input, difficulty, n, n + 64);
      if (found >= 0) return found.toString(36);
      n += 64;
      var t = performance.now() - t0;
      if (!half && t >= PLAIN_TRIAL_MS / 2) half = [n, t];
      if (half && t >= PLAIN_TRIAL_MS) {
        plainRate = (n - half[0]) / Math.max(t - half[1], 0.001);
        break;
      }
    }
    try {
      var t1 = performance.now();
      var k = firstSolved(await nativeRound(subtle, input, n, NATIVE_TRIAL), difficulty);
      if (k >= 0) return (n + k).toString(36);
      n += NATIVE_TRIAL;
      if (NATIVE_TRIAL / Math.max(performance.now() - t1, 0.001) >= plainRate) return (await solveNative(subtle, input, difficulty, n)).toString(36);
    } catch (e) {
      // A digest refused: the plain search still answers.
    }
  }
  for (var start = n; ; start += 0x1000) {
    var hit = plainRange(sha256, input, difficulty, start, start + 0x1000);
    if (hit >= 0) return hit.toString(36);
  }
}

self.onmessage = function (e) {
  solve(e.data.challenge, e.data.difficulty).then(
    function (nonce) {
      self.postMessage({ nonce: nonce });
    },
    function (err) {
      // Thrown outside the promise, so the page's worker.onerror hears of it (signin.js).
      setTimeout(function () {
        throw err;
      });
    },
  );
};
