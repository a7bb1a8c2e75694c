"""Pages without what the book does not use: a phone on a slow line loads the book's own content.

pydata-sphinx-theme (under sphinx-book-theme) puts on every page, with no option to leave them out:

- ``_static/scripts/fontawesome.js`` (1.49 MB), Font Awesome's JavaScript, "so that users can add
  custom icons": it turns each ``<i class="fa-...">`` icon into an inline SVG. The book adds no
  icon, and the theme's own stylesheet already draws every one of its icons from Font Awesome's
  web font, so the script is left out and the icons stay as they are;
- ``searchindex.js`` (the whole book's search index), ``searchtools.js`` and ``language_data.js``,
  loaded for the theme's search-as-you-type, which the book does not turn on
  (``search_as_you_type`` is false): the search box sends the reader to the search page, which
  loads them itself. They are left out of every other page.

The theme writes these tags in its templates, not through Sphinx's list of scripts, so they are
removed from each page the builder renders (its template loader's ``render`` is wrapped once the
builder is set up). ``tests/browser`` checks that no page asks for them and that pages load
without a console error.

MathJax (1 MB) is loaded where a page's math is: at once on pages that open with equations, and
on the pages of :data:`LAZY_MATH_PAGES` (the Figures page, whose only math is in captions far
down) only once an equation comes near the screen, by a small loader that watches them
(``window.compendiumLoadMath()`` loads it at once, for the browser test).
"""

from __future__ import annotations

import json
import re
from typing import Any

#: script tags no page needs
UNUSED_EVERYWHERE = (re.compile(r'[ \t]*<script\b[^>]*\bsrc="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*></script>\n?'),)
#: script tags only the search page needs
SEARCH_ONLY = tuple(
    re.compile(rf'[ \t]*<script\b[^>]*\bsrc="[^"]*{name}"[^>]*></script>\n?')
    for name in (r"_static/searchtools\.js", r"_static/language_data\.js", r"searchindex\.js")
)


def strip_unused(page: str, *, search_page: bool) -> str:
    """``page`` (rendered HTML) without the script tags it does not need."""
    for pattern in UNUSED_EVERYWHERE + (() if search_page else SEARCH_ONLY):
        page = pattern.sub("", page)
    return page


#: pages whose MathJax loads only when an equation comes near the screen
LAZY_MATH_PAGES = ("book/figures",)

_LAZY_LOADER = """(() => {
  const src = %s;
  let started = false;
  const load = () => {
    if (started) return;
    started = true;
    const script = document.createElement('script');
    script.src = src;
    script.defer = true;
    document.head.appendChild(script);
  };
  window.compendiumLoadMath = load;
  const watch = () => {
    const maths = document.querySelectorAll('.math');
    if (!maths.length) return;
    if (!('IntersectionObserver' in window)) return load();
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect();
        load();
      }
    }, {rootMargin: '600px 0px'});
    maths.forEach((m) => observer.observe(m));
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
})();"""


def _lazy_math(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """On a page of :data:`LAZY_MATH_PAGES`, MathJax's script tag becomes a loader that adds it
    when an equation comes within 600 px of the screen (its configuration stays as it is)."""
    if pagename not in LAZY_MATH_PAGES or not app.config.mathjax_path:
        return
    from sphinx.builders.html._assets import _JavaScript

    scripts = context.get("script_files", [])
    mathjax = [js for js in scripts if str(getattr(js, "filename", "") or "").endswith(app.config.mathjax_path)]
    if not mathjax:
        return
    src = context["pathto"](f"_static/{app.config.mathjax_path}", 1)
    for js in mathjax:
        scripts.remove(js)
    scripts.append(_JavaScript("", body=_LAZY_LOADER % json.dumps(src)))


def _wrap_render(app: Any) -> None:
    templates = getattr(app.builder, "templates", None)
    if templates is None or getattr(templates, "_strips_unused", False):
        return
    original = templates.render

    def render(template: str, context: dict[str, Any]) -> str:
        return strip_unused(original(template, context), search_page=context.get("pagename") == "search")

    templates.render = render
    templates._strips_unused = True


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _wrap_render)
    # after sphinx.ext.mathjax has added MathJax (default priority) and the compendium's
    # unique_scripts has filtered the list (900)
    app.connect("html-page-context", _lazy_math, priority=950)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
