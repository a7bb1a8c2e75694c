"""Tests of the book as a product: figures, table of contents, citation, launch buttons.

They read the repository's files (notebook sources, ``book/figures``, ``_config.yml``,
``_toc.yml``, ``CITATION.cff``); the rendered pages are checked in a browser by
``tests/browser``.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

import lib
from compendium.data import REPO_ROOT
from compendium.tests.helpers import chapters

PREFIXES = ("found", "nb", "comp", "sdp", "tv", "coal")
SAVE = re.compile(r"save_figure\(\s*[^,()]+,\s*(?P<q>[\"'])(?P<name>[^\"']+)(?P=q)\s*[,)]")
ANY_SAVE = re.compile(r"save_figure\(")


def _notebooks() -> list[Path]:
    return sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb"))


def _code_cells(path: Path) -> list[dict[str, Any]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [c for c in cells if c["cell_type"] == "code"]


def _figure_calls() -> list[tuple[Path, dict[str, Any], str]]:
    calls = []
    for nb in _notebooks():
        for cell in _code_cells(nb):
            source = "".join(cell["source"])
            names = [m["name"] for m in SAVE.finditer(source)]
            assert len(names) == len(ANY_SAVE.findall(source)), (
                f"{nb.relative_to(REPO_ROOT)}: save_figure must be called with a literal file name "
                "so that the figure's file can be traced to its notebook"
            )
            calls += [(nb, cell, name) for name in names]
    return calls


def _compendium(module: str) -> Any:
    """A module of the book's Sphinx extension (``compendium/sphinx/``), as Sphinx imports it."""
    return importlib.import_module(f"compendium.sphinx.{module}")


def test_every_figure_file_is_written_by_exactly_one_notebook() -> None:
    calls = _figure_calls()
    written = Counter(name for _, _, name in calls)
    twice = {n: c for n, c in written.items() if c > 1}
    assert not twice, f"figure files written by more than one call: {twice}"
    files = sorted((REPO_ROOT / "book" / "figures").iterdir())
    stems = Counter(f.stem for f in files)
    assert all(f.suffix in (".png", ".svg") for f in files), [f.name for f in files]
    orphans = sorted(set(stems) - set(written))
    assert not orphans, f"figure files no notebook writes (orphans): {orphans}"
    missing = sorted(n for n in written if stems.get(n) != 2)
    assert not missing, f"figures whose .png and .svg are not both committed: {missing}"


def test_every_figure_has_a_chapter_prefixed_label_and_a_caption() -> None:
    labels = []
    for nb, cell, name in _figure_calls():
        where = f"{nb.relative_to(REPO_ROOT)} ({name})"
        assert name.split("-")[0] in PREFIXES, f"{where}: file name must start with a chapter prefix {PREFIXES}"
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        assert figure.get("name") == f"fig-{name}", f"{where}: mystnb figure name must be 'fig-{name}'"
        assert len(str(figure.get("caption", "")).strip()) > 20, f"{where}: the figure needs a caption"
        image_outputs = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
        assert len(image_outputs) == 1, f"{where}: the cell must display its figure exactly once"
        labels.append(figure["name"])
    assert len(labels) == len(set(labels))


def test_pages_reference_only_existing_figure_files() -> None:
    pattern = re.compile(r"figures/([\w.-]+\.(?:png|svg))")
    produced = {f.name for f in (REPO_ROOT / "book" / "figures").iterdir()}
    texts = [p.read_text(encoding="utf-8") for p in (REPO_ROOT / "book").glob("*.md")]
    for nb in _notebooks():
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        texts += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    referenced = {m for text in texts for m in pattern.findall(text)}
    assert referenced <= produced, sorted(referenced - produced)


def _toc_files() -> list[str]:
    return [name for _, name in _compendium("pages").toc_files(REPO_ROOT)]


def test_every_notebook_is_in_the_table_of_contents_and_back() -> None:
    toc = _toc_files()
    assert len(toc) == len(set(toc)), "a page is listed twice in _toc.yml"
    notebooks = {str(nb.relative_to(REPO_ROOT).with_suffix("")) for nb in _notebooks()}
    in_toc = {name for name in toc if name.startswith("notebooks/")}
    assert notebooks == in_toc, {"not in _toc.yml": notebooks - in_toc, "no such notebook": in_toc - notebooks}
    for name in toc:
        assert (REPO_ROOT / f"{name}.md").is_file() or (REPO_ROOT / f"{name}.ipynb").is_file(), name


def _config() -> dict[str, Any]:
    return yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))


def test_launch_and_download_buttons_point_at_the_repository() -> None:
    config = _config()
    url = config["repository"]["url"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url), url
    assert config["repository"]["branch"] == "main"
    assert config["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert config["html"]["use_download_button"] is True
    assert config["execute"]["execute_notebooks"] == "off"


def test_citation_cff_is_complete_and_agrees_with_the_book() -> None:
    cff = yaml.safe_load((REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "date-released", "repository-code", "license"):
        assert cff.get(key), f"CITATION.cff lacks {key}"
    assert all(("name" in a) or ("family-names" in a) for a in cff["authors"])
    dt.date.fromisoformat(str(cff["date-released"]))
    assert str(cff["version"]) == lib.__version__
    assert cff["repository-code"] == _config()["repository"]["url"]
    assert cff["title"].split(" — ")[0] in _config()["title"]
    bibtex = _compendium("bibtex").book_bibtex(cff)
    assert bibtex.startswith("@software{") and cff["repository-code"] in bibtex
    assert bibtex.count("{") == bibtex.count("}")


def test_bibtex_source_of_every_reference_is_found() -> None:
    text = (REPO_ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    entries = _compendium("bibtex").bib_entries(text)
    keys = re.findall(r"^@\w+\{([^,]+),", text, flags=re.M)
    assert sorted(entries) == sorted(keys)
    for key, entry in entries.items():
        assert entry.count("{") == entry.count("}"), key
        assert entry.rstrip().endswith("}"), key


def test_errata_are_found_in_both_fence_styles() -> None:
    text = """Intro
```{admonition} Erratum: first
:class: warning
:name: erratum-first
Body with ``code`` inside.
```
text
::::{admonition} Deviation: second
:class: warning
Body.
::::
```{admonition} Note: not an erratum
x
```"""
    found = _compendium("errata").admonitions(text.splitlines())
    assert [t for t, _ in found] == ["Erratum: first", "Deviation: second", "Note: not an erratum"]
    first = found[0][1]
    assert first[0] == "```{admonition} Erratum: first" and first[-1] == "```"
    assert not any(":name:" in line for line in first), "labels must not be duplicated on the errata page"
    assert "Body with ``code`` inside." in first


@pytest.mark.parametrize("chapter", list(chapters()))  # from _toc.yml: a new chapter is checked too
def test_every_erratum_of_a_chapter_reaches_the_errata_page(chapter: str) -> None:
    """The errata page's reader finds every erratum admonition a chapter's notebooks open (counted
    here from their raw markdown), and the book states some."""
    pages, errata = _compendium("pages"), _compendium("errata")
    found = opened = 0
    for nb in sorted((REPO_ROOT / "notebooks" / chapter).glob("*.ipynb")):
        lines, _ = pages.page_text(REPO_ROOT, str(nb.relative_to(REPO_ROOT).with_suffix("")))
        found += sum(t.startswith("Erratum") for t, _ in errata.admonitions(lines))
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        opened += sum("".join(c["source"]).count("{admonition} Erratum") for c in cells if c["cell_type"] == "markdown")
    assert found == opened
    total = sum("{admonition} Erratum" in p.read_text(encoding="utf-8") for p in (REPO_ROOT / "notebooks").glob("*/*.ipynb"))
    assert total >= 1


def test_errata_links_are_made_absolute() -> None:
    fix = _compendium("errata").absolute_doc_links
    lines = ["see {doc}`02-woe-vs-shapley` and {doc}`the data <../00-foundations/02-data>`,",
             "{doc}`/book/errata` stays"]
    assert fix(lines, "notebooks/01-naive-bayes/03-kernelshap") == [
        "see {doc}`/notebooks/01-naive-bayes/02-woe-vs-shapley` and "
        "{doc}`the data </notebooks/00-foundations/02-data>`,",
        "{doc}`/book/errata` stays",
    ]


SCRIPTS = sorted((REPO_ROOT / "scripts").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_long_runs_show_progress_and_resume(script: Path) -> None:
    """Scripts for runs too long for the tests: a tqdm progress bar, results written per unit
    (resumable; --force recomputes), and a --help that runs (the script at least imports)."""
    import subprocess
    import sys

    source = script.read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    if script.name.startswith("_"):
        # a worker (e.g. run in a side environment): the script that runs it owns progress,
        # resuming and --force, and must name it
        callers = [s.name for s in SCRIPTS if not s.name.startswith("_") and script.name in s.read_text(encoding="utf-8")]
        assert callers, f"{script.name}: a worker module must be run by a script of scripts/"
        return
    assert "tqdm" in source, f"{script.name}: long runs show progress with tqdm"
    assert "--force" in source, f"{script.name}: finished units are skipped unless --force"
    assert "--force" in done.stdout
    shown_in = (REPO_ROOT / "data" / "derived" / "README.md").read_text(encoding="utf-8")
    assert f"scripts/{script.name}" in shown_in, f"data/derived/README.md does not say what {script.name} writes"


#: Longest code cell a page may show (tools/tag_cells.py tags set-up cells and lists the others).
MAX_SHOWN_LINES = 40
#: Tags that take a cell's code off the page (myst-nb): removed, or folded behind a click.
NOT_SHOWN = {"remove-input", "hide-input", "remove-cell", "hide-cell"}


def test_no_code_cell_shown_on_a_page_is_longer_than_40_lines() -> None:
    long = []
    for nb in _notebooks():
        for k, cell in enumerate(_code_cells(nb)):
            lines = len("".join(cell["source"]).splitlines())
            if lines > MAX_SHOWN_LINES and not NOT_SHOWN & set(cell.get("metadata", {}).get("tags", [])):
                long.append(f"{nb.relative_to(REPO_ROOT)}: code cell {k} shows {lines} lines")
    assert not long, ("code cells shown on a page over 40 lines (split them, move their logic into lib, or "
                      f"run tools/tag_cells.py if they only set up): {long}")


_TD = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.S)


def _stored_tables() -> list[tuple[str, str]]:
    tables = []
    for nb in _notebooks():
        for k, cell in enumerate(_code_cells(nb)):
            for out in cell.get("outputs", []):
                html = "".join(out.get("data", {}).get("text/html", []))
                if "<table" in html:
                    tables.append((f"{nb.relative_to(REPO_ROOT)}: code cell {k}", html))
    return tables


def test_stored_tables_show_every_cell_whole_and_no_nan() -> None:
    """pandas cuts a cell at display.max_colwidth with "...", elides rows and columns past
    display.max_rows/max_columns with "...", and prints a missing value as NaN: none of these may
    reach a page (set the options to None where a table is shown; an empty cell is empty, or says why)."""
    tables = _stored_tables()
    assert tables
    bad = []
    for where, html in tables:
        for cell in _TD.findall(html):
            text = re.sub(r"<[^>]+>", "", cell).strip()
            if text.endswith(("...", "…")) or text in {"NaN", "nan", "<NA>", "NaT", "None"}:
                bad.append(f"{where}: {text[-60:]!r}")
    assert not bad, f"table cells cut, elided or NaN: {bad[:40]} ({len(bad)} in all)"


def test_listings_render_docstring_roles_as_the_page_prints_them() -> None:
    # a {literalinclude} of lib shows its docstring: its roles must not reach the reader raw
    listings = _compendium("listings")
    text = ('    """Book: :ref:`eq-nb-shapley`, :ref:`eq-nb-unknown` (notebooks/x.ipynb).\n'
            '    Uses :func:`~lib.shapley.exact_shapley` and :class:`NaiveBayesTables` (book eq. ``eq-nb-shapley``)."""')
    assert listings.render_roles(text, {"eq-nb-shapley": "L10"}) == (
        '    """Book: Eq. (L10), eq-nb-unknown (notebooks/x.ipynb).\n'
        '    Uses ``lib.shapley.exact_shapley`` and ``NaiveBayesTables`` (Eq. (L10))."""')
