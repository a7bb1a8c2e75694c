"""Independent units of the long-run scripts, run through joblib.

The scripts of ``scripts/`` (Table 3's KernelSHAP protocol, the coalitional grid, the
typical-value evaluation, ...) are made of independent units: a data set, a (data set,
classifier) pair, a seed. :func:`run_units` runs them serially (``n_jobs=1``, the default)
or in parallel through any joblib backend: ``loky`` (processes on this machine, joblib's
default), ``threading``, or a cluster's, ``dask`` (a ``distributed.Client`` must be
connected first) or ``ray`` (``ray.init()`` first; registered here on demand). The same
command thus runs past one machine without a scheduler of our own.

Two rules make a parallel run give the same results as a serial one:

- every unit is seeded from its own identity (``numpy.random.default_rng([seed, ...])``
  with the unit's own numbers), never from a generator shared by the units and consumed in
  their order;
- :func:`run_units` returns the results in the order of the units, whatever the order in
  which they finish.

A unit that writes its own result file (resumable scripts) writes it in the worker, so an
interrupted run keeps the units already finished.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
from joblib import Parallel, delayed, parallel_config
from tqdm import tqdm

__all__ = ["BACKENDS", "add_parallel_arguments", "gather_unit_csvs", "run_units", "write_unit_csv"]

U = TypeVar("U")
R = TypeVar("R")

#: joblib backends the scripts accept: joblib's own, and the two cluster backends.
BACKENDS = ("loky", "threading", "multiprocessing", "dask", "ray")


def add_parallel_arguments(parser: argparse.ArgumentParser, *, what: str = "units") -> None:
    """Add ``--n-jobs`` (default 1: serial) and ``--backend`` (default ``loky``) to a script's parser."""
    parser.add_argument("--n-jobs", type=int, default=1,
                        help=f"{what} run in parallel through joblib (default 1: serial; -1: every core)")
    parser.add_argument("--backend", default="loky", choices=BACKENDS,
                        help="joblib backend (default loky; dask needs a connected distributed.Client, "
                             "ray a ray.init())")


def _register(backend: str) -> None:
    # joblib registers dask itself when asked for it; ray's backend is registered by ray
    if backend == "ray":
        from ray.util.joblib import register_ray  # type: ignore[import-not-found]

        register_ray()


def _indexed(fn: Callable[[U], R], index: int, unit: U) -> tuple[int, R]:
    return index, fn(unit)


def run_units(
    units: Sequence[U],
    fn: Callable[[U], R],
    *,
    n_jobs: int = 1,
    backend: str = "loky",
    desc: str | None = None,
    unit: str = "unit",
    progress: bool = True,
    on_result: Callable[[U, R], Any] | None = None,
) -> list[R]:
    """``[fn(u) for u in units]``, run through joblib, with a tqdm progress bar.

    ``fn`` must be picklable for a process or cluster backend (a module-level function, or
    ``functools.partial`` of one). The bar advances as units finish (in any order); the
    list returned is in the order of ``units``, so that a run's output does not depend on
    ``n_jobs`` or on the backend as long as each unit is seeded from its own identity.
    ``on_result(unit, result)``, if given, is called in this process as each unit finishes
    (for a message; the order of the calls is the order of completion).
    With ``n_jobs=1`` the units run one after the other in this process.
    """
    units = list(units)
    results: list[Any] = [None] * len(units)
    bar = tqdm(total=len(units), desc=desc, unit=unit, file=sys.stderr, disable=not progress)
    with bar:
        if n_jobs == 1:
            done = (_indexed(fn, i, u) for i, u in enumerate(units))
            for i, r in done:
                results[i] = r
                if on_result is not None:
                    on_result(units[i], r)
                bar.update()
            return results
        _register(backend)
        with parallel_config(backend=backend, n_jobs=n_jobs):
            parallel = Parallel(return_as="generator_unordered")
            for i, r in parallel(delayed(_indexed)(fn, i, u) for i, u in enumerate(units)):
                results[i] = r
                if on_result is not None:
                    on_result(units[i], r)
                bar.update()
    return results


def write_unit_csv(table: pd.DataFrame, out: Path, *, float_format: str = "%.6g") -> None:
    """Write one unit's result atomically (a ``.tmp`` file renamed into place), so an interrupted
    run never leaves a half-written file that a resumed run would take as done."""
    tmp = out.with_suffix(".tmp")
    table.to_csv(tmp, index=False, float_format=float_format)
    tmp.replace(out)


def gather_unit_csvs(out_dir: Path, out_csv: Path, *, float_format: str = "%.6g") -> pd.DataFrame:
    """Concatenate every unit's CSV under ``out_dir`` (in file-name order) into ``out_csv``."""
    files = sorted(out_dir.glob("*.csv"))
    if not files:
        raise SystemExit(f"no results under {out_dir}")
    table = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    table.to_csv(out_csv, index=False, float_format=float_format)
    return table
