"""``{errata-list}``: every ``{admonition}`` whose title starts with "Erratum" (or "Deviation") in the pages
of ``_toc.yml``, in reading order, each under a link to the page that shows it. The admonitions are
copied from the notebooks at build time, so the page cannot go stale."""

from __future__ import annotations

import posixpath
import re

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.pages import page_text, root_of, section_node, slug, toc_files

_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{admonition\}\s*(?P<title>.*)$")
_KINDS = (("Erratum", "Errata"), ("Deviation", "Deviations explained"))


def admonitions(lines: list[str]) -> list[tuple[str, list[str]]]:
    """(title, source lines) of every admonition block in MyST source lines."""
    found = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i].rstrip())
        if not match:
            i += 1
            continue
        fence = match["fence"]
        closing = re.compile("^" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        body = [ln for ln in lines[i + 1 : j] if not ln.strip().startswith(":name:")]
        found.append((match["title"].strip(), [f"{fence}{{admonition}} {match['title'].strip()}", *body, fence]))
        i = j + 1
    return found


_DOC_ROLE = re.compile(r"\{doc\}`(?P<text>[^`<]*?<)?(?P<target>[^`<>]+)(?P<close>>?)`")


def absolute_doc_links(lines: list[str], page: str) -> list[str]:
    """Rewrite relative ``{doc}`` targets and glue keys of a page's text so they resolve from any page.

    An admonition copied from ``notebooks/ch/nb`` onto the errata page would otherwise look
    for ``{doc}`other``` next to the errata page, and for its glued numbers in the errata page.
    """
    folder = posixpath.dirname(page)

    def fix(match: re.Match[str]) -> str:
        target = match["target"].strip()
        if not target.startswith("/"):
            target = "/" + posixpath.normpath(posixpath.join(folder, target))
        return f"{{doc}}`{match['text'] or ''}{target}{match['close']}`"

    def fix_glue(match: re.Match[str]) -> str:
        if "::" in match["key"]:
            return match[0]
        return f"{{{match['role']}}}`/{page}.ipynb::{match['key']}`"

    return [_GLUE_ROLE.sub(fix_glue, _DOC_ROLE.sub(fix, line)) for line in lines]


_GLUE_ROLE = re.compile(r"\{(?P<role>glue(?::\w+)?)\}`(?P<key>[^`]+)`")


class ErrataList(Directive):
    """Collects the errata (and explained deviations) of every page, in reading order."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        root = root_of(self)
        env = self.state.document.settings.env
        found: dict[str, list[tuple[str, str, str, list[str]]]] = {kind: [] for kind, _ in _KINDS}
        for caption, name in toc_files(root):
            page = page_text(root, name)
            if page is None or name == env.docname:
                continue
            lines, page_title = page
            env.note_dependency(str(root / (name + (".ipynb" if (root / f"{name}.ipynb").is_file() else ".md"))))
            for title, block in admonitions(lines):
                for kind, _ in _KINDS:
                    if title.startswith(kind):
                        found[kind].append((caption, name, page_title, block))
        out: list[nodes.Node] = []
        for kind, heading in _KINDS:
            section = section_node(f"{heading} ({len(found[kind])})", slug(heading))
            if not found[kind]:
                section += nodes.paragraph(text="None.")
            lines: list[str] = []
            last_caption = None
            for caption, name, page_title, block in found[kind]:
                if caption != last_caption:
                    lines += [f"**{caption}**", ""]
                    last_caption = caption
                lines += [f"In {{doc}}`{page_title} </{name}>`:", "", *absolute_doc_links(block, name), ""]
            self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
            out.append(section)
        return out
