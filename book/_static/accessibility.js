// Accessible names of two theme buttons (axe-core rule label-content-name-mismatch: a control's
// accessible name must contain the text it shows). Added to every page by book/_ext/accessibility.py.
(() => {
  const fix = () => {
    // The search button shows "Search Ctrl+K" but is labelled "Search": its name comes from
    // what it shows instead.
    document.querySelectorAll('.search-button__button[aria-label]').forEach((b) => b.removeAttribute('aria-label'));
    // The colour-mode button is labelled "Color mode" and holds three icons titled Light, Dark and
    // System Settings (one shown at a time): the icons are decorative, the label says what it does.
    document.querySelectorAll('.theme-switch-button .theme-switch').forEach((icon) => {
      icon.setAttribute('aria-hidden', 'true');
      icon.removeAttribute('title'); // an <i> not yet turned into an <svg> by Font Awesome
      icon.removeAttribute('role');
      icon.removeAttribute('aria-labelledby');
      icon.querySelectorAll('title').forEach((t) => t.remove());
    });
  };
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', fix);
  } else {
    fix();
  }
  // Font Awesome replaces the <i> icons with <svg> after the page is parsed: fix its output too.
  window.addEventListener('load', fix);
})();
