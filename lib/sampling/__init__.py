"""Estimators of Shapley values past exact enumeration, as plug-ins on one seam.

:func:`sample_shapley` (its home: :mod:`lib.sampling.entry`) is the way in: it checks the model,
the rows and the background into one game (:class:`lib.games.Game`) and runs an estimator on it,
chosen by ``method=`` (a registered name; :data:`DEFAULT` when none is given) with ``options=``
(that method's options).  :func:`lib.compositions.sample_shapley_compositions` runs the same
estimators on the ILR coordinates of class probabilities.

Each estimator is one function of a game, a budget in model rows per explained row, a random
generator and its options object, registered by name in its own module of this package with
:func:`lib.sampling.base.register`; :mod:`lib.sampling.registry` finds them (:func:`estimators`)
and runs one (:func:`run`).  The estimators, one module each (the registry's list,
``lib.sampling.estimators()``, with each one's summary, is the one source of their names):

* :mod:`lib.sampling.strata` — background strata, each enumerated where that is no dearer than its
  walks, else walked;
* :mod:`lib.sampling.antithetic` — antithetic permutation sampling (Mitchell et al., 2022), orderings
  walked forwards and backwards, post-stratified by background row;
* :mod:`lib.sampling.strumbelj_kononenko` — Štrumbelj & Kononenko's Algorithms 1 and 2 (2014), one
  ordering and one background row per draw.
* :mod:`lib.sampling.control` — a control variate: a polynomial surrogate of the game whose Shapley
  values are exact, and antithetic walks of the residual only.

The walk that two of them share (an ordering and its reverse walked from a background row to the
instance) is :mod:`lib.sampling.walk`.  Adding an estimator is one new module here (its function,
decorated with :func:`lib.sampling.base.register`) and its test: the registry finds it, and
``lib/tests/test_sampling.py`` runs every registered estimator through the same checks (the budget
kept, the minimum refused, exact on an additive game).  No estimator imports the registry or this
entry (``lib/tests/test_seam.py``): the names below load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each public name of the package and the module that defines it (loaded on first use, so that an
#: estimator importing :mod:`lib.sampling.base` loads neither the registry nor the entry).
_HOMES = {
    "DEFAULT": "registry",
    "estimator": "registry",
    "estimators": "registry",
    "run": "registry",
    "Estimator": "base",
    "Options": "base",
    "register": "base",
    "sample_shapley": "entry",
    "adjust_efficiency": "entry",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
