"""``{figures-list}``: every figure of the book (``book/figures``) under a heading taken from its caption: the
image, the caption, the notebook and cell that make it, its files with their sha256; how to cite a figure,
once at the top."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.pages import cell_text, root_of, toc_files, toc_index


_SAVE = re.compile(r"save_figure\(\s*[^,()]+,\s*(?P<q>[\"'])(?P<name>[^\"']+)(?P=q)\s*[,)]")


def figure_sources(root: Path) -> dict[str, tuple[str, int, dict[str, Any]]]:
    """figure file stem -> (notebook without suffix, code cell number from 1, mystnb figure metadata)."""
    found: dict[str, tuple[str, int, dict[str, Any]]] = {}
    for _, name in toc_files(root):
        path = root / f"{name}.ipynb"
        if not path.is_file():
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        for number, cell in enumerate(code, start=1):
            for match in _SAVE.finditer("".join(cell["source"])):
                found[match["name"]] = (name, number, cell.get("metadata", {}).get("mystnb", {}).get("figure", {}))
    return found


def heading_of(caption: str) -> str:
    """The heading of a figure on the Figures page: its caption's first clause (MyST source).

    The caption up to its first ": ", "; " or ". " outside roles, code, math and parentheses,
    or up to its first parenthesis once the clause has three words; the whole caption if it
    has none of them. A prefix of the caption, so it is never cut with an ellipsis."""
    depth, quote, words = 0, "", 0
    for i, char in enumerate(caption):
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in "`$":
            quote = char
        elif char == "(":
            if depth == 0 and words >= 3 and i > 0 and caption[i - 1] == " ":
                return caption[:i].rstrip()
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif depth == 0 and char in ":;." and caption[i + 1 : i + 2] in (" ", ""):
            if char != "." or not caption[max(i - 3, 0) : i].lower().endswith(("eq", "fig", "e.g", "i.e", "vs", "al")):
                return caption[:i].rstrip()
        elif char == " ":
            words += 1
    return caption.rstrip(". ")


class FiguresList(Directive):
    """Every figure file of ``book/figures``: a heading from its caption, the image (full width,
    a link to its SVG at full size: ``book/_ext/figure_links.py``), its caption, the cell that
    makes it and its files' sha256; how to cite a figure is said once, above them."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import hashlib

        root = root_of(self)
        env = self.state.document.settings.env
        folder = root / "book" / "figures"
        # a notebook added to the toc (and the figures it writes) rebuilds this page
        env.note_dependency(str(root / "_toc.yml"))
        sources = figure_sources(root)
        stems = sorted({p.stem for p in folder.iterdir() if p.suffix in (".png", ".svg")})
        orphans = [s for s in stems if s not in sources]
        if orphans:
            raise self.error(f"figures-list: no notebook of the toc writes {orphans}")
        citation = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
        book = f"{citation['title']} ({str(citation.get('date-released', ''))[:4]}), version {citation.get('version', '')}"
        cite = [
            f"**How to cite a figure.** Cite the book, *{cell_text(book)}*, and the figure's label, given "
            "under each figure; to say exactly which image you mean, add its file and that file's sha256 "
            "(also under each figure), which identifies the figure of this version of the book.",
            "",
        ]
        intro = nodes.container(classes=["figures-citation"])
        self.state.nested_parse(StringList(cite, source=env.docname), 0, intro)
        out: list[nodes.Node] = [intro]
        for stem in sorted(stems, key=lambda s: (toc_index(root, sources[s][0]), sources[s][1], s)):
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
            ]
            section = nodes.section(ids=[f"figure-{stem}"])
            heading = nodes.container()
            self.state.nested_parse(StringList([heading_of(caption) or stem], source=env.docname), 0, heading)
            paragraph = heading.next_node(nodes.paragraph)
            section += nodes.title("", "", *(paragraph.children if paragraph is not None else [nodes.Text(stem)]))
            box = nodes.container(classes=["captioned-image"])
            self.state.nested_parse(StringList(entry, source=env.docname), 0, box)
            section += box
            self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
            out.append(section)
        return out
