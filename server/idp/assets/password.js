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
