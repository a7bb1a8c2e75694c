"""Shapley compositions of a weighted naive Bayes in closed form, and its multiclass reading.

Chapter 2, notebook 07 derives the closed form (:func:`naive_bayes_shapley_compositions`): the
ILR coordinates of a naive Bayes posterior are a constant plus one table term per variable
(:func:`naive_bayes_ilr_terms`), so every marginal contribution is the same and the Shapley
composition costs one gather per variable, no enumeration.  Chapter 1, notebook 06 reads Lemaire
et al.'s one-vs-rest values against it (:func:`naive_bayes_geometric_rest`,
:func:`clr_l1_over_l2_bounds`).  The results are :class:`lib.compositions.ShapleyCompositions`,
as those of the general estimators of :mod:`lib.compositions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from lib import naive_bayes as nbm
from lib.result import ShapleyResult
from lib import simplex as sx
from lib.compositions import ShapleyCompositions
from lib.models import renamed_keywords

__all__ = [
    "clr_l1_over_l2_bounds",
    "naive_bayes_geometric_rest",
    "naive_bayes_ilr_terms",
    "naive_bayes_shapley_compositions",
]


def _nb_tables(model: Any) -> nbm.NaiveBayesTables:
    if isinstance(model, nbm.NaiveBayesTables):
        return model
    tables = getattr(model, "tables_", None)
    if isinstance(tables, nbm.NaiveBayesTables):
        return tables
    raise TypeError(
        "expected lib.naive_bayes.NaiveBayesTables or a fitted WeightedNaiveBayes (with .tables_), "
        f"got {type(model).__name__}"
    )


def naive_bayes_ilr_terms(
    model: nbm.NaiveBayesTables | nbm.WeightedNaiveBayes,
    basis: npt.ArrayLike | None = None,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The ILR coordinates of a weighted naive Bayes posterior, as a sum of table terms.

    Book: :ref:`eq-nb-posterior` (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb);
        :ref:`eq-comp-nb-evidence`, :ref:`eq-comp-nb-perturbation`, :ref:`eq-comp-nb-additive`
        (notebooks/02-shapley-compositions/07-naive-bayes-composition.ipynb).

    For ``P(Y = k | x) ∝ P(Y = k) Π_i P(X_i = x_i | Y = k)^{w_i}`` (Lemaire et al., Eq. (L1);
    book eq. ``eq-nb-posterior``) the normalising constant is a scale factor, which
    log-ratios ignore, so in the Aitchison geometry the posterior is a perturbation of
    powered compositions, ``P(Y | x) = π ⊕ ⊕_i w_i ⊙ L_i(x_i)`` with
    ``L_i(p) = C(P(X_i = p | Y = 1), …, P(X_i = p | Y = K))``, and

    ``ilr P(Y | x) = ilr π + Σ_i w_i ilr L_i(x_i)``  (book eq. ``eq-comp-nb-additive``).

    Returns
    -------
    prior
        ``ilr π``, shape ``(K-1,)``.
    terms
        One array per variable, shape ``(P_i, K-1)``: row ``p`` is ``w_i ilr L_i(p)``.
    """
    tables = _nb_tables(model)
    K = len(tables.classes)
    V = sx.helmert_basis(K) if basis is None else sx.check_basis(basis, K)
    prior = sx.ilr(tables.prior, V)
    terms = [w * sx.ilr(lik, V) for w, lik in zip(np.asarray(tables.weights, dtype=float), tables.likelihood)]
    return prior, terms


@renamed_keywords(class_names="output_names")
def naive_bayes_shapley_compositions(
    model: nbm.NaiveBayesTables | nbm.WeightedNaiveBayes,
    parts: npt.ArrayLike,
    background: npt.ArrayLike | None = None,
    *,
    basis: npt.ArrayLike | None = None,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
) -> ShapleyCompositions:
    """Exact Shapley compositions of a weighted naive Bayes, in closed form, at linear cost.

    Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-nb-shapley`
        (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb); :ref:`eq-comp-nb-game`,
        :ref:`eq-comp-nb-shapley`
        (notebooks/02-shapley-compositions/07-naive-bayes-composition.ipynb).

    The game is the paper's (Shapley-composition paper, Eq. (C5)-(C7)): the value of a coalition
    ``S`` is the Aitchison expectation ``E^A[f(x_S, X_{-S})] = ilr^{-1} E[ilr f(x_S, X_{-S})]``
    with the absent variables taken from a background (interventional, book eq.
    ``eq-found-interventional``).  Because ``ilr f`` is a constant plus one term per
    variable (:func:`naive_bayes_ilr_terms`), the marginal contribution of variable ``i``
    is the same for every coalition, and the Shapley composition is

    ``φ(i) = ilr^{-1}( w_i (ilr L_i(x_i) − E_B[ilr L_i(B_i)]) ) = w_i ⊙ (L_i(x_i) ⊖ E^A_B[L_i(B_i)])``

    (book eq. ``eq-comp-nb-shapley``).  For two classes and the Gram-Schmidt basis its single
    ILR coordinate is ``1/√2`` times Lemaire et al.'s Eq. (L10) (book eq. ``eq-nb-shapley``,
    :func:`lib.naive_bayes.shapley_values`) with the first class as the positive class.

    Cost: ``O(Σ_i P_i K)`` for the tables, then ``O(n d K)`` gathers for ``n`` rows; no
    enumeration of coalitions, no sampling.

    Parameters
    ----------
    model
        :class:`lib.naive_bayes.NaiveBayesTables`, or a fitted
        :class:`lib.naive_bayes.WeightedNaiveBayes` (its ``tables_``).
    parts
        ``(n, d)`` integer part indices of the rows to explain (``WeightedNaiveBayes.transform``).
    background
        ``(m, d)`` part indices of the background rows; ``None`` (default) takes the
        expectation under the tables' ``part_prob`` (``P(X_i = p)``, the training
        frequencies: the expectation of Lemaire et al.'s Eq. (L10)), which equals the
        training rows as background.
    basis
        ILR basis ``(K, K-1)``; default Gram-Schmidt.  The compositions do not depend on it.

    Returns
    -------
    ShapleyCompositions
        ``shapley.method == "naive-bayes-closed-form"``; ``prediction`` is the model's
        posterior (Eq. (L1)), ``base`` the Aitchison mean of the predictions over the background.
    """
    tables = _nb_tables(model)
    K = len(tables.classes)
    V = sx.helmert_basis(K) if basis is None else sx.check_basis(basis, K)
    parts_arr = tables.check_parts(parts)
    if parts_arr.shape[0] == 0:
        raise ValueError("parts has no rows to explain")
    prior, terms = naive_bayes_ilr_terms(tables, V)
    if background is None:
        expected = [pp @ t for pp, t in zip(tables.part_prob, terms)]
    else:
        bg = tables.check_parts(background)
        if bg.shape[0] == 0:
            raise ValueError("background has no rows: the absent variables need values to average over")
        expected = [t[bg[:, i]].mean(axis=0) for i, t in enumerate(terms)]
    observed = np.stack([t[parts_arr[:, i]] for i, t in enumerate(terms)], axis=1)  # (n, d, K-1)
    values = observed - np.stack(expected)[None, :, :]
    n = parts_arr.shape[0]
    base = np.broadcast_to(prior + np.sum(expected, axis=0), (n, K - 1)).copy()
    outputs = prior + observed.sum(axis=1)
    names = list(feature_names) if feature_names is not None else list(tables.feature_names)
    if len(names) != parts_arr.shape[1]:
        raise ValueError(f"{len(names)} feature names for {parts_arr.shape[1]} variables")
    res = ShapleyResult(
        values=values, base_values=base, outputs=outputs, data=parts_arr, feature_names=names,
        method="naive-bayes-closed-form",
    )
    if output_names is None:
        output_names = [str(c) for c in tables.classes]
    return ShapleyCompositions.from_ilr(res, values, V, output_names)


# ---------------------------------------------------------------------------
# Naive Bayes: the composition against Lemaire et al.'s one-vs-rest values
# (chapter 1, notebook 06)
# ---------------------------------------------------------------------------


def naive_bayes_geometric_rest(compositions: npt.ArrayLike) -> np.ndarray:
    """Lemaire et al.'s Eq. (L10) for class ``k`` against the *geometric mean* of the other classes,
    read off naive Bayes Shapley compositions: ``K/(K−1) clr_k φ(i)``, ``(..., K) -> (..., K)``.

    Book: :ref:`eq-nb-multi-geometric` (notebooks/01-naive-bayes/06-multiclass.ipynb).

    With ``δ_k = w_i (log P(x_i | k) − E[log P(X_i | k)])``, the closed form of
    :func:`naive_bayes_shapley_compositions` has ``clr_k φ(i) = δ_k − (1/K) Σ_j δ_j``, and
    Eq. (L10) with ``P(X_i | Y_0)`` replaced by the (closed) geometric mean of the other
    classes' likelihoods is ``δ_k − (1/(K−1)) Σ_{j≠k} δ_j = K/(K−1) (δ_k − (1/K) Σ_j δ_j)``
    (the closure constant cancels in ``λ − E[λ]``).  The paper's extension (§3) takes the
    *arithmetic* mixture of the other classes instead (:func:`lib.naive_bayes.class_log_ratios`).
    For two classes it is Eq. (L10) itself (book eq. ``eq-nb-multi-geometric``).
    """
    phi = sx.check_composition(compositions)
    k = phi.shape[-1]
    return k / (k - 1) * sx.clr(phi)


def clr_l1_over_l2_bounds(n_parts: int) -> tuple[float, float]:
    """The range of ``‖v‖_1 / ‖v‖_2`` over non-zero ``v ∈ R^K`` with ``Σ_k v_k = 0`` (clr vectors).

    Book: :ref:`eq-nb-multi-band` (notebooks/01-naive-bayes/06-multiclass.ipynb).

    Lower bound ``√2`` (one part ``+a``, one ``−a``, the rest zero); upper bound
    ``2 √(⌊K/2⌋ ⌈K/2⌉ / K)`` (half the parts ``+a``, half ``−b`` with equal sums): if the
    positive parts sum to ``s``, ``‖v‖_1 = 2s`` and ``s²/p + s²/(K−p) ≤ ‖v‖_2² ≤ 2 s²`` for
    ``p`` positive parts.  Used to bound the sum of absolute geometric-rest values
    (:func:`naive_bayes_geometric_rest`) by the Aitchison norm of the composition
    (book eq. ``eq-nb-multi-band``).
    """
    k = int(n_parts)
    if k < 2:
        raise ValueError(f"a composition needs at least two parts, got {n_parts}")
    return float(np.sqrt(2.0)), float(2.0 * np.sqrt((k // 2) * (k - k // 2) / k))
