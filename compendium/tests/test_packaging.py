"""The book's machinery is a distribution of its own (issue 48): ``shapley-book-compendium``
(``distributions/shapley-book-compendium/``), beside the methods' ``shapley-book-lib`` (the root project).

Every third-party package a module of ``compendium`` imports is a dependency of it (at import time) or
of an extra (imported inside a function, or by the Sphinx extensions, which only a book build loads); it
needs ``shapley-book-lib`` at exactly its own version, both versions come from one setuptools-scm
configuration, and a clone's set-up (``requirements.txt``, ``environment.yml``) installs it editable.
The wheels themselves are built and opened in ``tests/test_release.py`` and installed outside a clone in
``tests/test_outside_clone.py``."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from lib.tests.helpers import imported_packages

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "distributions" / "shapley-book-compendium"
#: import name -> distribution name, where they differ
DISTRIBUTION = {"sklearn": "scikit-learn", "yaml": "pyyaml", "distributed": "dask", "bs4": "beautifulsoup4",
                "PIL": "pillow", "IPython": "ipython", "xgboost": "xgboost-cpu"}


def _names(items: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!~ ;]", item, maxsplit=1)[0].lower() for item in items}


def _setup_constant(name: str) -> list[str]:
    tree = ast.parse((PROJECT / "setup.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == name)
    return list(ast.literal_eval(node.value))


def test_compendium_imports_only_what_its_distribution_installs() -> None:
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = _names(_setup_constant("REQUIRES"))
    extras = {k: _names(v) for k, v in project["optional-dependencies"].items()}
    std = set(sys.stdlib_module_names) | {"__future__", "lib", "compendium", "install_cell"}
    missing = []
    for path in sorted(p for p in (ROOT / "compendium").rglob("*.py") if "tests" not in p.parts):
        sphinx = "sphinx" in path.relative_to(ROOT).parts
        for name, at_import in imported_packages(path):
            if name in std:
                continue
            dist = DISTRIBUTION.get(name, name).lower()
            allowed = required if at_import and not sphinx else required | set().union(*extras.values())
            if dist not in allowed:
                missing.append(f"{path.relative_to(ROOT)}: {dist}")
    assert missing == [], f"imported by compendium but in no dependency or extra of its distribution: {missing}"
    assert {"jupyter-book", "sphinx"} <= extras["book"] and "dask" in extras["cluster"]


def test_one_version_for_both_distributions_and_the_machinery_needs_exactly_it() -> None:
    setup = (PROJECT / "setup.py").read_text(encoding="utf-8")
    assert 'install_requires=[f"shapley-book-lib=={VERSION}", *REQUIRES]' in setup
    assert '["tool"]["setuptools_scm"]' in setup              # the root project's configuration, read once
    pyproject = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["dynamic"] == ["version", "dependencies"] and "tool" not in pyproject
    root = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["build-system"] == root["build-system"]        # the same pinned build requirements
    assert root["tool"]["setuptools"]["packages"]["find"] == {"include": ["lib", "lib.*"],
                                                               "exclude": ["lib.tests", "lib.tests.*"]}
    # installed here by the README's set-up: both editable, at one version, the machinery requiring the methods'
    assert metadata.version("shapley-book-compendium") == metadata.version("shapley-book-lib")
    assert f"shapley-book-lib=={metadata.version('shapley-book-lib')}" in metadata.requires("shapley-book-compendium")


def test_a_clone_installs_the_machinery_editable_beside_lib() -> None:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert "-e distributions/shapley-book-compendium" in lines
    assert "      - -e distributions/shapley-book-compendium" in (ROOT / "environment.yml").read_text().splitlines()
    import compendium

    assert Path(compendium.__file__).resolve().parent == ROOT / "compendium"
