"""Spread of Tables 1 and 2 of Lemaire et al. over bootstrap samples of the training rows.

The paper's protocol (§5.1-5.2) trains Khiops' selective naive Bayes on all the rows of a
data set, evaluates it on the same rows (Table 1: accuracy, AUC, number of selected
variables) and averages, over those rows, the Kendall tau-b between the weight of evidence
and the Shapley values of each row (Table 2). Given the model these numbers are
deterministic; what moves them is the model, which Khiops' search (discretisation, grouping,
variable selection and averaging) builds from the data. This script measures how far: it
applies the same protocol to bootstrap samples of each data set (rows drawn with
replacement, as many as the data set has; ``numpy.random.default_rng([seed, replicate])``),
so the spread over replicates is the spread of the protocol's output under a perturbation of
its training rows. The chapter derives its tolerances for Tables 1 and 2 from it.

Resumable: one CSV per data set, ``data/derived/nb-bootstrap/<data set>.csv`` (one row per
replicate), skipped when present unless ``--force``; then gathered into
``data/derived/nb-bootstrap-spread.csv`` (mean and standard deviation over the replicates).

The replicates of every data set to do are independent units, each seeded from its own
identity (``[seed, replicate]``), run serially or in parallel through joblib (``--n-jobs``,
``--backend``; ``lib.parallel.run_units``, with a tqdm bar over the fits); a data set's file
is written as soon as its last replicate is in.

    python scripts/nb_bootstrap_spread.py --n-jobs 2                 # about 20 minutes on 2 shared cores
    python scripts/nb_bootstrap_spread.py --datasets crx --replicates 5 --force
"""

from __future__ import annotations

import argparse
import warnings
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import kendalltau
from sklearn.metrics import roc_auc_score

from lib import data
from lib import khiops_nb as kn
from lib import naive_bayes as nb
from lib.parallel import add_parallel_arguments, parallel_engine, run_units

#: the ten data sets of the paper, in the order of its Table 1, and their names there
DATASETS = {
    "twonorm": "Twonorm", "crx": "Crx", "ionosphere": "Ionosphere", "spambase": "Spam",
    "tic-tac-toe": "Tictactoe", "german-numeric": "German", "telco": "Telco", "adult": "Adult",
    "cervical": "KRFCC", "breast-wisconsin": "Breast",
}
#: The chapter keeps Telco's and Breast's identifiers as inputs, as the paper's Khiops
#: dictionaries do (Khiops does not select them: every value is unique). In a bootstrap sample
#: the drawn rows repeat, and a repeated identifier becomes informative (Khiops then selects
#: it), which no model of the real data does: here the identifiers are dropped.
LOAD_KWARGS: dict[str, dict] = {}
OUT_DIR = data.REPO_ROOT / "data" / "derived" / "nb-bootstrap"
GATHERED = data.REPO_ROOT / "data" / "derived" / "nb-bootstrap-spread.csv"
QUANTITIES = ["accuracy", "AUC", "#Var", "Kendall"]


def _quiet() -> None:
    # khiops.core: its sample data sets are not downloaded (unused); khiops.sklearn uses
    # pandas options that pandas 3 deprecates (not our code)
    warnings.filterwarnings("ignore", message="Sample datasets location", category=UserWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    try:
        from pandas.errors import Pandas4Warning
        warnings.filterwarnings("ignore", category=Pandas4Warning)
    except ImportError:  # pandas < 3
        pass


def replicate(name: str, b: int, seed: int) -> dict:
    """The paper's protocol (Tables 1 and 2) on bootstrap sample ``b`` of data set ``name``."""
    _quiet()
    X, y = data.load(name, **LOAD_KWARGS.get(name, {}))
    rows = np.random.default_rng([seed, b]).integers(0, len(X), len(X))
    Xb, yb = X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)
    clf, model = kn.fit_khiops_snb(Xb, yb)
    labels = np.asarray(yb).astype(str)
    accuracy = float(np.mean(np.asarray(clf.predict(Xb)).astype(str) == labels))
    auc = float(roc_auc_score(labels == str(clf.classes_[1]), clf.predict_proba(Xb)[:, 1]))
    tables, parts = model.tables(), model.transform(Xb)
    positive = model.classes[1]
    phi, _ = nb.shapley_values(tables, parts, positive)
    woe = nb.weight_of_evidence(tables, parts, positive)
    if phi.shape[1] >= 2:
        # tau_b is a ratio of integer counts: round away float noise, as the chapter does
        tau = np.round([kendalltau(a, c).statistic for a, c in zip(woe, phi)], 12)
        kendall = float(np.nanmean(tau))
    else:  # one selected variable: no ranking to correlate
        kendall = float("nan")
    return {"data set": DATASETS[name], "replicate": b, "rows": len(Xb), "accuracy": accuracy, "AUC": auc,
            "#Var": len(model.variables), "Kendall": kendall}


def replicate_unit(unit: tuple[str, int], seed: int) -> dict:
    """One unit, (data set, replicate): :func:`replicate`."""
    name, b = unit
    return replicate(name, b, seed)


def gather(out_dir: Path = OUT_DIR) -> pd.DataFrame:
    parts = [pd.read_csv(out_dir / f"{name}.csv") for name in DATASETS if (out_dir / f"{name}.csv").exists()]
    if not parts:
        raise FileNotFoundError(f"no per-data-set results in {out_dir}")
    runs = pd.concat(parts, ignore_index=True)
    long = runs.melt(id_vars=["data set", "replicate"], value_vars=QUANTITIES, var_name="quantity")
    g = long.groupby(["data set", "quantity"], sort=False)["value"]
    return pd.DataFrame({"replicates": g.count(), "mean": g.mean(), "sd": g.std(ddof=1),
                         "min": g.min(), "max": g.max()}).reset_index()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--replicates", type=int, default=20, help="bootstrap samples per data set")
    parser.add_argument("--seed", type=int, default=0)
    add_parallel_arguments(parser, what="bootstrap replicates (Khiops fits)")
    parser.add_argument("--force", action="store_true", help="recompute data sets already done")
    parser.add_argument("--gather-only", action="store_true", help="only rebuild the gathered CSV from the parts")
    args = parser.parse_args(argv)

    _quiet()
    kn.require_khiops()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    todo = [n for n in args.datasets if not args.gather_only and (args.force or not (OUT_DIR / f"{n}.csv").exists())]
    units = [(name, b) for name in todo for b in range(args.replicates)]
    pending: dict[str, list[dict]] = {name: [] for name in todo}

    def write_when_complete(unit: tuple[str, int], row: dict) -> None:
        name = unit[0]
        pending[name].append(row)
        if len(pending[name]) == args.replicates:
            done = pd.DataFrame(pending.pop(name)).sort_values("replicate")
            done.to_csv(OUT_DIR / f"{name}.csv", index=False, float_format="%.10g")

    with parallel_engine(args):
        run_units(units, partial(replicate_unit, seed=args.seed), n_jobs=args.n_jobs, backend=args.backend,
                  desc="data set x replicate", unit="fit", on_result=write_when_complete)
    table = gather()
    table.to_csv(GATHERED, index=False, float_format="%.10g")
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        print(table.to_string(index=False))
    print("written:", GATHERED.relative_to(data.REPO_ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
