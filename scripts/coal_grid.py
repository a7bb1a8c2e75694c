"""Figures 1-2 of the coalitional paper: time and error of the six grouping methods.

Ferrettini, Aligon & Soulé-Dupuy (ADBIS 2020), §5: for every data set x classifier,
the *complete* influence (Eq. (F1)-(F3)) of a sample of explained rows is computed once, then
for each grouping method of §4 (``lib.grouping.ALL_METHODS``) and each threshold
alpha, the groups are found and the *coalitional* influence (Eq. (F4)) is computed; we
record the time (groups + model fits and predictions on the coalitions the groups need
+ Eq. (F4)) and the error against the complete influence (Eq. (F6) as printed, and its
Euclidean reading).

Value function: the authors' retrained game (``lib.coalitional.RetrainedGame``: one
clone of the classifier fitted per attribute subset, ``f(∅)`` = class prior, the class
explained = the one the full model predicts).  Every coalition's model is fitted once per
(data set, classifier) and its CPU time (fit + prediction of the explained rows) measured
once; a method's evaluation time is the sum of the measured times of the coalitions its
groups need (the cost it would pay alone, without the cache shared here).  Times are CPU
seconds of this process (``time.process_time``), single-threaded BLAS, because the
machine is shared and wall time would measure the neighbours.

Resumable: one CSV per (data set, classifier) under ``data/derived/coal-grid/``, skipped
when present unless ``--force``; all present files are then gathered into
``data/derived/coal-grid.csv``.  The pairs are independent units, each seeded from its own
identity (explained rows: ``default_rng([seed, d, n])``), run serially or in parallel through
joblib (``--n-jobs``, ``--backend``; ``compendium.parallel.run_units``): every unit is timed in its
own worker process (do not use the ``threading`` backend, whose process time would count
the other threads).

    python scripts/coal_grid.py                              # the full grid
    python scripts/coal_grid.py --n-jobs 2                   # two pairs at a time
    python scripts/coal_grid.py --classifiers NB kNN tree    # a subset
    python scripts/coal_grid.py --gather-only                # rebuild coal-grid.csv
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # CPU time = one core's time (before numpy loads)

import argparse  # noqa: E402
import time  # noqa: E402
from functools import partial  # noqa: E402

from tqdm import tqdm  # noqa: E402

import compendium.data  # noqa: E402
from lib import coalitional as co  # noqa: E402
from lib import grouping as gr  # noqa: E402
from compendium.data import REPO_ROOT  # noqa: E402
from compendium.experiments.coal_grid import ALPHAS, CLASSIFIERS, OUT_CSV, OUT_DIR, gather, pair_file, run_and_write  # noqa: E402
from compendium.parallel import add_gather_arguments, add_parallel_arguments, parallel_engine, run_units  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=compendium.data.names("keel"))
    p.add_argument("--classifiers", nargs="*", default=list(CLASSIFIERS), choices=list(CLASSIFIERS))
    p.add_argument("--methods", nargs="*", default=list(gr.ALL_METHODS), choices=list(gr.ALL_METHODS))
    p.add_argument("--alphas", nargs="*", type=float, default=list(ALPHAS))
    p.add_argument("--explain", type=int, default=100, help="explained rows per data set (seeded sample)")
    p.add_argument("--fidelity-rows", type=int, default=1000, help="rows for the model-based fidelity")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget-minutes", type=float, default=None, help="start no new pair after this wall time")
    p.add_argument("--force", action="store_true")
    add_gather_arguments(p)
    add_parallel_arguments(p, what="(data set, classifier) pairs")
    args = p.parse_args(argv)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    if not args.gather_only:
        pairs = [(c, n) for c in args.classifiers for n in args.datasets]
        todo = [u for u in pairs if args.force or not pair_file(u[1], u[0]).exists()]
        deadline = None if args.budget_minutes is None else time.time() + 60 * args.budget_minutes
        fn = partial(run_and_write, deadline=deadline, alphas=args.alphas, methods=args.methods,
                     n_explain=args.explain, fidelity_rows=args.fidelity_rows, seed=args.seed)
        with parallel_engine(args):
            done = run_units(todo, fn, n_jobs=args.n_jobs, backend=args.backend, desc="data set x classifier",
                             unit="pair")
        skipped = [f"{n} x {c}" for (c, n), ok in zip(todo, done) if not ok]
        if skipped:
            tqdm.write(f"budget reached: {len(skipped)} pairs not started ({', '.join(skipped)})")
    if args.no_gather:
        return
    table = gather()
    print(f"gathered {len(table)} rows from {table.groupby(['data set', 'classifier']).ngroups} "
          f"(data set, classifier) pairs into {OUT_CSV.relative_to(REPO_ROOT).as_posix()}")


if __name__ == "__main__":
    main()
