"""The experiments' homes: notebooks and scripts share ``compendium/experiments/<result>.py``.

A notebook never loads a script (by file path or otherwise); each experiment module is imported
by the notebook that shows its result and by its command-line script when it has one, so a
constant (``ALPHAS``, ``BUDGET``) lives once; the maths modules never import an experiment, and
nothing an experiment defines is defined again in a maths module.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from compendium.data import REPO_ROOT

NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb"))
EXPERIMENTS = sorted(p.stem for p in (REPO_ROOT / "compendium" / "experiments").glob("*.py") if p.stem != "__init__")


def _code(path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.relative_to(REPO_ROOT / "notebooks").as_posix())
def test_no_notebook_loads_a_script(notebook) -> None:
    code = _code(notebook)
    assert "spec_from_file_location" not in code, f"{notebook.name} loads a module by file path"
    assert not re.search(r"^\s*(from|import)\s+scripts\b", code, re.M), f"{notebook.name} imports from scripts/"


def _imports(code: str, name: str) -> bool:
    """Whether ``code`` imports ``compendium.experiments.<name>`` (``from compendium.experiments import name``,
    ``from compendium.experiments.name import ...`` or ``import compendium.experiments.name``)."""
    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))  # IPython
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            if node.module == f"compendium.experiments.{name}":
                return True
            if node.module == "compendium.experiments" and name in (a.name for a in node.names):
                return True
        elif isinstance(node, ast.Import) and any(a.name == f"compendium.experiments.{name}" for a in node.names):
            return True
    return False


def _users(name: str) -> tuple[list[str], list[str]]:
    """The notebooks (stems) and the scripts (file names) that import ``compendium.experiments.<name>``."""
    notebooks = [nb.stem for nb in NOTEBOOKS if _imports(_code(nb), name)]
    scripts = [s.name for s in sorted((REPO_ROOT / "scripts").glob("*.py"))
               if _imports(s.read_text(encoding="utf-8"), name)]
    return notebooks, scripts


def _shown_by(name: str) -> list[str]:
    """The notebooks that an experiment's declared units name in ``shown_in`` and that read one of its files."""
    import importlib

    from compendium.regenerate.notebooks import literal_strings

    module = importlib.import_module(f"compendium.experiments.{name}")
    if not callable(getattr(module, "units", None)):
        return []
    units = module.units()
    files = {o for r in units for o in r.outputs}
    shown = sorted({nb for r in units for nb in r.shown_in})
    return [nb for nb in shown if files & literal_strings(_code(REPO_ROOT / f"{nb}.ipynb"))]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_is_imported_by_its_notebook_and_its_script(name: str) -> None:
    # the notebook that shows the stored result imports its home (or, for a module that only
    # declares a side-environment run's units and set-up, reads the files those units write); a
    # long run's script, when the result has one (scripts/<name>.py), takes its constants and
    # unit of work from it too
    notebooks, scripts = _users(name)
    assert notebooks or _shown_by(name), f"no notebook imports compendium.experiments.{name}: which result does it hold?"
    script = REPO_ROOT / "scripts" / f"{name}.py"
    if script.is_file():
        assert script.name in scripts, (
            f"scripts/{name}.py does not take its constants and unit of work from compendium.experiments.{name}"
        )


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_the_package_map_names_every_user_of_an_experiment(name: str) -> None:
    # compendium/experiments/__init__.py says, for each module, which notebooks and scripts use it
    import compendium.experiments

    entries = dict(re.findall(r"^(\w+)\n((?:    .*\n?)+)", compendium.experiments.__doc__ or "", re.M))
    entry = " ".join(entries.get(name, "").split())
    notebooks, scripts = _users(name)
    missing = [n for n in notebooks if f"``{n}``" not in entry] + [s for s in scripts if f"scripts/{s}" not in entry]
    assert not missing, f"the entry of {name} in compendium/experiments/__init__.py does not name {missing}"


MATHS_MODULES = sorted(p for p in (REPO_ROOT / "lib").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("path", MATHS_MODULES, ids=lambda p: p.name)
def test_no_maths_module_imports_an_experiment(path) -> None:
    # the methods do not depend on the experiments that use them (lib/__init__.py only names
    # the package, to load it on first use)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = ("." * node.level) + (node.module or "")
            names = [a.name for a in node.names]
            if module in ("compendium.experiments", ".experiments") or module.startswith(("compendium.experiments.", ".experiments.")) \
                    or (module in ("lib", ".") and "experiments" in names):
                bad.append(f"line {node.lineno}")
        elif isinstance(node, ast.Import):
            bad += [f"line {node.lineno}" for a in node.names if a.name.startswith("compendium.experiments")]
    assert not bad, f"lib/{path.name} imports compendium.experiments ({', '.join(bad)})"


def _top_level_names(path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return {n for n in names if not n.startswith("_") and n != "__all__"}


def test_an_experiments_name_lives_once() -> None:
    # what moved to compendium/experiments/ is not also defined in a maths module (no stale copy)
    homes: dict[str, list[str]] = {}
    for path in MATHS_MODULES + sorted((REPO_ROOT / "compendium" / "experiments").glob("*.py")):
        for n in _top_level_names(path):
            homes.setdefault(n, []).append(path.relative_to(REPO_ROOT).as_posix())
    # (experiments may share a shape: coal_grid and coal_many both have ALPHAS and run_pair)
    twice = {n: where for n, where in homes.items()
             if any(w.startswith("compendium/experiments/") for w in where)
             and not all(w.startswith("compendium/experiments/") for w in where)}
    assert not twice, f"defined both in an experiment and elsewhere in lib: {twice}"


@pytest.mark.parametrize(
    "code, imports",
    [
        ("from compendium.experiments import tv_real_data as rd\n", True),
        ("from compendium.experiments.tv_real_data import REAL_DATA_PROTOCOL\n", True),
        ("from compendium.experiments import (\n    coal_grid,\n    tv_real_data,\n)\n", True),
        ("from lib import typical_value as tv\n", False),
        ("from compendium.experiments import tv_real_data_extra\n", False),
        ("# from compendium.experiments import tv_real_data\n", False),
    ],
)
def test_the_import_check_reads_the_forms_in_use(code: str, imports: bool) -> None:
    assert _imports(code, "tv_real_data") is imports


def test_the_experiments_package_lists_its_modules() -> None:
    import compendium.experiments

    listed = set(re.findall(r"^(\w+)\n    ", compendium.experiments.__doc__ or "", re.M))
    assert listed == set(EXPERIMENTS)
