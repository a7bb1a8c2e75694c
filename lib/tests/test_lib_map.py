"""CONTRIBUTING.md's map of ``lib`` is in step with the files (issue 21).

Every module of ``lib`` (and each of its packages, ``experiments/``, ``data/``, ...) has one row of the table between
the ``lib-map`` markers, no row names a module that does not exist, and each row's chapters
are exactly the chapters whose notebooks import the module.
"""

from __future__ import annotations

import json
import re

import pytest

from lib.data import REPO_ROOT

BEGIN, END = "<!-- lib-map: begin -->", "<!-- lib-map: end -->"


def _map_rows(text: str) -> dict[str, str]:
    """``module -> chapters cell`` of the table between the markers."""
    if BEGIN not in text or END not in text:
        raise AssertionError(f"CONTRIBUTING.md has no table between {BEGIN} and {END}")
    block = text.split(BEGIN, 1)[1].split(END, 1)[0]
    rows = {}
    for line in block.splitlines():
        m = re.match(r"^\|\s*`([\w/]+)`\s*\|.*\|\s*([^|]*?)\s*\|\s*$", line)
        if m:
            if m.group(1) in rows:
                raise AssertionError(f"module {m.group(1)} has two rows")
            rows[m.group(1)] = m.group(2)
    return rows


def _chapters(cell: str) -> set[int]:
    cell = cell.strip()
    if cell in ("—", "-", ""):
        return set()
    return {int(c) for c in re.split(r",\s*", cell)}


def _modules() -> list[str]:
    mods = sorted(p.stem for p in (REPO_ROOT / "lib").glob("*.py") if p.stem != "__init__")
    packages = sorted(f"{p.parent.name}/" for p in (REPO_ROOT / "lib").glob("*/__init__.py") if p.parent.name != "tests")
    return mods + packages


def _imports(source: str, module: str) -> bool:
    name = module.rstrip("/")
    return bool(re.search(rf"(^\s*from lib import [^\n]*\b{name}\b|\blib\.{name}\b|^\s*from lib\.{name}\b)",
                          source, re.M))


def _importing_chapters(module: str) -> set[int]:
    found = set()
    for path in sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        if _imports(code, module):
            found.add(int(path.parent.name[:2]))
    return found


def test_every_module_has_one_row_and_every_row_a_module() -> None:
    rows = _map_rows((REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    missing = sorted(set(_modules()) - set(rows))
    stale = sorted(set(rows) - set(_modules()))
    assert not missing, f"modules missing from CONTRIBUTING.md's map of lib: {missing}"
    assert not stale, f"CONTRIBUTING.md's map of lib names modules that do not exist: {stale}"


@pytest.mark.parametrize("module", _modules())
def test_the_chapters_are_the_notebooks_imports(module: str) -> None:
    rows = _map_rows((REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    if module not in rows:
        pytest.fail(f"{module} has no row in CONTRIBUTING.md's map of lib")
    listed, actual = _chapters(rows[module]), _importing_chapters(module)
    assert listed == actual, (
        f"CONTRIBUTING.md's map says chapters {sorted(listed)} use lib {module}; their notebooks' "
        f"imports say {sorted(actual)}"
    )


@pytest.mark.parametrize(
    "source, module, imports",
    [
        ("from lib import coalitional as co\n", "coalitional", True),
        ("from lib import plotting, report\n", "report", True),
        ("x = lib.data.load_iris()\n", "data", True),
        ("from lib.experiments.coal_many import ALPHAS\n", "experiments/", True),
        ("from lib import coalitional as co\n", "grouping", False),
        ("from lib import shapley as sh\n", "_shapley_fast", False),
        ("import lib\n", "data", False),
    ],
)
def test_the_import_check_reads_the_forms_in_use(source: str, module: str, imports: bool) -> None:
    assert _imports(source, module) is imports


def test_the_table_reader_fails_on_a_missing_table() -> None:
    with pytest.raises(AssertionError, match="no table"):
        _map_rows("# nothing here\n")
    assert _map_rows(f"{BEGIN}\n| `a` | x | 1, 2 |\n| `b/` | y | — |\n{END}\n") == {"a": "1, 2", "b/": "—"}


def test_lib_all_is_the_maps_public_modules_and_each_is_reachable() -> None:
    """``lib.__all__`` lists exactly the map's public modules, and ``lib.<module>`` imports each
    (``import lib; lib.permutation_sampling`` works for every one of them)."""
    import lib

    rows = _map_rows((REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    public = sorted(name.rstrip("/") for name in rows if not name.startswith("_"))
    assert sorted(lib.__all__) == public, (
        f"lib.__all__ and CONTRIBUTING.md's map of lib differ: only in __all__ "
        f"{sorted(set(lib.__all__) - set(public))}, only in the map {sorted(set(public) - set(lib.__all__))}"
    )
    for name in public:
        assert getattr(lib, name).__name__ == f"lib.{name}"
    with pytest.raises(AttributeError):
        lib.not_a_module  # noqa: B018


def test_no_module_of_lib_is_over_850_lines() -> None:
    from pathlib import Path

    """One concept per module, each short enough to read: CONTRIBUTING's rooms of one concept
    (the tests excepted)."""
    root = Path(__file__).resolve().parents[1]
    long = {str(p.relative_to(root)): n for p in sorted(root.rglob("*.py"))
            if "tests" not in p.relative_to(root).parts
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > 850}
    assert long == {}, f"modules of lib over 850 lines (split them by concept): {long}"


def test_the_map_lib_all_and_the_docstring_come_from_one_list() -> None:
    """``lib.MODULES`` is the one list of public modules: ``lib.__all__`` is it, the ``lib`` docstring
    lists each with its summary, and CONTRIBUTING.md's map has a row for each, in the same order."""
    import lib

    assert lib.__all__ == sorted(lib.MODULES)
    for name, what in lib.MODULES.items():
        assert f"\n{name}\n    {what}\n" in (lib.__doc__ or "")
    rows = [name.rstrip("/") for name in _map_rows((REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
            if not name.startswith("_")]
    assert sorted(rows) == sorted(lib.MODULES)
