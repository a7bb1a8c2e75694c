"""Chapter 2: the compositions authors' scikit-learn (1.3) beside the book's, on their three set-ups.

Its home: the side environment's pins (:data:`PINS`), the calibration seeds (:data:`SEEDS`) and
the stored result it declares (:func:`units`). ``scripts/sklearn_versions.py`` runs the authors'
set-ups under both releases (the worker ``scripts/_sklearn_versions_worker.py`` runs in the side
environment, which cannot import ``lib``); ``notebooks/02-shapley-compositions/03-iris`` shows
the differences.
"""

from __future__ import annotations

from compendium.data import REPO_ROOT
from compendium.regenerate.result import Result

__all__ = ["OUT", "PINS", "SEEDS", "units"]

#: The side environment: the authors' scikit-learn minor release, with numpy/scipy wheels for Python 3.11.
PINS = ["scikit-learn==1.3.2", "numpy==1.26.4", "scipy==1.11.4"]
#: Calibration seeds (``random_state`` of the SVC), as many as chapter 2's spread uses.
SEEDS = list(range(8))
OUT = REPO_ROOT / "data" / "derived" / "comp-sklearn-versions.csv"


def units() -> list[Result]:
    """The stored result of ``scripts/sklearn_versions.py``: one run, both releases."""
    return [Result("comp-sklearn-versions", ("scripts/sklearn_versions.py", "--force"),
                   (OUT.relative_to(REPO_ROOT / "data" / "derived").as_posix(),), ("iris",), side_env="sklearn-1.3",
                   note="scikit-learn 1.3.2 fits the digits-10 PCA with its randomized solver, unseeded in the "
                        "authors' set-up, which the worker seeds through numpy's global generator",
                   shown_in=("notebooks/02-shapley-compositions/03-iris",))]
