"""Marks that make a page read at a glance, on a desk as on a phone.

- **Verdicts stand out.** A table cell that holds exactly one of the reproduction report's
  classes (``compendium.report.STATUSES``: "reproduced", "consistent", "explained deviation", "not
  reproduced", "contradicted") or one of the rows kept apart ("derivation check", "erratum")
  gets the classes ``verdict verdict-<class>`` (``verdict-not-reproduced``…), which
  ``book/_static/compendium.css`` colours. The cells are found in the page's HTML, so the
  tables pandas prints in the notebooks' outputs are marked as well as the report's.
- **Wrapped code keeps its indentation.** Each line of highlighted code becomes a
  ``span.line`` that knows its indentation (:func:`hang_lines`): on a phone a long line wraps
  under its own code (``compendium.css``), not back at the left margin; and it breaks between tokens,
  after a bracket, a comma, a dot or an operator (:func:`break_between_tokens`), not inside a name or
  a number.
- **A quote's TeX is typeset.** TeX in the cells of pandas' tables (a paper's sentence quoted
  exactly) is marked as maths for MathJax (:func:`typeset_table_tex`).
- **A paper's number says so on touch.** The ``{paper}`` role's ``abbr.paper-number`` explains
  itself in its ``title``, which a mouse shows on hover and a touch screen never does:
  ``book/_static/reading.js`` makes each one a button that shows the note after the
  number when tapped (or pressed with Enter or Space), and the stylesheet marks it visibly.
"""

from __future__ import annotations

import html
import re
from typing import Any

from compendium.report import APART, STATUSES

#: the words a verdict cell may hold, longest first (so "not reproduced" is not read as "reproduced")
VERDICTS = tuple(sorted(STATUSES + APART, key=len, reverse=True))

_CELL = re.compile(
    r"<td(?P<attrs>\s[^>]*)?>(?P<open>\s*(?:<p>)?\s*)(?P<word>"
    + "|".join(re.escape(v) for v in VERDICTS)
    + r")(?P<close>\s*(?:</p>)?\s*)</td>"
)


def verdict_class(word: str) -> str:
    """``verdict verdict-<word with hyphens>``: the classes of a cell holding a verdict."""
    return "verdict verdict-" + re.sub(r"[^a-z]+", "-", word.lower()).strip("-")


def _mark(match: re.Match[str]) -> str:
    attrs = match["attrs"] or ""
    classes = verdict_class(match["word"])
    existing = re.search(r'\bclass="([^"]*)"', attrs)
    if existing:
        attrs = attrs.replace(existing[0], f'class="{existing[1]} {classes}"')
    else:
        attrs += f' class="{classes}"'
    return f"<td{attrs}>{match['open']}{match['word']}{match['close']}</td>"


def mark_verdicts(body: str) -> str:
    """``body`` with every table cell holding exactly a verdict word marked :func:`verdict_class`."""
    return _CELL.sub(_mark, body)


_HIGHLIGHT_PRE = re.compile(r'(<div class="highlight"><pre\b[^>]*>)(.*?)(</pre>)', re.S)
_TAG = re.compile(r"<(/?)span\b[^>]*>")


def _balanced(line: str) -> bool:
    depth = 0
    for match in _TAG.finditer(line):
        depth += -1 if match[1] else 1
        if depth < 0:
            return False
    return depth == 0


def _indent(line: str) -> int:
    text = html.unescape(re.sub(r"<[^>]+>", "", line))
    return len(text) - len(text.lstrip(" "))


def _indent_style(line: str) -> str:
    indent = _indent(line)
    return f' style="--indent:{indent}"' if indent else ""


#: a punctuation or operator token of Pygments' HTML after which a wrapped line of code may break: an opening
#: bracket or a comma ending the token, an attribute's dot, an assignment, a comparison, a binary operator that
#: cannot be unary (never after ``-``, ``+``, ``*`` or ``**``, which may start a number or an argument list)
_BREAK_AFTER = re.compile(
    r'(<span class="p">[^<]*[(\[{,]</span>'
    r'|<span class="o">(?:\.|=|==|!=|&lt;|&gt;|&lt;=|&gt;=|/|//|\||&amp;|@|%|\+=|-=|\*=|/=)</span>)(?!<wbr>)'
)


#: a number in scientific notation, whose sign a browser takes for a hyphen it may break after (``1e-`` / ``12``)
_SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?[eE][-+]\d+)(?![\w.])")
#: an underscore between two words of a name (``typical_value_contributions``): a name longer than what a
#: phone's line has left breaks there, between its words, not inside one
_UNDERSCORE = re.compile(r"(?<=[A-Za-z0-9])_(?=[A-Za-z])")
#: a name of 20 characters or more: a shorter one fits whole on the narrowest continuation line (about 24 of
#: a phone's 40 characters), so the browser moves it there rather than breaking it at an underscore
_LONG_NAME = re.compile(r"[A-Za-z0-9_]{20,}")


def break_between_tokens(code: str) -> str:
    """``code`` (Pygments' HTML of one block) with a ``<wbr>`` after each token a wrapped line may break
    after (:data:`_BREAK_AFTER`) and after each underscore between two words of a long name, and each
    number in scientific notation kept on one line (a ``span.nobr``, in a token or a comment): without
    them, a run of code with no space (``df.set_index(levels)``) is one word to the browser, which
    breaks it anywhere once it is wider than the phone's line (``set_index(le`` / ``vels)``), and the
    sign of ``1e-12`` is a hyphen to break after. ``<wbr>`` and the span are no characters: the text, and what a reader copies, stay
    the same."""
    def text(segment: re.Match[str]) -> str:
        marked = _SCIENTIFIC.sub(r'<span class="nobr">\1</span>', segment[1])
        marked = _LONG_NAME.sub(lambda name: _UNDERSCORE.sub("_<wbr>", name[0]), marked)
        return f">{marked}<"

    # framed in ">" and "<", so that text before a line's first tag or after its last (an output's
    # line of plain text, with no token spans) is a text segment too
    return _BREAK_AFTER.sub(r"\1<wbr>", _TEXT.sub(text, f">{code}<")[1:-1])


#: one token of Pygments' HTML whose text holds no tag (a token a reading aid has marked keeps its span)
_TOKEN = re.compile(r'<span class="([a-z0-9]{1,3})">([^<]*)</span>')
#: the light and the dark highlighting style of pydata-sphinx-theme (its ``theme.conf``), where the book's
#: configuration names none
THEME_STYLES = ("a11y-high-contrast-light", "a11y-high-contrast-dark")


def plain_token_classes(styles: tuple[str, ...] = THEME_STYLES) -> frozenset[str]:
    """The classes of Pygments' tokens that each of ``styles`` draws exactly as the code around them: the
    class's one rule sets the colour the style gives the whole block (``.highlight .n { color: #080808 }``
    beside ``.highlight { ...; color: #080808 }``). A span of such a class changes nothing a reader sees,
    in the light or the dark mode; names and punctuation are half of a code cell's spans. Empty if a
    style's block colour cannot be read."""
    from pygments.formatters import HtmlFormatter

    plain: set[str] | None = None
    for style in styles:
        css = HtmlFormatter(style=style).get_style_defs(".highlight")
        base = re.search(r"^\.highlight \{[^}]*\bcolor: (#[0-9A-Fa-f]+)[^}]*\}", css, re.M)
        if base is None:
            return frozenset()
        these = {rule[1] for rule in re.finditer(r"^\.highlight \.([a-z0-9]+) \{ color: (#[0-9A-Fa-f]+) \}", css, re.M)
                 if rule[2].lower() == base[1].lower()}
        plain = these if plain is None else plain & these
    return frozenset(plain or ())


def unwrap_plain_tokens(code: str, plain: frozenset[str]) -> str:
    """``code`` (Pygments' HTML) without the spans of the classes ``plain`` (:func:`plain_token_classes`):
    the same text, drawn the same, in fewer bytes. Run after :func:`break_between_tokens`, which reads the
    punctuation's spans to place its breaks."""
    if not plain:
        return code
    return _TOKEN.sub(lambda token: token[2] if token[1] in plain else token[0], code)


def hang_lines(body: str, plain: frozenset[str] = frozenset()) -> str:
    """``body`` with each line of highlighted code (a cell's input, a listing) in its own
    ``span.line``, which knows its indentation (``--indent``, in characters): on a phone a long line
    wraps *under its own code*, a hanging indent deeper than the line's, instead of back at the
    left margin, where a reader would take it for a line of the outer block. Each newline stays in
    the text, inside its line's span, so copying the code copies its lines (and the page's and
    the PDF's styles for ``pre`` cannot turn the gaps between spans into empty lines). A block
    whose highlighting spans lines (a string over several lines) is left as it is."""
    def one(match: re.Match[str]) -> str:
        code = match[2]
        trailing = code.endswith("\n")
        lines = (code[:-1] if trailing else code).split("\n")
        if not all(_balanced(line) for line in lines):
            return match[1] + unwrap_plain_tokens(break_between_tokens(code), plain) + match[3]
        # each line keeps its newline inside its own span (a newline at the end of a block
        # draws no empty line), so nothing stands between the spans for a style to show
        ends = ["\n"] * (len(lines) - 1) + ["\n" if trailing else ""]
        # an indentation of 0 is the stylesheet's default (``var(--indent, 0)``): no style to write
        spans = [f'<span class="line"{_indent_style(line)}>{unwrap_plain_tokens(break_between_tokens(line), plain)}'
                 f'{end}</span>' for line, end in zip(lines, ends)]
        opening = match[1].replace("<pre", '<pre class="hanging"', 1)
        return opening + "".join(spans) + match[3]

    return _HIGHLIGHT_PRE.sub(one, body)


_DATAFRAME = re.compile(r'<table\b[^>]*\bclass="[^"]*\bdataframe\b[^"]*"[^>]*>.*?</table>', re.S)
_TEXT = re.compile(r">([^<]+)<")
# a \(…\) pair as LaTeX writes inline maths (``\(f\)`` in a draft's sentence)
_PARENS = re.compile(r"\\\((.{1,200}?)\\\)")
# a $…$ pair as TeX writes inline maths: no space just inside either dollar
_DOLLARS = re.compile(r"\$(?=\S)([^$<>\n]{1,200}?)(?<=\S)\$")
# a word of TeX outside dollars: a run of characters holding a control word or a braced script
# (``\\tilde{p}_3``, ``m_{\\max}``), its trailing punctuation left out
_BARE_TEX = re.compile(r"[^\s<>()$]*(?:\\[A-Za-z]+|[_^]\{)[^\s<>()$]*?(?=[.,;:]?(?:[\s<>()]|$))")


def _math(tex: str) -> str:
    return f'<span class="math notranslate nohighlight">\\({tex}\\)</span>'


def _typeset_text(text: str) -> str:
    out = []
    for j, piece in enumerate(_PARENS.split(text)):   # outside, \(inside\), outside, ...
        if j % 2:
            out.append(_math(piece))
            continue
        for k, part in enumerate(_DOLLARS.split(piece)):   # outside, $inside$, outside, ...
            out.append(_math(part) if k % 2 else _BARE_TEX.sub(lambda m: _math(m[0]), part))
    return "".join(out)


def typeset_table_tex(body: str) -> str:
    """``body`` with the TeX in the cells of pandas' tables (a paper's sentence quoted exactly, as
    its text holds it: ``$\\approx 109.5^\\circ$``, ``\\(f\\)``, ``\\tilde{p}_3``) marked as maths, which MathJax
    typesets (``span.math`` with ``\\(…\\)``, as Sphinx marks inline maths): a reader sees
    "≈ 109.5°", not the TeX. The quote's text is unchanged."""
    def table(match: re.Match[str]) -> str:
        return _TEXT.sub(lambda t: ">" + _typeset_text(t[1]) + "<", match[0])

    return _DATAFRAME.sub(table, body)


def _plain_classes(app: Any) -> frozenset[str]:
    """:func:`plain_token_classes` of the theme's two highlighting styles (as pydata-sphinx-theme reads
    them: the book's ``html_theme_options``, else the theme's own), read once per build."""
    found = getattr(app, "_compendium_plain_tokens", None)
    if found is None:
        options = dict(getattr(app.config, "html_theme_options", None) or {})
        theme_options = getattr(getattr(app.builder, "theme", None), "get_options", None)
        defaults: dict[str, Any] = dict(theme_options()) if theme_options is not None else {}
        styles = tuple(str(options.get(key) or defaults.get(key) or fallback) for key, fallback in
                       zip(("pygments_light_style", "pygments_dark_style"), THEME_STYLES))
        found = app._compendium_plain_tokens = plain_token_classes(styles)
    return found


def _fix_body(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if "body" in context and "<td" in context["body"]:
        context["body"] = mark_verdicts(context["body"])
    if "body" in context and '<div class="highlight"><pre' in context["body"]:
        context["body"] = hang_lines(context["body"], _plain_classes(app))
    if "body" in context and "dataframe" in context["body"]:
        context["body"] = typeset_table_tex(context["body"])


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _fix_body)
    app.add_js_file("reading.js", loading_method="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
