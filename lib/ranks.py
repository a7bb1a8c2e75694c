"""Ties for rank statistics: values equal in exact arithmetic must rank as equal.

Rank statistics (Spearman, Kendall, a top-k set, a sign) of floating-point attributions
are decided by the last bits when two values are equal in exact arithmetic: two
variables worth the same by symmetry, or a null player whose value is ``0`` on one path
of the computation and ``1e-17`` on another.  Those last bits depend on the order of the
sums, hence on the BLAS kernel the CPU picks, so a statistic read from them is not the
same on every machine.  :func:`tie_grid` puts a vector on a grid of step ``rtol`` times
its largest absolute value before ranking: values closer than that step are tied, and a
value smaller than half of it is an exact zero.  :func:`kendall_tau_b_rows` is Kendall's τ-b of many
pairs of attribution vectors at once (one per explained row), scipy's statistic to the bit.
"""

from __future__ import annotations

import numpy as np

#: relative step of the grid: rounding noise of sums of a few thousand terms is ~1e-13
#: relative at most, an attribution's meaningful differences are far above 1e-10
DEFAULT_TIE_RTOL = 1e-10


def tie_grid(values: np.typing.ArrayLike, rtol: float = DEFAULT_TIE_RTOL, *, axis: int | None = None) -> np.ndarray:
    """``values`` as integers (stored as floats) on a grid of step ``rtol · max |values|``.

    The grid keeps the order and the signs of values farther apart than one step and ties
    the others; its integers are what to rank.  ``axis`` takes the largest absolute value
    along that axis (one grid per row with ``axis=1``), ``None`` over the whole array.
    ``rtol=0`` returns the values unchanged (ranked as they are); an all-zero vector stays
    zero.
    """
    v = np.asarray(values, dtype=float)
    if not 0 <= rtol < 1:
        raise ValueError("rtol must be in [0, 1)")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite to be ranked")
    if rtol == 0 or v.size == 0:
        return v.copy()
    step = rtol * np.abs(v).max(axis=axis, keepdims=True)
    return np.round(np.divide(v, step, out=np.zeros_like(v), where=step > 0))


def kendall_tau_b_rows(a: np.typing.ArrayLike, b: np.typing.ArrayLike) -> np.ndarray:
    """Kendall's τ-b between ``a[r]`` and ``b[r]`` for every row ``r`` of two ``(rows, d)`` arrays.

    What ``scipy.stats.kendalltau(a[r], b[r]).statistic`` returns (its default: τ-b), to the bit
    (``lib/tests/test_ranks.py`` compares them), for all the rows at once: over the ``d (d-1)/2``
    pairs of columns, ``(C - D) / sqrt(P - T_a) / sqrt(P - T_b)``, with ``C - D`` the concordant
    minus the discordant pairs, ``P`` the pairs and ``T_a``, ``T_b`` the pairs tied in ``a`` and in
    ``b``; clipped to ``[-1, 1]`` as scipy does.  ``nan`` for a row that is constant in ``a`` or in
    ``b`` (every pair tied) or that holds a NaN (scipy's ``nan_policy='propagate'``), and when ``d < 2``;
    infinities rank as the largest and smallest values.  Rank attributions that are equal
    in exact arithmetic through :func:`tie_grid` first.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.ndim != 2 or x.shape != y.shape:
        raise ValueError(f"expected two (rows, d) arrays of one shape, got shapes {x.shape} and {y.shape}")
    rows, d = x.shape
    tau = np.full(rows, np.nan)
    if d < 2:
        return tau
    i, j = np.triu_indices(d, 1)
    pairs = len(i)
    step = max(1, 2**22 // pairs)  # rows per block: a few million pairs at a time
    for start in range(0, rows, step):
        xs, ys = x[start:start + step], y[start:start + step]
        sx = (xs[:, i] > xs[:, j]).view(np.int8) - (xs[:, i] < xs[:, j]).view(np.int8)  # 0 when equal
        sy = (ys[:, i] > ys[:, j]).view(np.int8) - (ys[:, i] < ys[:, j]).view(np.int8)
        con_minus_dis = np.einsum("rp,rp->r", sx, sy, dtype=np.int64)
        untied_x = pairs - np.count_nonzero(sx == 0, axis=1)
        untied_y = pairs - np.count_nonzero(sy == 0, axis=1)
        ok = (untied_x > 0) & (untied_y > 0) & ~np.isnan(xs).any(axis=1) & ~np.isnan(ys).any(axis=1)
        # scipy's arithmetic: the integer counts, then two divisions by square roots
        t = con_minus_dis[ok] / np.sqrt(untied_x[ok].astype(float)) / np.sqrt(untied_y[ok].astype(float))
        tau[start:start + step][ok] = np.minimum(1.0, np.maximum(-1.0, t))
    return tau
