"""The one timer the benchmarks share, and their common quieting of library noise (they are run
as ``python benchmarks/<name>.py``, so this module is importable beside them)."""

from __future__ import annotations

import logging
import time
import warnings
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


def cpu_name() -> str:
    """The machine's CPU, as its kernel names it (``model name`` of ``/proc/cpuinfo``; else the platform's),
    recorded beside every timing: the papers name theirs, and a timing belongs to its machine."""
    import platform
    from pathlib import Path

    info = Path("/proc/cpuinfo")
    if info.is_file():
        for line in info.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    return platform.processor() or platform.machine() or "unknown"


def quiet_libraries() -> None:
    """Silence the notices the benchmarks' libraries print on every run, which say nothing about
    the measurement: khiops.core's missing sample data sets (unused), the pandas 3 deprecations
    khiops.sklearn triggers, shap's tqdm/ipywidgets notice and its log line about a large
    background (a full background is often the point of the measurement)."""
    warnings.filterwarnings("ignore", message="Sample datasets location", category=UserWarning)
    warnings.filterwarnings("ignore", message="IProgress not found")
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    logging.getLogger("shap").setLevel(logging.ERROR)
