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
or in parallel through joblib (``--n-jobs``, ``--backend``; ``lib.parallel.run_units``, with a
tqdm bar over the data sets).

    python scripts/nb_table1_cv.py --n-jobs 2           # about 5 minutes on 2 cores
    python scripts/nb_table1_cv.py --datasets crx adult --force
"""

from __future__ import annotations

import argparse
import warnings
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

from lib import data
from lib import khiops_nb as kn
from lib.parallel import add_parallel_arguments, parallel_engine, run_units

#: the ten data sets of the paper, in the order of its Table 1, and their names there
DATASETS = {
    "twonorm": "Twonorm", "crx": "Crx", "ionosphere": "Ionosphere", "spambase": "Spam",
    "tic-tac-toe": "Tictactoe", "german-numeric": "German", "telco": "Telco", "adult": "Adult",
    "cervical": "KRFCC", "breast-wisconsin": "Breast",
}
#: the paper's Khiops dictionaries keep these identifiers as inputs (Khiops does not select them)
LOAD_KWARGS = {"telco": {"drop_ids": False}, "breast-wisconsin": {"drop_ids": False}}
OUT_DIR = data.REPO_ROOT / "data" / "derived" / "nb-table1-cv"
GATHERED = data.REPO_ROOT / "data" / "derived" / "nb-table1-cv.csv"


def evaluate(clf, X: pd.DataFrame, y: pd.Series) -> tuple[float, float]:
    """Accuracy and AUC (of ``clf.classes_[1]``) of a fitted Khiops classifier."""
    labels = np.asarray(y).astype(str)
    pred = np.asarray(clf.predict(X)).astype(str)
    proba = clf.predict_proba(X)[:, 1]
    positive = str(clf.classes_[1])
    return float(np.mean(pred == labels)), float(roc_auc_score(labels == positive, proba))


def cross_validate(name: str, folds: int, seed: int) -> pd.DataFrame:
    X, y = data.load(name, **LOAD_KWARGS.get(name, {}))
    split = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    rows = []
    for k, (tr, te) in enumerate(split.split(X, np.asarray(y).astype(str))):
        clf, model = kn.fit_khiops_snb(X.iloc[tr], y.iloc[tr])
        acc, auc = evaluate(clf, X.iloc[te], y.iloc[te])
        rows.append({"data set": DATASETS[name], "fold": k, "train rows": len(tr), "test rows": len(te),
                     "accuracy": acc, "AUC": auc, "#Var": len(model.variables)})
    return pd.DataFrame(rows)


def _quiet() -> None:
    # khiops.core: its sample data sets are not downloaded (unused); khiops.sklearn uses
    # pandas options that pandas 3 deprecates (not our code)
    warnings.filterwarnings("ignore", message="Sample datasets location", category=UserWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)


def run_dataset(name: str, folds: int, seed: int, out_dir: Path = OUT_DIR) -> Path:
    """One unit: the cross-validation of data set ``name``, written to <out_dir>/<name>.csv."""
    _quiet()
    path = out_dir / f"{name}.csv"
    cross_validate(name, folds, seed).to_csv(path, index=False)
    return path


def gather(out_dir: Path = OUT_DIR) -> pd.DataFrame:
    parts = [pd.read_csv(out_dir / f"{name}.csv") for name in DATASETS if (out_dir / f"{name}.csv").exists()]
    if not parts:
        raise FileNotFoundError(f"no per-data-set results in {out_dir}")
    folds = pd.concat(parts, ignore_index=True)
    g = folds.groupby("data set", sort=False)
    return pd.DataFrame({
        "folds": g.size(),
        "CV accuracy": g["accuracy"].mean(), "CV accuracy std": g["accuracy"].std(ddof=1),
        "CV AUC": g["AUC"].mean(), "CV AUC std": g["AUC"].std(ddof=1),
        "CV #Var mean": g["#Var"].mean(), "CV #Var min": g["#Var"].min(), "CV #Var max": g["#Var"].max(),
    }).reset_index()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--force", action="store_true", help="recompute data sets already done")
    parser.add_argument("--gather-only", action="store_true", help="only rebuild the gathered CSV from the parts")
    add_parallel_arguments(parser, what="data sets")
    args = parser.parse_args(argv)

    _quiet()
    kn.require_khiops()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    todo = [n for n in args.datasets if not args.gather_only and (args.force or not (OUT_DIR / f"{n}.csv").exists())]
    with parallel_engine(args):
        run_units(todo, partial(run_dataset, folds=args.folds, seed=args.seed), n_jobs=args.n_jobs,
                  backend=args.backend, desc="data sets", unit="data set")
    table = gather()
    table.to_csv(GATHERED, index=False)
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        print(table.to_string(index=False))
    print("written:", GATHERED.relative_to(data.REPO_ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
