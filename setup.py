"""The package ``lib`` carries what it reads from the repository (``pyproject.toml`` holds the rest).

A wheel of the book runs away from the repository (a notebook in Colab installs it): it carries
``data/MANIFEST.yaml`` (every data set's files, sources and sha256) and ``data/derived/`` (the stored
results the notebooks read), copied into ``compendium/_repository/`` when the package is built, from which
``compendium.data.book_root`` sets up the book's folder outside a clone. One copy of each file stays in the
repository; an editable install (``pip install -e .``) reads them there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
CARRIED = ("data/MANIFEST.yaml", "data/derived")


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


setup(cmdclass={"build_py": BuildWithRepositoryFiles})
