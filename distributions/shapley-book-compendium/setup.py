"""The distribution shapley-book-compendium, built from the repository two folders up (pyproject.toml beside
this file holds the rest).

- Its version is the repository's: setuptools-scm's, with the root ``pyproject.toml``'s
  ``[tool.setuptools_scm]`` (one configuration for both distributions; ``SETUPTOOLS_SCM_PRETEND_VERSION``
  names it where there is no git, as ``tools/release.py`` does).
- It depends on ``shapley-book-lib`` at exactly that version, and on what ``compendium`` imports.
- Its packages are ``compendium`` and its subpackages, from the repository's root, without ``compendium.tests``.
- A wheel carries ``data/MANIFEST.yaml`` (every data set's files, sources and sha256) and ``data/derived/``
  (the stored results the notebooks read), copied into ``compendium/_repository/`` when it is built, from
  which ``compendium.data.book_root`` sets up the book's folder outside a clone. One copy of each file stays
  in the repository; an editable install reads them there.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CARRIED = ("data/MANIFEST.yaml", "data/derived")
#: what compendium imports beyond the methods (numpy, pandas, scipy, scikit-learn, shap, matplotlib, joblib,
#: threadpoolctl, tqdm and pyyaml also come with shapley-book-lib; compendium/tests/test_packaging.py checks)
REQUIRES = ["numpy>=2.0", "pandas>=2.2", "scipy>=1.13", "scikit-learn>=1.5", "shap>=0.46", "matplotlib>=3.8",
            "joblib>=1.3", "threadpoolctl>=3.1", "tqdm>=4.66", "pyyaml>=6.0"]


def repository_version() -> str:
    from setuptools_scm import get_version

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools_scm"]
    return get_version(root=str(ROOT), **config)


class BuildWithRepositoryFiles(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "compendium" / "_repository"
        if target.exists():
            shutil.rmtree(target)
        for rel in CARRIED:
            source = ROOT / rel
            if source.is_dir():
                shutil.copytree(source, target / rel, ignore=shutil.ignore_patterns("__pycache__", ".*"))
            elif source.is_file():
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target / rel)
            else:
                raise FileNotFoundError(f"{rel}: the package carries it, and it is not in {ROOT}")


VERSION = repository_version()
setup(
    version=VERSION,
    install_requires=[f"shapley-book-lib=={VERSION}", *REQUIRES],
    package_dir={"": "../.."},
    packages=find_packages(str(ROOT), include=["compendium", "compendium.*"],
                           exclude=["compendium.tests", "compendium.tests.*"]),
    cmdclass={"build_py": BuildWithRepositoryFiles},
)
