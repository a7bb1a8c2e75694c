"""Deprecated: antithetic permutation sampling moved to :mod:`lib.sampling.antithetic`.

Book: :ref:`eq-found-shapley-perm` (notebooks/00-foundations/01-shapley-values.ipynb).

The estimator is now a plug-in of :mod:`lib.sampling`, run by
``lib.sampling.sample_shapley(model, X, background, max_rows=..., rng=..., method="antithetic")``.
This module keeps its names for one release: :func:`antithetic_shapley`
warns (``DeprecationWarning``) and calls it; :func:`antithetic_rows`, :func:`walk_rows` and
:func:`pairs_for_budget` are :mod:`lib.sampling.antithetic`'s.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from lib.games import Game
from lib.result import ShapleyResult
from lib.sampling import run
from lib.sampling.antithetic import AntitheticOptions, antithetic_rows, pairs_for_budget, walk_rows
from lib.entry_points import entry_point

__all__ = ["antithetic_rows", "antithetic_shapley", "pairs_for_budget", "walk_rows"]


@entry_point(model="f", rows=("X", "background"), budget=("max_rows", 60), seed="rng", output=False,
             allow_nan=True)
def antithetic_shapley(
    f: Callable[[Any], Any],
    X: Any,
    background: Any,
    *,
    n_pairs: int | None = None,
    max_rows: int | None = None,
    rng: np.random.Generator,
    background_per_pair: int = 1,
    max_rows_per_call: int = 2**16,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    allow_nan: bool = False,
) -> ShapleyResult:
    """Deprecated: ``lib.sampling.sample_shapley(..., method="antithetic")``.

    Book: :ref:`eq-found-shapley-perm` (notebooks/00-foundations/01-shapley-values.ipynb).

    ``max_rows`` as there; ``n_pairs`` is ``AntitheticOptions(n_pairs=...)`` (with a budget large
    enough to pay for the pairs).
    """
    warnings.warn("lib.permutation_sampling.antithetic_shapley is deprecated and will be removed in the next "
                  "release: use lib.sampling.sample_shapley(model, X, background, max_rows=..., rng=..., "
                  "method='antithetic', options=lib.sampling.antithetic.AntitheticOptions(...))",
                  DeprecationWarning, stacklevel=2)
    if (n_pairs is None) == (max_rows is None):
        raise ValueError("give exactly one of n_pairs (orderings per row) and max_rows (model rows per row)")
    game = Game(f, X, background, feature_names=feature_names, output_names=output_names, allow_nan=allow_nan,
                max_rows_per_call=max_rows_per_call)
    options = AntitheticOptions(background_per_pair=background_per_pair, n_pairs=n_pairs)
    budget = max_rows if max_rows is not None else 1 + game.m + 2 * int(n_pairs) * int(background_per_pair) * max(game.d - 1, 0)
    return replace(run(game, "antithetic", budget, rng, options), model_rows=game.model_rows)
