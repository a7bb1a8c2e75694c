// Accessible names of two theme buttons (axe-core rules label-content-name-mismatch: a control's
// accessible name must contain the text it shows; button-name: a button has a name). Added to every
// page by compendium/sphinx/accessibility.py.
(() => {
  const fix = () => {
    // The search buttons are labelled "Search". The one of the search field shows "Search Ctrl+K":
    // while it shows text, its name comes from what it shows (the label goes). The icon-only one a
    // phone shows (and a field whose text the width hides) shows no text: it keeps its label, which
    // is put back if the width changes and the text it showed disappears.
    document.querySelectorAll('.search-button__button').forEach((b) => {
      if (!b.dataset.label) b.dataset.label = b.getAttribute('aria-label') || b.title || 'Search';
      if (b.innerText.trim()) {
        b.removeAttribute('aria-label');
      } else {
        b.setAttribute('aria-label', b.dataset.label);
      }
    });
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
  // What a search button shows depends on the width: name it again when the width changes.
  let pending = false;
  window.addEventListener('resize', () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(() => { pending = false; fix(); });
    }
  });
})();
