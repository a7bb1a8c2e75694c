"""The experiments' homes: notebooks and scripts share ``lib/experiments/<result>.py``.

A notebook never loads a script (by file path or otherwise), and each experiment module is the
one its command-line script imports, so a constant (``ALPHAS``, ``BUDGET``) lives once.
"""

from __future__ import annotations

import json
import re

import pytest

from lib.data import REPO_ROOT

NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb"))
EXPERIMENTS = sorted(p.stem for p in (REPO_ROOT / "lib" / "experiments").glob("*.py") if p.stem != "__init__")


def _code(path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.relative_to(REPO_ROOT / "notebooks").as_posix())
def test_no_notebook_loads_a_script(notebook) -> None:
    code = _code(notebook)
    assert "spec_from_file_location" not in code, f"{notebook.name} loads a module by file path"
    assert not re.search(r"^\s*(from|import)\s+scripts\b", code, re.M), f"{notebook.name} imports from scripts/"


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_has_its_script_and_the_script_imports_it(name: str) -> None:
    script = REPO_ROOT / "scripts" / f"{name}.py"
    assert script.is_file(), f"lib/experiments/{name}.py has no command-line script scripts/{name}.py"
    assert f"from lib.experiments.{name} import" in script.read_text(encoding="utf-8"), (
        f"scripts/{name}.py does not take its constants and unit of work from lib.experiments.{name}"
    )


def test_the_experiments_package_lists_its_modules() -> None:
    import lib.experiments

    listed = set(re.findall(r"^(\w+)\n    ", lib.experiments.__doc__ or "", re.M))
    assert listed == set(EXPERIMENTS)
