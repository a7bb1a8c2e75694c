"""``pip install -e .`` installs what ``lib`` needs (issue 32): every third-party package a module of
``lib`` imports is a dependency in ``pyproject.toml`` (at import time), or a dependency or an extra
(imported inside a function, for one use)."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from lib.tests.helpers import imported_packages

REPO_ROOT = Path(__file__).resolve().parents[2]  # the repository's root (lib never imports the book's machinery)

#: import name -> distribution name, where they differ
DISTRIBUTION = {"sklearn": "scikit-learn", "yaml": "pyyaml", "distributed": "dask", "myst_nb": "myst-nb",
                "IPython": "ipython"}

#: modules whose import-time dependency is an extra, with the reason
EXTRA_AT_IMPORT = {"lib.pyagrum_bridge": "pyagrum: the chapter 3 peer, the 'peers' extra"}


def _requirement_names(items: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!~ ;]", item, maxsplit=1)[0].lower() for item in items}


def _imports() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Third-party top-level packages imported at module level and inside functions, per module."""
    top: dict[str, set[str]] = {}
    nested: dict[str, set[str]] = {}
    std = set(sys.stdlib_module_names) | {"__future__"}
    for path in sorted(p for p in (REPO_ROOT / "lib").rglob("*.py") if "tests" not in p.parts):
        module = ".".join(path.relative_to(REPO_ROOT).with_suffix("").parts)
        for root, at_import in imported_packages(path):
            if root in std or root == "lib":
                continue
            (top if at_import else nested).setdefault(module, set()).add(DISTRIBUTION.get(root, root))
    return top, nested


def test_lib_imports_only_what_pyproject_installs() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = _requirement_names(project["dependencies"])
    extras = set().union(*(_requirement_names(v) for v in project["optional-dependencies"].values()))
    top, nested = _imports()
    missing = sorted(f"{m}: {p}" for m, pkgs in top.items() for p in pkgs
                     if p.lower() not in required and m not in EXTRA_AT_IMPORT)
    assert missing == [], f"imported when lib is imported but not a dependency of pyproject.toml: {missing}"
    unlisted = sorted(f"{m}: {p}" for m, pkgs in nested.items() for p in pkgs if p.lower() not in required | extras)
    assert unlisted == [], f"imported by a lib function but in no dependency or extra: {unlisted}"
    for module, reason in EXTRA_AT_IMPORT.items():
        assert top.get(module), f"{module} no longer imports an extra at import time ({reason}): drop it here"
        beyond = {p.lower() for p in top[module]} - required
        assert beyond and beyond <= extras, f"{module}: {reason}; imports {sorted(beyond)} beyond the dependencies"
    assert "numba" in required and "jupyter-book" not in required   # the two cases


def test_the_readmes_example_runs_and_gives_what_it_says() -> None:
    """The README's "Use the library" example, run as written: a result object whose explanation
    shap's plots take."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use the library", 1)[1]
    block = re.search(r"```python\n(.*?)\n```", section, re.S)
    assert block, "README.md's 'Use the library' has no python example"
    assert len(block.group(1).splitlines()) <= 5, "the README promises a five-line example"
    scope: dict = {}
    exec(compile(block.group(1), "README.md", "exec"), scope)  # noqa: S102 - the repository's own example
    result = scope["result"]
    # the default estimator, by its name: X[1] is one of the background rows, a stratum that costs
    # nothing to enumerate, so strata does not hand the whole estimate to the antithetic sampler
    assert result.values.shape == (5, 30, 2) and result.method == "strata"
    explanation = result.to_explanation()[0, :, 1]
    assert explanation.values.shape == (30,)
    assert abs(explanation.base_values + explanation.values.sum() - result.outputs[0, 1]) < 1e-9
