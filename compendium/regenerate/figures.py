"""The book's figures, one by one: which notebook writes each, and the check that reruns it and compares the files byte for byte.

A notebook writes a figure of ``book/figures/`` only through :func:`compendium.plotting.save_figure`,
called with a literal name (``save_figure(fig, "nb-figure3-twonorm", description=...)``): those
calls say which notebook makes which figure, read from the notebooks' sources as
:mod:`compendium.regenerate.notebooks` reads their tables. A figure is named ``figure:<name>`` on the
command line:

    python -m compendium.regenerate --check figure:nb-figure3-twonorm   # rerun its notebook in a scratch copy, compare
    python -m compendium.regenerate figure:nb-figure3-twonorm           # rerun its notebook in place

``--check`` runs the notebook (``jupyter execute``) in the scratch copy of the repository that
:func:`compendium.regenerate.runner.make_scratch` makes, after deleting the figure's files there, and
compares each file (PNG and SVG) with the stored one: **identical** (the same bytes; a figure has
no tolerance), **differs**, **missing** or **failed**. Several figures of one notebook are checked
by one run of it. The Figures page (``compendium/sphinx/figures.py``) prints
:func:`command` under every figure; ``compendium/tests/test_regenerate_figures.py`` checks that every
file of ``book/figures`` has a notebook this module finds, and runs one check.
"""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compendium.regenerate.notebooks import literal_names, notebook_code

__all__ = ["FIGURES", "FORMATS", "PREFIX", "check_figures", "command", "figure_notebooks", "notebook_figures",
           "select_figures", "stored_figures"]

#: where the figures are stored, relative to the repository's root
FIGURES = Path("book") / "figures"
#: the files of one figure
FORMATS = (".png", ".svg")
#: how a figure is named on the command line
PREFIX = "figure:"


def command(name: str) -> str:
    """The one command that reruns the notebook of figure ``name`` and compares its files byte for byte."""
    return f"python -m compendium.regenerate --check {PREFIX}{name}"


def notebook_figures(code: str, where: str = "the code") -> list[str]:
    """The figures ``code`` saves with ``save_figure``, in order.

    Raises
    ------
    ValueError
        A call whose figure name is not a literal string; the message names the line.
    """
    return literal_names(code, "save_figure", where, "figure")


def figure_notebooks(root: Path) -> dict[str, str]:
    """Figure name -> the notebook that saves it (a repository path), for every notebook under ``root``.

    Raises
    ------
    ValueError
        Two notebooks save a figure of the same name.
    """
    found: dict[str, str] = {}
    for path in sorted((root / "notebooks").glob("*/*.ipynb")):
        rel = path.relative_to(root).as_posix()
        for name in notebook_figures(notebook_code(path), rel):
            if name in found and found[name] != rel:
                raise ValueError(f"figure {name!r} is saved by both {found[name]} and {rel}")
            found[name] = rel
    return found


def stored_figures(root: Path) -> list[str]:
    """The names of the figures stored in ``book/figures`` (a name per PNG/SVG pair)."""
    folder = root / FIGURES
    return sorted({p.stem for p in folder.iterdir() if p.suffix in FORMATS}) if folder.is_dir() else []


def select_figures(patterns: Sequence[str], root: Path) -> dict[str, list[str]]:
    """Notebook -> the figures of ``patterns`` (``figure:<name or glob>``) it makes, in the book's order.

    Raises
    ------
    SystemExit
        A pattern matches no stored figure, or a figure no notebook saves.
    """
    owners = figure_notebooks(root)
    stored = stored_figures(root)
    chosen: dict[str, list[str]] = {}
    for pattern in patterns:
        glob = pattern.removeprefix(PREFIX)
        hits = [name for name in stored if fnmatch.fnmatchcase(name, glob)]
        if not hits:
            raise SystemExit(f"no figure of {FIGURES} is called {glob!r}; `python -m compendium.regenerate --list` lists them")
        for name in hits:
            if name not in owners:
                raise SystemExit(f"figure {name!r}: no notebook saves it (save_figure with that literal name)")
            chosen.setdefault(owners[name], [])
            if name not in chosen[owners[name]]:
                chosen[owners[name]].append(name)
    return dict(sorted(chosen.items()))


def _same(a: Path, b: Path) -> str:
    if not b.is_file():
        return "missing"
    return "identical" if a.read_bytes() == b.read_bytes() else "differs"


def check_figures(notebook: str, names: Sequence[str], root: Path, repo: Path, log: Path,
                  env: Mapping[str, str]) -> list[dict[str, Any]]:
    """Run ``notebook`` in the scratch copy ``repo`` after deleting the files of ``names`` there, and
    compare each file with the one stored under ``root``: one row per figure (name, status, detail,
    seconds). The scratch copy gets the stored files back afterwards."""
    import time

    for name in names:
        for suffix in FORMATS:
            (repo / FIGURES / f"{name}{suffix}").unlink(missing_ok=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with log.open("w") as out:
        done = subprocess.run([sys.executable, "-m", "jupyter", "execute", notebook], cwd=repo, env=dict(env),
                              stdout=out, stderr=subprocess.STDOUT, check=False)
    seconds = round(time.perf_counter() - start, 1)
    rows = []
    for name in names:
        statuses = {suffix: _same(root / FIGURES / f"{name}{suffix}", repo / FIGURES / f"{name}{suffix}")
                    for suffix in FORMATS}
        if done.returncode != 0:
            status, detail = "failed", f"exit code {done.returncode}; see {log}"
        elif all(s == "identical" for s in statuses.values()):
            status, detail = "identical", ""
        else:
            bad = {s for s in statuses.values() if s != "identical"}
            status = "missing" if bad == {"missing"} else "differs"
            detail = ", ".join(f"{name}{suffix} {s}" for suffix, s in statuses.items() if s != "identical")
        rows.append({"name": f"{PREFIX}{name}", "status": status, "detail": detail, "seconds": seconds})
        for suffix in FORMATS:  # the next check starts from the stored files
            stored = root / FIGURES / f"{name}{suffix}"
            if stored.is_file():
                shutil.copy2(stored, repo / FIGURES / f"{name}{suffix}")
    return rows
