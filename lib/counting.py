"""Instrumentation: a model wrapper that counts what an explainer asks of the model.

Estimators are compared at the same number of *model rows* (rows passed to the model),
measured rather than assumed: chapter 5's cost tables, the budgets of the sampling
estimators, and the benchmarks (``benchmarks/estimators.py``) count them with
:class:`CountingModel`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from tqdm import tqdm

__all__ = ["ANNOUNCE_FEATURES", "CountingModel", "cost_bar"]

#: Past this many features a call whose cost grows exponentially or quadratically in them (an
#: exact enumeration of the ``2**d`` coalitions, the model-based grouping's fidelity search) says its
#: estimated model rows before it starts and shows a progress bar (:func:`cost_bar`).
ANNOUNCE_FEATURES = 16


def cost_bar(what: str, model_rows: int, total: float, unit: str, *, least: int | None = None) -> tqdm:
    """A progress bar that says the call's cost up front: ``what: about N model rows`` when ``N`` is
    the cost (within 1.25 times the rows spent), else, with ``least``, an estimate with its range:
    ``what: between L and N model rows (an estimate: ...)``.

    ``total`` steps of ``unit`` (coalitions, fidelity evaluations); the caller updates it as the
    work goes (and its ``total``, when the work turns out shorter, so that the bar ends full) and
    closes it.  Written to stderr, as tqdm does.
    """
    if least is None or least * 1.25 >= model_rows:
        desc = f"{what}: about {int(model_rows):,} model rows"
    else:
        desc = f"{what}: between {int(least):,} and {int(model_rows):,} model rows (an estimate: the work depends on the data)"
    return tqdm(total=total, unit=unit, desc=desc, leave=True)


class CountingModel:
    """A model wrapper that counts what it is asked: calls, and rows evaluated.

    ``CountingModel(f)(Z)`` returns ``f(Z)`` and adds ``len(Z)`` to :attr:`rows` and 1 to
    :attr:`calls`.  Used to compare estimators at the same number of *model
    evaluations* (rows passed to the model), measured rather than assumed.
    """

    def __init__(self, f: Callable[[Any], Any]) -> None:
        if not callable(f):
            raise ValueError("CountingModel needs a callable model")
        self.f = f
        self.rows = 0
        self.calls = 0

    def __call__(self, Z: Any) -> Any:
        n = len(Z) if hasattr(Z, "__len__") else np.asarray(Z).shape[0]
        self.rows += int(n)
        self.calls += 1
        return self.f(Z)
