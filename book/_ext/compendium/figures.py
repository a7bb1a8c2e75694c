"""``{figures-list}``: every figure of the book (``book/figures``): caption, the notebook and cell that make
it, its files with their sha256, and how to cite it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from compendium.pages import cell_text, root_of, section_node, toc_files, toc_index


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


class FiguresList(Directive):
    """Every figure file of ``book/figures`` with its caption, source cell, sha256 and citation."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import hashlib

        root = root_of(self)
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
                f"Cite as: *{cell_text(book)}*, figure `{label}` (file `book/figures/{stem}.png`, sha256 above). "
                "The test suite regenerates every figure and checks its bytes, so the sha256 identifies "
                "the figure of this version of the book.",
                "",
            ]
            section = section_node(stem, f"figure-{stem}")
            box = nodes.container(classes=["captioned-image"])
            self.state.nested_parse(StringList(entry, source=env.docname), 0, box)
            section += box
            self.state.nested_parse(StringList(lines, source=env.docname), 0, section)
            out.append(section)
        return out
