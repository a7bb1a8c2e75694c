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
``{chapter-results} <paper key>``
    A chapter's results box: the verdicts of :mod:`lib.report` for one paper, table by table.
``{figures-list}``
    Every figure of the book (``book/figures``): caption, the notebook and cell that make it,
    its files with their sha256, and how to cite it.
``{paper}`0.837```
    A number the paper publishes, quoted in prose (marked as the paper's, not ours).
``{setup}`14```
    A number that defines the set-up (a data-set size, a seed, a budget as chosen), not a result.

Equation numbers (``CONTRIBUTING.md`` §3): a labelled display equation whose LaTeX carries
``\tag{L10}`` is a paper's equation and is numbered ``(L10)``; every other labelled display
equation is the book's own and is numbered per chapter, ``(1.4)``, chapters counted from 0 (the
foundations) in the order of ``_toc.yml``'s parts. ``{eq}`` references print the same numbers.

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


def _section(title: str, ident: str) -> nodes.section:
    section = nodes.section(ids=[ident])
    section += nodes.title(text=title)
    return section


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def report_label(csv: str) -> str:
    """The label of a comparison table's section on the reproduction report (for ``{ref}``)."""
    return f"report-{_slug(csv)}"


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


_EVIDENCE_WORDS = {"tolerance": "spread", "cause": "cause"}


def _evidence_cell(evidence: str) -> str:
    """``tolerance:lab cause:lab2`` -> MyST links to the labelled cells."""
    links = []
    for token in str(evidence).split():
        kind, label = token.split(":", 1)
        links.append(f"{{ref}}`{_EVIDENCE_WORDS[kind]} <{label}>`")
    return ", ".join(links)


def _report_rows(rows: Any, kind: str) -> Any:
    import pandas as pd

    rows = rows.drop(columns=["paper", "table", "claim", "setup", "setup note", "cause"])
    if kind == "claims":
        rows = rows.drop(columns=["difference", "tolerance", "evidence"])
    else:
        rows = rows.assign(
            difference=pd.to_numeric(rows["difference"], errors="coerce").round(4),
            tolerance=pd.to_numeric(rows["tolerance"], errors="coerce").map(lambda t: f"{t:.3g}"),
            evidence=rows["evidence"].map(_evidence_cell),
        )
        if not (rows["evidence"] != "").any():
            rows = rows.drop(columns=["evidence"])
    if not (rows["note"] != "").any():
        rows = rows.drop(columns=["note"])
    return rows


def _tally(statuses: Any, classes: Any) -> str:
    n = statuses.value_counts()
    return ", ".join(f"{n.get(s, 0)} {s}" for s in classes if n.get(s, 0)) or "nothing compared"


class ReproductionReport(Directive):
    """Renders lib.report's report: counts per paper, then each table's numbers with evidence."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import lib.report as report

        root = _root(self)
        env = self.state.document.settings.env
        specs = report.load_registry(root=root)
        env.note_dependency(str(root / report.REGISTRY))
        for path in sorted((root / report.REGISTRY_DIR).glob("*.yaml")):
            env.note_dependency(str(path))
        table = report.reproduction_report(specs, root=root)
        papers = report.load_papers(root=root)
        counts = report.summary(table, list(papers))
        out: list[nodes.Node] = []

        claim_counts = report.claim_summary(table, list(papers))
        section = _section("Counts per paper", "counts-per-paper")

        def named(frame: Any) -> Any:
            frame = frame.reset_index()
            frame["paper"] = [p if p == "all papers" else f"{papers[p]} {{cite:p}}`{p}`" for p in frame["paper"]]
            return frame

        lines = [
            "**Claims.** A claim is one sentence of a paper, or one published table (the message a "
            "sentence of the paper relies on); it takes the worst verdict of the numbers that test it, "
            "so it holds only where all of them do. The last column counts the claims that could not be "
            "tested as the paper did — on a set-up we had to choose, or with another version of the "
            "paper's tool — which can be consistent at most (each table below says why).",
            "",
            *_pipe_table(named(claim_counts)),
            "",
            "**Numbers.** Every published number or tested row, each with its own verdict; the "
            "derivation checks (identities, consequences of the book's own definitions: they cannot "
            "fail) and the papers' errata in claims tables are counted apart and in no verdict.",
            "",
            *_pipe_table(named(counts)),
        ]
        self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
        out.append(section)

        found = report.causes(table)
        demonstrated = found[found["kind"] == "demonstrated cause of a deviation"]
        setups = found[found["kind"] != "demonstrated cause of a deviation"]
        section = _section("Causes, each counted once", "causes-counted-once")
        lines = [
            f"Many numbers can share one cause, and one cause is one finding. The "
            f"{int(demonstrated['numbers'].sum())} explained deviations come from {len(demonstrated)} "
            f"demonstrated cause{'s' if len(demonstrated) != 1 else ''}; the "
            f"{int(setups['claims'].sum())} claims tested on a set-up that is not the paper's rest on "
            f"{len(setups)} distinct differences of set-up, each stated once below with the claims and "
            "numbers it touches.",
            "",
            *_pipe_table(found.drop(columns=["papers"])),
        ]
        self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
        out.append(section)

        for spec in specs:
            env.note_dependency(str(root / "data" / "derived" / spec.csv))
            everything = table[table["table"] == spec.table]
            rows = everything[~everything["status"].isin(report.APART)]
            checks = everything[everything["status"] == report.DERIVATION]
            errata = everything[everything["status"] == report.ERRATUM]
            setup = {
                "identified": "the paper's set-up is identified",
                "guessed": f"**set-up guessed**: {spec.setup_note.strip()}",
                "model-differs": f"**the model is not the paper's**: {spec.setup_note.strip()}",
            }[spec.setup]
            if spec.kind == "claims":
                rule = ("claims: reproduced when they hold on our numbers, contradicted otherwise"
                        if spec.setup == "identified" else
                        "claims: consistent when they hold on our numbers, not reproduced otherwise")
            elif spec.tolerance is not None and spec.tolerance.rule == "last-digit":
                rule = "tolerance: one unit of the paper's last printed digit (a deterministic quantity)"
            else:
                assert spec.tolerance is not None
                rule = (
                    f"tolerance: from the {{ref}}`measured spread <{spec.tolerance.cell}>` "
                    f"(`data/derived/{spec.tolerance.source.csv}`)"
                )
            section = _section(spec.table, report_label(spec.csv))
            section["names"].append(report_label(spec.csv))
            self.state.document.note_explicit_target(section, section)  # a label {ref} can name
            lines = [
                f"{papers[spec.paper]} {{cite:p}}`{spec.paper}`, shown in {{doc}}`/{spec.shown_in}`; "
                f"stored in `data/derived/{spec.csv}`; {setup}; {rule}. "
                f"{_tally(rows['status'], report.STATUSES)}"
                + (f"; {len(checks)} derivation check{'s' if len(checks) != 1 else ''}, not counted" if len(checks) else "")
                + (f"; {len(errata)} errat{'a' if len(errata) != 1 else 'um'} of the paper, not counted" if len(errata) else "")
                + ".",
                "",
            ]
            if len(rows):
                lines += [*_pipe_table(_report_rows(rows, spec.kind)), ""]
            if len(checks):
                lines += ["Derivation checks (they cannot fail; shown for the reader, never counted):", "",
                          *_pipe_table(_report_rows(checks, "claims").drop(columns=["status"])), ""]
            if len(errata):
                lines += ["Errata of the paper (what the paper states, and what proves it wrong; also on the "
                          "{doc}`errata page </book/errata>`; never counted):", "",
                          *_pipe_table(_report_rows(errata, "claims").drop(columns=["status"])), ""]
            self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
            out.append(section)
        return out


def _causes_sentence(found: Any) -> str:
    """The chapter box's clause on causes: explained deviations per demonstrated cause, set-ups not the paper's."""
    parts = []
    demonstrated = found[found["kind"] == "demonstrated cause of a deviation"]
    setups = found[found["kind"] != "demonstrated cause of a deviation"]
    if len(demonstrated):
        n = int(demonstrated["numbers"].sum())
        k = len(demonstrated)
        parts.append("the explained deviation has one demonstrated cause" if n == 1 else
                     f"the {n} explained deviations come from {k} demonstrated cause{'s' if k != 1 else ''}")
    if len(setups):
        n = int(setups["claims"].sum())
        parts.append(f"{n} claim{'s' if n != 1 else ''} could not be tested on the paper's own set-up, for "
                     f"{len(setups)} distinct reason{'s' if len(setups) != 1 else ''}")
    return ("; " + " and ".join(parts)) if parts else ""


class ChapterResults(Directive):
    """A chapter's results box, generated from the registry: what the book found for one paper."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        import lib.report as report

        root = _root(self)
        env = self.state.document.settings.env
        key = self.arguments[0].strip()
        papers = report.load_papers(root=root)
        if key not in papers:
            raise self.error(f"chapter-results: unknown paper {key!r} (registry has {sorted(papers)})")
        specs = [s for s in report.load_registry(root=root) if s.paper == key]
        for path in sorted((root / report.REGISTRY_DIR).glob("*.yaml")):
            env.note_dependency(str(path))
        box = nodes.admonition(classes=["chapter-results", "tip"])
        box += nodes.title(text="What the book found")
        if not specs:
            box += nodes.paragraph(text="No published number of this paper is compared yet.")
            return [box]
        table = report.reproduction_report(specs, root=root)
        claim_table = report.claims(table)
        scored = table[~table["status"].isin(report.APART)]
        n_checks = int((table["status"] == report.DERIVATION).sum())
        n_errata = int((table["status"] == report.ERRATUM).sum())
        lines = [
            f"Of the {len(claim_table)} claims of the paper that this chapter tests (a sentence, or a "
            f"published table): {_tally(claim_table['status'], report.STATUSES)}; a claim holds only "
            f"where all its numbers do. Number by number, of {len(scored)}: "
            f"{_tally(scored['status'], report.STATUSES)}"
            + (f"; besides, {n_checks} derivation check{'s' if n_checks != 1 else ''} (identities, never counted)"
               if n_checks else "")
            + (f"; {n_errata} errat{'a' if n_errata != 1 else 'um'} of the paper, shown apart" if n_errata else "")
            + _causes_sentence(report.causes(table))
            + f" (classes and evidence: {{doc}}`/book/reproduction-report`).",
            "",
            "| table or figure | " + " | ".join(report.STATUSES) + " |",
            "|---|" + "---|" * len(report.STATUSES),
        ]
        for spec in specs:
            env.note_dependency(str(root / "data" / "derived" / spec.csv))
            n = table.loc[table["table"] == spec.table, "status"].value_counts()
            cells = " | ".join(str(n.get(s, 0)) for s in report.STATUSES)
            title = _cell(spec.table).replace("<", "&lt;").replace("`", "'")
            lines.append(f"| {{ref}}`{title} <{report_label(spec.csv)}>` | {cells} |")
        self.state.nested_parse(StringList(lines, source=env.docname), 0, box)
        return [box]


def paper_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
               content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    """``{paper}`0.837```: a number the paper publishes, quoted in the book's prose."""
    node = nodes.abbreviation(text, text, explanation="the paper's published number", classes=["paper-number"])
    return [node], []


def setup_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
               content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    """``{setup}`14```: a number that defines the set-up (chosen, not found), in the book's prose."""
    node = nodes.inline(text, text, classes=["setup-number"])
    return [node], []


_SAVE = re.compile(r"save_figure\(\s*[^,()]+,\s*(?P<q>[\"'])(?P<name>[^\"']+)(?P=q)\s*[,)]")


def figure_sources(root: Path) -> dict[str, tuple[str, int, dict[str, Any]]]:
    """figure file stem -> (notebook without suffix, code cell number from 1, mystnb figure metadata)."""
    found: dict[str, tuple[str, int, dict[str, Any]]] = {}
    for _, name in _toc_files(root):
        path = root / f"{name}.ipynb"
        if not path.is_file():
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        for number, cell in enumerate(code, start=1):
            for match in _SAVE.finditer("".join(cell["source"])):
                found[match["name"]] = (name, number, cell.get("metadata", {}).get("mystnb", {}).get("figure", {}))
    return found


class FiguresList(Directive):
    """Every figure file of ``book/figures`` with its caption, source cell, sha256 and citation."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import hashlib

        root = _root(self)
        env = self.state.document.settings.env
        folder = root / "book" / "figures"
        sources = figure_sources(root)
        stems = sorted({p.stem for p in folder.iterdir() if p.suffix in (".png", ".svg")})
        orphans = [s for s in stems if s not in sources]
        if orphans:
            raise self.error(f"figures-list: no notebook of the toc writes {orphans}")
        citation = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
        book = f"{citation['title']} ({str(citation.get('date-released', ''))[:4]}), version {citation.get('version', '')}"
        out: list[nodes.Node] = []
        for stem in sorted(stems, key=lambda s: (_toc_index(root, sources[s][0]), sources[s][1], s)):
            notebook, number, meta = sources[stem]
            env.note_dependency(str(root / f"{notebook}.ipynb"))  # the caption lives in the notebook
            rows = []
            for suffix in (".png", ".svg"):
                path = folder / f"{stem}{suffix}"
                env.note_dependency(str(path))
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                rows.append(f"| [`book/figures/{stem}{suffix}`](/book/figures/{stem}{suffix}) | `{digest}` |")
            label = meta.get("name", f"fig-{stem}")
            caption = " ".join(str(meta.get("caption", "")).split())
            # the image and its caption, in a box whose caption becomes the image's alternative
            # text once its references are resolved (book/_ext/accessibility.py); not a figure,
            # which would be numbered a second time
            entry = [
                f"```{{image}} /book/figures/{stem}.png",
                ":width: 60%",
                "```",
                "",
                f"{{numref}}`{label}` — {caption}",
            ]
            lines = [
                f"Made by code cell {number} of {{doc}}`/{notebook}`; label `{label}`.",
                "",
                "| file | sha256 |",
                "|---|---|",
                *rows,
                "",
                f"Cite as: *{_cell(book)}*, figure `{label}` (file `book/figures/{stem}.png`, sha256 above). "
                "The test suite regenerates every figure and checks its bytes, so the sha256 identifies "
                "the figure of this version of the book.",
                "",
            ]
            section = _section(stem, f"figure-{stem}")
            box = nodes.container(classes=["captioned-image"])
            self.state.nested_parse(StringList(entry, source=env.docname), 0, box)
            section += box
            self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
            out.append(section)
        return out


def _toc_index(root: Path, name: str) -> int:
    return [n for _, n in _toc_files(root)].index(name)


# ---------------------------------------------------------------------------- equation numbers
_TAG = re.compile(r"\\tag\*?\{([^{}]+)\}")


def _chapters(root: Path) -> dict[str, int]:
    """docname -> chapter number: the index of its part in _toc.yml (0 = foundations)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    chapter_of: dict[str, int] = {}

    def walk(entries: list[dict[str, Any]], number: int) -> None:
        for entry in entries or []:
            if "file" in entry:
                chapter_of[entry["file"]] = number
            walk(entry.get("sections", []), number)

    for number, part in enumerate(toc.get("parts", [])):
        walk(part.get("chapters", []), number)
    return chapter_of


def number_equations(app: Any, env: Any) -> list[str]:
    """Give every labelled display equation its number (see the module docstring)."""
    if not (env.config.numfig and env.config.math_numfig):
        return []
    root = Path(app.confdir)
    chapter_of = _chapters(root)
    counters: dict[int, int] = {}
    for docname, _ in sorted(env.toc_fignumbers.items(), key=lambda kv: (chapter_of.get(kv[0], 99), _toc_pos(root, kv[0]))):
        numbers = env.toc_fignumbers[docname].get("displaymath")
        if not numbers:
            continue
        doctree = env.get_doctree(docname)
        tags, order = {}, []
        for node in doctree.findall(nodes.math_block):
            if node["ids"] and node["ids"][0] in numbers:
                order.append(node["ids"][0])
                match = _TAG.search(node.astext())
                if match:
                    tags[node["ids"][0]] = match[1].strip()
        chapter = chapter_of.get(docname)
        for ident in order:
            if ident in tags:
                numbers[ident] = (tags[ident],)
            elif chapter is not None:
                counters[chapter] = counters.get(chapter, 0) + 1
                numbers[ident] = (chapter, counters[chapter])
    return []


def _toc_pos(root: Path, docname: str) -> int:
    names = [n for _, n in _toc_files(root)]
    return names.index(docname) if docname in names else len(names)


def strip_tags(app: Any, doctree: Any, docname: str) -> None:
    """Drop ``\\tag{..}`` from labelled equations: Sphinx prints their number (the tag) itself."""
    for node in doctree.findall(nodes.math_block):
        if node["ids"] and _TAG.search(node.astext()):
            text = _TAG.sub("", node.astext())
            node.children = [nodes.Text(text)]


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
    app.add_directive("chapter-results", ChapterResults)
    app.add_directive("figures-list", FiguresList)
    app.add_role("paper", paper_role)
    app.add_role("setup", setup_role)
    app.connect("env-get-updated", number_equations, priority=900)
    app.connect("doctree-resolved", strip_tags)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
