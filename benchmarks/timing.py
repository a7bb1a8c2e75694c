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


def interleaved_times(fns: dict[str, Callable[[], object]],
                      repeats: int | dict[str, int]) -> dict[str, list[float]]:
    """Wall times of several contenders, called in turn, repeat by repeat.

    Round ``r`` calls every contender that still has repeats left, in the order of
    ``fns``; so a burst of load from other jobs on a shared machine slows all
    contenders alike, and the best-of (``min``) of each list is comparable across them.
    ``repeats`` is one count for all, or one per name.
    """
    counts = {name: repeats for name in fns} if isinstance(repeats, int) else dict(repeats)
    if set(counts) != set(fns) or min(counts.values()) < 1:
        raise ValueError(f"need a repeat count >= 1 for each of {list(fns)}, got {counts}")
    out: dict[str, list[float]] = {name: [] for name in fns}
    for r in range(max(counts.values())):
        for name, fn in fns.items():
            if r < counts[name]:
                t0 = time.perf_counter()
                fn()
                out[name].append(time.perf_counter() - t0)
    return out
