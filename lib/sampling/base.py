"""What an estimator of :mod:`lib.sampling` is: its options, its record, and the decorator that registers it.

An estimator is a function ``estimate(game, budget, rng, options) -> ShapleyResult`` of

* ``game``: a :class:`lib.games.Game` (the model, the checked rows and background, the names, and
  the count of model rows: evaluate only through the game);
* ``budget``: model rows per explained row, counted as if the row were explained alone — ``f(x)``
  once, the ``m`` background rows once (the exact base value), and the rows of the draws;
* ``rng``: a ``numpy.random.Generator``, the only source of randomness;
* ``options``: an instance of the options dataclass registered with it (a subclass of
  :class:`Options`).

It is registered with :func:`register` in its own module of :mod:`lib.sampling`, with its options
class and the least budget it needs.  This module is the bottom of the package: an estimator
imports it (and :mod:`lib.games`, :mod:`lib.formula`, :mod:`lib.sampling.walk`), never the module
that dispatches to it (:mod:`lib.sampling.registry`, which finds the estimators by importing the
package's modules) nor the entry point (:func:`lib.sampling.sample_shapley`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from lib.games import Game
from lib.result import ShapleyResult

__all__ = ["REGISTERED", "Estimator", "EstimatorFunction", "Options", "register"]


@dataclass(frozen=True)
class Options:
    """What every estimator's options share; each estimator subclasses it with its own fields.

    ``adjust``: spread the efficiency error of the estimates over the features, more where they are
    less precise (:func:`lib.sampling.adjust_efficiency`; for compositions, with the trace of each
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
    least budget buys (``needs``, for the message that refuses a smaller one), its module, and,
    where it has one, the budget from which its estimate is exact (``exact_rows(game, options)``,
    ``(n,)`` model rows per explained row; ``None``: no such budget is known)."""

    name: str
    function: EstimatorFunction
    options: type[Options]
    minimum_rows: Callable[[Game, Any], int]
    needs: str
    module: str
    exact_rows: Callable[[Game, Any], np.ndarray] | None = None

    @property
    def summary(self) -> str:
        """The first line of the function's docstring."""
        return (self.function.__doc__ or "").strip().splitlines()[0] if self.function.__doc__ else ""


#: Every estimator registered so far, by name (filled by :func:`register` as the estimators'
#: modules are imported; :func:`lib.sampling.registry.estimators` imports them all first).
REGISTERED: dict[str, Estimator] = {}


def register(name: str, *, options: type[Options], minimum_rows: Callable[[Game, Any], int],
             needs: str, exact_rows: Callable[[Game, Any], np.ndarray] | None = None,
             ) -> Callable[[EstimatorFunction], EstimatorFunction]:
    """Register ``function(game, budget, rng, options)`` as the estimator ``name`` (a decorator).

    ``options``: its options dataclass (a subclass of :class:`Options`, every field with a default);
    ``minimum_rows(game, options)``: the least budget, in model rows per explained row, for which
    it can give an estimate; ``needs``: what that least budget buys, in words; ``exact_rows(game,
    options)`` (optional): for each explained row, the budget from which the estimate is exact (the
    sequential rounds of ``tol`` then compute it so, :func:`lib.sampling.registry.sequential`).
    """
    if not (isinstance(options, type) and issubclass(options, Options)):
        raise TypeError(f"options of estimator {name!r} must be a subclass of lib.sampling.Options")

    def wrap(function: EstimatorFunction) -> EstimatorFunction:
        if name in REGISTERED and REGISTERED[name].function is not function:
            raise ValueError(f"two estimators named {name!r}: {REGISTERED[name].module} and {function.__module__}")
        REGISTERED[name] = Estimator(name, function, options, minimum_rows, needs, function.__module__,
                                     exact_rows)
        return function
    return wrap
