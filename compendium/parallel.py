"""Independent units of the long-run scripts, run through joblib.

The scripts of ``scripts/`` (Table 3's KernelSHAP protocol, the coalitional grid, the
typical-value evaluation, ...) are made of independent units: a data set, a (data set,
classifier) pair, a seed. :func:`run_units` runs them serially (``n_jobs=1``, the default)
or in parallel through a joblib backend: ``loky`` (processes on this machine, joblib's
default), ``threading``, or ``dask`` on a Dask cluster. Every script
that runs units takes the same options (:func:`add_parallel_arguments`) and opens the engine
with :func:`parallel_engine`: ``--scheduler tcp://host:8786`` connects a
``distributed.Client`` to a running Dask scheduler, ``--local-cluster N`` starts a
``distributed.LocalCluster`` of ``N`` worker processes (one thread each) on this machine;
either runs the units on the cluster's workers through joblib's ``dask`` backend. So the same
command runs on one laptop or on a cluster. Dask is an optional extra
(``pip install -r requirements-cluster.txt``), imported only when one of the two options is
given.

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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
from joblib import Parallel, delayed, parallel_config
from tqdm import tqdm

from compendium.stable import replace_file

__all__ = [
    "BACKENDS",
    "add_gather_arguments",
    "add_parallel_arguments",
    "gather_unit_csvs",
    "parallel_engine",
    "run_units",
    "write_unit_csv",
]

U = TypeVar("U")
R = TypeVar("R")

#: joblib backends on this machine that ``--backend`` accepts (each tested in test_parallel.py).
BACKENDS = ("loky", "threading")

#: what to install for ``--scheduler`` and ``--local-cluster``
CLUSTER_REQUIREMENTS = "requirements-cluster.txt"


def add_parallel_arguments(parser: argparse.ArgumentParser, *, what: str = "units") -> None:
    """Add the engine options to a script's parser: ``--n-jobs`` (default 1: serial), ``--backend``
    (default ``loky``), and, exclusive of each other, ``--scheduler ADDRESS`` and ``--local-cluster N``
    (a Dask cluster; open it with :func:`parallel_engine`)."""
    parser.add_argument("--n-jobs", type=int, default=1,
                        help=f"{what} run in parallel through joblib (default 1: serial; -1: every core, "
                             "or every worker of a Dask cluster)")
    parser.add_argument("--backend", default="loky", choices=BACKENDS,
                        help="joblib backend on this machine (default loky); a Dask cluster is chosen "
                             "with --scheduler or --local-cluster instead")
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument("--scheduler", metavar="ADDRESS", default=None,
                         help="run the units on the workers of a running Dask scheduler, e.g. "
                              f"tcp://host:8786 (needs pip install -r {CLUSTER_REQUIREMENTS})")
    cluster.add_argument("--local-cluster", metavar="N", type=_positive_int, default=None,
                         help="start a Dask LocalCluster of N worker processes on this machine and run "
                              f"the units on it (needs pip install -r {CLUSTER_REQUIREMENTS})")


def add_gather_arguments(parser: argparse.ArgumentParser) -> None:
    """Add, exclusive of each other, ``--gather-only`` (rebuild the gathered files from the units' files
    already written) and ``--no-gather`` (write the units' own files only). :mod:`compendium.regenerate`
    runs each unit with ``--no-gather``, so that units of one script may run side by side (``--at-once``):
    a unit that also gathered would read another unit's file while that one rewrites it. The gather step
    (``--gather-only``) writes the gathered files after all of them."""
    gather = parser.add_mutually_exclusive_group()
    gather.add_argument("--gather-only", action="store_true",
                        help="only rebuild the gathered files from the units' files already written")
    gather.add_argument("--no-gather", action="store_true",
                        help="write the units' own files only, not the gathered ones (how compendium.regenerate "
                             "runs a unit; its gather step is --gather-only)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of workers, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least one worker, got {value}")
    return value


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise SystemExit(
            "--scheduler and --local-cluster need Dask's distributed scheduler, an optional extra: "
            f"pip install -r {CLUSTER_REQUIREMENTS}"
        ) from None
    return distributed


@contextmanager
def parallel_engine(args: argparse.Namespace) -> Iterator[argparse.Namespace]:
    """Open the engine the options of :func:`add_parallel_arguments` ask for; close it on exit.

    Without ``--scheduler`` or ``--local-cluster`` nothing is opened: ``run_units`` uses
    ``args.backend`` on this machine. With one of them, a ``distributed.Client`` is connected
    (to the scheduler, or to a new ``LocalCluster(n_workers=N, processes=True,
    threads_per_worker=1)``), ``args.backend`` is set to ``"dask"`` and, if ``args.n_jobs``
    is 1, to -1 (every worker of the cluster): so ``run_units(..., n_jobs=args.n_jobs,
    backend=args.backend)`` inside the block runs on the cluster. The client (and a local
    cluster) are closed when the block ends, also on an error. Yields ``args``.
    """
    scheduler = getattr(args, "scheduler", None)
    n_local = getattr(args, "local_cluster", None)
    if scheduler is None and n_local is None:
        yield args
        return
    distributed = _distributed()
    cluster = None
    if n_local is not None:
        cluster = distributed.LocalCluster(n_workers=n_local, processes=True, threads_per_worker=1,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
    else:
        try:
            client = distributed.Client(scheduler, timeout="30s")
        except OSError as err:
            raise SystemExit(f"--scheduler {scheduler}: no Dask scheduler answers there ({err})") from None
    backend, n_jobs = args.backend, args.n_jobs
    args.backend = "dask"
    if args.n_jobs == 1:
        args.n_jobs = -1
    try:
        yield args
    finally:
        args.backend, args.n_jobs = backend, n_jobs
        client.close()
        if cluster is not None:
            cluster.close()


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
    With ``n_jobs=1`` the units run one after the other in this process (except with the ``dask``
    backend, which needs a connected ``distributed.Client``: see :func:`parallel_engine`).
    """
    units = list(units)
    results: list[Any] = [None] * len(units)
    bar = tqdm(total=len(units), desc=desc, unit=unit, file=sys.stderr, disable=not progress)
    with bar:
        if n_jobs == 1 and backend != "dask":
            done = (_indexed(fn, i, u) for i, u in enumerate(units))
            for i, r in done:
                results[i] = r
                if on_result is not None:
                    on_result(units[i], r)
                bar.update()
            return results
        with parallel_config(backend=backend, n_jobs=n_jobs):
            parallel = Parallel(return_as="generator_unordered")
            for i, r in parallel(delayed(_indexed)(fn, i, u) for i, u in enumerate(units)):
                results[i] = r
                if on_result is not None:
                    on_result(units[i], r)
                bar.update()
    return results


def write_unit_csv(table: pd.DataFrame, out: Path, *, float_format: str = "%.6g") -> None:
    """Write one unit's result atomically (:func:`compendium.stable.replace_file`), so an interrupted
    run never leaves a half-written file that a resumed run would take as done."""
    replace_file(out, table.to_csv(index=False, float_format=float_format))


def gather_unit_csvs(out_dir: Path, out_csv: Path, *, float_format: str = "%.6g") -> pd.DataFrame:
    """Concatenate every unit's CSV under ``out_dir`` (in file-name order) into ``out_csv``."""
    files = sorted(out_dir.glob("*.csv"))
    if not files:
        raise SystemExit(f"no results under {out_dir}")
    table = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    table.to_csv(out_csv, index=False, float_format=float_format)
    return table
