"""scikit-learn's naive Bayes classifiers read as one term per feature: equation (L10) generalised.

``CategoricalNB``, ``BernoulliNB``, ``GaussianNB`` and ``MultinomialNB`` all score class ``k`` as
``log π_k + Σ_i ℓ_ik(x_i)`` (book eq. ``eq-nb-sk-factors``), so the log-odds of one class against
the others pooled into one is a sum over the features, and its interventional Shapley values are
Lemaire et al.'s closed form with the expectation over a background (book eqs.
``eq-nb-sk-rest``, ``eq-nb-sk-shapley``; chapter 1's first notebook derives them).
:func:`from_sklearn` reads a fitted model;
:meth:`SklearnNaiveBayes.shapley` explains it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from lib.games import Game
from lib.models import output_index, renamed_keywords
from lib.naive_bayes import NaiveBayesTables, shapley_lookup
from lib.result import ShapleyResult
from lib.entry_points import entry_point

__all__ = ["NB_GAMES", "SklearnNaiveBayes", "from_sklearn"]

#: The games :meth:`SklearnNaiveBayes.shapley` explains, by name.
NB_GAMES = ("pooled-rest", "posterior")


@dataclass(frozen=True)
class SklearnNaiveBayes:
    """A fitted scikit-learn naive Bayes as per-feature log-likelihood terms: :func:`from_sklearn`.

    Book: :ref:`eq-nb-sk-factors`, :ref:`eq-nb-sk-rest`, :ref:`eq-nb-sk-shapley`
        (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).

    ``CategoricalNB``, ``BernoulliNB``, ``GaussianNB`` and ``MultinomialNB`` all score class
    ``k`` as ``log π_k + Σ_i ℓ_ik(x_i)``, one term per feature (book eq. ``eq-nb-sk-factors``:
    a table, ``b log p + (1 - b) log(1 - p)``, a Gaussian log-density, ``x log θ``). So the
    log-odds of one class ``c`` against the pooled rest is additive over the features (book eq.
    ``eq-nb-sk-rest``) and its interventional Shapley values are in closed form (book eq.
    ``eq-nb-sk-shapley``), Eq. (L10) with the expectation over a background.

    Attributes
    ----------
    model
        The fitted classifier.
    kind
        ``"categorical"``, ``"bernoulli"``, ``"gaussian"`` or ``"multinomial"``.
    classes
        ``model.classes_``.
    log_prior
        ``(K,)``: ``log π_k`` as the model uses it.
    """

    model: Any
    kind: str
    classes: np.ndarray
    log_prior: np.ndarray

    @property
    def n_features(self) -> int:
        return int(self.model.n_features_in_)

    @property
    def feature_names(self) -> list[str] | None:
        """The model's feature names (``feature_names_in_``: it was fitted on a DataFrame), else ``None``."""
        names = getattr(self.model, "feature_names_in_", None)
        return None if names is None else [str(c) for c in names]

    def _game(self, X: Any, background: Any = None, output: Any = None) -> Game:
        """The checked game of a call (:class:`lib.games.Game`): the rows (and background) matched by
        name to ``feature_names_in_`` (a model fitted on a DataFrame; any order), one dtype per
        column, no NaN or ±inf (this closed form cannot take missing values), and the explained
        class by the one class rule (default: the second of two classes, every class for more)."""
        return Game(self.model, X, background, output=output, output_default="positive-or-all", allow_nan=None)

    def _rows(self, X: Any, name: str = "X") -> np.ndarray:
        return self._domain(_floats(self._game(X).X, name), name, None)

    def _domain(self, arr: np.ndarray, name: str, names: list[str] | None) -> np.ndarray:
        """The model's own checks, after the game's: the width it was fitted on, and values it can read
        (categories it knows, 0/1 for a ``BernoulliNB`` without ``binarize``, counts >= 0)."""
        col = (lambda j: repr(names[j])) if names is not None else str
        if arr.ndim != 2 or arr.shape[1] != self.n_features:
            raise ValueError(f"{name} must have {self.n_features} feature columns (the model was fitted on "
                             f"{self.n_features}), got shape {arr.shape}")
        if self.kind == "categorical":
            n_cat = np.asarray(self.model.n_categories_)
            out = (arr != np.round(arr)) | (arr < 0) | (arr >= n_cat)
            if out.any():
                r, j = (int(v[0]) for v in np.nonzero(out))
                raise ValueError(
                    f"{name} row {r}, column {col(j)}: {arr[r, j]:g} is not a category the model knows "
                    f"(0 .. {n_cat[j] - 1}); encode it as in training, or refit with min_categories"
                )
        if self.kind == "bernoulli" and self.model.binarize is None and not np.isin(arr, (0.0, 1.0)).all():
            r, j = (int(v[0]) for v in np.nonzero(~np.isin(arr, (0.0, 1.0))))
            raise ValueError(
                f"{name} row {r}, column {col(j)}: {arr[r, j]:g} is not 0 or 1, and the BernoulliNB has "
                "binarize=None; binarise the rows as in training, or fit with binarize=threshold"
            )
        if self.kind == "multinomial" and (arr < 0).any():
            r, j = (int(v[0]) for v in np.nonzero(arr < 0))
            raise ValueError(f"{name} row {r}, column {col(j)}: MultinomialNB takes counts >= 0, got {arr[r, j]:g}; "
                             "give counts as in training")
        return arr

    @entry_point(model="self", rows=("X",), kind="naive-bayes", make="lib.naive_bayes_sklearn.from_sklearn", output=False)
    def log_likelihood_terms(self, X: Any) -> np.ndarray:
        """``ℓ_ik(x_i)`` of every row, feature and class: ``(n, d, K)`` (book eq. ``eq-nb-sk-factors``).

        Book: :ref:`eq-nb-sk-factors` (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).
        """
        return self._terms(self._rows(X))

    def _terms(self, x: np.ndarray) -> np.ndarray:
        """:meth:`log_likelihood_terms` of checked rows."""
        m = self.model
        if self.kind == "gaussian":
            var, mu = m.var_.T[None], m.theta_.T[None]                            # (1, d, K)
            return -0.5 * np.log(2.0 * np.pi * var) - 0.5 * (x[:, :, None] - mu) ** 2 / var
        if self.kind == "multinomial":
            return x[:, :, None] * m.feature_log_prob_.T[None]
        if self.kind == "bernoulli":
            b = x > m.binarize if m.binarize is not None else x.astype(bool)
            log_p = m.feature_log_prob_.T[None]
            return np.where(b[:, :, None], log_p, np.log1p(-np.exp(log_p)))
        codes = x.astype(np.int64)
        return np.stack([m.feature_log_prob_[i][:, codes[:, i]].T for i in range(x.shape[1])], axis=1)

    def _class(self, output: Any) -> int:
        return output_index(output, self.classes, len(self.classes))

    @entry_point(model="self", rows=("X",), kind="naive-bayes", make="lib.naive_bayes_sklearn.from_sklearn",
                 example={"output": 1}, output=False)
    @renamed_keywords(positive="output")
    def rest_log_ratios(self, X: Any, output: Any) -> tuple[float, np.ndarray]:
        """Bias ``log π_c / π_¬c`` and ``λ_i(x_i)`` ``(n, d)`` of class ``output`` against the
        pooled rest (book eq. ``eq-nb-sk-rest``; Lemaire et al.'s §3 extension).

        Book: :ref:`eq-nb-sk-rest` (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).
        """
        return self._rest(self._rows(X), self._class(output))

    def _rest(self, x: np.ndarray, c: int) -> tuple[float, np.ndarray]:
        """:meth:`rest_log_ratios` of checked rows, for the class of index ``c``."""
        rest = np.arange(len(self.classes)) != c
        w = self.log_prior[rest] - np.logaddexp.reduce(self.log_prior[rest])
        terms = self._terms(x)
        rest_terms = np.logaddexp.reduce(terms[:, :, rest] + w, axis=2)
        bias = float(self.log_prior[c] - np.logaddexp.reduce(self.log_prior[rest]))
        return bias, terms[:, :, c] - rest_terms

    @entry_point(model="self", rows=("X",), kind="naive-bayes", make="lib.naive_bayes_sklearn.from_sklearn", output=False)
    def posterior_log_odds(self, X: Any) -> np.ndarray:
        """The classifier's own ``log P(k|x) / (1 - P(k|x))`` for every class: ``(n, K)``
        (book eq. ``eq-nb-multi-posterior``); for two classes it is the pooled-rest log-odds.

        Book: :ref:`eq-nb-multi-posterior` (notebooks/01-naive-bayes/06-multiclass.ipynb).
        """
        return self._posterior(self._rows(X))

    def _posterior(self, x: np.ndarray) -> np.ndarray:
        """:meth:`posterior_log_odds` of checked rows."""
        s = self.log_prior + self._terms(x).sum(axis=1)
        out = np.empty_like(s)
        for k in range(s.shape[1]):
            out[:, k] = s[:, k] - np.logaddexp.reduce(np.delete(s, k, axis=1), axis=1)
        return out

    @entry_point(model="self", rows=("X", "background"), kind="naive-bayes", make="lib.naive_bayes_sklearn.from_sklearn")
    @renamed_keywords(positive="output")
    def shapley(self, X: Any, background: Any = None, *, output: Any = None, game: str = "pooled-rest",
                feature_names: Sequence[str] | None = None) -> ShapleyResult:
        """Interventional Shapley values of a log-odds of the classifier, for the rows ``X``.

        Book: :ref:`eq-nb-sk-shapley` (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).

        ``game="pooled-rest"`` (the paper's, Lemaire et al. §3): the log-odds of class ``c``
        against the other classes pooled into one (:meth:`rest_log_ratios`), additive, so
        ``φ_i = λ_i(x_i) - E[λ_i]`` in closed form (book eq. ``eq-nb-sk-shapley``), the expectation
        over the ``background`` rows, or (``background=None``, ``CategoricalNB`` and ``BernoulliNB``
        only) over the training frequencies the model stores: Eq. (L10) itself.
        ``game="posterior"``: the classifier's own ``log P(c|x) / (1 - P(c|x))``, which for three
        classes or more is not additive: its exact values come from
        :func:`lib.shapley.exact_shapley` on that function (``background`` required, at most
        :data:`lib.games.MAX_EXACT_FEATURES` features).  For two classes the games coincide.

        ``output``: the class explained (a label of ``classes_``, else a column index:
        :func:`lib.models.output_index`; ``positive=``, its old name, is deprecated); default the second class for two classes, every class
        (one output each) for more.  The result's ``method`` and ``output_names`` name the game.

        Columns: ``X`` and ``background`` are the checked game's (:class:`lib.games.Game`, as every
        explainer of ``lib``): for a model fitted on a DataFrame, their columns are matched **by
        name** against ``feature_names_in_`` (any order), and a missing, extra, renamed or repeated
        column is refused, as scikit-learn refuses it; the result is in the model's column order and
        keeps the names (``feature_names``); a ``pd.Series`` is one row with names; NaN and ±inf are
        refused with the row, the column and the remedy.  Then the model's own checks (its width,
        categories it knows, 0/1 or counts).  Arrays are read by position.  ``model_rows`` of the
        result is 0 for the pooled-rest game (a closed form: the model is never called).
        """
        if game not in NB_GAMES:
            raise ValueError(f"game must be one of {list(NB_GAMES)}, got {game!r}")
        checked = self._game(X, background, output)
        names = _feature_names(checked.feature_names, feature_names, checked.d)
        x = self._domain(_floats(checked.X, "X"), "X", names)
        bg = None if background is None else self._domain(_floats(checked.background, "background"), "background",
                                                          names)
        ks = [checked.output_index] if checked.output_index is not None else list(range(len(self.classes)))
        labels = [str(self.classes[k]) for k in ks]
        if game == "posterior":
            if bg is None:
                raise ValueError("the posterior game is not additive: pass background rows (e.g. the training rows)")
            from lib.shapley import exact_shapley

            res = exact_shapley(lambda Z: self._posterior(Z)[:, ks if len(ks) > 1 else ks[0]], x, bg,
                                feature_names=names,
                                output_names=[f"{c} vs rest (posterior)" for c in labels] if len(ks) > 1 else None)
            return replace(res, method="naive-bayes-posterior-exact")  # its model rows: the posterior's
        if bg is None:  # Eq. (L10) itself, over the training frequencies the model stores
            lookup = shapley_lookup(self.tables, [self.classes[k] for k in ks])
            vals, base = lookup.values(self._parts(x)), lookup.base_values
        else:
            vals, base = np.empty(x.shape + (len(ks),)), np.empty(len(ks))
            for j, k in enumerate(ks):
                b, lam = self._rest(x, k)
                expected = self._rest(bg, k)[1].mean(axis=0)
                vals[:, :, j], base[j] = lam - expected, b + expected.sum()
        n = x.shape[0]
        outputs = base + vals.sum(axis=1)
        if len(ks) == 1:
            vals, base, outputs = vals[..., 0], np.full(n, base[0]), outputs[:, 0]
        else:
            base = np.broadcast_to(base, (n, len(ks))).copy()
        return ShapleyResult(
            values=vals, base_values=base, outputs=outputs, data=x, feature_names=names,
            output_names=[f"{c} vs pooled rest" for c in labels], method="naive-bayes-pooled-rest",
            model_rows=0,  # a closed form of the model's parameters: the model is never called
        )

    def _parts(self, x: np.ndarray) -> np.ndarray:
        """Part indices of checked rows: the categories, or ``x > binarize`` as 0/1."""
        if self.kind == "bernoulli" and self.model.binarize is not None:
            return (x > self.model.binarize).astype(np.int64)
        return x.astype(np.int64)

    def _training_frequencies(self) -> list[np.ndarray]:
        m = self.model
        if self.kind == "categorical":
            return [cc.sum(axis=0) / cc.sum() for cc in m.category_count_]
        if self.kind == "bernoulli":
            p1 = m.feature_count_.sum(axis=0) / m.class_count_.sum()
            return [np.array([1.0 - q, q]) for q in p1]
        raise ValueError(
            f"{type(m).__name__} stores no distribution of its features: pass background= rows "
            "(e.g. the training rows) to take the expectation of Eq. (L10) over"
        )

    @property
    def tables(self) -> NaiveBayesTables:
        """The model as :class:`lib.naive_bayes.NaiveBayesTables` (``CategoricalNB``, ``BernoulliNB``: parts =
        categories, or 0/1), so that the chapter's functions of Lemaire et al. apply."""
        freq = self._training_frequencies()
        m = self.model
        if self.kind == "categorical":
            lik = [np.exp(flp.T) for flp in m.feature_log_prob_]
        else:
            p = np.exp(m.feature_log_prob_.T)                                  # (d, K): P(b = 1 | k)
            lik = [np.stack([1.0 - q, q]) for q in p]
        names = self.feature_names or [f"x{i}" for i in range(self.n_features)]
        prior = np.exp(self.log_prior)
        return NaiveBayesTables(feature_names=names, classes=self.classes, prior=prior / prior.sum(),
                                likelihood=lik, part_prob=freq, weights=np.ones(self.n_features))


def _floats(rows: Any, name: str) -> np.ndarray:
    """The checked rows as floats (the naive Bayes terms are numbers), else ``ValueError`` naming the column."""
    if isinstance(rows, pd.DataFrame):
        for c in rows.columns:
            try:
                rows[c].to_numpy(dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"{name}'s column {c!r} holds values that are not numbers ({rows[c].dtype}): give "
                                 "the codes or numbers the model was fitted on") from None
        return rows.to_numpy(dtype=float)
    try:
        return np.asarray(rows, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} holds values that are not numbers: give the codes or numbers the model was "
                         "fitted on") from None


def _feature_names(matched: list[str] | None, given: Sequence[str] | None, d: int) -> list[str] | None:
    """The result's feature names: the columns matched by name, or those ``given`` (which must agree)."""
    if given is None:
        return matched
    names = [str(c) for c in given]
    if len(names) != d:
        raise ValueError(f"{len(names)} feature names for {d} features")
    if matched is not None and names != matched:
        raise ValueError(f"feature_names {names} differ from the columns {matched}: leave feature_names out "
                         "for a DataFrame (its columns name the features)")
    return names


def from_sklearn(model: Any) -> SklearnNaiveBayes:
    """A fitted ``CategoricalNB``, ``BernoulliNB``, ``GaussianNB`` or ``MultinomialNB`` as
    :class:`SklearnNaiveBayes`, whose Shapley values are in closed form.

    Book: :ref:`eq-nb-sk-factors`, :ref:`eq-nb-sk-shapley`
        (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).

    The log-odds of a naive Bayes is a sum of one term per feature in each of the four (book eq.
    ``eq-nb-sk-factors``), so Eq. (L10) generalises: :meth:`SklearnNaiveBayes.shapley`.  Two
    games for more than two classes: one class against the pooled rest (the paper's, closed
    form) and the classifier's own ``log P(c|x) / (1 - P(c|x))`` (exact engine).  Anything else
    (``ComplementNB``, whose scores are not a naive Bayes log-likelihood, an unfitted model, one
    class) raises ``ValueError``.
    """
    from sklearn.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

    kinds = [(CategoricalNB, "categorical"), (BernoulliNB, "bernoulli"), (GaussianNB, "gaussian"),
             (MultinomialNB, "multinomial")]
    kind = next((k for cls, k in kinds if type(model) is cls), None)
    if kind is None:
        raise ValueError(
            f"from_sklearn takes a fitted CategoricalNB, BernoulliNB, GaussianNB or MultinomialNB, got "
            f"{type(model).__name__}; explain any other classifier with lib.shapley.exact_shapley(model, ...)"
        )
    if not hasattr(model, "classes_"):
        raise ValueError(f"{type(model).__name__} is not fitted: call fit first")
    classes = np.asarray(model.classes_)
    if len(classes) < 2:
        raise ValueError(f"{type(model).__name__} was fitted on one class ({classes.tolist()}): nothing to explain")
    log_prior = np.log(model.class_prior_) if kind == "gaussian" else np.asarray(model.class_log_prior_, float)
    return SklearnNaiveBayes(model=model, kind=kind, classes=classes, log_prior=np.asarray(log_prior, float))
