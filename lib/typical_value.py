"""Typical-value contributions for unbalanced binary classification (the typical-value draft).

The typical-value draft (bibliography key ``anonymous_typical_value``) explains the probability ``f(x)`` of the positive
class of any binary classifier one feature at a time. Under the naive Bayes assumption it
writes

.. math::

    \\log P(y \\mid x) = \\underbrace{\\log\\bigl(C(x) P(y)\\bigr)}_{\\text{bias}}
        + \\sum_{k=1}^{p} \\log p_{-k},
    \\qquad p_{-k} = \\frac{P(y \\mid x)}{P(y \\mid x_{-k})},

and, for unbalanced data, approximates ``P(y | x_{-k})`` by ``f`` evaluated with ``x_k``
replaced by a *typical value* ``x̄_k``, the mode of ``X_k`` among the negative examples
("missing" if most negatives are missing). The contribution of feature ``k`` is
``log f_{-k} = log f(x) − log f(x_1, …, x̄_k, …, x_p)`` (the draft's step 2) and the bias
is what makes the sum exact (step 3): ``bias(x) = log f(x) − Σ_k log f_{-k}(x)``, which in
general depends on the row.

The draft also sketches the *integral* variant: ``P(y | x_{-k})`` as ``f`` averaged over the
empirical distribution of ``X_k`` (its "More on evaluating p_{-k}" section), of which the
typical value is the one-point version.

This module computes

* :func:`typical_values` — ``x̄_k`` (mode among negatives; binned mode for numerical
  features with a numpy histogram bin rule; "missing" when most negatives are missing);
* :func:`typical_value_contributions` — the draft's ``log f_{-k}`` and bias for any fitted
  classifier with ``predict_proba`` (one batched call for all rows × features);
* :func:`integral_contributions` — the integral variant (``X_k`` marginalised over background
  rows);
* closed forms for a naive Bayes model given by its tables
  (:class:`lib.naive_bayes.NaiveBayesTables`): the exact ``log p_{-k}``
  (:func:`nb_leave_one_out`), the draft's ``log C(x)`` (:func:`nb_log_c`) and the
  typical-value contributions on the log-odds (:func:`nb_typical_log_odds`);
* :func:`log_and_logit` — the two output scales as one model output, for
  :func:`lib.shapley.exact_shapley`.

The evaluations of chapter 4 are experiments, not the method: the simulated designs live in
:mod:`compendium.experiments.tv_simulated`, the real data (split, imputation, feature selection, the
classifiers, the per-row agreement with exact Shapley values) in
:mod:`compendium.experiments.tv_real_data`.

Both contribution functions return a :class:`lib.result.ShapleyResult` whose
``base_values`` are the bias, so that ``outputs = base_values + values.sum(axis=1)``
exactly (``efficiency_gap()`` is zero), and shap's plots work on them.

``scale="log"`` is the draft's ``log f``; ``scale="logit"`` applies the same construction to
the log-odds ``log f/(1−f)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from .games import mix_rows
from .models import ClassifierFunction, as_model, output_index, renamed_keywords
from .naive_bayes import NaiveBayesTables
from .ranks import DEFAULT_TIE_RTOL, tie_grid
from .result import ShapleyResult
from .validation import as_frame, check_rows, check_same_columns, check_same_kind, is_categorical

__all__ = [
    "JointTableClassifier",
    "log_and_logit",
    "TypicalValues",
    "agreement",
    "joint_leave_one_out",
    "nb_joint",
    "sample_joint",
    "integral_contributions",
    "nb_leave_one_out",
    "nb_log_c",
    "nb_typical_log_odds",
    "sample_naive_bayes",
    "typical_value_contributions",
    "typical_values",
]

Scale = Literal["log", "logit"]
ArrayOrFrame = np.ndarray | pd.DataFrame


# ---------------------------------------------------------------------------
# Typical values
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TypicalValues:
    """The typical value ``x̄_k`` of every feature (typical-value draft, "Technicalities").

    Attributes
    ----------
    feature_names
        The ``d`` features (DataFrame columns, or ``x0 … x{d-1}`` for arrays).
    values
        ``x̄_k``, an object array of shape ``(d,)``; ``NaN`` where the typical value is
        "missing".
    kinds
        How each was found: ``"categorical"`` (mode of the categories), ``"discrete"``
        (a numerical feature with at most ``max_discrete`` distinct values: exact mode),
        ``"binned"`` (a numerical feature: representative of the modal histogram bin) or
        ``"missing"`` (more than ``missing_threshold`` of the negatives are missing).
    share
        Fraction of the non-missing negatives at the typical value (in the modal bin for
        ``"binned"``); for ``"missing"``, the fraction of negatives that are missing.
    missing_share
        Fraction of the negatives whose value is missing.
    constant
        ``True`` where the feature takes a single (non-missing) value among the negatives:
        then ``x̄_k`` is that value and rows with ``x_k = x̄_k`` get a zero contribution.
    bin_edges
        The histogram edges of each ``"binned"`` feature, else ``None``.
    negative
        The label of the negative class.
    n_negatives
        How many negative examples the values were computed from.
    """

    feature_names: list[str]
    values: np.ndarray
    kinds: list[str]
    share: np.ndarray
    missing_share: np.ndarray
    constant: np.ndarray
    bin_edges: list[np.ndarray | None]
    negative: Any
    n_negatives: int

    def to_frame(self) -> pd.DataFrame:
        """One row per feature: typical value, kind, share, missing share, constant."""
        return pd.DataFrame(
            {
                "typical value": self.values,
                "kind": self.kinds,
                "share": self.share,
                "missing share": self.missing_share,
                "constant": self.constant,
            },
            index=pd.Index(self.feature_names, name="feature"),
        )


def _default_negative(y: pd.Series) -> Any:
    labels = set(pd.unique(y).tolist())
    if labels <= {0, 1}:
        return 0
    if labels <= {False, True}:
        return False
    raise ValueError(
        f"the labels are {sorted(labels, key=str)}: say which one is the negative class (negative=...)"
    )


def typical_values(
    X: ArrayOrFrame | np.typing.ArrayLike,
    y: np.typing.ArrayLike,
    *,
    negative: Any = None,
    bins: int | str | Sequence[float] = "auto",
    max_discrete: int = 10,
    representative: Literal["median", "midpoint"] = "median",
    missing_threshold: float = 0.5,
) -> TypicalValues:
    """Typical value ``x̄_k`` of each feature among the negative examples.

    The typical-value draft ("Technicalities and assumptions"): ``x̄_k`` is "missing" if
    most of the negatives' values are missing (more than ``missing_threshold``), otherwise
    the mode of the negatives' non-missing values:

    * categorical columns (pandas ``category``, object, string, bool): the most frequent
      category;
    * numerical columns with at most ``max_discrete`` distinct values among the negatives:
      the most frequent value;
    * other numerical columns: a *binned* mode — the negatives' values are cut by
      ``numpy.histogram_bin_edges(values, bins=bins)`` (``bins`` is any numpy rule, e.g.
      ``"auto"``, ``"fd"``, ``"sturges"``, a number of bins or the edges), and ``x̄_k`` is
      the median of the values in the most populated bin (``representative="median"``,
      always a value inside the data's range) or the bin's midpoint (``"midpoint"``).

    Ties go to the first category (categorical order, else sorted order), the smallest
    value, or the leftmost bin. A feature constant among the negatives gets that constant
    (flagged in ``constant``); this is documented behaviour, not an error.

    Raises
    ------
    ValueError
        If ``X`` and ``y`` differ in length, ``y`` has missing labels, there is no negative
        example, the negative label is ambiguous (labels other than 0/1 and no
        ``negative=``), or a parameter is out of range.
    """
    frame, _ = as_frame(X)
    yv = pd.Series(np.asarray(y))
    if len(yv) != len(frame):
        raise ValueError(f"X has {len(frame)} rows and y has {len(yv)}")
    if yv.isna().any():
        raise ValueError("y has missing labels")
    if max_discrete < 0:
        raise ValueError("max_discrete must be >= 0")
    if not 0 <= missing_threshold < 1:
        raise ValueError("missing_threshold must lie in [0, 1)")
    if representative not in ("median", "midpoint"):
        raise ValueError(f"representative must be 'median' or 'midpoint', got {representative!r}")
    if negative is None:
        negative = _default_negative(yv)
    is_neg = (yv == negative).to_numpy()
    if not is_neg.any():
        raise ValueError(
            f"no negative example (label {negative!r}) in y: the typical value is a mode among "
            "the negatives, so at least one is needed"
        )
    neg = frame.loc[is_neg]
    d = frame.shape[1]
    values = np.empty(d, dtype=object)
    kinds: list[str] = []
    share = np.empty(d)
    missing_share = np.empty(d)
    constant = np.zeros(d, dtype=bool)
    edges_out: list[np.ndarray | None] = []
    for j, c in enumerate(frame.columns):
        col = neg[c]
        miss = col.isna().to_numpy()
        missing_share[j] = miss.mean()
        edges_out.append(None)
        if miss.mean() > missing_threshold:
            values[j], share[j] = np.nan, miss.mean()
            kinds.append("missing")
            continue
        present = col[~miss]
        counts = present.value_counts(sort=False)
        counts = counts[counts > 0]
        constant[j] = len(counts) == 1
        if is_categorical(frame[c]):
            if isinstance(col.dtype, pd.CategoricalDtype):
                order = [v for v in col.cat.categories if v in counts.index]
            else:
                order = sorted(counts.index, key=str)
            best = max(order, key=lambda v: (counts[v], -order.index(v)))
            values[j], share[j] = best, counts[best] / len(present)
            kinds.append("categorical")
        elif len(counts) <= max_discrete:
            idx = np.sort(counts.index.to_numpy())
            cnt = counts[idx].to_numpy()
            k = int(np.argmax(cnt))
            values[j], share[j] = idx[k].item() if hasattr(idx[k], "item") else idx[k], cnt[k] / len(present)
            kinds.append("discrete")
        else:
            v = present.to_numpy(dtype=float)
            edges = np.histogram_bin_edges(v, bins=bins)
            hist, _ = np.histogram(v, bins=edges)
            k = int(np.argmax(hist))
            inside = (v >= edges[k]) & ((v < edges[k + 1]) if k + 1 < len(edges) - 1 else (v <= edges[k + 1]))
            rep = float(np.median(v[inside])) if representative == "median" else float((edges[k] + edges[k + 1]) / 2)
            values[j], share[j] = rep, hist[k] / len(present)
            kinds.append("binned")
            edges_out[j] = edges
    return TypicalValues(
        feature_names=[str(c) for c in frame.columns],
        values=values,
        kinds=kinds,
        share=share,
        missing_share=missing_share,
        constant=constant,
        bin_edges=edges_out,
        negative=negative,
        n_negatives=int(is_neg.sum()),
    )


# ---------------------------------------------------------------------------
# Evaluating the model on rows with one feature replaced
# ---------------------------------------------------------------------------


def _mixed_rows(X: pd.DataFrame, inst: np.ndarray, feat: np.ndarray, donor: pd.DataFrame) -> pd.DataFrame:
    """Row ``r`` is ``X[inst[r]]`` with feature ``feat[r]`` taken from ``donor[r]``
    (``feat[r] = -1``: nothing replaced). Categorical columns keep their dtype."""
    keep = feat[:, None] != np.arange(X.shape[1])
    return mix_rows(X.iloc[inst], donor, keep)


def _typical_donor(X: pd.DataFrame, typical: TypicalValues) -> pd.DataFrame:
    if typical.feature_names != [str(c) for c in X.columns]:
        raise ValueError(
            f"the typical values are for features {typical.feature_names}, X has {[str(c) for c in X.columns]}"
        )
    cols = {}
    for j, c in enumerate(X.columns):
        v = typical.values[j]
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            if not pd.isna(v) and v not in X[c].cat.categories:
                raise ValueError(f"typical value {v!r} of {c!r} is not a category of X")
            cols[c] = pd.Categorical([v], dtype=X[c].dtype)
        else:
            cols[c] = np.array([v], dtype=object)
    return pd.DataFrame(cols, columns=X.columns)


def _positive_column(model: Any, output: Any) -> tuple[Any, int | None]:
    """The function to evaluate (:func:`lib.models.as_model`) and the column of the positive class
    (``None``: a callable's one output, or column 1 of its two)."""
    f = as_model(model)
    if not isinstance(f, ClassifierFunction):
        if output is not None:
            raise ValueError("output= needs a fitted classifier (with classes_); a function returns the "
                             "positive class's probability (one column) or two columns")
        return f, None
    if len(f.classes) != 2:
        raise ValueError(f"the draft's contributions are for a binary classifier; the model has {len(f.classes)} classes")
    if output is None:
        return f, 1
    return f, output_index(output, f.classes, len(f.classes))


def _predict(f: Any, rows: pd.DataFrame, was_frame: bool, col: int | None, max_rows_per_call: int) -> np.ndarray:
    out = np.empty(len(rows))
    for start in range(0, len(rows), max_rows_per_call):
        chunk = rows.iloc[start:start + max_rows_per_call]
        arg = chunk if was_frame else chunk.to_numpy()
        p = np.asarray(f(arg), dtype=float)
        if p.ndim == 1 and col is None and p.shape[0] == len(chunk):
            out[start:start + len(chunk)] = p
            continue
        k = 1 if col is None else col
        if p.ndim != 2 or p.shape[0] != len(chunk) or p.shape[1] <= k or (col is None and p.shape[1] != 2):
            raise ValueError(f"the model returned shape {p.shape} for {len(chunk)} rows: expected the positive "
                             "class's probability, (rows,), or the two classes', (rows, 2)")
        out[start:start + len(chunk)] = p[:, k]
    if not np.all(np.isfinite(out)) or np.any((out < 0) | (out > 1)):
        raise ValueError("the model returned probabilities outside [0, 1] or NaN")
    return out


def _rows_text(rows: np.ndarray) -> str:
    shown = rows[:8].tolist()
    return (f"row {shown[0]}" if len(rows) == 1 else f"rows {shown}") + (f" and {len(rows) - 8} more" if len(rows) > 8 else "")


def _transform(p: np.ndarray, scale: Scale, clip: float | None, where: Callable[[np.ndarray], str]) -> np.ndarray:
    """``s(p)``; a zero (or, for the logit, one) probability raises an error whose places
    ``where(bad)`` names in the user's rows."""
    if scale not in ("log", "logit"):
        raise ValueError(f"scale must be 'log' or 'logit', got {scale!r}")
    if clip is not None:
        if not 0 < clip < 0.5:
            raise ValueError("clip must lie in (0, 0.5)")
        p = np.clip(p, clip, 1 - clip)
    bad = (p <= 0) if scale == "log" else ((p <= 0) | (p >= 1))
    if bad.any():
        raise ValueError(
            f"the model gives probability {'0' if scale == 'log' else '0 or 1'} {where(bad)}: "
            f"{'log f' if scale == 'log' else 'logit f'} is infinite there. Use a model whose probabilities are "
            "bounded away from 0 (e.g. smoothed or calibrated), or pass clip=eps to clip them into [eps, 1-eps]"
        )
    return np.log(p) if scale == "log" else np.log(p) - np.log1p(-p)


def _at_rows(what: str) -> Callable[[np.ndarray], str]:
    """Places of a zero probability among the rows of ``what`` (one value per row)."""
    return lambda bad: f"at {_rows_text(np.flatnonzero(bad))} of {what}"


def _at_replaced(names: Sequence[str], how: str) -> Callable[[np.ndarray], str]:
    """Places of a zero probability among ``(row, feature)`` pairs ``(n, d)`` of replaced rows."""
    def where(bad: np.ndarray) -> str:
        i, k = np.nonzero(bad)
        pairs = ", ".join(f"row {a} with {names[b]!r} {how}" for a, b in list(zip(i.tolist(), k.tolist()))[:5])
        return f"at {pairs}{' and more' if len(i) > 5 else ''} (rows of X)"
    return where


def _result(out: np.ndarray, reduced: np.ndarray, X: pd.DataFrame, was_frame: bool, method: str) -> ShapleyResult:
    values = out[:, None] - reduced
    return ShapleyResult(
        values=values,
        base_values=out - values.sum(axis=1),
        outputs=out,
        data=X if was_frame else X.to_numpy(),
        feature_names=[str(c) for c in X.columns],
        method=method,
    )


@renamed_keywords(positive="output")
def typical_value_contributions(
    model: Any,
    X: ArrayOrFrame | np.typing.ArrayLike,
    typical: TypicalValues,
    *,
    scale: Scale = "log",
    output: Any = None,
    clip: float | None = None,
    allow_nan: bool = False,
    max_rows_per_call: int = 2**16,
) -> ShapleyResult:
    """The draft's contributions ``log f_{-k}`` and bias, for every row and feature.

    Typical-value draft, "Feature importances: practice", steps 1–3:
    ``log f_{-k}(x) = s(f(x)) − s(f(x_1, …, x̄_k, …, x_p))`` with ``s = log``
    (``scale="log"``, the draft) or ``s = logit`` (``scale="logit"``), and
    ``bias(x) = s(f(x)) − Σ_k log f_{-k}(x)`` (step 3: the bias "ensures equality").

    ``model.predict_proba`` is called once on the ``n (d + 1)`` rows (in chunks of at most
    ``max_rows_per_call``); ``f`` is the column of ``output`` (a label of ``classes_``
    or a column index, :func:`lib.models.output_index`; default ``classes_[1]``; ``positive=``, its old
    name, is deprecated).
    ``X`` is passed to the model as it is given: a DataFrame (categorical columns keep their
    dtype) or an array.

    A "missing" typical value is plugged in as NaN: the model must handle NaN (e.g.
    ``HistGradientBoostingClassifier``), else its own error is raised.

    Returns
    -------
    ShapleyResult
        ``values`` ``(n, d)`` = contributions, ``base_values`` ``(n,)`` = bias (row-dependent
        in general), ``outputs`` ``(n,)`` = ``s(f(x))``.

    Raises
    ------
    ValueError
        Missing values in ``X`` (unless ``allow_nan``), wrong columns, a model without
        ``predict_proba`` or with more than two classes, and a probability of 0 (or of 1
        for the logit) at ``x`` or at a replaced row: the log is infinite — unless
        ``clip=eps`` is given, which clips the probabilities into ``[eps, 1 − eps]``.
    """
    frame, was_frame = check_rows(X, len(typical.feature_names), allow_nan)
    f, col = _positive_column(model, output)
    donor = _typical_donor(frame, typical)
    n, d = frame.shape
    inst = np.tile(np.arange(n), d + 1)
    feat = np.repeat(np.arange(-1, d), n)
    rows = _mixed_rows(frame, inst, feat, donor.iloc[np.zeros(len(inst), dtype=int)].reset_index(drop=True))
    p = _predict(f, rows, was_frame, col, max_rows_per_call).reshape(d + 1, n)
    s_x = _transform(p[0], scale, clip, _at_rows("X"))
    s_k = _transform(p[1:].T, scale, clip, _at_replaced(list(frame.columns), "set to its typical value"))
    return _result(s_x, s_k, frame, was_frame, f"typical-value-{scale}")


@renamed_keywords(positive="output")
def integral_contributions(
    model: Any,
    X: ArrayOrFrame | np.typing.ArrayLike,
    background: ArrayOrFrame | np.typing.ArrayLike,
    *,
    scale: Scale = "log",
    output: Any = None,
    clip: float | None = None,
    allow_nan: bool = False,
    max_rows_per_call: int = 2**16,
) -> ShapleyResult:
    """The draft's integral variant: ``X_k`` marginalised over its empirical distribution.

    Book: :ref:`eq-tv-integral` (notebooks/04-typical-value-contributions/01-derivation.ipynb).

    Typical-value draft, "More on evaluating p_{-k}":
    ``P(y | x_{-k}) ≈ (1/m) Σ_j f(x_1, …, b_{jk}, …, x_p)`` over the ``m`` background rows
    ``b_j`` (the empirical marginal of ``X_k``; the draft writes the density weights
    ``p̂_k(x_{ki})`` — over the training rows, each row has weight ``1/N``). The
    contribution is ``s(f(x)) − s(mean_j f(x_{k ← b_jk}))`` and the bias closes the sum as in
    :func:`typical_value_contributions`. Note that the exact ``P(y | x_{-k})`` integrates
    against the *conditional* ``p(x_k | x_{-k})``; the marginal is the draft's choice
    (see the chapter's derivation notebook).

    Cost: ``n (1 + d m)`` model rows, in chunks of ``max_rows_per_call``.
    Same errors as :func:`typical_value_contributions`.
    """
    check_same_kind(X, background)
    frame, was_frame = check_rows(X, None, allow_nan)
    bg, _ = check_rows(background, frame.shape[1], allow_nan, name="background")
    check_same_columns(frame, bg)
    f, col = _positive_column(model, output)
    n, d = frame.shape
    m = len(bg)
    # block-major: (row i, feature k, background j)
    inst = np.repeat(np.arange(n), d * m)
    feat = np.tile(np.repeat(np.arange(d), m), n)
    donor_idx = np.tile(np.arange(m), n * d)
    rows = pd.concat(
        [frame, _mixed_rows(frame, inst, feat, bg.iloc[donor_idx].reset_index(drop=True))],
        ignore_index=True,
    )
    p = _predict(f, rows, was_frame, col, max_rows_per_call)
    p_x = p[:n]
    p_marg = p[n:].reshape(n, d, m).mean(axis=2)
    s_x = _transform(p_x, scale, clip, _at_rows("X"))
    s_marg = _transform(p_marg, scale, clip, _at_replaced(list(frame.columns), "averaged over the background"))
    return _result(s_x, s_marg, frame, was_frame, f"integral-{scale}")


# ---------------------------------------------------------------------------
# Closed forms for a naive Bayes model given by its tables
# ---------------------------------------------------------------------------


def _nb_checked(tables: NaiveBayesTables, parts: np.typing.ArrayLike) -> np.ndarray:
    if not np.all(tables.weights == 1):
        raise ValueError(
            "the draft's identities hold for a naive Bayes model (all weights 1); a weighted "
            "naive Bayes is not the posterior of a joint distribution"
        )
    return tables.check_parts(parts)


def _lik_terms(tables: NaiveBayesTables, parts: np.ndarray) -> np.ndarray:
    """``log P(x_k | y)``, shape ``(n, d, K)``."""
    return np.stack([np.log(lik[parts[:, k]]) for k, lik in enumerate(tables.likelihood)], axis=1)


@renamed_keywords(positive="output")
def nb_leave_one_out(
    tables: NaiveBayesTables, parts: np.typing.ArrayLike, output: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``log p_{-k} = log P(c | x) − log P(c | x_{-k})`` of a naive Bayes model.

    Book: :ref:`eq-tv-minus-k`, :ref:`eq-tv-p-minus-k`
        (notebooks/04-typical-value-contributions/01-derivation.ipynb).

    Typical-value draft, definition of ``p_{-k}``; under the naive Bayes assumption
    ``P(c | x_{-k}) = P(c) Π_{i≠k} P(x_i | c) / P(x_{-k})`` (the factor of ``x_k`` dropped:
    it sums to one over ``x_k``), so (chapter eq. ``eq-tv-p-minus-k``)
    ``log p_{-k} = log P(x_k | c) + log P(x_{-k}) − log P(x)``.

    Returns
    -------
    log_p_minus_k
        ``(n, d)``.
    log_posterior
        ``log P(c | x)``, ``(n,)``.
    """
    parts = _nb_checked(tables, parts)
    c = output_index(output, np.asarray(tables.classes), len(tables.classes))
    lik = _lik_terms(tables, parts)  # (n, d, K)
    joint = np.log(tables.prior) + lik.sum(axis=1)  # (n, K)
    log_px = logsumexp(joint, axis=1)  # (n,)
    log_px_minus = logsumexp(joint[:, None, :] - lik, axis=2)  # (n, d)
    return lik[:, :, c] + log_px_minus - log_px[:, None], joint[:, c] - log_px


def nb_log_c(tables: NaiveBayesTables, parts: np.typing.ArrayLike) -> np.ndarray:
    """The draft's ``log C(x)``, with ``P(y | x) = C(x) P(y) Π_k p_{-k}``:
    ``log C(x) = (d − 1) log P(x) − Σ_k log P(x_{-k})``, the same for every class. Shape ``(n,)``.

    Book: :ref:`eq-tv-c` (notebooks/04-typical-value-contributions/01-derivation.ipynb).
    """
    parts = _nb_checked(tables, parts)
    lik = _lik_terms(tables, parts)
    joint = np.log(tables.prior) + lik.sum(axis=1)
    log_px = logsumexp(joint, axis=1)
    log_px_minus = logsumexp(joint[:, None, :] - lik, axis=2)
    return (lik.shape[1] - 1) * log_px - log_px_minus.sum(axis=1)


@renamed_keywords(positive="output")
def nb_typical_log_odds(
    tables: NaiveBayesTables, parts: np.typing.ArrayLike, typical_parts: np.typing.ArrayLike, output: Any
) -> tuple[np.ndarray, float]:
    """Typical-value contributions of a naive Bayes model on the log-odds, in closed form.

    Book: :ref:`eq-tv-logodds`, :ref:`eq-tv-nb-logit`
        (notebooks/04-typical-value-contributions/01-derivation.ipynb).

    The log-odds is additive, ``L(x) = log P(c)/P(¬c) + Σ_k λ_k(x_k)`` (Lemaire et al.,
    Eq. (L2)), so replacing ``x_k`` by ``x̄_k`` changes it by ``λ_k(x_k) − λ_k(x̄_k)``
    (chapter eq. ``eq-tv-nb-logit``): the contribution is the weight of evidence of ``x_k``
    minus that of ``x̄_k``, and the bias ``L(x̄)`` is the same for every row.

    Returns
    -------
    values
        ``(n, d)``.
    bias
        ``L(x̄) = log P(c)/P(¬c) + Σ_k λ_k(x̄_k)``.
    """
    from .naive_bayes import class_log_ratios

    parts = _nb_checked(tables, parts)
    typ = tables.check_parts(np.asarray(typical_parts).reshape(1, -1))[0]
    bias0, ratios = class_log_ratios(tables, output)
    at_x = np.stack([r[parts[:, k]] for k, r in enumerate(ratios)], axis=1)
    at_typ = np.array([r[typ[k]] for k, r in enumerate(ratios)])
    return at_x - at_typ, float(bias0 + at_typ.sum())


def sample_naive_bayes(
    tables: NaiveBayesTables, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` rows ``(parts, class index)`` from the joint distribution of a naive Bayes
    model: ``y ~ P(y)``, then each ``x_k ~ P(x_k | y)`` independently."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator")
    y = rng.choice(len(tables.classes), size=n, p=tables.prior)
    parts = np.empty((n, len(tables.likelihood)), dtype=np.int64)
    for k, lik in enumerate(tables.likelihood):
        cdf = np.cumsum(lik[:, y].T, axis=1)  # (n, P_k)
        u = rng.random(n)[:, None]
        parts[:, k] = np.minimum((u > cdf).sum(axis=1), lik.shape[0] - 1)
    return parts, y


# ---------------------------------------------------------------------------
# Any discrete joint distribution: the exact Bayes classifier and exact p_{-k}
# ---------------------------------------------------------------------------


def _check_joint(joint: np.typing.ArrayLike) -> np.ndarray:
    j = np.asarray(joint, dtype=float)
    if j.ndim < 2:
        raise ValueError("a joint table P(y, x_1, ..., x_d) needs shape (K, P_1, ..., P_d) with d >= 1")
    if not np.all(np.isfinite(j)) or np.any(j < 0) or abs(j.sum() - 1) > 1e-9:
        raise ValueError("the joint table must hold non-negative probabilities summing to one")
    if np.any(j.sum(axis=0) <= 0):
        raise ValueError("every cell x must have P(x) > 0 (else P(y | x) is undefined)")
    return j


def nb_joint(tables: NaiveBayesTables) -> np.ndarray:
    """The full joint table ``P(y, x) = P(y) Π_k P(x_k | y)`` of a naive Bayes model,
    shape ``(K, P_1, …, P_d)`` (typical-value draft, first display).

    Book: :ref:`eq-tv-nb` (notebooks/04-typical-value-contributions/01-derivation.ipynb).
    """
    if not np.all(tables.weights == 1):
        raise ValueError("a weighted naive Bayes is not the posterior of a joint distribution")
    out = np.asarray(tables.prior, dtype=float).copy()
    for lik in tables.likelihood:  # (P_k, K): append an axis
        out = out[..., None] * lik.T.reshape((lik.shape[1],) + (1,) * (out.ndim - 1) + (lik.shape[0],))
    return out


def joint_leave_one_out(joint: np.typing.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact ``log P(y | x)``, ``log p_{-k}`` and the draft's ``log C`` for *any* discrete joint.

    Book: :ref:`eq-tv-p-minus-k`, :ref:`eq-tv-c`, :ref:`eq-tv-decomposition`
        (notebooks/04-typical-value-contributions/01-derivation.ipynb).

    Typical-value draft, definitions of ``p_{-k}`` and ``C``: with
    ``P(y | x_{-k}) = Σ_{x_k} P(y, x) / Σ_{y, x_k} P(y, x)`` (no independence assumed),
    ``log p_{-k} = log P(y | x) − log P(y | x_{-k})`` and
    ``log C(x, y) = log P(y | x) − log P(y) − Σ_k log p_{-k}(x, y)``. Under the naive
    Bayes assumption ``C`` does not depend on ``y`` (chapter eq. ``eq-tv-c``); in general it
    does.

    Parameters
    ----------
    joint
        ``(K, P_1, …, P_d)``, ``P(y, x)``; every ``P(x) > 0``.

    Returns
    -------
    log_posterior
        ``(K, P_1, …, P_d)``.
    log_p_minus_k
        ``(d, K, P_1, …, P_d)``.
    log_c
        ``(K, P_1, …, P_d)``.
    """
    j = _check_joint(joint)
    d = j.ndim - 1
    with np.errstate(divide="ignore"):
        post = np.log(j) - np.log(j.sum(axis=0, keepdims=True))
        lpk = np.empty((d,) + j.shape)
        for k in range(d):
            marg = j.sum(axis=1 + k, keepdims=True)
            lpk[k] = post - (np.log(marg) - np.log(marg.sum(axis=0, keepdims=True)))
        prior = j.reshape(j.shape[0], -1).sum(axis=1)
        log_c = post - np.log(prior).reshape((-1,) + (1,) * d) - lpk.sum(axis=0)
    return post, lpk, log_c


def sample_joint(joint: np.typing.ArrayLike, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` rows ``(codes (n, d), class index (n,))`` from a joint table."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator")
    j = _check_joint(joint)
    flat = rng.choice(j.size, size=n, p=j.reshape(-1) / j.sum())
    idx = np.unravel_index(flat, j.shape)
    return np.column_stack(idx[1:]).astype(np.int64), idx[0].astype(np.int64)


class JointTableClassifier:
    """The Bayes classifier of a discrete joint distribution: ``predict_proba(x) = P(y | x)``.

    A perfectly calibrated model whose every term is known, for the chapter's checks.
    Inputs are integer codes ``(n, d)`` (array or DataFrame), ``x_k`` in ``0 … P_k − 1``.
    """

    def __init__(self, joint: np.typing.ArrayLike, classes: Sequence[Any] = (0, 1)):
        self.joint = _check_joint(joint)
        if len(classes) != self.joint.shape[0]:
            raise ValueError("one class label per row of the joint table")
        self.classes_ = np.asarray(classes)
        self._post = self.joint / self.joint.sum(axis=0, keepdims=True)

    def predict_proba(self, X: Any) -> np.ndarray:
        codes = np.asarray(X)
        d = self.joint.ndim - 1
        if codes.ndim != 2 or codes.shape[1] != d:
            raise ValueError(f"expected codes of shape (n, {d}), got {codes.shape}")
        if codes.dtype.kind not in "iu":
            if codes.dtype.kind != "f" or not np.all(codes == np.round(codes)):
                raise ValueError("inputs must be integer codes")
            codes = codes.astype(np.int64)
        if np.any(codes < 0) or np.any(codes >= np.array(self.joint.shape[1:])):
            raise ValueError("codes out of range")
        return self._post[(slice(None),) + tuple(codes.T)].T


# ---------------------------------------------------------------------------
# Agreement with a reference attribution (e.g. exact Shapley values)
# ---------------------------------------------------------------------------


def agreement(values: np.typing.ArrayLike, reference: np.typing.ArrayLike, *, top_k: int = 1,
              tie_rtol: float = DEFAULT_TIE_RTOL) -> pd.DataFrame:
    """Per-row agreement of an attribution with a reference, shape ``(n, d)`` both.

    Columns: ``spearman`` and ``kendall`` (``scipy.stats``; NaN for a row where either is
    constant), ``sign`` (fraction of features with the same sign, zero counting as its own
    sign), ``top_k`` (fraction of the ``top_k`` features by ``|value|`` shared; ties broken
    by feature order).

    Every column is a rank statistic, so values equal in exact arithmetic must be tied:
    each row of each array is first put on a grid of step ``tie_rtol`` times the row's
    largest absolute value (:func:`lib.ranks.tie_grid`). Exact Shapley values of null
    players or of symmetric features are equal in exact arithmetic but not in their last
    bits, which depend on the order of the sums (the BLAS kernel, the engine's path); read
    raw, they would decide the ranks, signs and top-k sets by rounding noise.
    """
    from scipy.stats import kendalltau, spearmanr

    a, b = np.asarray(values, dtype=float), np.asarray(reference, dtype=float)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"values and reference must both be (n, d), got {a.shape} and {b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("values and reference must be finite")
    if not 1 <= top_k <= a.shape[1]:
        raise ValueError(f"top_k must lie in 1..{a.shape[1]}")
    ga, gb = tie_grid(a, tie_rtol, axis=1), tie_grid(b, tie_rtol, axis=1)
    rows = []
    for x, r in zip(ga, gb):
        const = np.ptp(x) == 0 or np.ptp(r) == 0
        rho = np.nan if const else spearmanr(x, r).statistic
        tau = np.nan if const else kendalltau(x, r).statistic
        ta = set(np.argsort(-np.abs(x), kind="stable")[:top_k])
        tb = set(np.argsort(-np.abs(r), kind="stable")[:top_k])
        rows.append((rho, tau, np.mean(np.sign(x) == np.sign(r)), len(ta & tb) / top_k))
    return pd.DataFrame(rows, columns=["spearman", "kendall", "sign", "top_k"])


# ---------------------------------------------------------------------------
# The two output scales as one model output (for exact Shapley values on them)
# ---------------------------------------------------------------------------


@renamed_keywords(positive="output")
def log_and_logit(model: Any, *, output: Any = None, clip: float | None = None) -> Any:
    """``Z ↦ [log f(Z), logit f(Z)]``, shape ``(r, 2)``: the two output scales of the chapter.

    ``f`` is the positive-class column of ``model.predict_proba`` (default ``classes_[1]``);
    ``log f`` is the typical-value draft's scale ("Feature importances: practice", step 3),
    ``logit f = log f/(1 − f)`` the log-odds. The transform is the one
    :func:`typical_value_contributions` applies (same ``clip``, same errors), so that exact
    Shapley values of this function (:func:`lib.shapley.exact_shapley`, two outputs) and the
    contributions are on exactly the same scale. Inputs are passed to the model as given
    (DataFrame or array).
    """
    f, col = _positive_column(model, output)
    if clip is not None and not 0 < clip < 0.5:
        raise ValueError("clip must lie in (0, 0.5)")

    def out(Z: Any) -> np.ndarray:
        frame, was_frame = as_frame(Z, "Z")
        p = _predict(f, frame, was_frame, col, len(frame) or 1)
        where = _at_rows("the rows it was asked for")
        return np.column_stack([_transform(p, "log", clip, where), _transform(p, "logit", clip, where)])

    return out
