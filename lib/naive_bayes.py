"""Weighted naive Bayes and its exact Shapley values (Lemaire, Clérot & Boullé).

The model (Lemaire et al., Eq. (L1)) is a naive Bayes over *discretised* variables: each
variable ``i`` is cut into parts (intervals of a numerical variable, groups of values of
a categorical one), and with weights ``w_i`` in ``[0, 1]``

.. math::

    P(Y_k \\mid x) \\propto P(Y_k) \\prod_i P(X_i = x_i \\mid Y_k)^{w_i}.

Everything the paper computes depends on the model only through its *tables*: the
class priors, for each variable the parts and ``P(part | class)``, the marginal
``P(part)`` and the weights. :class:`NaiveBayesTables` holds them, whatever trained the
model (:class:`WeightedNaiveBayes` here, or Khiops); the functions below take a table
and an ``(n, d)`` array of part indices.

For a positive class ``c`` against the rest, write
``λ_i(p) = log P(X_i = p | Y = c) / P(X_i = p | Y ≠ c)``. Then

* the log-odds (Eq. (L2)) is ``log P(c)/P(¬c) + Σ_i w_i λ_i(x_i)``;
* the Shapley value of variable ``m`` (Eq. (L10)) is
  ``φ_m = w_m (λ_m(x_m) − Σ_p P(X_m = p) λ_m(p))``;
* the weight of evidence (Eq. (L15)) is ``WoE_m = w_m λ_m(x_m)``.

For two classes the rest is the other class and Eq. (L2) is exactly the model's log-odds.
With more classes, "the rest" is a mixture of classes, and Eq. (L2) is the log-odds of
the one-vs-rest naive Bayes built from the same tables — see :func:`class_log_ratios`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import KBinsDiscretizer

from .models import output_index, renamed_keywords
from .result import ShapleyResult

__all__ = [
    "NaiveBayesTables",
    "ShapleyLookup",
    "WeightedNaiveBayes",
    "class_log_ratios",
    "log_odds_terms",
    "multiclass_shapley",
    "one_vs_rest_log_odds",
    "posterior_log_odds",
    "shapley_lookup",
    "shapley_result",
    "shapley_values",
    "weight_of_evidence",
]


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NaiveBayesTables:
    """The tables of a weighted, discretised naive Bayes (Lemaire et al., Eq. (L1)).

    Book: :ref:`eq-nb-posterior` (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).

    Attributes
    ----------
    feature_names
        The ``d`` variables.
    classes
        The ``K`` class labels.
    prior
        ``P(Y = k)``, shape ``(K,)``, positive, summing to one.
    likelihood
        One array per variable, shape ``(P_i, K)``: ``P(X_i = part p | Y = k)``;
        every column sums to one, every cell is positive.
    part_prob
        One array per variable, shape ``(P_i,)``: ``P(X_i = part p)``, the distribution
        the expectation of Eq. (L10) is taken over (the training frequencies).
    weights
        ``w_i``, shape ``(d,)``, in ``[0, 1]``.
    part_labels
        Optional human-readable label of each part (interval or group of values).
    """

    feature_names: list[str]
    classes: np.ndarray
    prior: np.ndarray
    likelihood: list[np.ndarray]
    part_prob: list[np.ndarray]
    weights: np.ndarray
    part_labels: list[list[str]] | None = field(default=None)

    def __post_init__(self) -> None:
        d, k = len(self.feature_names), len(self.classes)
        if k < 2:
            raise ValueError(f"a classifier needs at least two classes, got {k}")
        if len(self.likelihood) != d or len(self.part_prob) != d or np.shape(self.weights) != (d,):
            raise ValueError("likelihood, part_prob and weights must have one entry per variable")
        prior = np.asarray(self.prior, dtype=float)
        if prior.shape != (k,) or np.any(prior <= 0) or abs(prior.sum() - 1) > 1e-9:
            raise ValueError("prior must be K positive probabilities summing to one")
        for name, lik, pp in zip(self.feature_names, self.likelihood, self.part_prob):
            if lik.ndim != 2 or lik.shape[1] != k or pp.shape != (lik.shape[0],):
                raise ValueError(f"variable {name!r}: likelihood must be (parts, K) and part_prob (parts,)")
            if np.any(~np.isfinite(lik)) or np.any(lik <= 0):
                raise ValueError(
                    f"variable {name!r} has a zero (or invalid) probability P(part | class): "
                    "its log-ratio is infinite; smooth the counts (e.g. Laplace)"
                )
            if np.any(np.abs(lik.sum(axis=0) - 1) > 1e-9):
                raise ValueError(f"variable {name!r}: P(part | class) must sum to one over the parts")
            if np.any(pp < 0) or abs(pp.sum() - 1) > 1e-9:
                raise ValueError(f"variable {name!r}: part_prob must be a probability distribution")
        w = np.asarray(self.weights, dtype=float)
        if np.any((w < 0) | (w > 1)) or not np.all(np.isfinite(w)):
            raise ValueError("weights must lie in [0, 1]")

    @property
    def n_parts(self) -> list[int]:
        return [lik.shape[0] for lik in self.likelihood]

    def check_parts(self, parts: np.typing.ArrayLike) -> np.ndarray:
        """Validate an ``(n, d)`` array of part indices (clear errors on bad input)."""
        arr = np.asarray(parts)
        if arr.ndim != 2 or arr.shape[1] != len(self.feature_names):
            raise ValueError(
                f"expected part indices of shape (n, {len(self.feature_names)}), got {arr.shape}"
            )
        return _check_part_indices(arr, np.array(self.n_parts), self.feature_names)


def _check_part_indices(arr: np.ndarray, n_parts: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Integer part indices within ``[0, P_i)`` per column, as int64 (no copy if already).

    The range check is one column-wise maximum of the indices read as *unsigned*
    integers (a negative index becomes larger than any ``P_i``), taken over blocks of rows
    so that numpy's reduction runs over long contiguous rows (a plain ``max(axis=0)`` over
    14 columns is ten times slower); the element-wise mask is built only to name the
    offending variable.
    """
    if arr.dtype.kind not in "iu":
        raise ValueError("part indices must be integers (use WeightedNaiveBayes.transform)")
    if arr.size and np.any(_column_max_unsigned(arr) >= n_parts.astype(np.uint64)):
        bad = (arr < 0) | (arr >= n_parts)
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        raise ValueError(f"variable {names[j]!r} has part indices out of range")
    return arr.astype(np.int64, copy=False)


def _column_max_unsigned(arr: np.ndarray, block: int = 64) -> np.ndarray:
    """``arr.view(unsigned).max(axis=0)`` as ``uint64`` for a 2-D integer array, fast."""
    u = arr.view(arr.dtype.str.replace("i", "u")) if arr.dtype.kind == "i" else arr
    n, d = u.shape
    k = n // block * block
    if not u.flags.c_contiguous or k == 0:
        return u.max(axis=0).astype(np.uint64)
    out = u[:k].reshape(k // block, block * d).max(axis=0).reshape(block, d).max(axis=0)
    if k < n:
        out = np.maximum(out, u[k:].max(axis=0))
    return out.astype(np.uint64)


def _positive_index(tables: NaiveBayesTables, output: Any) -> int:
    """The explained class's index: :func:`lib.models.output_index` (a label, else a column index)."""
    return output_index(output, np.asarray(tables.classes), len(tables.classes))


@renamed_keywords(positive="output")
def class_log_ratios(tables: NaiveBayesTables, output: Any) -> tuple[float, list[np.ndarray]]:
    """Prior log-odds and per-part log-ratios ``λ_i(p)`` of one class against the rest.

    Book: :ref:`eq-nb-lambda` (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb);
        :ref:`eq-nb-multi-rest` (notebooks/01-naive-bayes/06-multiclass.ipynb).

    ``λ_i(p) = log P(X_i = p | Y = c) − log P(X_i = p | Y ≠ c)``, where
    ``P(X_i = p | Y ≠ c) = Σ_{k≠c} P(k) P(p | k) / Σ_{k≠c} P(k)`` (the rest as one class,
    as in the paper's multiclass extension, §3).  For two classes this is the
    log-ratio of Eq. (L2) (Lemaire et al.).

    Returns
    -------
    bias
        ``log P(c) / P(¬c)``.
    ratios
        One array of shape ``(P_i,)`` per variable.
    """
    c = _positive_index(tables, output)
    rest = np.ones(len(tables.classes), dtype=bool)
    rest[c] = False
    p_rest = tables.prior[rest].sum()
    bias = float(np.log(tables.prior[c]) - np.log(p_rest))
    ratios = []
    for lik in tables.likelihood:
        lik_rest = lik[:, rest] @ tables.prior[rest] / p_rest
        ratios.append(np.log(lik[:, c]) - np.log(lik_rest))
    return bias, ratios


def _gather(ratios: list[np.ndarray], parts: np.ndarray) -> np.ndarray:
    out = np.empty(parts.shape)
    for i, r in enumerate(ratios):
        out[:, i] = r[parts[:, i]]
    return out


@renamed_keywords(positive="output")
def log_odds_terms(
    tables: NaiveBayesTables, parts: np.typing.ArrayLike, output: Any
) -> tuple[float, np.ndarray]:
    """The decomposition of Eq. (L2) (Lemaire et al.): ``LR = bias + Σ_i terms[:, i]``.

    Book: :ref:`eq-nb-log-odds` (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).

    ``terms[n, i] = w_i λ_i(x_{n,i})``, the weighted log-ratio of each variable's part.
    """
    parts = tables.check_parts(parts)
    bias, ratios = class_log_ratios(tables, output)
    return bias, _gather(ratios, parts) * tables.weights


@renamed_keywords(positive="output")
def weight_of_evidence(
    tables: NaiveBayesTables, parts: np.typing.ArrayLike, output: Any
) -> np.ndarray:
    """Weight of Evidence ``WoE_m = w_m log P(x_m | c) / P(x_m | ¬c)`` (Lemaire et al., Eq. (L15);
    Good, 1950).  Shape ``(n, d)``.

    Book: :ref:`eq-nb-woe` (notebooks/01-naive-bayes/02-woe-vs-shapley.ipynb).
    """
    return log_odds_terms(tables, parts, output)[1]


def _expected_terms(tables: NaiveBayesTables, ratios: list[np.ndarray]) -> np.ndarray:
    """``w_m Σ_p P(X_m = p) λ_m(p)``: the expectation term of Eq. (L10), shape ``(d,)``."""
    return tables.weights * np.array([pp @ r for pp, r in zip(tables.part_prob, ratios)])


@renamed_keywords(positive="output")
def shapley_values(
    tables: NaiveBayesTables, parts: np.typing.ArrayLike, output: Any
) -> tuple[np.ndarray, float]:
    """Exact Shapley values of the log-odds of a weighted naive Bayes (Lemaire et al., Eq. (L10)).

    Book: :ref:`eq-nb-shapley`, :ref:`eq-nb-efficiency`
        (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb); :ref:`eq-nb-shapley-woe`
        (notebooks/01-naive-bayes/02-woe-vs-shapley.ipynb).

    ``φ_m = w_m (λ_m(x_m) − Σ_p P(X_m = p) λ_m(p))``, computed for every row at once:
    the per-part log-ratios and the expectation term are computed once (cost
    ``O(Σ_i P_i)``), then each value is a table look-up.

    Returns
    -------
    values
        ``(n, d)``.
    base_value
        ``v(∅) = bias + Σ_m w_m E[λ_m]`` (Eq. (L12)'s constant), so that
        ``LR(x) = base_value + Σ_m φ_m`` (efficiency).
    """
    parts = tables.check_parts(parts)
    lookup = shapley_lookup(tables, [output])
    return lookup._gather(parts, 0), float(lookup.base_values[0])


@renamed_keywords(positive="output")
def shapley_result(
    tables: NaiveBayesTables,
    parts: np.typing.ArrayLike,
    output: Any,
    data: pd.DataFrame | np.ndarray | None = None,
) -> ShapleyResult:
    """Eq. (L10) as a :class:`lib.result.ShapleyResult` (``.to_explanation()`` gives a
    ``shap.Explanation`` for shap's plots).  ``data`` is what the plots show as feature
    values (default: the part labels)."""
    parts = tables.check_parts(parts)
    values, base = shapley_values(tables, parts, output)
    if data is None:
        labels = tables.part_labels
        data = (np.array([[labels[i][p] for i, p in enumerate(row)] for row in parts], dtype=object)
                if labels is not None else parts)
    n = parts.shape[0]
    return ShapleyResult(
        values=values,
        base_values=np.full(n, base),
        outputs=base + values.sum(axis=1),
        data=data,
        feature_names=list(tables.feature_names),
        method="naive-bayes-eq10",
    )


def multiclass_shapley(
    tables: NaiveBayesTables, parts: np.typing.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """One-vs-rest Shapley values for every class, and the paper's multiclass summary (§3).

    Book: :ref:`eq-nb-multi-class`, :ref:`eq-nb-multi-def`
        (notebooks/01-naive-bayes/06-multiclass.ipynb).

    The game explained for class ``c`` is the paper's: ``c`` against the other classes pooled
    into one (:func:`one_vs_rest_log_odds`), a sum over the variables, so Eq. (L10) applies.  It
    is not the classifier's own ``log P(c|x) / (1 - P(c|x))`` (:func:`posterior_log_odds`),
    which with three classes or more is not a sum over the variables; its exact values are
    :func:`lib.shapley.exact_shapley` of that function (for scikit-learn's naive Bayes
    classifiers, ``lib.naive_bayes_sklearn.from_sklearn(model).shapley(X, background, game="posterior")``).
    For two classes the two games are one.

    Returns
    -------
    per_class
        ``(n, d, K)``: Eq. (L10) with each class in turn as the positive class.
    summary
        ``(n, d)``: ``Σ_c |φ_m(c vs rest)|``, Lemaire et al.'s multiclass extension.
    """
    per_class = shapley_lookup(tables).values(parts)
    return per_class, np.abs(per_class).sum(axis=-1)


@dataclass(frozen=True)
class ShapleyLookup:
    """Eq. (L10) of Lemaire et al. tabulated: the Shapley value of every part of every
    variable, for each class as the positive class (§5.3: "precompute the log(P(X|C))
    per variable and per interval ... as well as the expectation term").

    Build it with :func:`shapley_lookup`; :meth:`values` then explains any number of
    rows with one gather.

    Attributes
    ----------
    feature_names
        The ``d`` variables.
    classes
        The ``C`` positive classes tabulated.
    table
        ``(Σ_i P_i, C)``: row ``offsets[i] + p`` holds ``φ_i`` of a row whose variable
        ``i`` falls in part ``p``, ``w_i (λ_i(p) − Σ_q P(X_i = q) λ_i(q))``.
    offsets
        ``(d,)``: where each variable's parts start in ``table``.
    n_parts
        ``(d,)``: ``P_i``.
    base_values
        ``(C,)``: ``v(∅)`` of Eq. (L12) for each class (efficiency:
        ``LR_c(x) = base_values[c] + Σ_i φ_i(x)``).
    """

    feature_names: list[str]
    classes: np.ndarray
    table: np.ndarray
    offsets: np.ndarray
    n_parts: np.ndarray
    base_values: np.ndarray

    def _gather(self, parts: np.ndarray, k: int | None = None) -> np.ndarray:
        # parts already checked; np.take along axis 0 of the (Σ P_i, C) table is a
        # contiguous row copy, much faster than fancy indexing here
        flat = parts + self.offsets
        if k is None:
            return np.take(self.table, flat, axis=0)
        return np.take(np.ascontiguousarray(self.table[:, k]), flat)

    def values(self, parts: np.typing.ArrayLike) -> np.ndarray:
        """Shapley values (Eq. (L10)) of every row, variable and tabulated class:
        ``(n, d, C)``, ``[..., c]`` for ``classes[c]`` against the rest."""
        arr = np.asarray(parts)
        if arr.ndim != 2 or arr.shape[1] != len(self.feature_names):
            raise ValueError(
                f"expected part indices of shape (n, {len(self.feature_names)}), got {arr.shape}"
            )
        return self._gather(_check_part_indices(arr, self.n_parts, self.feature_names))


def shapley_lookup(tables: NaiveBayesTables, classes: Sequence[Any] | None = None) -> ShapleyLookup:
    """Tabulate Eq. (L10) (Lemaire et al.) per part and class: cost ``O(C Σ_i P_i)``, once.

    Parameters
    ----------
    tables
        The model.
    classes
        The positive classes to tabulate (each against the rest); default all of
        ``tables.classes``.

    The per-part log-ratios ``λ_i`` (:func:`class_log_ratios`) and the expectation term
    ``w_i Σ_p P(X_i = p) λ_i(p)`` are computed here once, so that explaining ``n`` rows
    is a gather of ``n d C`` numbers (:meth:`ShapleyLookup.values`) — the precomputation
    the paper suggests in §5.3.  :func:`shapley_values` and :func:`multiclass_shapley`
    use it.
    """
    chosen = list(tables.classes) if classes is None else list(classes)
    if not chosen:
        raise ValueError("classes must name at least one class")
    n_parts = np.array(tables.n_parts, dtype=np.int64)
    offsets = np.cumsum(n_parts) - n_parts
    table = np.empty((int(n_parts.sum()), len(chosen)))
    base = np.empty(len(chosen))
    for k, c in enumerate(chosen):
        bias, ratios = class_log_ratios(tables, c)
        expected = _expected_terms(tables, ratios)
        for i, r in enumerate(ratios):
            # w_i λ_i(p) − w_i E[λ_i]: the same operations, in the same order, as the
            # gather-then-subtract of Eq. (L10), so the values are bit-identical
            table[offsets[i]:offsets[i] + n_parts[i], k] = r * tables.weights[i] - expected[i]
        base[k] = bias + expected.sum()
    return ShapleyLookup(
        feature_names=list(tables.feature_names),
        classes=np.asarray(chosen),
        table=table,
        offsets=offsets,
        n_parts=n_parts,
        base_values=base,
    )


# ---------------------------------------------------------------------------
# A transparent weighted naive Bayes (scikit-learn style)
# ---------------------------------------------------------------------------


class WeightedNaiveBayes(ClassifierMixin, BaseEstimator):
    """A weighted naive Bayes over discretised variables, with tables the reader can see.

    Categorical columns (pandas ``category``/``object``/``bool``) keep their values as
    parts; numerical columns are cut into ``n_bins`` quantile intervals
    (:class:`sklearn.preprocessing.KBinsDiscretizer`). ``P(part | class)`` is estimated
    with Laplace smoothing ``alpha``; ``P(part)`` is the training frequency.
    Prediction follows Lemaire et al., Eq. (L1).

    Parameters
    ----------
    n_bins
        Quantile intervals per numerical variable (fewer if values repeat).
    alpha
        Laplace smoothing; ``0`` is allowed only if no cell is empty (else an error:
        a zero probability makes the log-odds infinite).
    weights
        ``w_i`` per variable (``None``: all one).

    Bad input raises ``ValueError``: missing values, a category not seen in training, a
    different set of columns, a single-class target.
    """

    def __init__(self, n_bins: int = 5, alpha: float = 1.0, weights: Sequence[float] | None = None):
        self.n_bins = n_bins
        self.alpha = alpha
        self.weights = weights

    # -- preparation ------------------------------------------------------
    def _check_frame(self, X: Any, fitting: bool) -> pd.DataFrame:
        if not isinstance(X, pd.DataFrame):
            X = pd.DataFrame(np.asarray(X))
            X.columns = [f"x{j}" for j in range(X.shape[1])]
        if not fitting:
            if list(X.columns) != self.feature_names_:
                raise ValueError(
                    f"X has columns {list(X.columns)}, the model was fitted on {self.feature_names_}"
                )
        bad = [c for c in X.columns if X[c].isna().any()]
        if bad:
            raise ValueError(
                f"missing values in columns {bad}: impute them or encode 'missing' as a category"
            )
        return X

    @staticmethod
    def _is_categorical(s: pd.Series) -> bool:
        return isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind in "OSUb"

    def fit(self, X: Any, y: Any) -> WeightedNaiveBayes:
        X = self._check_frame(X, fitting=True)
        y = pd.Series(np.asarray(y))
        if len(y) != len(X):
            raise ValueError(f"X has {len(X)} rows and y has {len(y)}")
        if y.isna().any():
            raise ValueError("the target has missing values")
        classes = np.array(sorted(pd.unique(y)))
        if len(classes) < 2:
            raise ValueError(f"the target has a single class ({classes[0]!r}): nothing to classify")
        if self.alpha < 0:
            raise ValueError("alpha must be >= 0")
        self.feature_names_ = [str(c) for c in X.columns]
        X.columns = self.feature_names_
        self.classes_ = classes
        self.kinds_: dict[str, str] = {}
        self.categories_: dict[str, list[Any]] = {}
        self.discretizers_: dict[str, KBinsDiscretizer] = {}
        for c in self.feature_names_:
            if self._is_categorical(X[c]):
                self.kinds_[c] = "categorical"
                self.categories_[c] = sorted(pd.unique(X[c].astype(object)), key=str)
            else:
                self.kinds_[c] = "numerical"
                disc = KBinsDiscretizer(n_bins=self.n_bins, encode="ordinal", strategy="quantile",
                                        quantile_method="averaged_inverted_cdf")
                disc.fit(X[[c]].to_numpy(dtype=float))
                self.discretizers_[c] = disc
        parts = self.transform(X)
        y_idx = np.searchsorted(classes, y.to_numpy())
        counts_k = np.bincount(y_idx, minlength=len(classes)).astype(float)
        prior = counts_k / counts_k.sum()
        likelihood, part_prob, labels = [], [], []
        for i, c in enumerate(self.feature_names_):
            n_parts = self._n_parts(c)
            table = np.zeros((n_parts, len(classes)))
            np.add.at(table, (parts[:, i], y_idx), 1.0)
            lik = (table + self.alpha) / (table.sum(axis=0) + self.alpha * n_parts)
            if np.any(lik <= 0):
                raise ValueError(
                    f"variable {c!r}: some part never occurs with some class and alpha=0, so "
                    "P(part | class) = 0 and the log-odds is infinite; use alpha > 0"
                )
            likelihood.append(lik)
            part_prob.append(table.sum(axis=1) / table.sum())
            labels.append(self._part_labels(c))
        w = np.ones(len(self.feature_names_)) if self.weights is None else np.asarray(self.weights, float)
        self.tables_ = NaiveBayesTables(
            feature_names=self.feature_names_, classes=classes, prior=prior,
            likelihood=likelihood, part_prob=part_prob, weights=w, part_labels=labels,
        )
        return self

    def _n_parts(self, c: str) -> int:
        if self.kinds_[c] == "categorical":
            return len(self.categories_[c])
        return int(self.discretizers_[c].n_bins_[0])

    def _part_labels(self, c: str) -> list[str]:
        if self.kinds_[c] == "categorical":
            return [str(v) for v in self.categories_[c]]
        edges = self.discretizers_[c].bin_edges_[0]
        inner = edges[1:-1]
        lo = ["-inf"] + [f"{e:.4g}" for e in inner]
        hi = [f"{e:.4g}" for e in inner] + ["+inf"]
        return [f"]{a}; {b}]" if a != "-inf" else f"]-inf; {b}]" for a, b in zip(lo, hi)]

    def transform(self, X: Any) -> np.ndarray:
        """Part index of every value, shape ``(n, d)`` (the input of the table functions)."""
        fitted = hasattr(self, "tables_")
        X = self._check_frame(X, fitting=not fitted)
        if not fitted:
            X.columns = [str(c) for c in X.columns]
        out = np.empty(X.shape, dtype=np.int64)
        for i, c in enumerate(self.feature_names_):
            if self.kinds_[c] == "categorical":
                cats = self.categories_[c]
                index = {v: j for j, v in enumerate(cats)}
                values = X[c].astype(object).to_numpy()
                unseen = sorted({v for v in values if v not in index}, key=str)
                if unseen:
                    raise ValueError(
                        f"column {c!r} has categories not seen in training: {unseen[:5]}"
                    )
                out[:, i] = [index[v] for v in values]
            else:
                if self._is_categorical(X[c]):
                    raise ValueError(f"column {c!r} was numerical in training")
                codes = self.discretizers_[c].transform(X[[c]].to_numpy(dtype=float))
                out[:, i] = codes[:, 0].astype(np.int64)
        return out

    # -- prediction (Eq. (L1)) ----------------------------------------------
    def _joint_log(self, X: Any) -> np.ndarray:
        parts = self.tables_.check_parts(self.transform(X))
        t = self.tables_
        out = np.tile(np.log(t.prior), (parts.shape[0], 1))
        for i, lik in enumerate(t.likelihood):
            out += t.weights[i] * np.log(lik[parts[:, i]])
        return out

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``log P(Y_k | x)`` of Lemaire et al., Eq. (L1), shape ``(n, K)``.

        Book: :ref:`eq-nb-posterior`
            (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).
        """
        j = self._joint_log(X)
        m = j.max(axis=1, keepdims=True)
        return j - (m + np.log(np.exp(j - m).sum(axis=1, keepdims=True)))

    def predict_proba(self, X: Any) -> np.ndarray:
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: Any) -> np.ndarray:
        return self.classes_[np.argmax(self._joint_log(X), axis=1)]

    def decision_function(self, X: Any) -> np.ndarray:
        """Binary: the log-odds ``log P(Y_1|x)/P(Y_0|x)`` of Eq. (L2) (classes_[1] positive).

        Book: :ref:`eq-nb-log-odds`
            (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).
        """
        if len(self.classes_) != 2:
            raise ValueError("decision_function is the log-odds of a two-class model")
        j = self._joint_log(X)
        return j[:, 1] - j[:, 0]


# ---------------------------------------------------------------------------
# Multiclass (§3): the value function of the one-vs-rest extension, and the
# classifier's own log-odds of a class against the others
# ---------------------------------------------------------------------------


def one_vs_rest_log_odds(tables: NaiveBayesTables, parts: np.typing.ArrayLike) -> np.ndarray:
    """Eq. (L2) of Lemaire et al. with each class ``c`` as ``Y_1`` and the others as one class ``Y_0``.

    Book: :ref:`eq-nb-multi-ovr` (notebooks/01-naive-bayes/06-multiclass.ipynb).

    ``LR_c(x) = log P(c)/P(¬c) + Σ_i w_i λ_i(x_i)``, with ``λ_i`` of :func:`class_log_ratios`
    (``P(X_i | ¬c)`` the prior-weighted mixture of the other classes' columns): the value
    function whose Shapley values the paper's multiclass extension (§3) takes, one class
    at a time — :func:`multiclass_shapley` gives them, and
    ``LR_c(x) = base_c + Σ_m φ_m(c vs rest)`` (Eq. (L12)).  For two classes it is the model's
    own log-odds (:func:`posterior_log_odds`); with more, it is the log-odds of a two-class
    naive Bayes built on the pooled "rest", which is not the classifier's.

    Returns ``(n, K)``, column ``k`` for ``tables.classes[k]`` against the rest.
    """
    parts = tables.check_parts(parts)
    out = np.empty((parts.shape[0], len(tables.classes)))
    for k, c in enumerate(tables.classes):
        bias, terms = log_odds_terms(tables, parts, c)
        out[:, k] = bias + terms.sum(axis=1)
    return out


def posterior_log_odds(tables: NaiveBayesTables, parts: np.typing.ArrayLike) -> np.ndarray:
    """The classifier's own log-odds of each class against all the others (Lemaire et al., Eq. (L1)).

    Book: :ref:`eq-nb-multi-posterior` (notebooks/01-naive-bayes/06-multiclass.ipynb).

    ``log P(c | x) / (1 − P(c | x)) = s_c(x) − log Σ_{k≠c} exp s_k(x)`` with the joint
    scores ``s_k(x) = log P(k) + Σ_i w_i log P(X_i = x_i | k)`` of Eq. (L1).  For two classes
    this is Eq. (L2), a sum of one term per variable, and equals :func:`one_vs_rest_log_odds`;
    with three classes or more the log of a sum of several classes' products is not a sum
    of per-variable terms, and the two differ.

    Returns ``(n, K)``, column ``k`` for ``tables.classes[k]`` against the rest.
    """
    parts = tables.check_parts(parts)
    scores = np.tile(np.log(tables.prior), (parts.shape[0], 1))
    for i, lik in enumerate(tables.likelihood):
        scores += tables.weights[i] * np.log(lik[parts[:, i]])
    out = np.empty_like(scores)
    for k in range(scores.shape[1]):
        others = np.delete(scores, k, axis=1)
        top = others.max(axis=1)
        out[:, k] = scores[:, k] - (top + np.log(np.exp(others - top[:, None]).sum(axis=1)))
    return out


# ---------------------------------------------------------------------------
# scikit-learn's naive Bayes classifiers (lib.naive_bayes_sklearn)
# ---------------------------------------------------------------------------


def from_sklearn(model: Any) -> Any:
    """Deprecated (one release): :func:`lib.naive_bayes_sklearn.from_sklearn`, where the adapter of
    scikit-learn's naive Bayes classifiers lives; this name warns (``DeprecationWarning``) and calls it."""
    import importlib
    import warnings

    warnings.warn("lib.naive_bayes.from_sklearn is deprecated and will be removed in the next release: use "
                  "lib.naive_bayes_sklearn.from_sklearn", DeprecationWarning, stacklevel=2)
    # imported by name when called: lib.naive_bayes_sklearn builds on this module
    return importlib.import_module("lib.naive_bayes_sklearn").from_sklearn(model)
