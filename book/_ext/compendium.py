"""Sphinx directives that build the book's back-matter pages from the repository itself.

``{errata-list}``
    Every ``{admonition}`` whose title starts with "Erratum" (or "Deviation") in the pages
    of ``_toc.yml``, in reading order, each under a link to the page that shows it. The
    admonitions are copied from the notebooks at build time, so the page cannot go stale.
``{reproduction-report}``
    The reproduction report computed by :mod:`lib.report` from the stored comparison tables
    in ``data/derived/`` and their registry.
``{bibtex-entries}``
    The BibTeX source of the given keys of ``book/references.bib``, as a code block.
``{book-bibtex}``
    A BibTeX entry for the book itself, from ``CITATION.cff``.

Registered as a local extension in ``_config.yml`` (``sphinx: local_extensions``).
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{admonition\}\s*(?P<title>.*)$")
_KINDS = (("Erratum", "Errata"), ("Deviation", "Deviations explained"))


def _root(directive: Directive) -> Path:
    return Path(directive.state.document.settings.env.app.confdir)


def _toc_files(root: Path) -> list[tuple[str, str]]:
    """(part caption, file without suffix) for every page of _toc.yml, in order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    out: list[tuple[str, str]] = []

    def walk(entries: list[dict[str, Any]], caption: str) -> None:
        for entry in entries or []:
            if "file" in entry:
                out.append((caption, entry["file"]))
            walk(entry.get("sections", []), caption)

    for part in toc.get("parts", []):
        walk(part.get("chapters", []), part.get("caption", ""))
    return out


def _page_text(root: Path, name: str) -> tuple[list[str], str] | None:
    """The markdown of a page (markdown cells of a notebook) and its first heading."""
    if (root / f"{name}.ipynb").is_file():
        cells = json.loads((root / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
        blocks = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    elif (root / f"{name}.md").is_file():
        blocks = [(root / f"{name}.md").read_text(encoding="utf-8")]
    else:
        return None
    text = "\n\n".join(blocks)
    title = next((ln.lstrip("#").strip() for ln in text.splitlines() if ln.startswith("# ")), name)
    return text.splitlines(), title


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
    """Rewrite relative ``{doc}`` targets of a page's text so they resolve from any page.

    An admonition copied from ``notebooks/ch/nb`` onto the errata page would otherwise look
    for ``{doc}`other``` next to the errata page.
    """
    folder = posixpath.dirname(page)

    def fix(match: re.Match[str]) -> str:
        target = match["target"].strip()
        if not target.startswith("/"):
            target = "/" + posixpath.normpath(posixpath.join(folder, target))
        return f"{{doc}}`{match['text'] or ''}{target}{match['close']}`"

    return [_DOC_ROLE.sub(fix, line) for line in lines]


def _section(title: str, ident: str) -> nodes.section:
    section = nodes.section(ids=[ident])
    section += nodes.title(text=title)
    return section


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class ErrataList(Directive):
    """Collects the errata (and explained deviations) of every page, in reading order."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        root = _root(self)
        env = self.state.document.settings.env
        found: dict[str, list[tuple[str, str, str, list[str]]]] = {kind: [] for kind, _ in _KINDS}
        for caption, name in _toc_files(root):
            page = _page_text(root, name)
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
            section = _section(f"{heading} ({len(found[kind])})", _slug(heading))
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


def _cell(value: Any) -> str:
    if isinstance(value, float):
        text = f"{value:.4g}"
    else:
        text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _pipe_table(frame: Any) -> list[str]:
    header = "| " + " | ".join(_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return [header, rule, *rows, ""]


class ReproductionReport(Directive):
    """Renders lib.report's report: counts per paper, then each table's numbers."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import lib.report as report

        root = _root(self)
        env = self.state.document.settings.env
        specs = report.load_registry(root=root)
        env.note_dependency(str(root / report.REGISTRY))
        table = report.reproduction_report(specs, root=root)
        counts = report.summary(table)
        out: list[nodes.Node] = []

        section = _section("Counts per paper", "counts-per-paper")
        papers = report.load_papers(root=root)
        named = counts.reset_index()
        named["paper"] = [p if p == "all papers" else f"{papers[p]} {{cite:p}}`{p}`" for p in named["paper"]]
        self.state.nested_parse(StringList(_pipe_table(named), source=env.docname), 0, section)
        out.append(section)

        for spec in specs:
            env.note_dependency(str(root / "data" / "derived" / spec.csv))
            rows = table[table["table"] == spec.table].drop(columns=["paper", "table"])
            if spec.kind == "claims":
                rows = rows.drop(columns=["difference", "tolerance"])
            else:
                rows = rows.assign(difference=rows["difference"].astype(float).round(4))
            if not (rows["note"] != "").any():
                rows = rows.drop(columns=["note"])
            n = rows["status"].value_counts()
            tally = ", ".join(f"{n.get(s, 0)} {s}" for s in report.STATUSES)
            section = _section(spec.table, _slug(spec.csv))
            lines = [
                f"{papers[spec.paper]} {{cite:p}}`{spec.paper}`, shown in {{doc}}`/{spec.shown_in}`; "
                f"stored in `data/derived/{spec.csv}`. {tally}.",
                "",
                *_pipe_table(rows),
            ]
            self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
            out.append(section)
        return out


def _bib_entries(text: str) -> dict[str, str]:
    """Raw BibTeX entries by key (brace matching, so nested braces are kept)."""
    entries = {}
    for match in re.finditer(r"@\w+\s*\{\s*([^,\s]+)\s*,", text):
        depth, i = 0, text.index("{", match.start())
        for j in range(i, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                entries[match[1]] = text[match.start() : j + 1]
                break
    return entries


def _literal(text: str) -> nodes.literal_block:
    block = nodes.literal_block(text, text)
    block["language"] = "bibtex"
    return block


class BibtexEntries(Directive):
    """The BibTeX source of the keys given as arguments, from book/references.bib."""

    required_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        path = _root(self) / "book" / "references.bib"
        self.state.document.settings.env.note_dependency(str(path))
        entries = _bib_entries(path.read_text(encoding="utf-8"))
        keys = self.arguments[0].split()
        missing = [k for k in keys if k not in entries]
        if missing:
            raise self.error(f"bibtex-entries: no entry {missing} in book/references.bib")
        return [_literal("\n\n".join(entries[k] for k in keys))]


def book_bibtex(citation: dict[str, Any]) -> str:
    """A BibTeX @software entry for the book, from the fields of CITATION.cff."""
    authors = " and ".join(
        a.get("name") or f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", ")
        for a in citation["authors"]
    )
    year = str(citation.get("date-released", ""))[:4]
    fields = [
        ("author", authors),
        ("title", citation["title"]),
        ("year", year),
        ("version", str(citation.get("version", ""))),
        ("url", citation.get("repository-code", "")),
        ("note", "Executable research compendium (Jupyter Book)"),
    ]
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v)
    return f"@software{{shapley_compendium,\n{body}\n}}"


class BookBibtex(Directive):
    """BibTeX for the book, generated from CITATION.cff."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        path = _root(self) / "CITATION.cff"
        self.state.document.settings.env.note_dependency(str(path))
        citation = yaml.safe_load(path.read_text(encoding="utf-8"))
        return [_literal(book_bibtex(citation))]


def _unique_scripts(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Drop repeated inline scripts: sphinx-thebe adds its configuration (``const THEBE_JS_URL``)
    once per read phase, and a repeated ``const`` is a JavaScript error on every page."""
    seen = set()
    unique = []
    for script in context.get("script_files", []):
        # the same inline script is added once with filename None and once with "": same key
        name = getattr(script, "filename", script) or None
        key = (str(name), tuple(sorted(getattr(script, "attributes", {}).items())))
        if key in seen:
            continue
        seen.add(key)
        unique.append(script)
    context["script_files"] = unique


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _unique_scripts, priority=900)
    app.add_directive("errata-list", ErrataList)
    app.add_directive("reproduction-report", ReproductionReport)
    app.add_directive("bibtex-entries", BibtexEntries)
    app.add_directive("book-bibtex", BookBibtex)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
