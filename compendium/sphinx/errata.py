"""``{errata-list}``: every ``{admonition}`` whose title starts with "Erratum" in the pages of ``_toc.yml``, in
reading order, each under a link to the page that shows it, then the explained deviations of the
reproduction report, each demonstrated cause once (:func:`compendium.report.causes`), with any "Deviation"
admonition of the notebooks. The admonitions are copied from the notebooks at build time and the causes
computed from the registry, so the page cannot go stale, and it counts errata and explained deviations
with the same words and numbers as the reproduction report (:func:`compendium.report.counts`, whose errata are
the same admonitions: the build stops if they differ)."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.sphinx.pages import page_text, root_of, section_node, toc_files

_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{admonition\}\s*(?P<title>.*)$")
_KINDS = (("Erratum", "Errata"), ("Deviation", "Explained deviations"))


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


def collect(root: Any, env: Any, skip: str) -> dict[str, list[tuple[str, str, str, list[str]]]]:
    """Every "Erratum"/"Deviation" admonition of the book's pages but ``skip``: kind -> (part, page, title, block)."""
    found: dict[str, list[tuple[str, str, str, list[str]]]] = {kind: [] for kind, _ in _KINDS}
    for caption, name in toc_files(root):
        page = page_text(root, name)
        if page is None or name == skip:
            continue
        lines, page_title = page
        env.note_dependency(str(root / (name + (".ipynb" if (root / f"{name}.ipynb").is_file() else ".md"))))
        for title, block in admonitions(lines):
            for kind, _ in _KINDS:
                if title.startswith(kind):
                    found[kind].append((caption, name, page_title, block))
    return found


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def counted_title(section: nodes.section, words: str, key: str) -> None:
    """Give a section the title ``words (N)``, N a ``report-count`` span of ``compendium.report.counts``."""
    from compendium.sphinx.pages import slug

    section.remove(section[0])
    value = str(int(_COUNTS[0].loc["all papers", key]))
    section.insert(0, nodes.title("", "", nodes.Text(f"{words} ("),
                                  nodes.inline(text=value, classes=["report-count", f"rc-all-papers--{slug(key)}"]),
                                  nodes.Text(")")))


_COUNTS: list[Any] = [None]


class ErrataList(Directive):
    """Collects the errata of every page, in reading order, then the explained deviations, cause by cause."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from compendium.sphinx.glance import count, report_data

        root = root_of(self)
        env = self.state.document.settings.env
        data = report_data(root, env)
        _COUNTS[0] = data["counts"]
        found = collect(root, env, env.docname)
        if len(found["Erratum"]) != len(data["errata"]):
            raise self.error(f"errata-list: the pages state {len(found['Erratum'])} errata, compendium.report.errata counts "
                             f"{len(data['errata'])}: they must be the same admonitions")
        causes = data["causes"]
        demonstrated = causes[causes["kind"] == "demonstrated cause of a deviation"]
        out: list[nodes.Node] = []
        section = section_node("Errata", "errata")
        counted_title(section, "Errata", "errata")
        lines: list[str] = [] if found["Erratum"] else ["None.", ""]
        last_caption = None
        for caption, name, page_title, block in found["Erratum"]:
            if caption != last_caption:
                lines += [f"**{caption}**", ""]
                last_caption = caption
            lines += [f"In {{doc}}`{page_title} </{name}>`:", "", *absolute_doc_links(block, name), ""]
        self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
        out.append(section)
        section = section_node("Explained deviations", "explained-deviations")
        counted_title(section, "Explained deviations", "explained deviations")
        lines = [
            f"{count('all papers', 'explained deviations')} published numbers differ from ours for "
            f"{count('all papers', 'demonstrated causes')} causes that a cell demonstrates (it changes the one thing "
            "named and recovers the paper's number, or proves an erratum by arithmetic on the paper's own numbers); "
            "the {doc}`reproduction report </book/reproduction-report>` counts them with the same words. Each cause once:",
            "",
        ]
        for row in demonstrated.to_dict("records"):
            shown = ", ".join(f"{{ref}}`shown here <{c}>`" for c in row["cells"].split())
            lines += [f"- {row['cause'].rstrip('.')} ({plural(row['numbers'], 'number', 'numbers')} of "
                      f"{plural(row['tables'], 'table', 'tables')}; {shown}).", ""]
        for caption, name, page_title, block in found["Deviation"]:
            lines += [f"In {{doc}}`{page_title} </{name}>`:", "", *absolute_doc_links(block, name), ""]
        self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
        out.append(section)
        return out
