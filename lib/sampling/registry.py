"""The registry of Shapley-value estimators: every estimator of :mod:`lib.sampling` by name, and the one way to run one.

An estimator (:mod:`lib.sampling.base`: ``estimate(game, budget, rng, options)``) registers itself
in its own module of the package; :func:`estimators` imports those modules (every public module of
the package but this one, :mod:`lib.sampling.base`, :mod:`lib.sampling.entry` and
:mod:`lib.sampling.walk`: :func:`estimator_modules`) and lists what they registered.  :func:`run` is the one way in: it
refuses an unknown method, options of another method, and a budget below the minimum (naming the
minimum), runs the estimator, and checks that it spent at most ``budget`` model rows per explained
row (the game's count), so that no method spends more than it was given.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

import numpy as np

from lib.games import Game
from lib.result import ShapleyResult
from lib.sampling.base import REGISTERED, Estimator

__all__ = ["DEFAULT", "NOT_ESTIMATORS", "estimator", "estimator_modules", "estimators", "run"]

#: The estimator :func:`lib.sampling.sample_shapley` uses when no ``method`` is given: the best one
#: measured against the newest peers (``benchmarks/estimators.py``).
DEFAULT = "strata"

#: The modules of :mod:`lib.sampling` that hold no estimator: the seam itself, and the walk the
#: estimators share.
NOT_ESTIMATORS = frozenset({"base", "registry", "entry", "walk"})


def estimator_modules() -> list[str]:
    """The modules :func:`estimators` imports to find the estimators (the registry's dynamic loads,
    which the import test of ``lib`` follows): every public module of the package but
    :data:`NOT_ESTIMATORS`."""
    folder = Path(__file__).resolve().parent
    return [f"lib.sampling.{info.name}" for info in sorted(pkgutil.iter_modules([str(folder)]), key=lambda i: i.name)
            if info.name not in NOT_ESTIMATORS and not info.name.startswith("_")]


def estimators() -> dict[str, Estimator]:
    """Every registered estimator by name, :data:`DEFAULT` first, then by name."""
    for module in estimator_modules():
        importlib.import_module(module)
    names = sorted(REGISTERED, key=lambda n: (n != DEFAULT, n))
    return {n: REGISTERED[n] for n in names}


def estimator(name: str) -> Estimator:
    """The estimator registered as ``name``, else a ``ValueError`` listing the names."""
    found = estimators()
    if name not in found:
        raise ValueError(f"method must be one of {list(found)}, got {name!r}")
    return found[name]


def run(game: Game, method: str, budget: int, rng: np.random.Generator, options: Any = None) -> ShapleyResult:
    """The estimate of ``method`` on ``game`` with at most ``budget`` model rows per explained row.

    ``options=None``: the method's defaults.  Refuses a ``budget`` below the method's minimum for
    this game (the message names it), options of another method, and an ``rng`` that is not a
    ``numpy.random.Generator``; after the run, checks the model rows the game counted
    (at most ``budget`` per explained row).
    """
    est = estimator(method)
    if options is None:
        options = est.options()
    if not isinstance(options, est.options):
        raise ValueError(f"options of method={method!r} are a {est.options.__name__} "
                         f"(lib.sampling.{est.module.rsplit('.', 1)[-1]}), got {type(options).__name__}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. np.random.default_rng(0)")
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ValueError(f"max_rows (model rows per explained row) must be an integer >= 1, got {budget!r}")
    least = int(est.minimum_rows(game, options))
    if budget < least:
        raise ValueError(
            f"max_rows={budget} is less than method={method!r} needs for one estimate here: at least {least} "
            f"model rows per explained row (f(x) once, the {game.m} background rows once, and {est.needs}); "
            f"give max_rows >= {least}"
        )
    before = game.model_rows
    result = est.function(game, int(budget), rng, options)
    spent = game.model_rows - before
    if spent > int(budget) * game.n:
        raise RuntimeError(f"method={method!r} spent {spent} model rows on {game.n} explained rows, more than "
                           f"max_rows={budget} each: a bug of the estimator ({est.module})")
    return result
