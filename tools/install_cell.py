"""Every notebook runs anywhere: its first code cell installs the book's ``lib`` and ``compendium`` where they are missing.

    python tools/install_cell.py            # insert or update the cell in every notebook
    python tools/install_cell.py --check    # exit 1 if a notebook lacks it or has another version of it
    python tools/install_cell.py notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb

The cell (id ``install-lib``, folded on the page by the ``hide-input`` tag) comes before the
notebook's first other code cell. Where ``lib`` can be imported — a clone of the repository with
the README's set-up, Binder — it does nothing and prints nothing, so the stored outputs nbval
compares are unchanged. Elsewhere (Colab, a downloaded notebook) it tries, in order, until one
installs (:func:`source`):

1. ``SHAPLEY_BOOK_LIB``: requirements of your own, separated by spaces (a wheel you downloaded, a
   fork), or a folder holding the release's wheels;
2. the wheel of the GitHub release ``v<version>`` of the page's version (``tools/release.py`` puts it
   there), when that version is a release;
3. the repository at the page's commit (``git+<repository>@<commit>``), which builds the same version;

each with the ``peers`` extra (Khiops, pyAgrum) in the notebooks that use them. If none can be
installed it prints one short message — what failed, and the two ways on: a local wheel through
``SHAPLEY_BOOK_LIB``, or a clone — and stops the notebook without a traceback (IPython shows the
exception's ``_render_traceback_``).

The repository's notebooks cannot name their own version and commit (a commit cannot hold its own
name): their cell reads ``BOOK = {"version": "", "commit": ""}``, and the book's build writes the
page's version and commit there (:func:`fill`) in the notebook a page offers for download
(``compendium/sphinx/citation.py``) and in a release's bundle (``tools/release.py``). So a downloaded
notebook installs exactly the ``lib`` of its page, and no stored output names a version.

The tool is idempotent: it rewrites a notebook only when its cell differs from the one the
repository's ``_config.yml`` (the repository's address) gives, so it can run again after notebooks
are rewritten. ``tests/test_install_cell.py`` checks every notebook, the order of the tries and the
message with the network to the release cut off.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
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
#: the distributions the cell installs, each at the page's version (issue 48): the methods, lib, and the book's
#: machinery, compendium, with the stored results; (name, wheel file stem, its project's folder in the repository)
DISTRIBUTIONS = (("shapley-book-lib", "shapley_book_lib", ""),
                 ("shapley-book-compendium", "shapley_book_compendium", "distributions/shapley-book-compendium"))
#: the packages a notebook imports from them
PACKAGES = ("lib", "compendium")
#: the line of the cell that names the page's version and commit, empty in the repository (:func:`fill`)
BOOK_LINE = 'BOOK = {{"version": {version}, "commit": {commit}}}  # this page\'s: written by the book\'s build'
_BOOK = re.compile(r'^BOOK = \{"version": (?P<version>"[^"]*"), "commit": (?P<commit>"[^"]*")\}.*$', re.M)


def repository(root: Path = ROOT) -> str:
    return str(yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]).rstrip("/")


def is_release(version: str) -> bool:
    """Whether ``version`` is a release's (a tag ``v<version>``), not a development version between them."""
    return bool(re.fullmatch(r"\d+(\.\d+)*", version))


def release_requirements(version: str, root: Path = ROOT, *, peers: bool = False) -> list[str]:
    """The pip requirements of the release ``v<version>``'s wheels (what the cell's second try installs)."""
    url = repository(root)
    return [f"{name}{'[peers]' if peers and i == 0 else ''} @ {url}/releases/download/v{version}/"
            f"{stem}-{version}-py3-none-any.whl" for i, (name, stem, _) in enumerate(DISTRIBUTIONS)]


def requirement(root: Path = ROOT, *, peers: bool = False, version: str) -> str:
    """The release wheel of ``lib`` at ``version`` (the first of :func:`release_requirements`)."""
    return release_requirements(version, root, peers=peers)[0]


def source(root: Path = ROOT, *, peers: bool = False) -> str:
    """The cell as the repository's notebooks hold it (version and commit empty: :func:`fill`)."""
    extra = "[peers]" if peers else ""
    wheels = [f'        ("{name}{extra if i == 0 else ""}", "{stem}", "{"#subdirectory=" + sub if sub else ""}"),'
              for i, (name, stem, sub) in enumerate(DISTRIBUTIONS)]
    return "\n".join([
        "# Outside a clone of the book's repository (Colab, a downloaded notebook), install the book's",
        "# library lib and its machinery compendium at this page's version; where they are installed, do nothing.",
        BOOK_LINE.format(version='""', commit='""'),
        "import importlib.util",
        "",
        f"if any(importlib.util.find_spec(m) is None for m in {PACKAGES!r}):",
        "    import importlib, os, subprocess, sys",
        "",
        "    class Stop(Exception):",
        "        def _render_traceback_(self):  # IPython shows the message, no traceback",
        "            return str(self).splitlines()",
        "",
        f'    repo, v, c = "{repository(root)}", BOOK["version"], BOOK["commit"]',
        "    wheels = [  # (name, wheel, its folder in the repository)",
        *wheels,
        "    ]",
        f'    mine = os.environ.get("{ENV_VAR}", "").split()',
        "    if len(mine) == 1 and os.path.isdir(mine[0]):  # a folder of wheels",
        "        mine = [\"--find-links\", mine[0]] + [n + (\"==\" + v if v else \"\") for n, _, _ in wheels]",
        f'    tries = [("{ENV_VAR}", mine)] if mine else []',
        '    if v.replace(".", "").isdigit():  # a release: its wheels',
        '        at = f"{repo}/releases/download/v{v}/"',
        '        tries.append((f"the release v{v}", [f"{n} @ {at}{s}-{v}-py3-none-any.whl" for n, s, _ in wheels]))',
        "    if c:  # the repository at this page's commit",
        '        tries.append((f"the repository at commit {c[:12]}", [f"{n} @ git+{repo}@{c}{d}" for n, _, d in wheels]))',
        "    failed = []",
        "    for what, requirements in tries:",
        '        pip = [sys.executable, "-m", "pip", "install", "-q", "--retries", "1", "--timeout", "20"]',
        "        run = subprocess.run(pip + requirements, capture_output=True, text=True)",
        "        if run.returncode == 0:",
        "            importlib.invalidate_caches()",
        "            break",
        '        failed.append(f"  {what}: {(run.stderr.strip().splitlines() or [\'pip failed\'])[-1][:200]}")',
        "    else:",
        '        raise Stop("\\n".join([',
        '            "lib and compendium, the book\'s library and its machinery, are not installed here and could not"',
        '            " be installed:", *failed,',
        '            *([] if tries else ["  this copy of the notebook names no version of the book (the repository\'s"',
        '                                " file, not a page\'s download), and ' + ENV_VAR + ' is not set"]),',
        '            "Two ways on: set ' + ENV_VAR + ' to the wheels of lib and compendium you have (or a folder of"',
        '            " the release\'s wheels) and run this cell again; or clone " + repo + ", run its README\'s first command"',
        '            " and open the notebook there."]))',
    ])


def fill(text: str, version: str, commit: str | None) -> str:
    """``text`` (a notebook's JSON, or a cell's source) with the install cell's ``BOOK`` line naming ``version``
    and ``commit``: what a page offers for download and a release bundles. Only that line changes (in a
    notebook's JSON, its escaped text), so the rest of the file keeps its bytes; a text without the
    repository's empty line is returned unchanged."""
    empty = BOOK_LINE.format(version='""', commit='""')
    line = BOOK_LINE.format(version=json.dumps(version), commit=json.dumps(commit or ""))
    if text.lstrip().startswith("{"):
        empty, line = json.dumps(empty + "\n")[1:-1], json.dumps(line + "\n")[1:-1]
    return text.replace(empty, line, 1)


def named(text: str) -> dict[str, str]:
    """The version and commit the install cell in ``text`` names (empty strings in the repository's notebooks)."""
    match = _BOOK.search(text if not text.lstrip().startswith("{") else "\n".join(
        "".join(c["source"]) for c in json.loads(text).get("cells", []) if c.get("id") == CELL_ID))
    return {k: json.loads(match[k]) for k in ("version", "commit")} if match else {}


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
