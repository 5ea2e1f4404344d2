// The case number the success dialog's "Log in to your case" handed over in this
// tab's sessionStorage (same origin; docs/decisions/signin-handover.md): filled in
// where nothing was typed, with a line saying so, and the focus on the password. It
// stays until the form is sent (Back from here and in again fills it again), for at
// most 15 minutes; a quick exit clears it with the rest of the tab's storage.
// And on sending: "Opening your case…" at once, in a polite status line.
(function () {
  var MAX_AGE_MS = 15 * 60 * 1000;
  document.addEventListener('DOMContentLoaded', function () {
    var form = document.querySelector('form[data-handover]');
    if (!form) return;
    // A reporter key a failed attempt left behind is no one's: gone before anything is typed.
    try { sessionStorage.removeItem(form.getAttribute('data-key-handover')); } catch (e) {}
    var key = form.getAttribute('data-handover');
    var input = form.querySelector('#caseNumber');
    var status = document.getElementById('signin-status');
    try {
      var raw = sessionStorage.getItem(key);
      var handed = raw ? JSON.parse(raw) : null;
      var fresh = handed && typeof handed.n === 'string' && /^\d{16}$/.test(handed.n) && Date.now() - handed.t < MAX_AGE_MS;
      if (!fresh) {
        if (raw) sessionStorage.removeItem(key);
      } else if (input && !input.value) {
        input.value = handed.n.replace(/(\d{4})(?=\d)/g, '$1 ');
        var hint = document.createElement('p');
        hint.className = 'hint filled';
        hint.id = 'caseNumber-filled';
        hint.textContent = form.getAttribute('data-filled');
        input.insertAdjacentElement('afterend', hint);
        input.setAttribute('aria-describedby', ((input.getAttribute('aria-describedby') || '') + ' caseNumber-filled').trim());
        var password = form.querySelector('#password');
        if (password) password.focus();
      }
    } catch (e) {
      /* storage disabled: nothing was handed over */
    }
    form.addEventListener('submit', function () {
      try { sessionStorage.removeItem(key); } catch (e) {}
      // After the proof's own handler (which may hold the form back and say so).
      setTimeout(function () {
        var pow = document.getElementById('pow-status');
        if (status && !(pow && pow.textContent)) status.textContent = form.getAttribute('data-opening');
      }, 0);
    });
  });
})();
// The form goes only once its proofs are ready (issue 37): the proof-of-work when the
// page asks for one (below), and always the verifier. On sending, the script asks
// the server for the case's salt and derivation (an unknown number gets a
// look-alike), derives the verifier and the reporter key (derive.js), puts the
// verifier into the hidden field and the key into this tab's sessionStorage for the
// SPA on this origin, and sends the form. The typed password's field has no name: it
// never leaves the page, save once for a case made before verifiers (`legacy`), when
// it goes with a fresh verifier that replaces it.
(function () {
  document.addEventListener('DOMContentLoaded', function () {
    var form = document.querySelector('form[data-kdf]');
    if (!form || !self.wbReporterKeys) return;
    var waits = [];
    self.wbSignInWaits = waits;
    var sending = false;
    function field(name) {
      return form.querySelector('input[name="' + name + '"]');
    }
    function fail() {
      sending = false;
      var box = document.getElementById('form-error');
      if (!box) {
        box = document.createElement('div');
        box.id = 'form-error';
        box.className = 'alert';
        box.setAttribute('role', 'alert');
        form.parentNode.insertBefore(box, form);
      }
      box.textContent = form.getAttribute('data-derive-error');
      var status = document.getElementById('signin-status');
      if (status) status.textContent = '';
    }
    async function prepare(caseNumber, password) {
      var res = await fetch(form.getAttribute('data-kdf'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ caseNumber: caseNumber }),
        credentials: 'same-origin',
      });
      if (!res.ok) throw new Error('kdf ' + res.status);
      var answer = await res.json();
      var keys = self.wbReporterKeys;
      var derived;
      if (answer.kdf && answer.kdf.name === 'legacy') {
        var kdf = await keys.chooseKdf();
        var salt = keys.newSalt();
        derived = await keys.derive(caseNumber, password, salt, kdf);
        field('password').value = password;
        field('newVerifier').value = derived.verifier;
        field('newSalt').value = salt;
        field('newKdf').value = JSON.stringify(kdf);
      } else {
        derived = await keys.derive(caseNumber, password, answer.salt, answer.kdf);
        field('verifier').value = derived.verifier;
      }
      try {
        sessionStorage.setItem(form.getAttribute('data-key-handover'), JSON.stringify({ k: derived.key, t: Date.now() }));
      } catch (e) {
        /* storage disabled: the SPA asks for the password once */
      }
    }
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      if (sending) return;
      var caseNumber = form.querySelector('#caseNumber').value;
      var password = form.querySelector('#password').value;
      // Nothing to derive from: the server's page says what is missing.
      if (!caseNumber.trim() || !password) return form.submit();
      sending = true;
      Promise.all([prepare(caseNumber, password)].concat(waits.map(function (w) { return w(); }))).then(
        function () {
          form.submit();
        },
        fail,
      );
    });
  });
})();
// The sign-in form's proof-of-work, only on a page that carries one (the company
// sees a burst of failed sign-ins; docs/decisions/identity-throttle.md). A Web
// Worker solves it from the moment the page opens, while the reporter types; the
// answer goes into the hidden `pow` field. Pressing the button before it is ready
// says so in the status line and sends the form as soon as it is. If the worker
// cannot run, the form goes without a proof and the server's page says why.
(function () {
  document.addEventListener('DOMContentLoaded', function () {
    var form = document.querySelector('form[data-pow-challenge]');
    if (!form || typeof Worker === 'undefined') return;
    var challenge = form.getAttribute('data-pow-challenge');
    var field = form.querySelector('input[name="pow"]');
    var status = document.getElementById('pow-status');
    var done = false;
    var resolveDone;
    var ready = new Promise(function (r) { resolveDone = r; });
    // The CSP requires Trusted Types for script URLs: this policy names the provider's own worker and nothing else.
    var url = form.getAttribute('data-pow-worker') || '';
    var policy = window.trustedTypes && window.trustedTypes.createPolicy('wb-idp-worker', {
      createScriptURL: function (u) {
        if (!/^\/idp\/realms\/[\w-]+\/assets\/[\w.-]+\.worker\.js$/.test(u)) throw new TypeError('not the provider\'s worker: ' + u);
        return u;
      },
    });
    var worker = new Worker(policy ? policy.createScriptURL(url) : url, { type: 'module' });
    worker.onmessage = function (e) {
      field.value = challenge + ':' + e.data.nonce;
      done = true;
      worker.terminate();
      resolveDone();
    };
    worker.onerror = function () {
      done = true;
      resolveDone();
    };
    worker.postMessage({ challenge: challenge, difficulty: Number(form.getAttribute('data-pow-difficulty')) });
    // The sending gate above waits for it; while it does, the status line says so.
    (self.wbSignInWaits || []).push(function () {
      if (!done && status) status.textContent = status.getAttribute('data-working');
      return ready;
    });
  });
})();
