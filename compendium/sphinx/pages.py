"""What every directive of the book's extension reads: the pages of ``_toc.yml``, their text and chapters,
and the small docutils and table helpers they share."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive


def root_of(directive: Directive) -> Path:
    return Path(directive.state.document.settings.env.app.confdir)


def toc_files(root: Path) -> list[tuple[str, str]]:
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


def page_text(root: Path, name: str) -> tuple[list[str], str] | None:
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


def section_node(title: str, ident: str) -> nodes.section:
    section = nodes.section(ids=[ident])
    section += nodes.title(text=title)
    return section


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def cell_text(value: Any) -> str:
    if isinstance(value, float):
        text = f"{value:.4g}"
    else:
        text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def pipe_table(frame: Any) -> list[str]:
    header = "| " + " | ".join(cell_text(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(cell_text(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return [header, rule, *rows, ""]


def toc_index(root: Path, name: str) -> int:
    return [n for _, n in toc_files(root)].index(name)


def chapters(root: Path) -> dict[str, int]:
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


def toc_pos(root: Path, docname: str) -> int:
    names = [n for _, n in toc_files(root)]
    return names.index(docname) if docname in names else len(names)
