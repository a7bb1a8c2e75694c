"""The registry of Shapley-value estimators: one function of a game each, registered by name.

An estimator is a function ``estimate(game, budget, rng, options) -> ShapleyResult`` of

* ``game``: a :class:`lib.games.Game` (the model, the checked rows and background, the names, and
  the count of model rows: evaluate only through the game);
* ``budget``: model rows per explained row, counted as if the row were explained alone — ``f(x)``
  once, the ``m`` background rows once (the exact base value), and the rows of the draws;
* ``rng``: a ``numpy.random.Generator``, the only source of randomness;
* ``options``: an instance of the options dataclass registered with it (a subclass of
  :class:`Options`).

It is registered with :func:`register` in its own module of :mod:`lib.sampling`, with its options
class and the least budget it needs (a function of the game and the options).  :func:`run` is
the one way in: it refuses an unknown method, options of another method, and a budget below the
minimum (naming the minimum), runs the estimator, and checks that it spent at most ``budget`` model
rows per explained row (the game's count), so that no method spends more than it was given.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from lib.games import Game
from lib.result import ShapleyResult
from lib.validation import check_budget, check_random

__all__ = ["DEFAULT", "Estimator", "Options", "estimator", "estimators", "register", "run"]

#: The estimator :func:`lib.shapley.sample_shapley` uses when no ``method`` is given: the best one
#: measured against the newest peers (``benchmarks/estimators.py``).
DEFAULT = "strata"


@dataclass(frozen=True)
class Options:
    """What every estimator's options share; each estimator subclasses it with its own fields.

    ``adjust``: spread the efficiency error of the estimates over the features, more where they are
    less precise (:func:`lib.shapley.adjust_efficiency`; for compositions, with the trace of each
    feature's covariance, :func:`lib.compositions.adjust_efficiency_compositions`), ``eps`` its ridge
    (the Shapley-composition paper's ε).  Applied by the public functions after the estimate.
    """

    adjust: bool = False
    eps: float = 1e-6


EstimatorFunction = Callable[[Game, int, np.random.Generator, Any], ShapleyResult]


@dataclass(frozen=True)
class Estimator:
    """A registered estimator: its ``name``, its ``function``, its ``options`` class, the least
    budget it needs (``minimum_rows(game, options)``, model rows per explained row), what that
    least budget buys (``needs``, for the message that refuses a smaller one) and its module."""

    name: str
    function: EstimatorFunction
    options: type[Options]
    minimum_rows: Callable[[Game, Any], int]
    needs: str
    module: str

    @property
    def summary(self) -> str:
        """The first line of the function's docstring."""
        return (self.function.__doc__ or "").strip().splitlines()[0] if self.function.__doc__ else ""


_REGISTRY: dict[str, Estimator] = {}
_LOADED = False


def register(name: str, *, options: type[Options], minimum_rows: Callable[[Game, Any], int],
             needs: str) -> Callable[[EstimatorFunction], EstimatorFunction]:
    """Register ``function(game, budget, rng, options)`` as the estimator ``name`` (a decorator).

    ``options``: its options dataclass (a subclass of :class:`Options`, every field with a default);
    ``minimum_rows(game, options)``: the least budget, in model rows per explained row, for which
    it can give an estimate; ``needs``: what that least budget buys, in words.
    """
    if not (isinstance(options, type) and issubclass(options, Options)):
        raise TypeError(f"options of estimator {name!r} must be a subclass of lib.sampling.Options")

    def wrap(function: EstimatorFunction) -> EstimatorFunction:
        if name in _REGISTRY and _REGISTRY[name].function is not function:
            raise ValueError(f"two estimators named {name!r}: {_REGISTRY[name].module} and {function.__module__}")
        _REGISTRY[name] = Estimator(name, function, options, minimum_rows, needs, function.__module__)
        return function
    return wrap


def _load() -> None:
    """Import every module of :mod:`lib.sampling` once, so that each registers its estimators."""
    global _LOADED
    if _LOADED:
        return
    package = importlib.import_module("lib.sampling")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name != "registry" and not info.name.startswith("_"):
            importlib.import_module(f"lib.sampling.{info.name}")
    _LOADED = True


def estimators() -> dict[str, Estimator]:
    """Every registered estimator by name, :data:`DEFAULT` first, then by name."""
    _load()
    names = sorted(_REGISTRY, key=lambda n: (n != DEFAULT, n))
    return {n: _REGISTRY[n] for n in names}


def estimator(name: str) -> Estimator:
    """The estimator registered as ``name``, else a ``ValueError`` listing the names."""
    found = estimators()
    if name not in found:
        raise ValueError(f"method must be one of {list(found)}, got {name!r}")
    return found[name]


def run(game: Game, method: str, budget: int, rng: np.random.Generator, options: Any = None) -> ShapleyResult:
    """The estimate of ``method`` on ``game`` with at most ``budget`` model rows per explained row.

    ``options=None``: the method's defaults.  Refuses a ``budget`` below the method's minimum for
    this game or not an integer (the message names the budget to give), options of another method,
    and an ``rng`` that is neither an int seed nor a ``numpy.random.Generator``
    (:func:`lib.validation.check_random`: an int ``s`` is ``numpy.random.default_rng(s)``, as
    scikit-learn takes seeds); after the run, checks the model rows the game counted (at most
    ``budget`` per explained row).
    """
    est = estimator(method)
    if options is None:
        options = est.options()
    if not isinstance(options, est.options):
        raise ValueError(f"options of method={method!r} are a {est.options.__name__} "
                         f"(lib.sampling.{est.module.rsplit('.', 1)[-1]}), got {type(options).__name__}")
    rng = check_random(rng)
    least = int(est.minimum_rows(game, options))
    if isinstance(budget, (int, np.integer)) and not isinstance(budget, (bool, np.bool_)) and budget < least:
        raise ValueError(
            f"max_rows={budget} is less than method={method!r} needs for one estimate here: at least {least} "
            f"model rows per explained row (f(x) once, the {game.m} background rows once, and {est.needs}); "
            f"give max_rows >= {least}"
        )
    budget = check_budget(budget, "max_rows", least)
    before = game.model_rows
    result = est.function(game, int(budget), rng, options)
    spent = game.model_rows - before
    if spent > int(budget) * game.n:
        raise RuntimeError(f"method={method!r} spent {spent} model rows on {game.n} explained rows, more than "
                           f"max_rows={budget} each: a bug of the estimator ({est.module})")
    return result
