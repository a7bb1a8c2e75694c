// What a reader needs that HTML and CSS alone do not give (added to every page by
// book/_ext/reading_aids.py; styled in compendium.css).
//
// 1. A paper's number explains itself on touch. The {paper} role (book/_ext/compendium/roles.py)
//    renders <abbr class="paper-number" title="the paper's published number">, whose title a mouse
//    shows on hover and a touch screen never does: each mark becomes a toggle button that shows
//    the note after the number when tapped, clicked or pressed with Enter or Space.
// 2. A table wider than its box says so. Wide tables scroll sideways inside their own box; the box
//    is wrapped in a div.scroll-cue whose classes more-left / more-right (kept up to date as the
//    reader scrolls or the window changes) draw a shadow on the side where more of the table is;
//    a box that scrolls can be focused, so that a keyboard scrolls it too.
// 3. A cell of running text in a table pandas printed (over 60 characters) is marked long-text,
//    which the stylesheet gives a readable width instead of the width of its longest word.
(() => {
  const paperNumbers = () => {
    document.querySelectorAll('abbr.paper-number[title]:not([data-note])').forEach((mark) => {
      mark.dataset.note = mark.getAttribute('title');
      mark.setAttribute('role', 'button');
      mark.setAttribute('tabindex', '0');
      mark.setAttribute('aria-expanded', 'false');
      const toggle = (event) => {
        event.preventDefault();
        mark.setAttribute('aria-expanded', mark.getAttribute('aria-expanded') === 'true' ? 'false' : 'true');
      };
      mark.addEventListener('click', toggle);
      mark.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') toggle(event);
      });
    });
  };

  // the boxes tables scroll in: the theme's wrapper of a page's tables, and a notebook output
  const BOXES = '.pst-scrollable-table-container, div.cell_output .output.text_html';
  const cue = (box) => {
    const wrapper = box.parentElement;
    const more = box.scrollWidth - box.clientWidth;
    wrapper.classList.toggle('more-left', more > 1 && box.scrollLeft > 1);
    wrapper.classList.toggle('more-right', more > 1 && box.scrollLeft < more - 1);
    // a box that scrolls is reached by the keyboard too (its arrow keys scroll it)
    if (more > 1) box.setAttribute('tabindex', '0');
    else if (box.getAttribute('tabindex') === '0' && !box.matches('.pst-scrollable-table-container')) box.removeAttribute('tabindex');
  };
  const scrollCues = () => {
    document.querySelectorAll(BOXES).forEach((box) => {
      if (!box.querySelector('table') || box.parentElement.classList.contains('scroll-cue')) return;
      const wrapper = document.createElement('div');
      wrapper.className = 'scroll-cue';
      box.replaceWith(wrapper);
      wrapper.appendChild(box);
      box.addEventListener('scroll', () => cue(box), {passive: true});
      cue(box);
    });
  };
  const update = () => document.querySelectorAll('.scroll-cue > *').forEach(cue);

  const longText = () => {
    document.querySelectorAll('table.dataframe td').forEach((cell) => {
      if (cell.textContent.trim().length > 60) cell.classList.add('long-text');
    });
  };

  const start = () => {
    paperNumbers();
    longText();
    scrollCues();
  };
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
  // fonts and MathJax change the widths after the page is parsed
  window.addEventListener('load', update);
  window.addEventListener('resize', update);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(update);
})();
