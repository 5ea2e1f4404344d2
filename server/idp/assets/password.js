// Shows how strong the new password is (DESIGN.md §4: the 4-character minimum
// stands, but the reporter sees the strength). Texts come translated in data-*.
(function () {
  function level(p) {
    var classes = 0;
    if (/[a-z]/.test(p)) classes++;
    if (/[A-Z]/.test(p)) classes++;
    if (/[0-9]/.test(p)) classes++;
    if (/[^A-Za-z0-9]/.test(p)) classes++;
    if (p.length >= 16 || (p.length >= 12 && classes >= 2)) return 'strong';
    if (p.length >= 8 && classes >= 2) return 'fair';
    return 'weak';
  }
  document.addEventListener('DOMContentLoaded', function () {
    var input = document.getElementById('newPassword');
    var out = document.getElementById('newPassword-strength');
    if (!input || !out) return;
    input.addEventListener('input', function () {
      var v = input.value;
      if (!v) {
        out.textContent = '';
        out.removeAttribute('data-level');
        return;
      }
      var l = level(v);
      out.setAttribute('data-level', l);
      out.textContent = out.getAttribute('data-label').replace('{level}', out.getAttribute('data-' + l));
    });
  });
})();
// The new password never leaves the page (issue 37): on sending, the script checks
// length and confirmation (the server cannot, it never sees them), derives the new
// verifier and reporter key from the case number and a fresh salt with the
// derivation this browser runs (derive.js), sends verifier, salt and kdf, and hands
// the new reporter key to the SPA in this tab's sessionStorage. With sealing, the
// data key re-wrapped under the new key goes with them (blind-server.md).
(function () {
  document.addEventListener('DOMContentLoaded', function () {
    var form = document.querySelector('form[data-case-number]');
    if (!form || !self.wbReporterKeys) return;
    var sending = false;
    var box = document.getElementById('form-error');
    function show(message) {
      sending = false;
      box.textContent = message;
      box.hidden = false;
      ['newPassword', 'confirmPassword'].forEach(function (id) {
        var input = document.getElementById(id);
        input.setAttribute('aria-invalid', 'true');
        var d = (input.getAttribute('aria-describedby') || '').split(' ').filter(Boolean);
        if (d.indexOf('form-error') < 0) input.setAttribute('aria-describedby', d.concat('form-error').join(' '));
      });
      document.getElementById('newPassword').focus();
    }
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      if (sending) return;
      var next = document.getElementById('newPassword').value;
      var again = document.getElementById('confirmPassword').value;
      var length = Array.from(next).length;
      if (length < Number(form.getAttribute('data-min'))) return show(form.getAttribute('data-error-min'));
      if (length > Number(form.getAttribute('data-max'))) return show(form.getAttribute('data-error-max'));
      if (next !== again) return show(form.getAttribute('data-error-mismatch'));
      sending = true;
      var keys = self.wbReporterKeys;
      var salt = keys.newSalt();
      keys
        .chooseKdf()
        .then(function (kdf) {
          return keys.derive(form.getAttribute('data-case-number'), next, salt, kdf).then(function (derived) {
            form.querySelector('input[name="verifier"]').value = derived.verifier;
            form.querySelector('input[name="salt"]').value = salt;
            form.querySelector('input[name="kdf"]').value = JSON.stringify(kdf);
            try {
              sessionStorage.setItem(form.getAttribute('data-key-handover'), JSON.stringify({ k: derived.key, t: Date.now() }));
            } catch (err) {
              /* storage disabled: the SPA asks for the password once */
            }
            form.submit();
          });
        })
        .catch(function () {
          show(form.getAttribute('data-error-derive'));
        });
    });
  });
})();
