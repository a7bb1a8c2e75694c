"""Ties for rank statistics: values equal in exact arithmetic must rank as equal.

Rank statistics (Spearman, Kendall, a top-k set, a sign) of floating-point attributions
are decided by the last bits when two values are equal in exact arithmetic: two
variables worth the same by symmetry, or a null player whose value is ``0`` on one path
of the computation and ``1e-17`` on another.  Those last bits depend on the order of the
sums, hence on the BLAS kernel the CPU picks, so a statistic read from them is not the
same on every machine.  :func:`tie_grid` puts a vector on a grid of step ``rtol`` times
its largest absolute value before ranking: values closer than that step are tied, and a
value smaller than half of it is an exact zero.
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
