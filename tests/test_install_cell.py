"""Every notebook's first code cell installs the book's ``lib`` where it is missing (``tools/install_cell.py``).

The cell must be in every notebook, once, before every other code cell, folded, with no output
(so nbval's stored outputs are unchanged), and as the tool writes it today (``--check``): the
release of the repository's version, with the ``peers`` extra where a notebook uses Khiops or
pyAgrum. The tool must be idempotent (a second run changes nothing) and put back a cell that is
missing, outdated or moved. Where ``lib`` is installed the cell prints nothing and installs nothing;
that it installs ``lib`` where it is missing is run in ``tests/test_outside_clone.py``.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import install_cell  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*/*.ipynb"))
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
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


def test_the_cell_installs_this_versions_release_wheel() -> None:
    for peers in (False, True):
        req = Requirement(install_cell.requirement(ROOT, peers=peers))
        assert req.name == "shapley-book-lib" and req.extras == ({"peers"} if peers else set())
        assert req.url == (f"{REPOSITORY}/releases/download/v{VERSION}/"
                           f"shapley_book_lib-{VERSION}-py3-none-any.whl")
    uses = {p.relative_to(ROOT).as_posix() for p in NOTEBOOKS if install_cell.uses_peers(nbformat.read(p, 4))}
    assert "notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb" in uses       # Khiops
    assert "notebooks/03-same-decision-probability/05-ordinary-shapley-values.ipynb" in uses  # pyAgrum
    assert "notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb" not in uses


def test_the_tool_is_idempotent_and_repairs_the_cell(tmp_path: Path) -> None:
    source = ROOT / "notebooks" / "02-shapley-compositions" / "01-aitchison-geometry.ipynb"
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    assert not install_cell.update(path)                                   # as stored: nothing to do
    nb = nbformat.read(path, 4)
    stored = [c for c in nb.cells if c.get("id") != install_cell.CELL_ID]
    for broken in (
        stored,                                                            # no cell
        stored[:3] + [nb.cells[[c.get("id") for c in nb.cells].index(install_cell.CELL_ID)]] + stored[3:],  # moved
    ):
        nb.cells = broken
        nbformat.write(nb, path)
        assert install_cell.update(path) and not install_cell.update(path)
        assert path.read_bytes() == source.read_bytes()
    text = path.read_text(encoding="utf-8").replace(f"v{VERSION}/", "v0.0.1/")   # an older version's cell
    path.write_text(text, encoding="utf-8")
    assert install_cell.update(path) and path.read_bytes() == source.read_bytes()


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
