// Signing out is what the reporter asked for in the portal: confirm it at once.
// Without script the page keeps its two buttons.
document.addEventListener('DOMContentLoaded', function () {
  var yes = document.getElementById('logout-yes');
  if (yes) yes.click();
});
