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
// the new reporter key to the SPA in this tab's sessionStorage. A sealed case's page
// (data-wraps) also re-wraps its data key: opened with the old reporter key (the one
// the sign-in page just handed over), wrapped under the new one and checked to open
// with it, then sent with the rest (sealed-reporter-pages.md "Password change"). Until the
// server has taken the change, the old key stays beside the new one (`was`): a
// refused change comes back to this page, which puts the old key back.
(function () {
  document.addEventListener('DOMContentLoaded', function () {
    var form = document.querySelector('form[data-case-number]');
    if (!form || !self.wbReporterKeys) return;
    var sending = false;
    var box = document.getElementById('form-error');
    var handover = form.getAttribute('data-key-handover');
    var sealed = form.hasAttribute('data-wraps');
    function handed() {
      try {
        var item = JSON.parse(sessionStorage.getItem(handover) || 'null');
        return item && typeof item.k === 'string' ? item : null;
      } catch (err) {
        return null;
      }
    }
    var held = handed();
    if (held && typeof held.was === 'string') {
      try {
        sessionStorage.setItem(handover, JSON.stringify({ k: held.was, t: held.t }));
      } catch (err) {
        /* storage disabled */
      }
      held = { k: held.was, t: held.t };
    }
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
      // Without the old key nothing could move the case's key: nothing is sent.
      if (sealed && !held) return show(form.getAttribute('data-error-rewrap'));
      sending = true;
      var keys = self.wbReporterKeys;
      var salt = keys.newSalt();
      var rewrapFailed = false;
      keys
        .chooseKdf()
        .then(function (kdf) {
          return keys.derive(form.getAttribute('data-case-number'), next, salt, kdf).then(function (derived) {
            var wraps = sealed
              ? keys.rewrap(held.k, derived.key, form.getAttribute('data-case-id'), JSON.parse(form.getAttribute('data-wraps'))).catch(function (err) {
                  rewrapFailed = true;
                  throw err;
                })
              : Promise.resolve(null);
            return wraps.then(function (rewrapped) {
              form.querySelector('input[name="verifier"]').value = derived.verifier;
              form.querySelector('input[name="salt"]').value = salt;
              form.querySelector('input[name="kdf"]').value = JSON.stringify(kdf);
              if (rewrapped) form.querySelector('input[name="wraps"]').value = JSON.stringify(rewrapped);
              try {
                var item = { k: derived.key, t: Date.now() };
                if (held) item.was = held.k;
                sessionStorage.setItem(handover, JSON.stringify(item));
              } catch (err) {
                /* storage disabled: the SPA asks for the password once */
              }
              form.submit();
            });
          });
        })
        .catch(function () {
          show(form.getAttribute(rewrapFailed ? 'data-error-rewrap' : 'data-error-derive'));
        });
    });
  });
})();
