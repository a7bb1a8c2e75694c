"""Lemaire et al.'s Table 1, footnote 5: the classifier's 10-fold cross-validated accuracy and AUC.

Its home: the data sets (the paper's ten, :data:`DATASETS`, from
:mod:`compendium.experiments.nb_table3_kernelshap`), the unit of work (:func:`run_dataset`, one data
set's folds, gathered by :func:`gather`) and the stored results it declares (:func:`units`).
``scripts/nb_table1_cv.py`` runs it from the command line (its docstring states the protocol);
``notebooks/01-naive-bayes/04-table1-figure1`` shows the gathered table.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from compendium import data
from lib import khiops_nb as kn
from compendium.experiments.nb_table3_kernelshap import DATASETS as PAPER_NAMES
from compendium.experiments.nb_table3_kernelshap import LOAD_KWARGS
from compendium.regenerate.result import Result

__all__ = ["DATASETS", "GATHERED", "OUT_DIR", "cross_validate", "gather", "run_dataset", "units"]

#: the ten data sets of the paper, in the order of its Table 1: our loader's name -> the paper's
DATASETS: dict[str, str] = {loader: paper for paper, loader in PAPER_NAMES.items()}
OUT_DIR = data.REPO_ROOT / "data" / "derived" / "nb-table1-cv"
GATHERED = data.REPO_ROOT / "data" / "derived" / "nb-table1-cv.csv"
#: the data sets whose cross-validation CI reruns on every run (``--check --cheap``): seconds
CHEAP = ("tic-tac-toe",)
SHOWN_IN = ("notebooks/01-naive-bayes/04-table1-figure1",)


def accuracy_and_auc(clf, X: pd.DataFrame, y: pd.Series) -> tuple[float, float]:
    """Accuracy and AUC (of ``clf.classes_[1]``) of a fitted Khiops classifier."""
    from sklearn.metrics import roc_auc_score

    labels = np.asarray(y).astype(str)
    pred = np.asarray(clf.predict(X)).astype(str)
    proba = clf.predict_proba(X)[:, 1]
    positive = str(clf.classes_[1])
    return float(np.mean(pred == labels)), float(roc_auc_score(labels == positive, proba))


def cross_validate(name: str, folds: int, seed: int) -> pd.DataFrame:
    """One row per fold of a stratified ``folds``-fold split of data set ``name`` (seeded by ``seed``)."""
    from sklearn.model_selection import StratifiedKFold

    X, y = data.load(name, **LOAD_KWARGS.get(name, {}))
    split = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    rows = []
    for k, (tr, te) in enumerate(split.split(X, np.asarray(y).astype(str))):
        clf, model = kn.fit_khiops_snb(X.iloc[tr], y.iloc[tr])
        acc, auc = accuracy_and_auc(clf, X.iloc[te], y.iloc[te])
        rows.append({"data set": DATASETS[name], "fold": k, "train rows": len(tr), "test rows": len(te),
                     "accuracy": acc, "AUC": auc, "#Var": len(model.variables)})
    return pd.DataFrame(rows)


def quiet() -> None:
    """Silence the warnings of khiops that are not ours."""
    # khiops.core: its sample data sets are not downloaded (unused); khiops.sklearn uses
    # pandas options that pandas 3 deprecates (not our code)
    warnings.filterwarnings("ignore", message="Sample datasets location", category=UserWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)


def run_dataset(name: str, folds: int, seed: int, out_dir: Path = OUT_DIR) -> Path:
    """One unit: the cross-validation of data set ``name``, written to <out_dir>/<name>.csv."""
    quiet()
    path = out_dir / f"{name}.csv"
    cross_validate(name, folds, seed).to_csv(path, index=False)
    return path


def gather(out_dir: Path = OUT_DIR) -> pd.DataFrame:
    """Mean and standard deviation over the folds, one row per data set present."""
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


def units() -> list[Result]:
    """The stored results: one per data set (``scripts/nb_table1_cv.py --datasets D``), then the gather step."""
    script = "scripts/nb_table1_cv.py"
    parts = [Result(f"nb-table1-cv/{d}", (script, "--datasets", d, "--force", "--no-gather"), (f"nb-table1-cv/{d}.csv",), (d,),
                    engine=True, cheap=d in CHEAP, shown_in=SHOWN_IN) for d in DATASETS]
    gather_step = Result("nb-table1-cv", (script, "--gather-only"), ("nb-table1-cv.csv",),
                         tuple(o for p in parts for o in p.outputs), cheap=True, shown_in=SHOWN_IN)
    return [*parts, gather_step]
