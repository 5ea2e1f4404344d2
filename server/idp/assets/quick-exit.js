// "Leave quickly" and Alt+Q on the provider's pages (docs/decisions/quick-exit.md),
// as the SPA's src/app/quickExit.ts does it: hide the page, forget this tab's
// sessionStorage, go back to the first portal entry of the tab with the Navigation
// API and replace it with the blank /leave (a portal page loaded there sees the flag
// and leaves before it shows anything); without the API, replace this entry.
(function () {
  function leave(form) {
    var to = form.getAttribute('action') || '/leave';
    var flag = form.getAttribute('data-flag') || 'quick-exit';
    document.documentElement.style.visibility = 'hidden';
    document.title = '';
    try { sessionStorage.clear(); } catch (e) {}
    var replace = function () { location.replace(to); };
    var nav = window.navigation;
    var current = nav && nav.currentEntry;
    var first = nav && nav.entries()[0];
    if (nav && current && first && current.index > 0) {
      try { sessionStorage.setItem(flag, '1'); } catch (e) {}
      nav.addEventListener('currententrychange', replace, { once: true });
      nav.traverseTo(first.key).committed.catch(replace);
    } else {
      replace();
    }
  }
  // Reached by a quick exit's traversal (this page was the tab's first portal entry): leave at once.
  try {
    if (sessionStorage.getItem('quick-exit') === '1') {
      sessionStorage.removeItem('quick-exit');
      document.documentElement.style.visibility = 'hidden';
      location.replace('/leave');
      return;
    }
  } catch (e) {}
  document.addEventListener('DOMContentLoaded', function () {
    var form = document.querySelector('form.quick-exit');
    if (!form) return;
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      leave(form);
    });
    // Alt+Q (Option+Q), by key position, in the capture phase; AltGr+Q (@) does not count.
    window.addEventListener('keydown', function (e) {
      if (e.code !== 'KeyQ' || !e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (e.getModifierState && e.getModifierState('AltGraph')) return;
      e.preventDefault();
      e.stopPropagation();
      leave(form);
    }, true);
  });
})();
