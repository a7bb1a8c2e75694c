"""No code outside a module uses its private names (CONTRIBUTING.md §6, "Private names").

A name with a leading underscore is private to the module that defines it, and a module
``lib/_<owner>_<topic>.py`` is private to ``lib/<owner>.py`` (``lib/_shapley_fast.py`` to
``lib/shapley.py``).  What another module needs becomes public API of a public module.  This
test reads every ``lib`` module, ``compendium/experiments``, the scripts, benchmarks, tools, the book's
extension and every notebook's code, and fails on

* an import of a private module of ``lib`` by anything but its owner (``from lib import _x``,
  ``import lib._x``, ``from lib._x import ...``);
* an import of a private name from a ``lib`` module (``from lib.shapley import _RunningMoments``);
* a private attribute of a ``lib`` module (``lib.shapley._weights``, or ``sh._weights`` after
  ``from lib import shapley as sh``).

The tests of ``lib`` (``lib/tests``) may read private names: they test them.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from compendium.data import REPO_ROOT


def _owner(private_module: str) -> str:
    """``_shapley_fast`` -> ``shapley``: the public module a private module belongs to."""
    return private_module.lstrip("_").split("_", 1)[0]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def violations(source: str, importer: str) -> list[str]:
    """The private names of ``lib`` that ``source`` (the module ``importer``: ``shapley`` for
    ``lib/shapley.py``, or a path for anything else) uses, one message each."""
    tree = ast.parse(source)
    found: list[str] = []
    aliases: dict[str, str] = {}  # local name -> lib module it stands for

    def module_ok(module: str) -> bool:
        own = importer.split(".")[-1]
        return own == _owner(module) or (_private(own) and _owner(own) == _owner(module))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "lib" and len(parts) > 1:
                    if _private(parts[1]) and not module_ok(parts[1]):
                        found.append(f"import {a.name}")
                    if a.asname:
                        aliases[a.asname] = parts[1]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] != "lib":
                continue
            if len(parts) == 1:  # from lib import x [as y]
                for a in node.names:
                    if _private(a.name) and not module_ok(a.name):
                        found.append(f"from lib import {a.name}")
                    aliases[a.asname or a.name] = a.name
            else:
                if _private(parts[1]) and not module_ok(parts[1]):
                    found.append(f"from {node.module} import ...")
                for a in node.names:
                    if _private(a.name):
                        found.append(f"from {node.module} import {a.name}")
        elif isinstance(node, ast.ImportFrom) and node.level > 0:  # relative: from .x import _y
            for a in node.names:
                if _private(a.name) or (node.module and _private(node.module) and not module_ok(node.module)):
                    found.append(f"from {'.' * node.level}{node.module or ''} import {a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and base.id in aliases:
                found.append(f"{base.id}.{node.attr}")
            elif (isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name)
                  and base.value.id == "lib"):
                found.append(f"lib.{base.attr}.{node.attr}")
    return found


def _code_cells(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    lines = []
    for cell in cells:
        if cell["cell_type"] == "code":
            lines += [ln for ln in "".join(cell["source"]).splitlines() if not ln.lstrip().startswith(("%", "!"))]
            lines.append("")
    return "\n".join(lines)


def _sources() -> list[tuple[str, str, str]]:
    """``(shown name, importer, source)`` of every file checked."""
    out = []
    for path in sorted((REPO_ROOT / "lib").glob("*.py")):
        out.append((path.relative_to(REPO_ROOT).as_posix(), path.stem, path.read_text(encoding="utf-8")))
    for folder in ("compendium", "scripts", "benchmarks", "tools"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            rel = path.relative_to(REPO_ROOT).as_posix()
            out.append((rel, rel, path.read_text(encoding="utf-8")))
    for path in sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb")):
        rel = path.relative_to(REPO_ROOT).as_posix()
        out.append((rel, rel, _code_cells(path)))
    return out


@pytest.mark.parametrize("shown, importer, source", _sources(), ids=lambda v: v if "/" in str(v) else "")
def test_no_private_name_of_lib_is_used_outside_its_module(shown: str, importer: str, source: str) -> None:
    assert violations(source, importer) == [], f"{shown} uses private names of lib"


@pytest.mark.parametrize(
    "source, importer, flagged",
    [
        ("from lib import _shapley_fast\n", "scripts/x.py", True),
        ("from lib import _shapley_fast\n", "shapley", False),             # its owner
        ("from lib import _shapley_fast\n", "games", True),
        ("import lib._shapley_fast as fast\n", "coalitional", True),
        ("from lib._shapley_fast import shapley_values\n", "benchmarks/b.py", True),
        ("from lib.shapley import _RunningMoments\n", "permutation_sampling", True),
        ("from .shapley import _weights_without\n", "sdp", True),
        ("from lib import shapley as sh\nsh._weights_without(3)\n", "notebooks/a.ipynb", True),
        ("import lib\nlib.shapley._weights_without(3)\n", "scripts/y.py", True),
        ("from lib import shapley as sh\nsh.exact_shapley\nlib.__version__\n", "scripts/z.py", False),
        ("from lib.games import evaluate, mix_rows\n", "permutation_sampling", False),
    ],
)
def test_the_check_reads_the_forms_in_use(source: str, importer: str, flagged: bool) -> None:
    assert bool(violations(source, importer)) is flagged


def _public_modules() -> list[str]:
    return [p.stem for p in sorted((REPO_ROOT / "lib").glob("*.py")) if not p.stem.startswith("_")]


@pytest.mark.parametrize("module", _public_modules())
def test_no_public_module_exports_a_private_modules_names(module: str) -> None:
    # what a public module offers (its __all__) is defined in a public module: a name whose home
    # is private to one module would be imported by others through the re-export
    import importlib

    mod = importlib.import_module(f"lib.{module}")
    homes = {name: getattr(getattr(mod, name), "__module__", None) for name in getattr(mod, "__all__", [])}
    private = {name: home for name, home in homes.items()
               if home and home.startswith("lib.") and _private(home.split(".")[1])}
    assert private == {}, f"lib.{module}.__all__ offers names defined in private modules: {private}"
