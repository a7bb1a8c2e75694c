"""Every notebook's first code cell installs the book's ``lib`` where it is missing (``tools/install_cell.py``).

The cell must be in every notebook, once, before every other code cell, folded, with no output
(so nbval's stored outputs are unchanged), and as the tool writes it today (``--check``), with the
``peers`` extra where a notebook uses Khiops or pyAgrum, and naming no version or commit (the
book's build writes the page's there, in the notebook a page offers for download and in a release).
The tool must be idempotent (a second run changes nothing) and put back a cell that is missing,
outdated or moved. Where ``lib`` is installed the cell prints nothing and installs nothing. Where it
is missing, the cell tries ``SHAPLEY_BOOK_LIB``, the release of the page's version, the repository at
the page's commit, in that order, and, when all fail, stops with one message and no traceback (run
here with pip replaced by a recorder; ``tests/test_outside_clone.py`` runs it for real, with the
network to the release cut off, and installs ``lib`` with it).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import install_cell  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*/*.ipynb"))
REPOSITORY = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_starts_its_code_with_the_install_cell(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    found = [c for c in nb.cells if c.get("id") == install_cell.CELL_ID]
    assert len(found) == 1 and code[0] is found[0], f"{path.name}: the install cell is not its first code cell"
    cell = found[0]
    assert cell.metadata.get("tags") == ["hide-input"] and cell.outputs == []
    assert "installs lib" in cell.metadata["mystnb"]["code_prompt_show"]
    assert cell.source == install_cell.source(ROOT, peers=install_cell.uses_peers(nb))
    assert not install_cell.update(path, write=False), f"{path.name}: run python tools/install_cell.py"


def test_the_cell_names_the_release_wheels_of_a_version() -> None:
    for peers in (False, True):
        req = Requirement(install_cell.requirement(ROOT, peers=peers, version="0.2.0"))
        assert req.name == "shapley-book-lib" and req.extras == ({"peers"} if peers else set())
        assert req.url == f"{REPOSITORY}/releases/download/v0.2.0/shapley_book_lib-0.2.0-py3-none-any.whl"
    assert install_cell.is_release("0.2.0") and not install_cell.is_release("0.3.0.dev12+g0123456789")
    uses = {p.relative_to(ROOT).as_posix() for p in NOTEBOOKS if install_cell.uses_peers(nbformat.read(p, 4))}
    assert "notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb" in uses       # Khiops
    assert "notebooks/03-same-decision-probability/05-ordinary-shapley-values.ipynb" in uses  # pyAgrum
    assert "notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb" not in uses


def test_the_repositorys_cell_names_no_version_and_a_build_fills_one_line() -> None:
    path = NOTEBOOKS[0]
    text = path.read_text(encoding="utf-8")
    assert install_cell.named(text) == {"version": "", "commit": ""}     # a commit cannot name itself
    filled = install_cell.fill(text, "0.2.0", "f" * 40)
    assert install_cell.named(filled) == {"version": "0.2.0", "commit": "f" * 40}
    changed = [(a, b) for a, b in zip(text.splitlines(), filled.splitlines()) if a != b]
    assert len(changed) == 1 and len(text.splitlines()) == len(filled.splitlines()), changed
    assert nbformat.reads(filled, 4).cells[1:] == nbformat.reads(text, 4).cells[1:] or all(
        a == b for a, b in zip(nbformat.reads(filled, 4).cells, nbformat.reads(text, 4).cells)
        if a.get("id") != install_cell.CELL_ID)
    assert install_cell.fill(filled, "9.9.9", "0" * 40) == filled      # a filled cell is left as it is


def _run_cell(monkeypatch: pytest.MonkeyPatch, *, version: str, commit: str, mine: str | None,
              works: set[str] = frozenset()) -> tuple[list[list[str]], BaseException | None]:
    """Run the cell of a page of ``version`` and ``commit`` where lib is missing, pip replaced by a recorder
    that installs only requirements containing a word of ``works``: what pip was asked, in order, and what
    the cell raised."""
    asked: list[list[str]] = []
    real_find_spec = importlib.util.find_spec

    def pip(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        requirements = cmd[cmd.index("20") + 1:]
        asked.append(requirements)
        ok = any(w in r for r in requirements for w in works)
        return subprocess.CompletedProcess(cmd, 0 if ok else 1, "", "" if ok else
                                           "ERROR: HTTPSConnectionPool(host='github.com'): Max retries exceeded")

    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "compendium" else real_find_spec(name, *a))  # lib alone is not enough
    monkeypatch.setattr(subprocess, "run", pip)
    if mine is None:
        monkeypatch.delenv(install_cell.ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(install_cell.ENV_VAR, mine)
    code = install_cell.fill(install_cell.source(ROOT, peers=True), version, commit)
    try:
        exec(compile(code, "install-cell", "exec"), {})  # noqa: S102 - the repository's own cell
    except Exception as err:  # noqa: BLE001 - what the cell raises is the subject of the test
        return asked, err
    return asked, None


def test_the_cell_tries_the_local_wheel_the_release_then_the_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    asked, err = _run_cell(monkeypatch, version="0.2.0", commit=commit, mine="wheels/shapley_book_lib-0.2.0.whl")
    at = f"{REPOSITORY}/releases/download/v0.2.0"
    assert asked == [
        ["wheels/shapley_book_lib-0.2.0.whl"],
        [f"shapley-book-lib[peers] @ {at}/shapley_book_lib-0.2.0-py3-none-any.whl",
         f"shapley-book-compendium @ {at}/shapley_book_compendium-0.2.0-py3-none-any.whl"],
        [f"shapley-book-lib[peers] @ git+{REPOSITORY}@{commit}",
         f"shapley-book-compendium @ git+{REPOSITORY}@{commit}#subdirectory=distributions/shapley-book-compendium"]]
    for requirements in asked[1:]:      # each a valid requirement, the compendium's project where it is
        reqs = [Requirement(r) for r in requirements]
        assert [r.name for r in reqs] == ["shapley-book-lib", "shapley-book-compendium"]
    assert (ROOT / "distributions" / "shapley-book-compendium" / "pyproject.toml").is_file()
    # all three failed: one message, what failed and the two ways on, shown by IPython without a traceback
    lines = err._render_traceback_()
    assert lines == str(err).splitlines() and len(lines) == 5, lines
    assert lines[0].startswith("lib and compendium, the book's library and its machinery, are not installed here")
    assert [ln.split(":")[0].strip() for ln in lines[1:4]] == [
        "SHAPLEY_BOOK_LIB", "the release v0.2.0", "the repository at commit 0123456789ab"]
    assert "Max retries exceeded" in lines[2]
    assert lines[4].startswith("Two ways on: set SHAPLEY_BOOK_LIB to the wheels") and f"clone {REPOSITORY}" in lines[4]
    # the first that works ends the tries, and the cell raises nothing
    asked, err = _run_cell(monkeypatch, version="0.2.0", commit=commit, mine=None, works={"releases/download"})
    assert err is None and len(asked) == 1 and "releases/download/v0.2.0" in asked[0][-1]
    # a development version has no release: its commit is tried after SHAPLEY_BOOK_LIB
    asked, err = _run_cell(monkeypatch, version="0.3.0.dev12+g0123456789", commit=commit, mine=None, works={"git+"})
    assert err is None and len(asked) == 1 and asked[0][0] == f"shapley-book-lib[peers] @ git+{REPOSITORY}@{commit}"
    # a folder of wheels: pip finds the page's version there
    asked, err = _run_cell(monkeypatch, version="0.2.0", commit=commit, mine=str(ROOT), works={"=="})
    assert err is None and asked == [["--find-links", str(ROOT), "shapley-book-lib[peers]==0.2.0",
                                      "shapley-book-compendium==0.2.0"]]


def test_the_repositorys_own_cell_outside_a_clone_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    asked, err = _run_cell(monkeypatch, version="", commit="", mine=None)
    assert asked == [] and "names no version of the book" in str(err) and "SHAPLEY_BOOK_LIB" in str(err)
    assert len(err._render_traceback_()) == 3


def test_the_tool_is_idempotent_and_repairs_the_cell(tmp_path: Path) -> None:
    source = ROOT / "notebooks" / "02-shapley-compositions" / "01-aitchison-geometry.ipynb"
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    assert not install_cell.update(path)                                   # as stored: nothing to do
    # the stored cell was executed (its execution count); a repaired one is not, until the notebook runs
    expected = nbformat.read(source, 4)
    expected.cells[[c.get("id") for c in expected.cells].index(install_cell.CELL_ID)].execution_count = None
    expected_bytes = (nbformat.writes(expected) + "\n").encode()
    nb = nbformat.read(path, 4)
    stored = [c for c in nb.cells if c.get("id") != install_cell.CELL_ID]
    for broken, wanted in (
        (stored, expected_bytes),                                          # no cell: a new one, not run
        (stored[:3] + [nb.cells[[c.get("id") for c in nb.cells].index(install_cell.CELL_ID)]] + stored[3:],
         source.read_bytes()),                                             # moved: the cell as it was
    ):
        nb.cells = broken
        nbformat.write(nb, path)
        assert install_cell.update(path) and not install_cell.update(path)
        assert path.read_bytes() == wanted
    text = path.read_text(encoding="utf-8").replace("-m\\\", \\\"pip\\\"", "-m\\\", \\\"pip3\\\"")  # an older cell
    assert text != path.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    assert install_cell.update(path) and path.read_bytes() == expected_bytes   # replaced: not run yet


def test_where_lib_is_installed_the_cell_does_nothing_and_prints_nothing(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-c", install_cell.source(ROOT)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env={"PATH": "", install_cell.ENV_VAR: "no-such-requirement"})
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_check_mode_reports_a_notebook_without_the_cell(tmp_path: Path) -> None:
    source = ROOT / "notebooks" / "02-shapley-compositions" / "01-aitchison-geometry.ipynb"
    nb = nbformat.read(source, 4)
    nb.cells = [c for c in nb.cells if c.get("id") != install_cell.CELL_ID]
    path = tmp_path / source.name
    nbformat.write(nb, path)
    run = subprocess.run([sys.executable, "tools/install_cell.py", "--check", str(path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 1 and "would change" in run.stdout
    assert nbformat.read(path, 4).cells == nb.cells                        # --check writes nothing
