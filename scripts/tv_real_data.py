"""Chapter 4, real-data evaluation: typical-value contributions vs exact Shapley values.

For each data set, each classifier (logistic regression, gradient boosting, naive Bayes)
and each calibration (none, or Platt scaling with ``CalibratedClassifierCV``), this script
compares the typical-value contributions and the integral variant with the **exact**
interventional Shapley values (``lib.shapley.exact_shapley``, all 2**d coalitions) of the
same model, on the draft's scale ``log f`` and on the log-odds, row by row
(``lib.experiments.tv_real_data.compare_with_shapley``). The protocol (split, imputation, feature
selection, background, explained rows) is ``lib.experiments.tv_real_data.prepare_real_data``; the
typical values are computed on the training split as given, before imputation
(``RealDataSetting.typical_values``).

Results are written per data set (resumable: a data set whose files exist is skipped
unless ``--force``), then gathered. The data sets are independent units (the protocol's
seed is fixed, the same for every data set), run serially or in parallel through joblib
(``--n-jobs``, ``--backend``; ``lib.parallel.run_units``):

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
import sys
import warnings
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from lib import data
from lib.experiments.tv_real_data import (
    MODEL_KINDS,
    REAL_DATA_POSITIVE,
    REAL_DATA_PROTOCOL,
    RealDataSetting,
    compare_with_shapley,
    prepare_real_data,
    real_data_model,
    summarise_comparison,
)
from lib.parallel import add_parallel_arguments, parallel_engine, run_units

DATASETS = REAL_DATA_POSITIVE  # data set -> label of the positive class, smallest first
PROTOCOL = REAL_DATA_PROTOCOL  # lib.experiments.tv_real_data.prepare_real_data's parameters
OUT_DIR = data.REPO_ROOT / "data" / "derived" / "tv-real"
GATHERED = data.REPO_ROOT / "data" / "derived" / "tv-real-vs-shapley.csv"
MODELS_CSV = data.REPO_ROOT / "data" / "derived" / "tv-real-models.csv"
DATASETS_CSV = data.REPO_ROOT / "data" / "derived" / "tv-real-datasets.csv"
KEYS = ["data set", "model", "calibrated", "scale", "method"]


def setting(name: str) -> RealDataSetting:
    X, y = data.load(name)
    return prepare_real_data(name, X, y, DATASETS[name], **PROTOCOL)


def fit(kind: str, calibrated: bool, s: RealDataSetting):
    with warnings.catch_warnings():
        # KBinsDiscretizer (inside WeightedNaiveBayes) drops empty quantile bins of
        # features with many tied values (e.g. haberman's node count) and says so: expected
        warnings.filterwarnings("ignore", message="Bins whose width are too small")
        return real_data_model(kind, calibrated, s.X_train, seed=PROTOCOL["seed"]).fit(s.X_train, s.y_train)


def run_one(s: RealDataSetting, kind: str, calibrated: bool) -> tuple[pd.DataFrame, dict]:
    """Records of one (data set, model, calibration) and the model's test-split quality."""
    model = fit(kind, calibrated, s)
    typical = s.typical_values()  # on the training split as given (before imputation)
    rec, shap_res = compare_with_shapley(model, s.rows, s.background, typical)
    gap = float(np.abs(shap_res.efficiency_gap()).max())
    if gap > 1e-9:
        raise AssertionError(f"{s.name} {kind}: exact Shapley values violate efficiency by {gap:.3g}")
    rec.insert(0, "y", s.rows_y[rec["row"].to_numpy()])
    for col, val in (("calibrated", calibrated), ("model", kind), ("data set", s.name)):
        rec.insert(0, col, val)
    p = model.predict_proba(s.X_test)[:, 1]
    quality = {"data set": s.name, "model": kind, "calibrated": calibrated,
               "test AUC": roc_auc_score(s.y_test, p), "test log-loss": log_loss(s.y_test, p),
               "test Brier": brier_score_loss(s.y_test, p), "mean f (test)": p.mean(),
               "positive share (test)": s.y_test.mean()}
    return rec, quality


def is_done(name: str) -> bool:
    return (OUT_DIR / f"{name}.csv").exists() and (OUT_DIR / f"{name}-models.csv").exists()


def run_dataset(name: str, force: bool, progress: bool = True) -> None:
    """One unit: every (model, calibration) on data set ``name``, written to tv-real/<name>*.csv."""
    out, out_models = OUT_DIR / f"{name}.csv", OUT_DIR / f"{name}-models.csv"
    if is_done(name) and not force:
        tqdm.write(f"{name}: present, skipped (--force to redo)", file=sys.stderr)
        return
    s = setting(name)
    recs, quals = [], []
    grid = [(k, c) for k in MODEL_KINDS for c in (False, True)]
    for kind, calibrated in tqdm(grid, desc=name, file=sys.stderr, leave=False, disable=not progress):
        rec, q = run_one(s, kind, calibrated)
        recs.append(rec)
        quals.append(q)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    pd.concat(recs, ignore_index=True).to_csv(out, index=False, float_format="%.10g")
    pd.DataFrame(quals).to_csv(out_models, index=False, float_format="%.10g")


def run_unit(name: str, force: bool, progress: bool) -> str:
    # one OpenMP thread, set in the worker that runs the unit (see main)
    with threadpool_limits(limits=1):
        run_dataset(name, force, progress)
    return name


def dataset_info(name: str) -> dict:
    X, y = data.load(name)
    s = setting(name)
    return {"data set": name, "rows": len(X), "features": X.shape[1],
            "positive share": float(np.mean(np.asarray(y) == DATASETS[name])),
            "features kept": len(s.selected), "kept (mutual information)": "; ".join(s.selected),
            "explained rows": len(s.rows), "explained positives": int(s.rows_y.sum()),
            "background rows": len(s.background)}


def gather(names: list[str]) -> None:
    present = [n for n in names if (OUT_DIR / f"{n}.csv").exists()]
    if not present:
        return
    recs = pd.concat([pd.read_csv(OUT_DIR / f"{n}.csv") for n in present], ignore_index=True)
    summary = summarise_comparison(recs, by=KEYS).reset_index()
    summary.round(4).to_csv(GATHERED, index=False)
    pd.concat([pd.read_csv(OUT_DIR / f"{n}-models.csv") for n in present]).round(4).to_csv(MODELS_CSV, index=False)
    pd.DataFrame([dataset_info(n) for n in present]).round(4).to_csv(DATASETS_CSV, index=False)
    print(f"gathered {len(present)} data sets into {GATHERED.relative_to(data.REPO_ROOT)}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--force", action="store_true", help="recompute data sets already written")
    ap.add_argument("--gather-only", action="store_true")
    add_parallel_arguments(ap, what="data sets")
    args = ap.parse_args(argv)
    # one OpenMP thread: on a shared 2-core machine, gradient boosting's thread pool is
    # many times slower than one thread (and results do not depend on it)
    if not args.gather_only:
        todo = [n for n in args.datasets if args.force or not is_done(n)]
        with parallel_engine(args):
            run_units(todo, partial(run_unit, force=args.force, progress=args.n_jobs == 1),
                      n_jobs=args.n_jobs, backend=args.backend, desc="data sets", unit="data set")
    with threadpool_limits(limits=1):
        gather(list(DATASETS))


if __name__ == "__main__":
    main()
