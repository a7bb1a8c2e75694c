"""Coalitional explanations on many attributes: the grid behind 04-many-attributes.

Ferrettini, Aligon & Soulé-Dupuy (ADBIS 2020) test their groupings on data sets of at
most nine attributes; this script runs them where the complete influence (Eq. (F1)-(F3)) can
no longer be enumerated: for every (data set, classifier) of the grid it

1. fits the classifier on all rows (the book's set-up: the explained output is the
   probability of the positive class, the value function the interventional game of
   ``lib.shapley`` on a seeded background sample);
2. estimates the complete influence of a seeded sample of explained rows by
   permutation sampling (``lib.sampling.sample_shapley``, uniform allocation) with a
   standard error per attribute, and records the *noise floor* of the error metric,
   ``mean_rows sqrt(sum_k SE_k^2) / (2 sqrt n)``; up to ``EXACT_UP_TO`` attributes the
   exact complete influence (``lib.shapley.exact_shapley``) is the reference instead, and
   the sampled estimate's own error against it is recorded beside its predicted floor;
3. for every grouping method of §4 (``lib.grouping.ALL_METHODS``, PCA both unscaled,
   the authors' default, and scaled) and each alpha, finds the groups, counts the
   coalitions Eq. (F4) needs, and, when they fit the budget fixed beforehand, computes
   the coalitional influence from exactly those coalitions
   (``lib.coalitional.coalitional_influence_interventional``; the model rows are
   counted and checked against the count) and its error (Eq. (F6), Euclidean reading)
   against the reference.

Set-up choices (ours, stated in the notebook): numeric attributes as given; cervical
(KRFCC) without its two attributes missing in over 90 % of rows and with the other gaps
filled by the column median; adult's missing categories as a category of their own;
nominal attributes enter the groupings as category codes and the models one-hot
(logistic) or as native categories (gradient boosting); constant attributes dropped.

Resumable: one CSV per (data set, classifier) under ``data/derived/coal-many/``,
skipped when present unless ``--force``; all present files are then gathered into
``data/derived/coal-many.csv``.  Times are CPU seconds of this process with
single-threaded BLAS and OpenMP (a shared machine's wall time would measure the
neighbours); they are the only machine-dependent columns.  The pairs are independent units,
each seeded from its own identity, run serially or in parallel through joblib
(``--n-jobs``, ``--backend``; ``compendium.parallel.run_units``, with a tqdm bar over the pairs; not the ``threading`` backend,
whose process time would count the other threads).

    nice -n 10 python scripts/coal_many.py                        # the full grid
    python scripts/coal_many.py --datasets ionosphere --classifiers logistic
    python scripts/coal_many.py --n-jobs 2                        # two pairs at a time (loky)
    python scripts/coal_many.py --gather-only                     # rebuild coal-many.csv
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # CPU time = one core's time (before numpy loads)

import argparse  # noqa: E402
from functools import partial  # noqa: E402

from compendium.data import REPO_ROOT  # noqa: E402
from compendium.experiments.coal_many import CLASSIFIERS, DATASETS, OUT_CSV, OUT_DIR, gather, pair_file, run_and_write  # noqa: E402
from compendium.parallel import add_gather_arguments, add_parallel_arguments, parallel_engine, run_units  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=list(DATASETS), choices=list(DATASETS))
    p.add_argument("--classifiers", nargs="*", default=list(CLASSIFIERS), choices=list(CLASSIFIERS))
    p.add_argument("--explain", type=int, default=10, help="explained rows per pair (seeded sample)")
    p.add_argument("--background", type=int, default=30, help="background rows (seeded sample)")
    p.add_argument("--fidelity-rows", type=int, default=500, help="rows for the model-based fidelity")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--force", action="store_true", help="recompute pairs already stored")
    add_gather_arguments(p)
    add_parallel_arguments(p, what="(data set, classifier) pairs")
    args = p.parse_args(argv)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    if not args.gather_only:
        pairs = [(name, kind) for name in args.datasets for kind in args.classifiers
                 if args.force or not pair_file(name, kind).exists()]
        with parallel_engine(args):
            run_units(pairs, partial(run_and_write, n_explain=args.explain, n_background=args.background,
                                     fidelity_rows=args.fidelity_rows, seed=args.seed),
                      n_jobs=args.n_jobs, backend=args.backend, desc="data set x classifier", unit="pair")
    if args.no_gather:
        return
    table = gather()
    print(f"gathered {len(table)} rows from {table.groupby(['data set', 'classifier']).ngroups} "
          f"(data set, classifier) pairs into {OUT_CSV.relative_to(REPO_ROOT).as_posix()}")


if __name__ == "__main__":
    main()
