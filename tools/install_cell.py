"""Every notebook runs anywhere: its first code cell installs the book's ``lib`` where it is missing.

    python tools/install_cell.py            # insert or update the cell in every notebook
    python tools/install_cell.py --check    # exit 1 if a notebook lacks it or has another version of it
    python tools/install_cell.py notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb

The cell (id ``install-lib``, folded on the page by the ``hide-input`` tag) comes before the
notebook's first other code cell. Where ``lib`` can be imported — a clone of the repository with
the README's set-up, Binder — it does nothing and prints nothing, so the stored outputs nbval
compares are unchanged. Elsewhere (Colab, a downloaded notebook) it installs, with pip, the package
``lib`` at the version the page was built from: the wheel of the GitHub release ``v<version>``
(``tools/release.py`` puts it there), with the ``peers`` extra (Khiops, pyAgrum) in the notebooks
that use them. ``SHAPLEY_BOOK_LIB`` names another requirement (a local wheel, a fork).

The tool is idempotent: it rewrites a notebook only when its cell differs from the one the
repository's ``_config.yml`` (the repository's address) and ``pyproject.toml`` (the version) give,
so it can run again after notebooks are rewritten or the version moves. ``tests/test_install_cell.py``
checks every notebook.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
CELL_ID = "install-lib"
TAGS = ["hide-input"]
#: what the folded cell's toggle says on the page (myst-nb's cell-level prompts)
PROMPTS = {"code_prompt_show": "Show the cell that installs lib outside a clone",
           "code_prompt_hide": "Hide the cell that installs lib"}
ENV_VAR = "SHAPLEY_BOOK_LIB"
#: what a notebook imports that the ``peers`` extra installs (top-level names)
PEERS = {"khiops", "pyagrum", "lib.khiops_nb", "lib.pyagrum_bridge"}


def requirement(root: Path = ROOT, *, peers: bool = False) -> str:
    """The pip requirement of the book's ``lib`` at this version: the release's wheel."""
    version = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    url = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"].rstrip("/")
    extras = "[peers]" if peers else ""
    return (f"shapley-book-lib{extras} @ {url}/releases/download/v{version}/"
            f"shapley_book_lib-{version}-py3-none-any.whl")


def source(root: Path = ROOT, *, peers: bool = False) -> str:
    return "\n".join([
        "# Outside a clone of the book's repository (Colab, a downloaded notebook), install the book's",
        "# library lib at the version this page was built from; where lib is installed, do nothing.",
        "import importlib.util",
        "",
        'if importlib.util.find_spec("lib") is None:',
        "    import os, subprocess, sys",
        "",
        f'    requirement = os.environ.get("{ENV_VAR}", "{requirement(root, peers=peers)}")',
        '    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", requirement], check=True)',
    ])


def uses_peers(nb: nbformat.NotebookNode) -> bool:
    """Whether the notebook's code imports Khiops or pyAgrum (directly or through lib's bridges)."""
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.get("id") == CELL_ID:
            continue
        code = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                     if isinstance(node, ast.ImportFrom) else [])
            if any(n in PEERS or n.split(".")[0] in PEERS for n in names):
                return True
    return False


def cell(root: Path, nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    new = nbformat.v4.new_code_cell(source(root, peers=uses_peers(nb)), id=CELL_ID)
    new.metadata = {"tags": list(TAGS), "mystnb": dict(PROMPTS)}
    return new


def with_cell(root: Path, nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` with the install cell just before its first other code cell (its outputs empty)."""
    wanted = cell(root, nb)
    old = next((c for c in nb.cells if c.get("id") == CELL_ID), None)
    if old is not None and old.source == wanted.source and old.metadata == wanted.metadata:
        wanted = old  # keep its execution count: an unchanged cell leaves the file unchanged
    wanted.outputs = []
    cells = [c for c in nb.cells if c.get("id") != CELL_ID]
    first = next((i for i, c in enumerate(cells) if c.cell_type == "code"), len(cells))
    nb.cells = cells[:first] + [wanted] + cells[first:]
    return nb


def update(path: Path, root: Path = ROOT, *, write: bool = True) -> bool:
    """Insert or update the cell in one notebook; whether it changed (written unless ``write`` is false)."""
    before = path.read_text(encoding="utf-8")
    nb = with_cell(root, nbformat.reads(before, as_version=4))
    after = nbformat.writes(nb) + "\n"
    if after == before:
        return False
    if write:
        path.write_text(after, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook of notebooks/")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook would change")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*/*.ipynb"))
    changed = [p for p in paths if update(Path(p), write=not args.check)]
    for p in changed:
        rel = Path(p).resolve().relative_to(ROOT) if Path(p).resolve().is_relative_to(ROOT) else p
        print(f"{'would change' if args.check else 'updated'}: {rel}")
    print(f"{len(changed)} of {len(paths)} notebooks {'would change' if args.check else 'updated'}")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
