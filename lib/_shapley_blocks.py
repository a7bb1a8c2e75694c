"""Private to :mod:`lib.shapley`: the exact engine's blocks for float arrays (a fast path).

The same numbers as the game's plain value function (:meth:`lib.games.Game.coalition_values`,
book eq. ``eq-found-value-function``): every hybrid row is evaluated and each coalition's value is
numpy's mean of its ``m`` outputs, in background order.  What differs is how the rows are built:
in cache-sized blocks of the ``2**k`` coalitions that share their high features, by doubling, the
blocks visited in Gray-code order so that the next block differs in one column, rewritten in
place.  With a near-free model this is 2-3 times as fast as building every block anew
(``benchmarks/exact_engine.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lib.games import evaluate

#: Target size in bytes of one model call's hybrid rows in :func:`game_values`: 1 MiB, so that
#: a block and the model's work on it stay in a core's L2 cache (2 MiB on the book's machines,
#: 1 MiB or more on most).  With 4 MiB blocks a near-free linear model at d = 10 took 2-3 times
#: as long; a model with a per-call cost (scikit-learn's gradient boosting, ~0.5 ms a call)
#: pays about 10 % more calls at d = 12 (``benchmarks/exact_engine.py`` measures both).
BLOCK_BYTES = 2**20


def game_values(f: Callable[[Any], Any], X: np.ndarray, background: np.ndarray, max_rows_per_call: int,
                progress: Callable[[float], Any] | None = None) -> np.ndarray:
    """All ``2**d`` coalition values of every row of an array ``X`` (``d >= 1``), ``(n, 2**d[, k])``.

    Every hybrid row ``(x_S, b_{-S})`` is evaluated, and ``v_x(S)`` is numpy's mean of the
    model's ``m`` outputs for ``S``, in background order, in blocks of the
    ``2**k`` coalitions that share their high ``d - k`` features, about :data:`BLOCK_BYTES`
    of rows each (as many explained rows a call as fit when ``k = d``): the ``(2**k, m, d)``
    rows of a block are built once per explained row by doubling (copy the first half, put
    ``x`` in the new feature's column), and the blocks are visited in Gray-code order of their
    high features, so that the next block differs in one column, rewritten in place (the model
    must not modify its input).  ``progress(k)`` (optional) is told of every ``k`` row-coalitions done.
    """
    n, d = X.shape
    m = background.shape[0]
    rows_per_call = min(max_rows_per_call, max(1, BLOCK_BYTES // (8 * d)))
    k = 0
    while k < d and 2 ** (k + 1) * m <= rows_per_call:
        k += 1
    n_low, n_high = 2**k, 2 ** (d - k)
    group = max(1, rows_per_call // (n_low * m)) if k == d else 1
    dtype = np.result_type(X.dtype, background.dtype)
    result: np.ndarray | None = None
    for start in range(0, n, group):
        stop = min(n, start + group)
        buf = np.empty((stop - start, n_low, m, d), dtype=dtype)   # [row, low coalition, b, feature]
        for g, x in enumerate(X[start:stop]):
            buf[g, 0] = background
            for j in range(k):
                h = 1 << j
                buf[g, h : 2 * h] = buf[g, :h]
                buf[g, h : 2 * h, :, j] = x[j]
        rows = buf.reshape(-1, d)
        x = X[start]                                   # group > 1 only when n_high == 1
        hi = 0
        for t in range(n_high):
            if t:
                j = k + ((t & -t).bit_length() - 1)   # the bit a Gray code flips at step t
                hi ^= 1 << (j - k)
                buf[0, :, :, j] = x[j] if (hi >> (j - k)) & 1 else background[:, j]
            out = evaluate(f, rows, len(rows))
            means = out.reshape((stop - start, n_low, m) + out.shape[1:]).mean(axis=2)
            if result is None:
                result = np.empty((n, 2**d) + means.shape[2:])
            elif means.shape[2:] != result.shape[2:]:
                raise ValueError("the model returned a different number of outputs between calls")
            result[start:stop, hi * n_low:(hi + 1) * n_low] = means
            if progress is not None:
                progress((stop - start) * n_low)
    assert result is not None
    return result
