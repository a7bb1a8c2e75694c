"""The exact engine of the book: interventional Shapley values by enumeration, the ground truth.

For a model output ``f`` and an instance ``x`` the *interventional* game of Lundberg & Lee (2017)
and Štrumbelj & Kononenko (2014) replaces the absent features by background rows ``b``:
``v_x(S) = mean_b f(x_S, b_{-S})`` (book eq. ``eq-found-interventional``); its Shapley values are
the formula of :mod:`lib.formula` (book eq. ``eq-found-shapley``) over the ``2**d`` coalitions
(bitmasks, as there).  Shapes follow shap's conventions: values are ``(n, d)`` for a single-output
model and ``(n, d, k)`` for ``k`` outputs; base values are ``(n,)`` or ``(n, k)``.

The exact engine (:func:`exact_shapley`) has two paths to the same numbers
(CONTRIBUTING.md, "The exact engine"):

* the *reference path* for float arrays: the game's ``2**d`` values (the model on every hybrid
  row, each coalition's value the mean over the background, built in cache-sized blocks by the
  private :mod:`lib._shapley_blocks`), then the formula (:func:`lib.formula.shapley_from_game`);
* the *fast path*, for discretised data (arrays of integers or booleans, DataFrames): the
  private :mod:`lib._shapley_fast` asks the model for each distinct hybrid row once and sums
  the Shapley values background row by background row.

The input's type chooses the path (:func:`exact_path`), never its size; the two agree to
``1e-12`` (``lib/tests/test_shapley_paths.py``) and with the game's plain value function
(:meth:`lib.games.Game.coalition_values`, the equation in numpy).  Every public function here
builds one checked game (:class:`lib.games.Game`) from its inputs and hands it down; the
estimators past exact enumeration are :mod:`lib.sampling`'s plug-ins, run by
:func:`lib.sampling.sample_shapley`.  The result type is :class:`lib.result.ShapleyResult`.

The formula's functions (``shapley_from_game``, ``shapley_weights``, ``coalition_masks``,
``game_size``), ``sample_shapley``, ``adjust_efficiency`` and ``sampling_rows`` lived here before the
engine was split into one module per role: they still import from here for one release, with a
``DeprecationWarning`` naming their home.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from lib.counting import ANNOUNCE_FEATURES, cost_bar
from lib.formula import shapley_from_game
from lib.games import MAX_EXACT_FEATURES, Game, as_game, bitmask_rows
from lib.result import ShapleyResult
from lib.validation import as_rows, check_enumerable

__all__ = ["ShapleyResult", "exact_path", "exact_shapley"]

Model = Callable[[Any], Any]
ArrayOrFrame = np.ndarray | pd.DataFrame


# ---------------------------------------------------------------------------
# Results, and the exact engine
# ---------------------------------------------------------------------------


def exact_path(X: ArrayOrFrame | np.typing.ArrayLike,
               background: ArrayOrFrame | np.typing.ArrayLike) -> Literal["fast", "reference"]:
    """The path :func:`exact_shapley` takes for these inputs, decided by their types alone.

    ``"fast"`` for discretised data — DataFrames (columns compared through their values, or
    their codes if categorical) and arrays of integers or booleans — where hybrid rows
    coincide whenever a background row agrees with ``x`` on some features: each distinct row is
    evaluated once (:mod:`lib._shapley_fast`).  ``"reference"`` for every other array (floats):
    the game's ``2**d`` values, then :func:`shapley_from_game`.  Never the inputs' sizes: a row
    gets the same values whatever rows are explained with it.  Discretised data stored as
    floats (part indices, category codes) take the fast path once given as integers
    (``X.astype(np.int64)``), if the model accepts them.
    """
    X, background = as_rows(X), as_rows(background, "background")
    if isinstance(X, pd.DataFrame):
        return "fast"
    return "fast" if X.dtype.kind in "biu" and background.dtype.kind in "biu" else "reference"


def exact_shapley(
    f: Model | Game,
    X: ArrayOrFrame | np.typing.ArrayLike | None = None,
    background: ArrayOrFrame | np.typing.ArrayLike | None = None,
    *,
    output: Any = None,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    max_rows_per_call: int = 2**16,
    allow_nan: bool = False,
    max_features: int = MAX_EXACT_FEATURES,
) -> ShapleyResult:
    """Exact interventional Shapley values of a model output, by enumeration.

    Book: :ref:`eq-found-interventional`, :ref:`eq-found-shapley` (book/foundations.md).

    The Shapley formula (Shapley, 1953; book eq. ``eq-found-shapley``) applied to the
    interventional game (book eq. ``eq-found-interventional``) on all ``2**d`` coalitions
    against every background row.  This is what shap's ``ExactExplainer`` computes with an
    ``Independent`` masker holding the same background rows.

    ``f`` is a fitted classifier (its ``predict_proba``) or a function of the rows, checked with
    ``X`` and ``background`` once into a :class:`lib.games.Game` (columns matched by name, NaN and
    ±inf refused), or such a game itself.  ``output`` picks the explained class
    (:func:`lib.models.output_index`: a label of ``classes_`` or a column index); by default every
    output.  ``feature_names``, ``output_names`` label arrays and callables.

    Two paths, chosen by the inputs' types (:func:`exact_path`), agree to ``1e-12``: floats take
    the reference path, the game's ``2**d`` values (``n * 2**d * m`` model rows, in batches of at
    most ``max_rows_per_call``) then :func:`lib.formula.shapley_from_game`; discretised data (integers,
    booleans, DataFrames) the fast path, which evaluates each *distinct* hybrid row once and
    sums the values background row by background row (where ``b`` equals ``x`` on features
    ``E``, those are null players of ``f(x_S, b_{-S})``).  The model must not modify its input
    in place.  Refuses ``d > max_features`` with a ``ValueError`` that names the book's
    estimator beyond it; past 16 features it says its cost in model rows first and shows a
    progress bar.

    Returns
    -------
    ShapleyResult
        ``values`` of shape ``(n, d)`` or ``(n, d, k)``.
    """
    game = as_game(f, X, background, "exact_shapley", output=output, feature_names=feature_names,
                 output_names=output_names, allow_nan=allow_nan, max_rows_per_call=max_rows_per_call)
    check_enumerable(game.d, max_features)
    n, d, m = game.n, game.d, game.m
    bar = (cost_bar(f"exact_shapley: {n} rows x 2**{d} coalitions x {m} background rows", n * 2**d * m,
                    n * 2**d, "coalition") if d > ANNOUNCE_FEATURES else None)
    progress = bar.update if bar is not None else None
    if exact_path(game.X, game.background) == "fast":
        from lib import _shapley_fast  # numba: imported on the first call that needs it

        values, base, outputs = _shapley_fast.shapley_values(game, progress)
    else:
        if game.d == 0:
            game_v = game.coalition_values(bitmask_rows(np.arange(1), 0))
        else:
            from lib import _shapley_blocks

            game_v = _shapley_blocks.game_values(game.f, game.X, game.background, game.max_rows_per_call, progress)
        if game_v.ndim == 3:  # (n, 2**d, k) -> (n, k, 2**d) -> (n, k, d) -> (n, d, k)
            values = np.moveaxis(shapley_from_game(np.moveaxis(game_v, 1, 2)), 1, 2)
        else:
            values = shapley_from_game(game_v)
        base, outputs = game_v[:, 0], game_v[:, -1]
    if bar is not None:
        bar.close()
    return ShapleyResult(
        values=values,
        base_values=base,
        outputs=outputs,
        data=game.X,
        feature_names=game.feature_names,
        output_names=game.output_names,
        method="exact",
    )


# ---------------------------------------------------------------------------
# Names that lived here before the engine's split: their homes, for one release
# ---------------------------------------------------------------------------

#: Each moved name and the module it lives in now.
MOVED = {
    "shapley_from_game": "lib.formula",
    "shapley_weights": "lib.formula",
    "coalition_masks": "lib.formula",
    "game_size": "lib.formula",
    "sample_shapley": "lib.sampling",
    "adjust_efficiency": "lib.sampling",
    "sampling_rows": "lib.sampling.strumbelj_kononenko",
}


def __getattr__(name: str) -> Any:
    if name in MOVED:
        home = MOVED[name]
        warnings.warn(f"lib.shapley.{name} moved to {home}.{name} (the engine has one module per role); "
                      f"import it from there: the old name goes in the next release", DeprecationWarning,
                      stacklevel=2)
        return getattr(importlib.import_module(home), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
