"""CONTRIBUTING.md's maps of ``lib`` and ``compendium`` are in step with the files (issues 21, 48).

The two packages each have a map, a table between their markers (``lib-map``, ``compendium-map``):
every module of the package (and each of its subpackages, ``sampling/``, ``data/``, ...) has one
row, no row names a module that does not exist, and each row's chapters are exactly the chapters
whose notebooks import the module. The arrow between them goes one way: ``compendium`` (the book's
machinery) imports ``lib`` (the methods), and nothing under ``lib/`` imports ``compendium``.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("lib", "compendium")


def _markers(package: str) -> tuple[str, str]:
    return f"<!-- {package}-map: begin -->", f"<!-- {package}-map: end -->"


def _map_rows(text: str, package: str = "lib") -> dict[str, str]:
    """``module -> chapters cell`` of the package's table between its markers."""
    begin, end = _markers(package)
    if begin not in text or end not in text:
        raise AssertionError(f"CONTRIBUTING.md has no table between {begin} and {end}")
    block = text.split(begin, 1)[1].split(end, 1)[0]
    rows = {}
    for line in block.splitlines():
        m = re.match(r"^\|\s*`([\w/]+)`\s*\|.*\|\s*([^|]*?)\s*\|\s*$", line)
        if m:
            if m.group(1) in rows:
                raise AssertionError(f"module {m.group(1)} has two rows")
            rows[m.group(1)] = m.group(2)
    return rows


def _contributing() -> str:
    return (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def _chapters(cell: str) -> set[int]:
    cell = cell.strip()
    if cell in ("—", "-", ""):
        return set()
    return {int(c) for c in re.split(r",\s*", cell)}


def _modules(package: str) -> list[str]:
    root = REPO_ROOT / package
    mods = sorted(p.stem for p in root.glob("*.py") if p.stem != "__init__")
    packages = sorted(f"{p.parent.name}/" for p in root.glob("*/__init__.py") if p.parent.name != "tests")
    return mods + packages


def _imports(source: str, module: str, package: str = "lib") -> bool:
    name = module.rstrip("/")
    return bool(re.search(rf"(^\s*from {package} import [^\n]*\b{name}\b|\b{package}\.{name}\b|^\s*from {package}\.{name}\b)",
                          source, re.M))


def _importing_chapters(module: str, package: str) -> set[int]:
    found = set()
    for path in sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        if _imports(code, module, package):
            found.add(int(path.parent.name[:2]))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_has_one_row_and_every_row_a_module(package: str) -> None:
    rows = _map_rows(_contributing(), package)
    missing = sorted(set(_modules(package)) - set(rows))
    stale = sorted(set(rows) - set(_modules(package)))
    assert not missing, f"modules missing from CONTRIBUTING.md's map of {package}: {missing}"
    assert not stale, f"CONTRIBUTING.md's map of {package} names modules that do not exist: {stale}"


@pytest.mark.parametrize("package, module", [(p, m) for p in PACKAGES for m in _modules(p)])
def test_the_chapters_are_the_notebooks_imports(package: str, module: str) -> None:
    rows = _map_rows(_contributing(), package)
    if module not in rows:
        pytest.fail(f"{module} has no row in CONTRIBUTING.md's map of {package}")
    listed, actual = _chapters(rows[module]), _importing_chapters(module, package)
    assert listed == actual, (
        f"CONTRIBUTING.md's map says chapters {sorted(listed)} use {package} {module}; their notebooks' "
        f"imports say {sorted(actual)}"
    )


@pytest.mark.parametrize(
    "source, module, package, imports",
    [
        ("from lib import coalitional as co\n", "coalitional", "lib", True),
        ("from compendium import plotting, report\n", "report", "compendium", True),
        ("x = compendium.data.load_iris()\n", "data", "compendium", True),
        ("from compendium.experiments.coal_many import ALPHAS\n", "experiments/", "compendium", True),
        ("from lib import coalitional as co\n", "grouping", "lib", False),
        ("from lib import shapley as sh\n", "_shapley_fast", "lib", False),
        ("import compendium\n", "data", "compendium", False),
        ("x = compendium.data.load_iris()\n", "data", "lib", False),
    ],
)
def test_the_import_check_reads_the_forms_in_use(source: str, module: str, package: str, imports: bool) -> None:
    assert _imports(source, module, package) is imports


def test_the_table_reader_fails_on_a_missing_table() -> None:
    with pytest.raises(AssertionError, match="no table"):
        _map_rows("# nothing here\n")
    begin, end = _markers("lib")
    assert _map_rows(f"{begin}\n| `a` | x | 1, 2 |\n| `b/` | y | — |\n{end}\n") == {"a": "1, 2", "b/": "—"}


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_the_maps_public_modules_and_each_is_reachable(package: str) -> None:
    """``<package>.__all__`` lists exactly the map's public modules, and ``<package>.<module>``
    imports each (``import lib; lib.permutation_sampling`` works for every one of them)."""
    pkg = importlib.import_module(package)
    rows = _map_rows(_contributing(), package)
    public = sorted(name.rstrip("/") for name in rows if not name.startswith("_"))
    assert sorted(pkg.__all__) == public, (
        f"{package}.__all__ and CONTRIBUTING.md's map of {package} differ: only in __all__ "
        f"{sorted(set(pkg.__all__) - set(public))}, only in the map {sorted(set(public) - set(pkg.__all__))}"
    )
    for name in public:
        assert getattr(pkg, name).__name__ == f"{package}.{name}"
    with pytest.raises(AttributeError):
        pkg.not_a_module  # noqa: B018


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_is_over_850_lines(package: str) -> None:
    """One concept per module, each short enough to read: CONTRIBUTING's rooms of one concept
    (the tests excepted)."""
    root = REPO_ROOT / package
    long = {str(p.relative_to(REPO_ROOT)): n for p in sorted(root.rglob("*.py"))
            if "tests" not in p.relative_to(root).parts
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > 850}
    assert long == {}, f"modules of {package} over 850 lines (split them by concept): {long}"


@pytest.mark.parametrize("package", PACKAGES)
def test_the_map_all_and_the_docstring_come_from_one_list(package: str) -> None:
    """``<package>.MODULES`` is the one list of public modules: ``__all__`` is it, the package's
    docstring lists each with its summary, and CONTRIBUTING.md's map has a row for each."""
    pkg = importlib.import_module(package)
    assert pkg.__all__ == sorted(pkg.MODULES)
    for name, what in pkg.MODULES.items():
        assert f"\n{name}\n    {what}\n" in (pkg.__doc__ or "")
    rows = [name.rstrip("/") for name in _map_rows(_contributing(), package) if not name.startswith("_")]
    assert sorted(rows) == sorted(pkg.MODULES)


def _imported_roots(source: str) -> set[str]:
    """Top-level names of every module an ``import`` statement names, at any depth of the code."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            found.add(str(node.args[0].value).split(".")[0])
    return found


def test_nothing_under_lib_imports_the_books_machinery() -> None:
    """The one-way arrow: ``lib`` (its tests included) never imports ``compendium``."""
    offenders = sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "lib").rglob("*.py")
                       if "compendium" in _imported_roots(p.read_text(encoding="utf-8")))
    assert offenders == [], f"lib imports the book's machinery (compendium) in {offenders}"


@pytest.mark.parametrize("source, found", [
    ("import compendium.data\n", True),
    ("def f():\n    from compendium import report\n", True),
    ("importlib.import_module('compendium.page')\n", True),
    ("x = 'compendium'\nimport lib\n", False),
])
def test_the_arrow_check_reads_every_form_of_import(source: str, found: bool) -> None:
    assert ("compendium" in _imported_roots(source)) is found


def test_a_name_that_moved_to_compendium_says_where_it_went() -> None:
    import lib

    for name in lib.MOVED_TO_COMPENDIUM:
        assert name in importlib.import_module("compendium").MODULES
        with pytest.raises(AttributeError, match=rf"lib\.{name} is now compendium\.{name}"):
            getattr(lib, name)
