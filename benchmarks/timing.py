"""The one timer the benchmarks share (they are run as ``python benchmarks/<name>.py``,
so this module is importable beside them)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def run_times(fn: Callable[[], object], repeats: int) -> list[float]:
    """Wall times (``time.perf_counter``, seconds) of ``repeats`` calls of ``fn``."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def median_time(fn: Callable[[], object], repeats: int) -> float:
    """Median of :func:`run_times` (robust to a slow first call or a busy machine)."""
    return float(np.median(run_times(fn, repeats)))
