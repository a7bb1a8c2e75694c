"""Chapter 4, real-data evaluation: typical-value contributions vs exact Shapley values.

For each data set, each classifier (logistic regression, gradient boosting, naive Bayes)
and each calibration (none, or Platt scaling with ``CalibratedClassifierCV``), this script
compares the typical-value contributions and the integral variant with the **exact**
interventional Shapley values (``lib.shapley.exact_shapley``, all 2**d coalitions) of the
same model, on the draft's scale ``log f`` and on the log-odds, row by row
(``compendium.experiments.tv_real_data.compare_with_shapley``). The protocol (split, imputation, feature
selection, background, explained rows) is ``compendium.experiments.tv_real_data.prepare_real_data``; the
typical values are computed on the training split as given, before imputation
(``RealDataSetting.typical_values``).

Results are written per data set (resumable: a data set whose files exist is skipped
unless ``--force``), then gathered. The data sets are independent units (the protocol's
seed is fixed, the same for every data set), run serially or in parallel through joblib
(``--n-jobs``, ``--backend``; ``compendium.parallel.run_units``, with a tqdm bar over the data sets; the
unit of work is ``compendium.experiments.tv_real_data.run_dataset``):

    data/derived/tv-real/<data set>.csv          one line per (model, calibration, row, scale, method)
    data/derived/tv-real/<data set>-models.csv   test-split quality of each model
    data/derived/tv-real-vs-shapley.csv          mean agreement and bias spread per setting
    data/derived/tv-real-models.csv              model quality, all data sets
    data/derived/tv-real-datasets.csv            data sets, features kept (mutual information)

Run from the repository root (the data cache in $SHAPLEY_BOOK_DATA):

    nice -n 10 python scripts/tv_real_data.py                 # every data set
    python scripts/tv_real_data.py --datasets keel-haberman   # one
    python scripts/tv_real_data.py --gather-only              # rebuild the gathered CSVs
    nice -n 10 python scripts/tv_real_data.py --n-jobs 2      # two data sets at a time
"""

from __future__ import annotations

import argparse
from functools import partial

from threadpoolctl import threadpool_limits

from compendium.experiments.tv_real_data import REAL_DATA_POSITIVE, gather, is_done, run_unit
from compendium.parallel import add_gather_arguments, add_parallel_arguments, parallel_engine, run_units

DATASETS = REAL_DATA_POSITIVE  # data set -> label of the positive class, smallest first


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--force", action="store_true", help="recompute data sets already written")
    add_gather_arguments(ap)
    add_parallel_arguments(ap, what="data sets")
    args = ap.parse_args(argv)
    # one OpenMP thread: on a shared 2-core machine, gradient boosting's thread pool is
    # many times slower than one thread (and results do not depend on it)
    if not args.gather_only:
        todo = [n for n in args.datasets if args.force or not is_done(n)]
        with parallel_engine(args):
            run_units(todo, partial(run_unit, force=args.force, progress=args.n_jobs == 1),
                      n_jobs=args.n_jobs, backend=args.backend, desc="data sets", unit="data set")
    if args.no_gather:
        return
    with threadpool_limits(limits=1):
        gather(list(DATASETS))


if __name__ == "__main__":
    main()
