"""Chapter 4's real-data evaluation: typical-value contributions against exact Shapley values.

Its home: the data sets and the protocol's parameters (:data:`REAL_DATA_POSITIVE`,
:data:`REAL_DATA_PROTOCOL`), the data side (:func:`prepare_real_data`, returning a
:class:`RealDataSetting`), the classifiers (:data:`MODEL_KINDS`, :func:`real_data_model`) and
the unit of comparison (:func:`compare_with_shapley`, summarised by
:func:`summarise_comparison`), built on the method of :mod:`lib.typical_value`; one data set
prepared by the protocol in one call (:func:`real_data_setting`); the unit of work of the
stored run (:func:`run_dataset`: every classifier on one data set, gathered by :func:`gather`)
and the stored results it declares (:func:`units`). ``scripts/tv_real_data.py`` runs the whole
grid from the command line; ``notebooks/04-typical-value-contributions/03-real-data`` and
``04-verdict`` (and ``benchmarks/tv_speed.py``) import this module to run single cases live and
to read the stored results.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from compendium import data
from compendium.regenerate.result import Result
from lib.result import ShapleyResult
from lib.typical_value import (
    ArrayOrFrame,
    TypicalValues,
    agreement,
    integral_contributions,
    log_and_logit,
    typical_value_contributions,
    typical_values,
)
from lib.validation import check_rows, is_categorical

__all__ = [
    "DRAFT",
    "MODEL_KINDS",
    "REAL_DATA_POSITIVE",
    "REAL_DATA_PROTOCOL",
    "RealDataSetting",
    "compare_with_shapley",
    "gather",
    "prepare_real_data",
    "real_data_model",
    "real_data_setting",
    "run_dataset",
    "summarise_comparison",
    "units",
]


#: The draft's words that ``04-verdict`` scores, quoted exactly (an ellipsis stands for the draft's
#: inline formulas), with the heading of the draft's section they stand under.
DRAFT: dict[str, tuple[str, str]] = {
    "bias": ("where bias term ensures equality", "theory"),
    "naive Bayes": ("where \\( C(X) \\) is a constant which depends on the sample's data only", "theory"),
    "uninformative": ('by feeding the most "typical value" of … to our classifier, it treats … as uninformative for '
                      "predicting positive class", "practice"),
    "unbalanced": ("For unbalanced classification (with negative examples being far more common), we suggest using a "
                   "typical value", "practice"),
    "most significant": ("The feature with the largest \\( \\log f_{-i} \\) value is the most significant.", "practice"),
    "comparable": ("Moreover contributions can be compared across samples that were given the same probabilities.",
                   "practice"),
    "calibrated": ("The method assumes that the supplied classifier \\(f\\) is well-calibrated and outputs correct "
                   "probabilities.", "assumptions"),
    "cheap": ("Our algorithm approximates the summation further by plucking out just one term from it where most "
              "probability mass is concentrated", "evaluating p_-k"),
    "rarely true": ("The Naive-Bayes assumption, whereas rarely true in real-life applications", "assumptions"),
    "works well": ("often works pretty well in practise as it has been shown by Naive Bayes classifiers",
                   "assumptions"),
    "not misleading": ("If only approximate contributions are sought after then this assumption should not be too "
                       "misleading.", "assumptions"),
    "exponential": ("However the complexity of such modification grows exponential with the number of interactions "
                    "considered.", "assumptions"),
    "missing": ("We suggest the typical value should be \u201cmissing\u201d if most of the values are missing for a "
                "negative class and should, otherwise, be the mode of an empirical distribution for the feature.",
                "assumptions"),
    "bins": ("Defining a mode for continuous range is a bit tricky as it requires binning values and a hyper "
             "parameters emerge for sizes of bins.", "assumptions"),
    "marginal": ("formally, one needs to know the density of \\(X_k\\), \\(p(X_k)\\); then", "evaluating p_-k"),
    "negatives' mode": ("Since the dataset is unbalanced, \\( \\bar x_k \\) occurs at the mode of \\( X_k \\) restricted "
                        "to the negative class.", "evaluating p_-k"),
}

#: The classifiers of the real-data evaluation (:func:`real_data_model`).
MODEL_KINDS = ("logistic", "gradient-boosting", "naive-bayes")

#: The real data sets of the evaluation (names of :func:`compendium.data.load`), smallest first,
#: with the label of their positive (minority) class.
REAL_DATA_POSITIVE: dict[str, Any] = {
    "keel-haberman": "positive",
    "keel-yeast1": "positive",
    "keel-abalone9-18": "positive",
    "cervical": 1,
    "adult": ">50K",
}

#: The protocol parameters of the real-data evaluation (:func:`prepare_real_data`).
REAL_DATA_PROTOCOL: dict[str, Any] = dict(max_features=8, n_background=100, n_explain=50, test_size=0.3, seed=0)

#: Where the stored run goes (``scripts/tv_real_data.py``): one pair of files per data set, then gathered.
OUT_DIR = data.REPO_ROOT / "data" / "derived" / "tv-real"
GATHERED = data.REPO_ROOT / "data" / "derived" / "tv-real-vs-shapley.csv"
MODELS_CSV = data.REPO_ROOT / "data" / "derived" / "tv-real-models.csv"
DATASETS_CSV = data.REPO_ROOT / "data" / "derived" / "tv-real-datasets.csv"
#: The columns one line of the gathered summary is about.
KEYS = ["data set", "model", "calibrated", "scale", "method"]
#: The data sets CI reruns on every run (``--check --cheap``): the two small ones.
CHEAP = ("keel-haberman", "cervical")
SHOWN_IN = ("notebooks/04-typical-value-contributions/03-real-data",
            "notebooks/04-typical-value-contributions/04-verdict")


def compare_with_shapley(
    model: Any,
    rows: ArrayOrFrame,
    background: ArrayOrFrame,
    typical: TypicalValues,
    *,
    top_k: Sequence[int] = (1, 3),
    positive: Any = None,
    clip: float | None = None,
) -> tuple[pd.DataFrame, ShapleyResult]:
    """Per-row agreement of the typical-value and integral contributions with exact Shapley values.

    Book: :ref:`eq-found-interventional` (book/foundations.md).

    The chapter's evaluation protocol (the draft's "Further work": evaluation on real data).
    For each explained row and each scale ``s`` in ``{log f, logit f}``:

    * the exact interventional Shapley values of ``s(f)`` (:func:`lib.shapley.exact_shapley`,
      all ``2**d`` coalitions, against ``background``; book eq. ``eq-found-interventional``);
    * the typical-value contributions (:func:`typical_value_contributions`) and the integral
      variant (:func:`integral_contributions`) — the integral variant marginalises over the
      **same** ``background`` rows that define the Shapley game;
    * their agreement with the Shapley values (:func:`agreement`: Spearman, Kendall, sign,
      top-k for each ``k`` in ``top_k``), and the row's bias (the ``base_values`` that close
      the draft's sum) beside the Shapley base value ``v(∅)``, which is the same for every row.

    Returns
    -------
    records
        Long frame, one line per (row, scale, method): ``row`` (position in ``rows``),
        ``scale``, ``method``, ``f`` (the probability), ``output`` (``s(f(x))``), ``bias``,
        ``shapley base``, ``spearman``, ``kendall``, ``sign``, ``top-<k>``.
    shapley
        The exact Shapley values, ``values`` of shape ``(n, d, 2)`` (outputs ``log``, ``logit``).
    """
    ks = [int(k) for k in top_k]
    frame, _ = check_rows(rows, None, False, "rows")
    d = frame.shape[1]
    if not ks or any(not 1 <= k <= d for k in ks):
        raise ValueError(f"top_k must be a non-empty list of integers in 1..{d}")
    f_out = log_and_logit(model, output=positive, clip=clip)
    shap_res = _exact_shapley(f_out, rows, background)
    p = np.exp(shap_res.outputs[:, 0])
    parts = []
    for j, scale in enumerate(("log", "logit")):
        ref = shap_res.values[:, :, j]
        for method, res in (
            ("typical value", typical_value_contributions(model, rows, typical, scale=scale,
                                                          output=positive, clip=clip)),
            ("integral", integral_contributions(model, rows, background, scale=scale,
                                                output=positive, clip=clip)),
        ):
            m = agreement(res.values, ref, top_k=ks[0])
            block = pd.DataFrame({
                "row": np.arange(len(frame)), "scale": scale, "method": method, "f": p,
                "output": res.outputs, "bias": res.base_values,
                "shapley base": shap_res.base_values[:, j],
                "spearman": m["spearman"], "kendall": m["kendall"], "sign": m["sign"],
            })
            for k in ks:
                block[f"top-{k}"] = agreement(res.values, ref, top_k=k)["top_k"].to_numpy()
            parts.append(block)
    return pd.concat(parts, ignore_index=True), shap_res


def _exact_shapley(f: Any, rows: Any, background: Any) -> ShapleyResult:
    from lib.shapley import exact_shapley

    return exact_shapley(f, rows, background)


def summarise_comparison(records: pd.DataFrame, by: Sequence[str] = ("scale", "method")) -> pd.DataFrame:
    """Aggregate :func:`compare_with_shapley` records: mean of each agreement metric, and how
    far the bias is from constant — ``sd of bias`` (standard deviation across rows, in nats)
    and ``bias sd / output sd`` (the same relative to the spread of ``s(f(x))``: 0 for a
    constant bias, about 1 when the bias moves as much as the output)."""
    need = {"bias", "output", "spearman", "sign"} | set(by)
    missing = need - set(records.columns)
    if missing:
        raise ValueError(f"records lack columns {sorted(missing)}")
    metrics = [c for c in ("spearman", "kendall", "sign") if c in records] + sorted(
        (c for c in records.columns if c.startswith("top-")), key=lambda c: int(c[4:]))
    g = records.groupby(list(by), sort=False)
    out = g[metrics].mean()
    out["sd of bias"] = g["bias"].std(ddof=0)
    out["bias sd / output sd"] = out["sd of bias"] / g["output"].std(ddof=0)
    out["rows"] = g.size()
    return out


@dataclass(frozen=True)
class RealDataSetting:
    """One real data set prepared for the evaluation (:func:`prepare_real_data`).

    ``X_train``/``y_train`` fit the models (missing values imputed, as the classifiers need);
    ``X_train_given`` is the same training split *as given*, missing values kept, from which
    :meth:`typical_values` computes the typical values (the draft's "missing" rule needs the
    missing values); ``fill`` holds the imputed value of each kept feature (training median
    or most frequent category); ``X_test``/``y_test`` score the models; ``rows`` (explained)
    are drawn from the test split and ``background`` from the training split; ``selected``
    are the kept features (mutual information, computed on the training split before any
    model is fitted); ``mutual_information`` scores every original feature; ``y`` is 0/1
    with 1 the positive (minority) class.
    """

    name: str
    X_train: pd.DataFrame
    y_train: np.ndarray
    X_test: pd.DataFrame
    y_test: np.ndarray
    rows: pd.DataFrame
    rows_y: np.ndarray
    background: pd.DataFrame
    selected: list[str]
    mutual_information: pd.Series
    positive_label: Any
    X_train_given: pd.DataFrame
    fill: dict[str, Any]

    def typical_values(self, **kwargs: Any) -> TypicalValues:
        """The typical values of the kept features, computed on the training split as given.

        The typical-value draft ("Technicalities and assumptions"): the mode among the
        negatives, or "missing" if most negatives are missing — so the mode is taken over the
        data *before* imputation (:func:`typical_values` on ``X_train_given``). Imputing
        first would count every imputed row as the fill value, which can move the mode
        (on Adult, 7 % of the negatives have no occupation and the overall mode,
        Prof-specialty, would overtake the negatives' own mode, Adm-clerical).

        Imputation comes after, and only where the classifier needs it: a feature whose
        typical value is "missing" (``kinds[k] == "missing"``) gets, as its value, the fill
        value that the fitted classifier sees for a missing value (``fill``), since the
        classifiers of the evaluation are fitted on imputed data. Keyword arguments go to
        :func:`typical_values`.
        """
        typ = typical_values(self.X_train_given, self.y_train, negative=0, **kwargs)
        values = typ.values.copy()
        for k, (name, kind) in enumerate(zip(typ.feature_names, typ.kinds)):
            if kind == "missing":
                values[k] = self.fill[name]
        return replace(typ, values=values)


def prepare_real_data(
    name: str,
    X: pd.DataFrame,
    y: pd.Series | np.ndarray,
    positive: Any,
    *,
    max_features: int = 8,
    n_background: int = 100,
    n_explain: int = 50,
    test_size: float = 0.3,
    seed: int = 0,
) -> RealDataSetting:
    """The data side of the real-data protocol (chapter 4, notebook 03), fully seeded.

    1. Stratified train/test split (``test_size``, ``seed``).
    2. Missing values imputed with the training median (numerical) or most frequent
       category (categorical) in ``X_train``, ``X_test``, ``rows`` and ``background`` (the
       classifiers need complete rows); the training split as given, missing values kept,
       is ``X_train_given``, on which :meth:`RealDataSetting.typical_values` computes the
       typical values.
    3. If there are more than ``max_features`` features, keep the ``max_features`` with the
       largest mutual information with the class on the training split
       (``sklearn.feature_selection.mutual_info_classif``, categorical columns as discrete
       codes, ``random_state=seed``), in their original order — chosen before fitting any
       model, so that exact Shapley values (``2**d`` coalitions) stay affordable.
    4. Background: ``n_background`` training rows drawn at random without replacement
       (all if fewer). It defines both the Shapley game and the integral variant.
    5. Explained rows: ``n_explain`` test rows, half positives (all of them if fewer) and
       the rest negatives, drawn at random — so that rows with large ``f`` are represented.
    """
    from sklearn.feature_selection import mutual_info_classif
    from sklearn.model_selection import train_test_split

    if not isinstance(X, pd.DataFrame):
        raise ValueError("X must be a DataFrame (the loaders of compendium.data return one)")
    yv = np.asarray(y)
    if len(yv) != len(X):
        raise ValueError(f"X has {len(X)} rows and y has {len(yv)}")
    y01 = (yv == positive).astype(int)
    if y01.sum() == 0 or y01.sum() == len(y01):
        raise ValueError(f"positive label {positive!r} gives a single class")
    if max_features < 1 or n_background < 1 or n_explain < 2:
        raise ValueError("max_features and n_background must be >= 1, n_explain >= 2")
    rng = np.random.default_rng(seed)
    X = X.reset_index(drop=True)
    tr, te = train_test_split(np.arange(len(X)), test_size=test_size, stratify=y01, random_state=seed)
    X_tr, X_te = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
    fill = {}
    for c in X.columns:
        if is_categorical(X_tr[c]):
            fill[c] = X_tr[c].mode(dropna=True).iloc[0]
        else:
            fill[c] = float(X_tr[c].median())
    X_given = X_tr
    X_tr, X_te = X_tr.fillna(fill), X_te.fillna(fill)
    codes = pd.DataFrame({c: (X_tr[c].cat.codes if isinstance(X_tr[c].dtype, pd.CategoricalDtype)
                              else X_tr[c].astype(float)) for c in X.columns})
    discrete = np.array([isinstance(X_tr[c].dtype, pd.CategoricalDtype) for c in X.columns])
    mi = pd.Series(mutual_info_classif(codes.to_numpy(), y01[tr], discrete_features=discrete,
                                       random_state=seed), index=[str(c) for c in X.columns])
    if X.shape[1] > max_features:
        top = set(mi.sort_values(ascending=False, kind="stable").index[:max_features])
        selected = [str(c) for c in X.columns if str(c) in top]
    else:
        selected = [str(c) for c in X.columns]
    X_tr, X_te = X_tr[selected], X_te[selected]
    bg_idx = np.sort(rng.choice(len(X_tr), size=min(n_background, len(X_tr)), replace=False))
    pos, neg = np.flatnonzero(y01[te] == 1), np.flatnonzero(y01[te] == 0)
    n_pos = min(n_explain // 2, len(pos))
    ex = np.sort(np.concatenate([rng.choice(pos, n_pos, replace=False),
                                 rng.choice(neg, min(n_explain - n_pos, len(neg)), replace=False)]))
    return RealDataSetting(
        name=name, X_train=X_tr, y_train=y01[tr], X_test=X_te, y_test=y01[te],
        rows=X_te.iloc[ex].reset_index(drop=True), rows_y=y01[te][ex],
        background=X_tr.iloc[bg_idx].reset_index(drop=True), selected=selected,
        mutual_information=mi, positive_label=positive,
        X_train_given=X_given[selected], fill={c: fill[c] for c in selected},
    )


def real_data_model(kind: str, calibrated: bool, X_train: pd.DataFrame, *, seed: int = 0) -> Any:
    """An unfitted classifier of the real-data evaluation.

    * ``"logistic"``: standardised numerical columns and one-hot categorical ones, then
      ``LogisticRegression(max_iter=2000)``;
    * ``"gradient-boosting"``: ``HistGradientBoostingClassifier`` (100 iterations, native
      categorical support, ``random_state=seed``);
    * ``"naive-bayes"``: :class:`lib.naive_bayes.WeightedNaiveBayes` (5 quantile bins,
      Laplace smoothing, unit weights).

    ``calibrated=True`` wraps it in ``CalibratedClassifierCV(method="sigmoid", cv=5)``
    (Platt scaling, an ensemble of 5 fold models): sigmoid rather than isotonic because
    isotonic calibration gives probability 0 to the lowest block of an unbalanced data set,
    where ``log f`` is infinite.
    """
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from lib.naive_bayes import WeightedNaiveBayes

    cat = [c for c in X_train.columns if is_categorical(X_train[c])]
    num = [c for c in X_train.columns if c not in cat]
    if kind == "logistic":
        base = make_pipeline(
            ColumnTransformer([("num", StandardScaler(), num),
                               ("cat", OneHotEncoder(handle_unknown="ignore"), cat)]),
            LogisticRegression(max_iter=2000),
        )
    elif kind == "gradient-boosting":
        base = HistGradientBoostingClassifier(max_iter=100, categorical_features="from_dtype", random_state=seed)
    elif kind == "naive-bayes":
        base = WeightedNaiveBayes(n_bins=5, alpha=1.0)
    else:
        raise ValueError(f"kind must be one of {MODEL_KINDS}, got {kind!r}")
    return CalibratedClassifierCV(base, method="sigmoid", cv=5) if calibrated else base


# ----------------------------------------------------------------------------- the stored run
def real_data_setting(name: str, **protocol: Any) -> RealDataSetting:
    """Data set ``name`` (:func:`compendium.data.load`) prepared by :func:`prepare_real_data` with its positive
    class (:data:`REAL_DATA_POSITIVE`) and the protocol (:data:`REAL_DATA_PROTOCOL`, updated by ``protocol``)."""
    if name not in REAL_DATA_POSITIVE:
        raise ValueError(f"{name!r} is not a data set of the real-data evaluation; known: {list(REAL_DATA_POSITIVE)}")
    X, y = data.load(name)
    return prepare_real_data(name, X, y, REAL_DATA_POSITIVE[name], **{**REAL_DATA_PROTOCOL, **protocol})


def fitted_model(kind: str, calibrated: bool, s: RealDataSetting) -> Any:
    """:func:`real_data_model` fitted on the training split of ``s`` (seeded by the protocol)."""
    with warnings.catch_warnings():
        # KBinsDiscretizer (inside WeightedNaiveBayes) drops empty quantile bins of
        # features with many tied values (e.g. haberman's node count) and says so: expected
        warnings.filterwarnings("ignore", message="Bins whose width are too small")
        return real_data_model(kind, calibrated, s.X_train, seed=REAL_DATA_PROTOCOL["seed"]).fit(s.X_train, s.y_train)


def compare_model(s: RealDataSetting, kind: str, calibrated: bool) -> tuple[pd.DataFrame, dict]:
    """Records of one (data set, model, calibration) and the model's test-split quality."""
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

    model = fitted_model(kind, calibrated, s)
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
    """Whether both files of data set ``name`` are stored."""
    return (OUT_DIR / f"{name}.csv").exists() and (OUT_DIR / f"{name}-models.csv").exists()


def run_dataset(name: str, force: bool, progress: bool = True) -> None:
    """One unit: every (model, calibration) on data set ``name``, written to tv-real/<name>*.csv."""
    out, out_models = OUT_DIR / f"{name}.csv", OUT_DIR / f"{name}-models.csv"
    if is_done(name) and not force:
        tqdm.write(f"{name}: present, skipped (--force to redo)", file=sys.stderr)
        return
    s = real_data_setting(name)
    recs, quals = [], []
    grid = [(k, c) for k in MODEL_KINDS for c in (False, True)]
    for kind, calibrated in tqdm(grid, desc=name, file=sys.stderr, leave=False, disable=not progress):
        rec, q = compare_model(s, kind, calibrated)
        recs.append(rec)
        quals.append(q)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    pd.concat(recs, ignore_index=True).to_csv(out, index=False, float_format="%.10g")
    pd.DataFrame(quals).to_csv(out_models, index=False, float_format="%.10g")


def run_unit(name: str, force: bool, progress: bool) -> str:
    """:func:`run_dataset` with one OpenMP thread (set in the worker that runs the unit)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        run_dataset(name, force, progress)
    return name


def dataset_info(name: str) -> dict:
    """One line of ``tv-real-datasets.csv``: the data set's size and what the protocol keeps of it."""
    X, y = data.load(name)
    s = real_data_setting(name)
    return {"data set": name, "rows": len(X), "features": X.shape[1],
            "positive share": float(np.mean(np.asarray(y) == REAL_DATA_POSITIVE[name])),
            "features kept": len(s.selected), "kept (mutual information)": "; ".join(s.selected),
            "explained rows": len(s.rows), "explained positives": int(s.rows_y.sum()),
            "background rows": len(s.background)}


def gather(names: Sequence[str]) -> None:
    """Gather the stored data sets among ``names`` into the three tables of ``data/derived/``."""
    present = [n for n in names if (OUT_DIR / f"{n}.csv").exists()]
    if not present:
        return
    recs = pd.concat([pd.read_csv(OUT_DIR / f"{n}.csv") for n in present], ignore_index=True)
    summary = summarise_comparison(recs, by=KEYS).reset_index()
    summary.round(4).to_csv(GATHERED, index=False)
    pd.concat([pd.read_csv(OUT_DIR / f"{n}-models.csv") for n in present]).round(4).to_csv(MODELS_CSV, index=False)
    pd.DataFrame([dataset_info(n) for n in present]).round(4).to_csv(DATASETS_CSV, index=False)
    print(f"gathered {len(present)} data sets into {GATHERED.relative_to(data.REPO_ROOT)}")


def units() -> list[Result]:
    """The stored results of ``scripts/tv_real_data.py``: one per data set, then the gather step."""
    script = "scripts/tv_real_data.py"
    parts = [Result(f"tv-real/{d}", (script, "--datasets", d, "--force", "--no-gather"),
                    (f"tv-real/{d}.csv", f"tv-real/{d}-models.csv"), (d,), engine=True, cheap=d in CHEAP, shown_in=SHOWN_IN) for d in REAL_DATA_POSITIVE]
    gather_step = Result("tv-real", (script, "--gather-only"),
                         tuple(p.relative_to(OUT_DIR.parent).as_posix() for p in (GATHERED, MODELS_CSV, DATASETS_CSV)),
                         tuple(p.outputs[0] for p in parts) + tuple(REAL_DATA_POSITIVE), cheap=True, shown_in=SHOWN_IN)
    return [*parts, gather_step]
