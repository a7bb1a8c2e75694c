"""Coalitional explanations on many attributes: the grid behind 04-many-attributes.

Its home: the constants of the experiment (:data:`DATASETS`, :data:`CLASSIFIERS`,
:data:`ALPHAS`, :data:`BUDGET`, :data:`REFERENCE_SAMPLES`, :data:`EXACT_UP_TO`), the data and
model set-up (:func:`prepare`, :func:`make_model`), its unit of work (:func:`run_pair`, one
data set x classifier; :func:`run_and_write` stores it) and where its results go.
``scripts/coal_many.py`` runs the grid from the command line (its docstring states the
protocol); ``notebooks/05-coalitional-explanations/04-many-attributes`` imports this module for
the constants, a live rerun of one pair and the stored grid.

Set-up choices (ours, stated in the notebook): numeric attributes as given; cervical
(KRFCC) without its two attributes missing in over 90 % of rows and with the other gaps
filled by the column median; adult's missing categories as a category of their own;
nominal attributes enter the groupings as category codes and the models one-hot
(logistic) or as native categories (gradient boosting); constant attributes dropped.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import lib.data
from lib import coalitional as co
from lib import grouping as gr
from lib import shapley as sh
from lib.data import REPO_ROOT
from lib.parallel import gather_unit_csvs, write_unit_csv

#: The data sets of the issue: the book's cached sets with many attributes.
DATASETS = ("ionosphere", "cervical", "spambase", "german-numeric", "adult")
#: The positive class explained on each data set.
POSITIVE = {"ionosphere": "g", "cervical": 1, "spambase": 1, "german-numeric": 2, "adult": ">50K"}
CLASSIFIERS = ("logistic", "gradient-boosting")
ALPHAS = (0.01, 0.4)
#: Fixed before running: a grouping is computed only if Eq. (F4) needs at most this many coalitions.
BUDGET = 20_000
#: Permutation samples per attribute and explained row for the reference.
REFERENCE_SAMPLES = 10_000
#: Up to this many attributes the reference is exact (2^n enumeration), beyond it sampled.
EXACT_UP_TO = 16
OUT_DIR = REPO_ROOT / "data" / "derived" / "coal-many"
OUT_CSV = REPO_ROOT / "data" / "derived" / "coal-many.csv"


def prepare(name: str) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """The attribute matrix (codes for nominal attributes), the 0/1 target, the
    attribute names and a mask of the nominal attributes, as the docstring states."""
    X, y = lib.data.load(name)
    X = X.copy()
    if name == "cervical":
        mostly_missing = [c for c in X if X[c].isna().mean() > 0.9]
        X = X.drop(columns=mostly_missing)
    for c in X:
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            if X[c].isna().any():
                X[c] = X[c].cat.add_categories(["(missing)"]).fillna("(missing)")
        elif X[c].isna().any():
            X[c] = X[c].fillna(X[c].median())
    nominal = np.array([isinstance(X[c].dtype, pd.CategoricalDtype) for c in X])
    A = gr.numeric_matrix(X)
    keep = A.std(axis=0) > 0
    Y = (y.astype(str).to_numpy() == str(POSITIVE[name])).astype(int)
    if Y.min() == Y.max():
        raise ValueError(f"{name}: the positive class {POSITIVE[name]!r} leaves a single class")
    return A[:, keep], Y, [c for c, k in zip(X.columns, keep) if k], nominal[keep]


def make_model(kind: str, nominal: np.ndarray, n_categories: np.ndarray):
    """The two classifiers of the grid (deterministic fits)."""
    if kind == "logistic":
        numeric = np.flatnonzero(~nominal)
        cats = np.flatnonzero(nominal)
        parts = [("num", StandardScaler(), numeric)]
        if len(cats):
            categories = [np.arange(int(n_categories[j])) for j in cats]
            parts.append(("cat", OneHotEncoder(categories=categories, handle_unknown="ignore"), cats))
        return make_pipeline(ColumnTransformer(parts), LogisticRegression(max_iter=5000))
    if kind == "gradient-boosting":
        return HistGradientBoostingClassifier(
            categorical_features=nominal if nominal.any() else None, early_stopping=False, random_state=0
        )
    raise ValueError(f"unknown classifier {kind!r}; known: {CLASSIFIERS}")


def run_pair(name: str, kind: str, *, n_explain: int, n_background: int, fidelity_rows: int,
             seed: int) -> pd.DataFrame:
    """Every grouping x alpha on one data set and classifier."""
    A, Y, names, nominal = prepare(name)
    n, d = A.shape
    n_categories = np.where(nominal, A.max(axis=0) + 1, 0)
    model = make_model(kind, nominal, n_categories).fit(A, Y)

    def f(rows: np.ndarray) -> np.ndarray:
        return model.predict_proba(rows)[:, 1]

    rng = np.random.default_rng([seed, d, n])
    background = A[np.sort(rng.choice(n, size=n_background, replace=False))]
    explained = A[np.sort(rng.choice(n, size=n_explain, replace=False))]
    t0 = time.process_time()
    runs = [sh.sample_shapley(f, explained[[r]], background, method="uniform",
                              max_rows=sh.sampling_rows(REFERENCE_SAMPLES * d, m=len(background)),
                              rng=np.random.default_rng([seed, d, n, r]))
            for r in range(n_explain)]
    t_reference = time.process_time() - t0
    sampled = np.vstack([run.values for run in runs])
    se = np.sqrt(np.vstack([run.variances for run in runs]))
    sampled_floor = float(np.mean(np.sqrt((se**2).sum(axis=1)) / (2 * np.sqrt(d))))
    if d <= EXACT_UP_TO:
        # enumerable: the exact complete influence is the reference, and the sampled one is
        # scored against it (a check of the noise floor the other pairs rely on)
        t0 = time.process_time()
        reference = sh.exact_shapley(f, explained, background).values
        t_reference = time.process_time() - t0
        kind_of_reference, noise_floor = "exact", 0.0
        sampled_error = float(co.error_euclidean(sampled, reference).mean())
    else:
        reference, kind_of_reference, noise_floor, sampled_error = sampled, "sampled", sampled_floor, None

    variants: list[tuple[str, str, bool]] = [(m, m, False) for m in gr.ALL_METHODS]
    variants.insert(1, ("PCA (scaled)", "PCA", True))
    rows = []
    for label, method, scaled in variants:
        for alpha in ALPHAS:
            t0 = time.process_time()
            if method == "Model":
                groups = gr.find_groups(A, method, alpha, predict=model.predict, seed=seed, max_rows=fidelity_rows)
            elif scaled:
                groups = gr.pca_groups(A, alpha, scale=True)
            else:
                groups = gr.find_groups(A, method, alpha)
            t_groups = time.process_time() - t0
            largest = max(len(g) for g in groups)
            n_coal = len(co.coalitions_needed(groups, d)) if largest <= sh.MAX_EXACT_FEATURES else None
            computed = n_coal is not None and n_coal <= BUDGET
            record = {
                "data set": name, "classifier": kind, "n attributes": d, "rows": n,
                "explained": n_explain, "background": n_background,
                "grouping": label, "alpha": alpha, "groups": len(groups), "largest group": largest,
                "coalitions": n_coal, "computed": computed,
                "model rows": n_explain * n_background * n_coal if n_coal is not None else None,
                "error mean": None, "error max": None,
                "reference": kind_of_reference, "noise floor": noise_floor,
                "sampled samples per row": REFERENCE_SAMPLES * d, "sampled noise floor": sampled_floor,
                "sampled error": sampled_error,
                "cpu groups s": t_groups, "cpu influence s": None, "cpu reference s": t_reference,
                "group list": " ".join("{" + ",".join(map(str, g)) + "}" for g in groups),
            }
            if computed:
                counter = sh.CountingModel(f)
                t0 = time.process_time()
                phi = co.coalitional_influence_interventional(counter, explained, background, groups,
                                                              overlap="size-factorial")
                record["cpu influence s"] = time.process_time() - t0
                if counter.rows != record["model rows"]:
                    raise AssertionError(f"{name}/{kind}/{label}/{alpha}: {counter.rows} model rows, "
                                         f"expected {record['model rows']}")
                err = co.error_euclidean(phi, reference)
                record["error mean"], record["error max"] = float(err.mean()), float(err.max())
            rows.append(record)
    return pd.DataFrame(rows)


def run_and_write(unit: tuple[str, str], **kwargs) -> None:
    """One unit (data set, classifier): run_pair, written to its CSV (in the worker)."""
    name, kind = unit
    table = run_pair(name, kind, **kwargs)
    out = OUT_DIR / f"{name}__{kind}.csv"
    write_unit_csv(table, out)


def gather(out_dir: Path = OUT_DIR, out_csv: Path = OUT_CSV) -> pd.DataFrame:
    return gather_unit_csvs(out_dir, out_csv)
