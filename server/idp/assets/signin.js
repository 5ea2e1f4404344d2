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
    var worker = new Worker(form.getAttribute('data-pow-worker'), { type: 'module' });
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
