"""Khiops' selective naive Bayes, read into :class:`lib.naive_bayes.NaiveBayesTables`.

Lemaire, Clérot & Boullé (§5.1) used the classifier of Khiops: MODL discretisation of
numerical variables, MODL grouping of categorical values, compression-based weights
(Boullé, 2007).  This module reads a trained Khiops model (Khiops 11,
``khiops.sklearn.KhiopsClassifier(n_trees=0, n_pairs=0)``) from its *model dictionary*
(``.kdic``), where every number is stored at full precision (the JSON report rounds the
weights to six digits), and reproduces Khiops' arithmetic exactly.

What the model dictionary holds
-------------------------------
``SNBClassifier(Vector(w_1, ..., w_d), DataGridStats(PA1, A1), ..., VClass)``, where each
``PAi = DataGrid(<partition>, ValueSetC(<classes>), Frequencies(...))`` and
``VClass = DataGrid(ValueSetC(<classes>), Frequencies(n_1, ..., n_K))``:

* ``IntervalBounds(b_1, ..., b_{P-1})``: the intervals ``]-inf, b_1], ]b_1, b_2], ...,
  ]b_{P-1}, +inf[`` (upper bound included).  A missing numerical value is, for Khiops,
  smaller than every number (``KWContinuous::GetMissingValue``), so it falls in the
  first interval — or in an interval of its own when the first bound is ``#Missing``.
* ``ValueGroups(ValueGroup(v, ...), ...)``: groups of categorical values; the special
  value ``" * "`` marks the default group that receives every value not seen in
  training.  A missing categorical value is the empty string ``""``, an ordinary value
  (in the group that lists it, otherwise in the default group).
* ``Frequencies``: training counts ``n_{pk}``, source part fastest
  (cell ``p + P * k``).

The probabilities Khiops computes (read from its source, github.com/KhiopsML/khiops)
------------------------------------------------------------------------------------
1. ``src/Learning/KWDataUtils/KWProbabilityTable.cpp`` (``ImportDataGridStats``, called by
   ``KWDRDataGridStats::Optimize`` in ``src/Learning/KWDataPreparation/KWDRDataGrid.cpp``
   with ``bTargetDirection=false``): per variable, Laplace-smoothed
   ``P(part p | class k) = (n_pk + ε) / (n_k + P ε)`` with ``ε = 1 / (N + 1)``,
   ``P`` the number of parts and ``N`` the number of training rows
   (:func:`laplace_likelihood`).
2. ``src/Learning/KWModeling/KWDRNBPredictor.cpp`` (``KWDRNBClassifier::ComputeTargetProbs``):
   the score of class ``k`` is ``log(n_k / N) + Σ_i w_i log P(x_i | k)`` (the prior is *not*
   smoothed), normalised by a softmax — Lemaire et al.'s Eq. (L1) on the tables of step 1 —
   and then the probabilities get a *second* Laplace correction,
   ``p' = (p + 0.5 / (J (N + 1))) / (1 + 0.5 / (N + 1))`` with ``J`` classes
   (:func:`output_laplace`).  Step 2's correction is what a raw-frequency
   reimplementation misses: for two classes it is ``p' - p = 0.25 (1 - 2p) / (N + 1.5)``,
   ``3.6e-4 (1 - 2p)`` on crx (``N = 690``).
3. Khiops' own Shapley values (``src/Learning/KIInterpretation/KIShapleyTable.cpp``,
   ``InitializeFromUnivariateDataGridStats``): Eq. (L10) of Lemaire et al. for class ``c``
   against the *pooled* rest, with the same ``ε = 1/(N+1)``:
   ``P(p | c) = (n_pc + ε) / (n_c + P ε)``, ``P(p | ¬c) = (n_p − n_pc + (J−1) ε) /
   (N − n_c + P (J−1) ε)``, expectation over ``P(p) = n_p / N``
   (:func:`khiops_shapley_tables`).  For two classes these are exactly the tables of
   step 1, so :func:`lib.naive_bayes.shapley_values` on :meth:`KhiopsSNB.tables` gives
   Khiops' values; with more classes, ``lib.naive_bayes`` uses the prior-weighted mixture
   of the per-class smoothed tables for "the rest", which differs from Khiops' pooled
   counts by ``O(ε)``.

Facts were taken from the source; the code here is ours (numpy).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .models import output_index, renamed_keywords
from .naive_bayes import NaiveBayesTables

__all__ = [
    "KhiopsSNB",
    "KhiopsVariable",
    "STAR_VALUE",
    "fit_khiops_snb",
    "khiops_available",
    "khiops_interpret",
    "khiops_multiclass_shapley",
    "khiops_one_vs_rest_log_odds",
    "khiops_shapley_tables",
    "laplace_likelihood",
    "output_laplace",
    "parse_rule",
    "read_khiops_snb",
    "require_khiops",
]

#: Khiops' special categorical value of the default group (values unseen in training).
STAR_VALUE = " * "

#: Khiops' numerical missing-value token in dictionaries.
_MISSING_TOKEN = "#Missing"


# ---------------------------------------------------------------------------
# Khiops availability
# ---------------------------------------------------------------------------


def khiops_available() -> bool:
    """Whether the ``khiops`` Python package (and so its binaries) can be imported."""
    try:
        import khiops.core  # noqa: F401
    except Exception:  # pragma: no cover - depends on the environment
        return False
    return True


def require_khiops() -> Any:
    """Import and return ``khiops.core``, or raise an ``ImportError`` that says how to
    install it (``pip install khiops``: the Khiops binaries and an MPI runtime)."""
    try:
        import khiops.core as kh
    except Exception as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Khiops is not installed: `pip install khiops` (it brings the khiops-core "
            "binaries and an MPI runtime); the chapter's Khiops cells need it"
        ) from exc
    return kh


# ---------------------------------------------------------------------------
# Khiops' formulas
# ---------------------------------------------------------------------------


def laplace_likelihood(counts: np.typing.ArrayLike, n_total: int | None = None) -> np.ndarray:
    """Khiops' smoothed ``P(part p | class k) = (n_pk + ε) / (n_k + P ε)``, ``ε = 1/(N+1)``.

    From Khiops' ``KWProbabilityTable::ImportDataGridStats`` (source-conditional
    direction), used by every ``DataGridStats`` rule of a naive Bayes predictor.

    Parameters
    ----------
    counts
        ``(P, K)`` training counts ``n_pk`` (non-negative).
    n_total
        ``N``; default ``counts.sum()`` (the grid's total frequency, as in Khiops).
    """
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2 or c.shape[0] < 1 or c.shape[1] < 1:
        raise ValueError(f"counts must be a (parts, classes) array, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("counts must be finite and non-negative")
    n = c.sum() if n_total is None else float(n_total)
    eps = 1.0 / (n + 1.0)
    return (c + eps) / (c.sum(axis=0) + c.shape[0] * eps)


def output_laplace(proba: np.typing.ArrayLike, n_train: int) -> np.ndarray:
    """Khiops' final Laplace correction of the class probabilities.

    ``p' = (p + 0.5 / (J (N + 1))) / (1 + 0.5 / (N + 1))`` with ``J`` classes and ``N``
    training rows (Khiops, ``KWDRNBClassifier::ComputeTargetProbs`` in
    ``KWDRNBPredictor.cpp``: "one cannot be more precise than 1/N").  Rows still sum to
    one.  ``proba`` is ``(n, J)``.
    """
    p = np.asarray(proba, dtype=float)
    if p.ndim != 2:
        raise ValueError(f"proba must be (n, classes), got shape {p.shape}")
    if n_train < 0:
        raise ValueError("n_train must be >= 0")
    j = p.shape[1]
    eps = 0.5 / (j * (n_train + 1.0))
    return (p + eps) / (1.0 + 0.5 / (n_train + 1.0))


def khiops_shapley_tables(counts: np.typing.ArrayLike, weight: float) -> np.ndarray:
    """Khiops' per-part Shapley values of one variable, for every class against the rest.

    From Khiops' ``KIShapleyTable::InitializeFromUnivariateDataGridStats``
    (``KIShapleyTable.cpp``): with ``ε = 1/(N+1)``, for class ``c``

    ``P(p | c) = (n_pc + ε) / (n_c + P ε)``,
    ``P(p | ¬c) = (n_p − n_pc + (J−1) ε) / (N − n_c + P (J−1) ε)``,
    ``λ(p) = log P(p|c)/P(p|¬c)`` and the value is Lemaire et al.'s Eq. (L10),
    ``w (λ(p) − Σ_q (n_q / N) λ(q))``.

    Returns ``(P, K)``: the value of a row whose part is ``p``, for class ``k``.
    """
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2 or c.shape[1] < 2:
        raise ValueError(f"counts must be a (parts, classes>=2) array, got shape {c.shape}")
    n_parts, j = c.shape
    n = c.sum()
    eps = 1.0 / (n + 1.0)
    n_p = c.sum(axis=1, keepdims=True)
    n_k = c.sum(axis=0, keepdims=True)
    p_one = (c + eps) / (n_k + n_parts * eps)
    eps_all = (j - 1) * eps
    p_all = (n_p - c + eps_all) / (n - n_k + n_parts * eps_all)
    lam = np.log(p_one) - np.log(p_all)
    expected = (n_p / n * lam).sum(axis=0, keepdims=True)
    return float(weight) * (lam - expected)


# ---------------------------------------------------------------------------
# A parser for Khiops derivation rules
# ---------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<str>"(?:[^"]|"")*")            # "string" with "" escapes
      | (?P<bq>`(?:[^`]|``)*`)             # `variable name` with `` escapes
      | (?P<missing>\#Missing)
      | (?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
      | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
      | (?P<punct>[(),])
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class _Call:
    name: str
    args: tuple[Any, ...]


@dataclass(frozen=True)
class _Ref:
    name: str


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"cannot parse Khiops rule at {text[pos:pos + 30]!r}")
        kind = m.lastgroup
        assert kind is not None
        out.append((kind, m.group(kind)))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


def parse_rule(text: str) -> Any:
    """Parse a Khiops derivation rule into nested calls.

    ``DataGrid(IntervalBounds(0.5, 2.5), ValueSetC("+", "-"), Frequencies(1, 2))`` gives
    ``_Call("DataGrid", (_Call("IntervalBounds", (0.5, 2.5)), ...))``: strings become
    ``str``, numbers ``float`` (``#Missing`` is ``nan``), bare names variable references.
    """
    toks = _tokens(text)
    pos = 0

    def expr() -> Any:
        nonlocal pos
        if pos >= len(toks):
            raise ValueError(f"unexpected end of Khiops rule {text[:60]!r}")
        kind, val = toks[pos]
        pos += 1
        if kind == "str":
            return val[1:-1].replace('""', '"')
        if kind == "num":
            return float(val)
        if kind == "missing":
            return math.nan
        if kind == "bq":
            return _Ref(val[1:-1].replace("``", "`"))
        if kind == "name":
            if pos < len(toks) and toks[pos] == ("punct", "("):
                pos += 1
                args: list[Any] = []
                if pos < len(toks) and toks[pos] == ("punct", ")"):
                    pos += 1
                    return _Call(val, ())
                while True:
                    args.append(expr())
                    if pos >= len(toks):
                        raise ValueError(f"unbalanced parentheses in Khiops rule {text[:60]!r}")
                    _, val2 = toks[pos]
                    pos += 1
                    if val2 == ")":
                        return _Call(val, tuple(args))
                    if val2 != ",":
                        raise ValueError(f"expected ',' or ')' in Khiops rule, got {val2!r}")
            return _Ref(val)
        raise ValueError(f"unexpected token {val!r} in Khiops rule {text[:60]!r}")

    out = expr()
    if pos != len(toks):
        raise ValueError(f"trailing text in Khiops rule {text[:60]!r}")
    return out


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KhiopsVariable:
    """One variable of a Khiops naive Bayes: its partition, counts and weight.

    Attributes
    ----------
    name
        The input column.
    kind
        ``"numerical"`` (intervals) or ``"categorical"`` (groups of values).
    counts
        ``(P, K)`` training counts ``n_pk``.
    weight
        ``w_i`` (full precision, from the ``SNBClassifier`` weight vector).
    bounds
        Numerical: the ``P - 1`` interval bounds (``-inf`` stands for ``#Missing``).
    groups
        Categorical: the values of each part (``" * "`` marks the default group).
    """

    name: str
    kind: str
    counts: np.ndarray
    weight: float
    bounds: np.ndarray | None = None
    groups: tuple[tuple[str, ...], ...] | None = None

    @property
    def n_parts(self) -> int:
        return int(self.counts.shape[0])

    @property
    def default_part(self) -> int | None:
        """Categorical: the part receiving values unseen in training (``None`` if none)."""
        if self.groups is None:
            return None
        for p, g in enumerate(self.groups):
            if STAR_VALUE in g:
                return p
        return None

    def labels(self) -> list[str]:
        """Readable labels of the parts (``]a; b]`` intervals, ``{v, ...}`` groups)."""
        if self.kind == "numerical":
            assert self.bounds is not None
            b = list(self.bounds)
            own_missing = bool(b) and np.isneginf(b[0])
            inner = [f"{x:.6g}" for x in (b[1:] if own_missing else b)]
            edges = ["-inf"] + inner + ["+inf"]
            labels = [f"]{lo}; {hi}]" if hi != "+inf" else f"]{lo}; +inf[" for lo, hi in zip(edges[:-1], edges[1:])]
            if own_missing:
                return ["Missing"] + labels
            labels[0] += " or Missing"
            return labels
        assert self.groups is not None
        return ["{" + ", ".join("*" if v == STAR_VALUE else repr(v) for v in g) + "}" for g in self.groups]

    def transform(self, values: pd.Series | np.ndarray) -> np.ndarray:
        """Part index of every value, as Khiops assigns it (see the module docstring)."""
        if self.kind == "numerical":
            assert self.bounds is not None
            try:
                x = pd.to_numeric(pd.Series(values).astype(object), errors="raise").to_numpy(dtype=float)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"column {self.name!r} is numerical for Khiops: {exc}") from exc
            # Khiops' missing value is below every number; +/-inf are read as missing too
            x = np.where(np.isfinite(x), x, -np.inf)
            # ]b_{i-1}, b_i]: the number of bounds strictly below x
            return np.searchsorted(self.bounds, x, side="left").astype(np.int64)
        assert self.groups is not None
        index = {v: p for p, g in enumerate(self.groups) for v in g if v != STAR_VALUE}
        default = self.default_part
        s = pd.Series(values).astype(object)
        # Khiops reads a missing categorical value as the empty string, and trims blanks
        raw = ["" if (v is None or (isinstance(v, float) and math.isnan(v))) else str(v).strip()
               for v in s.to_numpy()]
        out = np.empty(len(raw), dtype=np.int64)
        unknown = set()
        for r, v in enumerate(raw):
            p = index.get(v, default)
            if p is None:
                unknown.add(v)
                p = -1
            out[r] = p
        if unknown:
            raise ValueError(
                f"column {self.name!r}: values {sorted(unknown)[:5]} are in no part and the "
                "partition has no default group"
            )
        return out


@dataclass(frozen=True)
class KhiopsSNB:
    """A Khiops selective naive Bayes classifier, as tables and Khiops' own arithmetic.

    Build it with :func:`read_khiops_snb`.  ``classes`` are in the order of the fitted
    ``KhiopsClassifier.classes_`` when read from one (else in the dictionary's order), so
    :meth:`predict_proba` columns line up with ``KhiopsClassifier.predict_proba``.
    """

    dictionary_name: str
    classes: np.ndarray
    class_counts: np.ndarray
    variables: list[KhiopsVariable]

    @property
    def n_train(self) -> int:
        return int(self.class_counts.sum())

    @property
    def feature_names(self) -> list[str]:
        return [v.name for v in self.variables]

    @property
    def weights(self) -> np.ndarray:
        return np.array([v.weight for v in self.variables])

    def tables(self) -> NaiveBayesTables:
        """The model as :class:`lib.naive_bayes.NaiveBayesTables`: Khiops' smoothed
        ``P(part | class)`` (:func:`laplace_likelihood`), the unsmoothed prior
        ``n_k / N``, ``P(part) = n_p / N`` and the weights.  Lemaire et al.'s Eq. (L1) on
        these tables is Khiops' probability *before* :func:`output_laplace`."""
        n = self.n_train
        return NaiveBayesTables(
            feature_names=self.feature_names,
            classes=self.classes,
            prior=self.class_counts / n,
            likelihood=[laplace_likelihood(v.counts, n) for v in self.variables],
            part_prob=[v.counts.sum(axis=1) / n for v in self.variables],
            weights=self.weights,
            part_labels=[v.labels() for v in self.variables],
        )

    def transform(self, X: pd.DataFrame) -> np.ndarray:
        """``(n, d)`` part indices of the raw rows, exactly as Khiops maps them: intervals
        ``]a, b]``, missing numbers in the first interval (or the ``#Missing`` one),
        unseen categories in the default group, missing categories as the value ``""``."""
        if not isinstance(X, pd.DataFrame):
            raise ValueError("X must be a pandas DataFrame with the model's input columns")
        missing = [c for c in self.feature_names if c not in X.columns]
        if missing:
            raise ValueError(f"X lacks the model's columns {missing}")
        if len(self.variables) == 0:
            return np.zeros((len(X), 0), dtype=np.int64)
        return np.column_stack([v.transform(X[v.name]) for v in self.variables]).astype(np.int64)

    def predict_proba_eq1(self, X: pd.DataFrame | None = None, parts: np.ndarray | None = None) -> np.ndarray:
        """Lemaire et al.'s Eq. (L1) on :meth:`tables` (before Khiops' output correction)."""
        t = self.tables()
        parts = t.check_parts(self.transform(X) if parts is None else parts)
        score = np.tile(np.log(t.prior), (parts.shape[0], 1))
        for i, lik in enumerate(t.likelihood):
            score += t.weights[i] * np.log(lik[parts[:, i]])
        score -= score.max(axis=1, keepdims=True)
        p = np.exp(score)
        return p / p.sum(axis=1, keepdims=True)

    def predict_proba(self, X: pd.DataFrame | None = None, parts: np.ndarray | None = None) -> np.ndarray:
        """Khiops' ``predict_proba``: Eq. (L1) on the smoothed tables, then
        :func:`output_laplace`.  ``(n, K)``, columns in :attr:`classes` order."""
        return output_laplace(self.predict_proba_eq1(X, parts), self.n_train)

    @renamed_keywords(positive="output")
    def shapley_values(self, parts: np.typing.ArrayLike, output: Any) -> np.ndarray:
        """Khiops' own Shapley values (:func:`khiops_shapley_tables`) for class
        ``output`` against the rest, ``(n, d)``.  For two classes they equal
        ``lib.naive_bayes.shapley_values(self.tables(), parts, output)``."""
        t = self.tables()
        parts = t.check_parts(parts)
        k = output_index(output, self.classes, len(self.classes))
        out = np.empty(parts.shape)
        for i, v in enumerate(self.variables):
            out[:, i] = khiops_shapley_tables(v.counts, v.weight)[parts[:, i], k]
        return out

    @renamed_keywords(positive="output")
    def rest_likelihood(self, output: Any) -> list[np.ndarray]:
        """Khiops' pooled ``P(part | ¬positive)`` per variable (``KIShapleyTable.cpp``):
        ``(n_p − n_pc + (J−1) ε) / (N − n_c + P (J−1) ε)``, ``ε = 1/(N+1)``.  For two
        classes it is the other class's column of :meth:`tables`; with more classes it is
        what Khiops' Shapley values use for "the rest" (``lib.naive_bayes`` uses the
        prior-weighted mixture of the per-class columns instead)."""
        k = output_index(output, self.classes, len(self.classes))
        n, j = self.n_train, len(self.classes)
        eps_all = (j - 1) / (n + 1.0)
        out = []
        for v in self.variables:
            rest = v.counts.sum(axis=1) - v.counts[:, k]
            out.append((rest + eps_all) / (n - self.class_counts[k] + v.n_parts * eps_all))
        return out


def _args(call: Any, name: str) -> tuple[Any, ...]:
    if not isinstance(call, _Call) or call.name != name:
        got = call.name if isinstance(call, _Call) else repr(call)
        raise ValueError(f"expected a Khiops {name}(...) rule, found {got}")
    return call.args


def _partition(call: _Call, var: str) -> tuple[str, np.ndarray | None, tuple[tuple[str, ...], ...] | None]:
    if call.name == "IntervalBounds":
        b = np.array([(-np.inf if math.isnan(x) else x) for x in call.args], dtype=float)
        if np.any(np.diff(b) <= 0):
            raise ValueError(f"variable {var!r}: interval bounds are not increasing")
        return "numerical", b, None
    if call.name == "ValueGroups":
        groups = tuple(tuple(str(v) for v in _args(g, "ValueGroup")) for g in call.args)
        return "categorical", None, groups
    if call.name == "ValueSetC":
        return "categorical", None, tuple((str(v),) for v in call.args)
    raise ValueError(
        f"variable {var!r}: unsupported partition {call.name} (only IntervalBounds, "
        "ValueGroups and ValueSetC are read)"
    )


def _load_dictionary(source: Any, dictionary_name: str | None) -> tuple[Any, list[Any] | None]:
    """The Khiops dictionary of the predictor, and the classifier's classes_ if any."""
    kh = require_khiops()
    classes = None
    if hasattr(source, "model_") and hasattr(source, "model_main_dictionary_name_"):
        classes = list(source.classes_)
        name = dictionary_name or source.model_main_dictionary_name_
        return source.model_.get_dictionary(name), classes
    if isinstance(source, (str, os.PathLike)):
        source = kh.read_dictionary_file(str(source))
    if isinstance(source, kh.DictionaryDomain):
        if dictionary_name is None:
            snb = [d for d in source.dictionaries
                   if any(v.rule.startswith(("SNBClassifier(", "NBClassifier(")) for v in d.variables)]
            if len(snb) != 1:
                raise ValueError("give dictionary_name: the domain has "
                                 f"{len(snb)} dictionaries with a naive Bayes classifier")
            return snb[0], None
        return source.get_dictionary(dictionary_name), None
    if isinstance(source, kh.Dictionary):
        return source, None
    raise ValueError(
        "source must be a fitted KhiopsClassifier, a .kdic path, a khiops DictionaryDomain "
        f"or Dictionary; got {type(source).__name__}"
    )


def read_khiops_snb(source: Any, dictionary_name: str | None = None) -> KhiopsSNB:
    """Read a Khiops (selective) naive Bayes classifier from its model dictionary.

    Parameters
    ----------
    source
        A fitted ``khiops.sklearn.KhiopsClassifier`` (its ``model_``), a path to a model
        ``.kdic``, or a ``khiops.core`` ``DictionaryDomain`` / ``Dictionary``.
    dictionary_name
        The predictor's dictionary (default: the classifier's main dictionary, or the
        only one holding an ``SNBClassifier``).

    Only univariate grids on native variables are supported: fit with
    ``KhiopsClassifier(n_trees=0, n_pairs=0)`` (Khiops 11 builds tree and pair features
    by default, which the paper's classifier did not have); anything else raises a
    ``ValueError`` naming the variable.
    """
    dic, clf_classes = _load_dictionary(source, dictionary_name)
    by_name = {v.name: v for v in dic.variables}
    clf_rule = [v for v in dic.variables if v.rule.startswith(("SNBClassifier(", "NBClassifier("))]
    if len(clf_rule) != 1:
        raise ValueError(f"dictionary {dic.name!r} has {len(clf_rule)} naive Bayes classifier rules, expected 1")
    rule = parse_rule(clf_rule[0].rule)
    args = list(rule.args)
    if rule.name == "SNBClassifier":
        weights = [float(w) for w in _args(args.pop(0), "Vector")]
    else:
        weights = None
    target_ref = args.pop()
    if not isinstance(target_ref, _Ref) or target_ref.name not in by_name:
        raise ValueError("the classifier's last operand must name the target-values data grid")
    tgrid = parse_rule(by_name[target_ref.name].rule)
    tvals, tfreq = _args(tgrid, "DataGrid")
    classes = [str(c) for c in _args(tvals, "ValueSetC")]
    class_counts = np.array(_args(tfreq, "Frequencies"), dtype=float)
    if weights is None:
        weights = [1.0] * len(args)
    if len(weights) != len(args):
        raise ValueError(f"{len(weights)} weights for {len(args)} data grids")

    variables = []
    for w, op in zip(weights, args):
        stats = _args(op, "DataGridStats")
        if len(stats) != 2 or not all(isinstance(a, _Ref) for a in stats):
            raise ValueError("only univariate DataGridStats(grid, variable) are supported "
                             "(fit with n_pairs=0)")
        grid_name, var_name = stats[0].name, stats[1].name
        var = by_name.get(var_name)
        if var is None or var.rule:
            raise ValueError(
                f"variable {var_name!r} is a constructed feature (rule {getattr(var, 'rule', '')[:40]!r}); "
                "only native input variables are supported: fit with n_trees=0, n_pairs=0"
            )
        grid = _args(parse_rule(by_name[grid_name].rule), "DataGrid")
        if len(grid) != 3:
            raise ValueError(f"data grid {grid_name!r} is not univariate (fit with n_pairs=0)")
        kind, bounds, groups = _partition(grid[0], var_name)
        gclasses = [str(c) for c in _args(grid[1], "ValueSetC")]
        if gclasses != classes:
            raise ValueError(f"data grid {grid_name!r}: classes {gclasses} differ from the target's {classes}")
        freq = np.array(_args(grid[2], "Frequencies"), dtype=float)
        n_parts = len(bounds) + 1 if bounds is not None else len(groups)  # type: ignore[arg-type]
        if freq.size != n_parts * len(classes):
            raise ValueError(f"data grid {grid_name!r}: {freq.size} frequencies for {n_parts} x {len(classes)} cells")
        counts = freq.reshape(len(classes), n_parts).T  # source part fastest
        if not np.allclose(counts.sum(axis=0), class_counts):
            raise ValueError(f"data grid {grid_name!r}: class totals differ from the target's")
        if kind == "numerical" and var.type != "Numerical" or kind == "categorical" and var.type != "Categorical":
            raise ValueError(f"variable {var_name!r} is {var.type} but its grid is {kind}")
        variables.append(KhiopsVariable(name=var_name, kind=kind, counts=counts, weight=float(w),
                                        bounds=bounds, groups=groups))

    order = np.arange(len(classes))
    out_classes: np.ndarray = np.array(classes, dtype=object)
    if clf_classes is not None:
        as_str = {str(c): i for i, c in enumerate(classes)}
        if sorted(map(str, clf_classes)) != sorted(classes):
            raise ValueError(f"classifier classes {clf_classes} differ from the model's {classes}")
        order = np.array([as_str[str(c)] for c in clf_classes])
        out_classes = np.asarray(clf_classes)
    variables = [KhiopsVariable(v.name, v.kind, v.counts[:, order], v.weight, v.bounds, v.groups)
                 for v in variables]
    return KhiopsSNB(dictionary_name=dic.name, classes=out_classes,
                     class_counts=class_counts[order], variables=variables)


# ---------------------------------------------------------------------------
# Khiops' own Shapley values (its "interpret predictor" tool)
# ---------------------------------------------------------------------------


def khiops_interpret(
    clf: Any,
    X: pd.DataFrame,
    workdir: str | os.PathLike | None = None,
) -> dict[Any, pd.DataFrame]:
    """Khiops' own Shapley values of the rows ``X``, one class against the rest.

    Runs Khiops 11's ``interpret_predictor`` on the fitted ``KhiopsClassifier``'s model
    dictionary (an interpretation dictionary with ``Shapley_<class>_<variable>``
    variables, rules ``ContributionAt``), then ``deploy_model`` on ``X``, written as the
    scikit-learn wrapper writes it (tab-separated, header, ``NaN`` as empty field).

    Returns
    -------
    dict
        class label (as in ``clf.classes_``) -> DataFrame ``(n, d)`` of Shapley values,
        columns = the model's variables, rows in the order of ``X``.
    """
    kh = require_khiops()
    if not (hasattr(clf, "model_") and hasattr(clf, "model_main_dictionary_name_")):
        raise ValueError("clf must be a fitted khiops.sklearn.KhiopsClassifier")
    if not isinstance(X, pd.DataFrame):
        raise ValueError("X must be a pandas DataFrame")
    model = read_khiops_snb(clf)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        tmpdir = Path(tmp)
        model_kdic = tmpdir / "model.kdic"
        clf.model_.export_khiops_dictionary_file(str(model_kdic))
        interp_kdic = tmpdir / "interpretation.kdic"
        kh.interpret_predictor(str(model_kdic), clf.model_main_dictionary_name_, str(interp_kdic),
                               max_variable_importances=max(len(model.variables), 1))
        domain = kh.read_dictionary_file(str(interp_kdic))
        interp = [d for d in domain.dictionaries if d.name != clf.model_main_dictionary_name_
                  and any(v.rule.startswith("ContributionAt(") for v in d.variables)]
        if len(interp) != 1:
            raise RuntimeError("Khiops wrote no interpretation dictionary")
        wanted = {}
        for v in interp[0].variables:
            if v.rule.startswith("ContributionAt("):
                call = parse_rule(v.rule)
                wanted[v.name] = (str(call.args[1]), str(call.args[2]))
        table = tmpdir / "data.txt"
        frame = X.copy()
        frame.columns = [str(c) for c in X.columns]
        # native variables Khiops expects but X lacks (the target): empty columns, so
        # that Khiops does not warn about the header
        for v in interp[0].variables:
            if not v.rule and not v.type.startswith("Structure") and v.name not in frame.columns:
                frame[v.name] = ""
        frame.to_csv(table, sep="\t", index=False, header=True, quotechar='"', doublequote=True,
                     encoding="utf-8")
        out_path = tmpdir / "interpreted.txt"
        kh.deploy_model(str(interp_kdic), interp[0].name, str(table), str(out_path))
        out = pd.read_csv(out_path, sep="\t", header=0, quotechar='"', doublequote=True,
                          dtype={k: float for k in wanted}, keep_default_na=False,
                          na_values={k: [""] for k in wanted})
    if len(out) != len(X):
        raise RuntimeError(f"Khiops interpreted {len(out)} rows out of {len(X)}")
    result = {}
    for c in model.classes:
        cols = {}
        for var in model.feature_names:
            names = [k for k, (cls, vn) in wanted.items() if cls == str(c) and vn == var]
            if len(names) != 1:
                raise RuntimeError(f"no Khiops Shapley value for class {c!r}, variable {var!r}")
            cols[var] = out[names[0]].to_numpy(dtype=float)
        result[c] = pd.DataFrame(cols, index=X.index)
    return result


def fit_khiops_snb(X: pd.DataFrame, y: Sequence[Any] | pd.Series, **kwargs: Any) -> tuple[Any, KhiopsSNB]:
    """Fit ``KhiopsClassifier(n_trees=0, n_pairs=0, **kwargs)`` (the paper's classifier:
    univariate selective naive Bayes) and read it: returns ``(clf, model)``."""
    require_khiops()
    from khiops.sklearn import KhiopsClassifier

    params = {"n_trees": 0, "n_pairs": 0}
    params.update(kwargs)
    clf = KhiopsClassifier(**params).fit(X, y)
    return clf, read_khiops_snb(clf)



# ---------------------------------------------------------------------------
# Multiclass (Lemaire et al., §3) with Khiops' pooled "rest"
# ---------------------------------------------------------------------------


def khiops_multiclass_shapley(model: KhiopsSNB, parts: np.typing.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Khiops' one-vs-rest Shapley values for every class, and the paper's multiclass summary.

    Lemaire et al., §3 ("Extension to multiclass"): Eq. (L10) with each class in turn as the
    positive class ``Y_1`` and the other ``C − 1`` classes as ``Y_0``, and the value of a
    variable ``Σ_c |φ_m(c vs rest)|``.  The rest is Khiops' pooled one
    (:meth:`KhiopsSNB.rest_likelihood`, ``KIShapleyTable.cpp``), so ``per_class`` is what
    Khiops' ``interpret_predictor`` writes; :func:`lib.naive_bayes.multiclass_shapley` on
    :meth:`KhiopsSNB.tables` uses the prior-weighted mixture of the smoothed class columns
    instead, which differs by ``O(1/N)``.  The game is each class against the others pooled,
    not the classifier's own ``log P(c|x) / (1 - P(c|x))`` (see
    :func:`lib.naive_bayes.multiclass_shapley`).

    Returns
    -------
    per_class
        ``(n, d, K)``, ``[..., k]`` for ``model.classes[k]`` against the rest.
    summary
        ``(n, d)``: ``Σ_k |per_class[..., k]|``.
    """
    parts = model.tables().check_parts(parts)
    per_class = np.stack([model.shapley_values(parts, c) for c in model.classes], axis=-1)
    return per_class, np.abs(per_class).sum(axis=-1)


def khiops_one_vs_rest_log_odds(model: KhiopsSNB, parts: np.typing.ArrayLike) -> np.ndarray:
    """Lemaire et al.'s Eq. (L2) with class ``c`` as ``Y_1`` and Khiops' pooled rest as ``Y_0``.

    ``LR_c(x) = log n_c / (N − n_c) + Σ_i w_i log P(x_i | c) / P(x_i | ¬c)``, with
    ``P(· | c)`` of :meth:`KhiopsSNB.tables` and ``P(· | ¬c)`` of
    :meth:`KhiopsSNB.rest_likelihood`: the value function whose interventional Shapley
    values (the training rows as background) are Khiops' own
    (:func:`khiops_multiclass_shapley`, Eq. (L10)).  For two classes it is the model's Eq. (L2)
    log-odds (before :func:`output_laplace`).  Returns ``(n, K)``.
    """
    t = model.tables()
    parts = t.check_parts(parts)
    n = model.n_train
    out = np.empty((parts.shape[0], len(model.classes)))
    for k, c in enumerate(model.classes):
        n_c = float(model.class_counts[k])
        total = np.full(parts.shape[0], np.log(n_c) - np.log(n - n_c))
        for i, (lik, rest) in enumerate(zip(t.likelihood, model.rest_likelihood(c))):
            lam = np.log(lik[:, k]) - np.log(rest)
            total += t.weights[i] * lam[parts[:, i]]
        out[:, k] = total
    return out
