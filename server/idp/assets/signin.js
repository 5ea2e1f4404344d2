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
    var waiting = false;
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
      if (waiting) form.submit();
    };
    worker.onerror = function () {
      done = true;
      if (waiting) form.submit();
    };
    worker.postMessage({ challenge: challenge, difficulty: Number(form.getAttribute('data-pow-difficulty')) });
    form.addEventListener('submit', function (e) {
      if (done) return;
      e.preventDefault();
      waiting = true;
      if (status) status.textContent = status.getAttribute('data-working');
    });
  });
})();
