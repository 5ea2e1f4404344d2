// The reporter's keys, derived in this page (issue 37, docs/decisions/blind-server.md
// "Reporters"): exactly core/crypto's deriveReporterKeys and checkKdf/chooseKdf,
// written out because the provider serves its assets unbundled (as
// signin-pow.worker.js writes out core/pow.ts). test/unit/idp-derive.test.ts runs
// this file against core/crypto and requires the same bytes.
//
//   secret       = KDF(digits(case number) ‖ 0x00 ‖ NFC(password), salt)
//   reporter key = HKDF-SHA-256(secret, salt "", info "wb:reporter:key")      32 bytes
//   verifier     = HKDF-SHA-256(secret, salt "", info "wb:reporter:verifier") 32 bytes
//
// KDF: Argon2id (hash-wasm, WebAssembly; argon2.js is loaded first) or, where
// WebAssembly cannot run, PBKDF2-SHA-256 through WebCrypto; never Argon2 in plain
// JavaScript. Parameters below the defaults are refused: a server cannot weaken them.
(function () {
  var ARGON2ID_DEFAULT = { name: 'argon2id-v1', m: 65536, t: 3, p: 1 };
  var PBKDF2_DEFAULT = { name: 'pbkdf2-v1', iterations: 600000 };
  var subtle = self.crypto && self.crypto.subtle;

  function int(n, min, max) {
    return typeof n === 'number' && Math.floor(n) === n && n >= min && n <= max;
  }
  function checkKdf(k) {
    if (k && k.name === 'argon2id-v1' && int(k.m, 65536, 1 << 20) && int(k.t, 3, 20) && int(k.p, 1, 8) && k.m >= 8 * k.p) return;
    if (k && k.name === 'pbkdf2-v1' && int(k.iterations, 600000, 10000000)) return;
    throw new Error('kdf');
  }
  function utf8(s) {
    return new TextEncoder().encode(s);
  }
  function b64urlToBytes(s) {
    var bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function toB64(bytes) {
    var bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin);
  }
  function toB64url(bytes) {
    return toB64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  async function secretOf(input, salt, kdf) {
    checkKdf(kdf);
    if (salt.length < 8) throw new Error('kdf');
    if (kdf.name === 'argon2id-v1') {
      var out = await self.hashwasm.argon2id({ password: input, salt: salt, iterations: kdf.t, parallelism: kdf.p, memorySize: kdf.m, hashLength: 32, outputType: 'binary' });
      return new Uint8Array(out);
    }
    var base = await subtle.importKey('raw', input, 'PBKDF2', false, ['deriveBits']);
    return new Uint8Array(await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: salt, iterations: kdf.iterations }, base, 256));
  }

  function hkdf(material, info) {
    return subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8(info) }, material, 256).then(function (b) {
      return new Uint8Array(b);
    });
  }

  /** { verifier: base64url, key: base64 (the reporter key's 32 raw bytes, for the SPA) } */
  async function derive(caseNumber, password, saltB64url, kdf) {
    var digits = String(caseNumber).replace(/\D/g, '');
    if (!digits) throw new Error('kdf');
    var d = utf8(digits);
    var p = utf8(String(password).normalize('NFC'));
    var input = new Uint8Array(d.length + 1 + p.length);
    input.set(d, 0);
    input.set(p, d.length + 1);
    var secret = await secretOf(input, b64urlToBytes(saltB64url), kdf);
    var material = await subtle.importKey('raw', secret, 'HKDF', false, ['deriveBits']);
    secret.fill(0);
    var key = await hkdf(material, 'wb:reporter:key');
    var verifier = await hkdf(material, 'wb:reporter:verifier');
    return { verifier: toB64url(verifier), key: toB64(key) };
  }

  var argon2Usable;
  /** Argon2id where WebAssembly works here (tried, not assumed), else PBKDF2. */
  function chooseKdf() {
    argon2Usable =
      argon2Usable ||
      (async function () {
        try {
          if (typeof WebAssembly !== 'object' || !self.hashwasm) return false;
          await self.hashwasm.argon2id({ password: 'probe', salt: new Uint8Array(8), iterations: 1, parallelism: 1, memorySize: 8, hashLength: 32, outputType: 'binary' });
          return true;
        } catch (e) {
          return false;
        }
      })();
    return argon2Usable.then(function (ok) {
      return ok ? Object.assign({}, ARGON2ID_DEFAULT) : Object.assign({}, PBKDF2_DEFAULT);
    });
  }

  function newSalt() {
    return toB64url(self.crypto.getRandomValues(new Uint8Array(16)));
  }

  function b64ToBytes(s) {
    var bin = atob(s);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function aesKey(b64) {
    var raw = b64ToBytes(b64);
    if (raw.length !== 32) throw new Error('key');
    return subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']).then(function (k) {
      raw.fill(0);
      return k;
    });
  }
  // core/crypto/reporter.ts wrapDataKey: 1 ‖ nonce(12) ‖ AES-256-GCM(data key), additional data wb:reporter-key:<case id>:<epoch>.
  function wrapAad(caseId, epoch) {
    return utf8('wb:reporter-key:' + caseId + ':' + epoch);
  }
  async function unwrap(key, wrap, caseId, epoch) {
    if (wrap.length !== 61 || wrap[0] !== 1) throw new Error('format');
    return new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv: wrap.subarray(1, 13), additionalData: wrapAad(caseId, epoch), tagLength: 128 }, key, wrap.subarray(13)));
  }
  async function wrapWith(key, dataKey, caseId, epoch) {
    var nonce = self.crypto.getRandomValues(new Uint8Array(12));
    var sealed = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: wrapAad(caseId, epoch), tagLength: 128 }, key, dataKey));
    var out = new Uint8Array(1 + 12 + sealed.length);
    out[0] = 1;
    out.set(nonce, 1);
    out.set(sealed, 13);
    return out;
  }
  function same(a, b) {
    if (a.length !== b.length) return false;
    var d = 0;
    for (var i = 0; i < a.length; i++) d |= a[i] ^ b[i];
    return d === 0;
  }

  /**
   * The password change of a sealed case: each of its reporter wraps ([{ epoch, wrap }],
   * base64) opened with the old reporter key and wrapped under the new one (both as
   * derive() hands them over, base64), each new wrap opened again with the new key and
   * compared before anything is sent. Throws (and sends nothing) if one does not open.
   */
  async function rewrap(oldKeyB64, newKeyB64, caseId, wraps) {
    var oldKey = await aesKey(oldKeyB64);
    var newKey = await aesKey(newKeyB64);
    var out = [];
    for (var i = 0; i < wraps.length; i++) {
      var w = wraps[i];
      var dataKey = await unwrap(oldKey, b64ToBytes(w.wrap), caseId, w.epoch);
      try {
        var next = await wrapWith(newKey, dataKey, caseId, w.epoch);
        var check = await unwrap(newKey, next, caseId, w.epoch);
        var ok = same(check, dataKey);
        check.fill(0);
        if (!ok) throw new Error('rewrap');
        out.push({ epoch: w.epoch, wrap: toB64(next) });
      } finally {
        dataKey.fill(0);
      }
    }
    return out;
  }

  self.wbReporterKeys = { derive: derive, chooseKdf: chooseKdf, newSalt: newSalt, checkKdf: checkKdf, rewrap: rewrap };
})();
