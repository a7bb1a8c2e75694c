"""10-fold cross-validated accuracy and AUC of the paper's classifier (Lemaire et al., Table 1, footnote 5).

The paper trains Khiops' selective naive Bayes on 100 % of each data set and reports its
training accuracy and AUC (Table 1); footnote 5 says that "the test performances of the
models are very close with a 10-fold cross-validation process", without the numbers.
This script measures them: for each of the ten data sets, a stratified 10-fold split
(``sklearn.model_selection.StratifiedKFold(shuffle=True, random_state=seed)``), Khiops
fitted on nine folds (``lib.khiops_nb.fit_khiops_snb``: ``KhiopsClassifier(n_trees=0,
n_pairs=0)``) and evaluated on the tenth with Khiops' own ``predict`` / ``predict_proba``:
accuracy, AUC of the second class of ``classes_``, number of selected variables.

Resumable: one CSV per data set, ``data/derived/nb-table1-cv/<data set>.csv`` (one row
per fold), skipped when present unless ``--force``; then all are gathered into
``data/derived/nb-table1-cv.csv`` (mean and standard deviation over the folds).

The data sets are independent units (the split is seeded by ``seed`` alone), run serially
or in parallel through joblib (``--n-jobs``, ``--backend``; ``compendium.parallel.run_units``, with a
tqdm bar over the data sets).

    python scripts/nb_table1_cv.py --n-jobs 2           # about 5 minutes on 2 cores
    python scripts/nb_table1_cv.py --datasets crx adult --force
"""

from __future__ import annotations

import argparse
from functools import partial

import pandas as pd

from compendium import data
from lib import khiops_nb as kn
from compendium.experiments.nb_table1_cv import DATASETS, GATHERED, OUT_DIR, gather, quiet, run_dataset
from compendium.parallel import add_gather_arguments, add_parallel_arguments, parallel_engine, run_units


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--force", action="store_true", help="recompute data sets already done")
    add_gather_arguments(parser)
    add_parallel_arguments(parser, what="data sets")
    args = parser.parse_args(argv)

    quiet()
    kn.require_khiops()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    todo = [n for n in args.datasets if not args.gather_only and (args.force or not (OUT_DIR / f"{n}.csv").exists())]
    with parallel_engine(args):
        run_units(todo, partial(run_dataset, folds=args.folds, seed=args.seed), n_jobs=args.n_jobs,
                  backend=args.backend, desc="data sets", unit="data set")
    if args.no_gather:
        return 0
    table = gather()
    table.to_csv(GATHERED, index=False)
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        print(table.to_string(index=False))
    print("written:", GATHERED.relative_to(data.REPO_ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
