"""Shapley compositions: Shapley values of a probability vector on the simplex.

Shapley-composition paper (book chapter ``02-shapley-compositions``), §4, Eq. (C5)-(C8),
Appendices A, D and E.  For a classifier ``f`` with ``N`` classes the value function
is the expectation under the Aitchison measure (Eq. (C6)),
``v(S) = E^A[f(x_S, X_{-S})] = ilr^{-1}(E[ilr f(x_S, X_{-S})])``, the contribution is
the perturbation difference ``v(S ∪ {i}) ⊖ v(S)`` (Eq. (C5)), and the Shapley composition
is ``φ(i) = (1/d!) ⊙ ⊕_π c(i, π)`` (Eq. (C7)).

Because ``ilr`` is an isometric isomorphism that maps ``⊕, ⊖, ⊙`` to ``+, -, ×``,
``ilr φ(i)`` is *exactly* the ordinary Shapley value of the vector game
``S -> E[ilr f(x_S, X_{-S})]`` -- the interventional game of the model ``ilr ∘ f``
(book eq. ``eq-found-interventional``).  This module therefore computes nothing of its
own: it runs :mod:`lib.shapley` on ``ilr ∘ f`` and maps the results back with
``ilr^{-1}``.  The composition does not depend on the orthonormal basis chosen (two
bases differ by a rotation of the ILR coordinates, which commutes with the linear
Shapley operator); its ILR coordinates do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from lib import sampling
from lib import shapley as sh
from lib import simplex as sx
from lib.games import MAX_EXACT_FEATURES, Game, describe_row
from lib.models import as_model, model_and_output_names, output_index, renamed_keywords
from lib.result import ShapleyResult
from lib.validation import check_budget, check_seed, replicate_seeds
from lib.entry_points import entry_point

__all__ = [
    "ProbabilitySumError",
    "SUM_TOLERANCE",
    "ShapleyCompositions",
    "ZeroProbabilityError",
    "adjust_efficiency_compositions",
    "class_logits",
    "class_projections",
    "cosine_matrix",
    "exact_shapley_compositions",
    "from_class_projections",
    "ilr_model",
    "logistic",
    "mixed_basis_projections",
    "norms",
    "sample_shapley_compositions",
    "shap_permutation_compositions",
    "shap_sampling_compositions",
    "summary_table",
]

Model = Callable[[Any], Any]


#: How far a row of probabilities may sum from 1 before :func:`ilr_model` refuses it.
SUM_TOLERANCE = 1e-6


class ProbabilitySumError(ValueError):
    """Rows of probabilities that do not sum to 1 among the rows a model was asked for:
    :func:`ilr_model`'s error, which the explainers restate in the user's rows."""


class ZeroProbabilityError(ValueError):
    """A probability of 0 among the rows a model was asked for: :func:`ilr_model`'s error.

    :attr:`rows` is the number of evaluated rows with a zero part.  The explainers of this module
    catch it and say which of the user's rows (of ``X``, of the background) have one, and the
    remedy.
    """

    def __init__(self, rows: int) -> None:
        super().__init__(
            f"the model gives probability 0 to some class on {rows} of the evaluated rows: the "
            "log-ratios of a composition are infinite there; smooth the model's probabilities, or "
            "pass clip=eps to raise each to at least eps"
        )
        self.rows = rows


def _check_clip(clip: float | None) -> float | None:
    if clip is None:
        return None
    if not (isinstance(clip, (int, float, np.floating)) and 0.0 < float(clip) < 0.5):
        raise ValueError(f"clip must be a probability in (0, 0.5), e.g. 1e-9; got {clip!r}")
    return float(clip)


def ilr_model(f: Model, basis: npt.ArrayLike | None = None, *, clip: float | None = None) -> Model:
    """The model ``Z -> ilr(f(Z))``: a probabilistic classifier seen in ILR coordinates.

    ``f`` is a fitted classifier (its ``predict_proba``) or a function mapping ``(r, d)`` rows to
    ``(r, N)`` probabilities (:func:`lib.models.as_model`); the result maps them to ``(r, N-1)``
    real coordinates (paper §3.2).  Each row must sum to 1 (within :data:`SUM_TOLERANCE`): a row
    that does not is a class missing from the columns, and closing it silently would explain
    another classifier.  Zero probabilities raise :class:`ZeroProbabilityError` (their
    log-ratios are undefined) unless ``clip`` is given: then every probability below ``clip`` is
    raised to ``clip`` (the ILR coordinates close the row again).
    """
    V = None if basis is None else np.asarray(basis, dtype=float)
    model = as_model(f)
    eps = _check_clip(clip)
    checked: dict[int, np.ndarray] = {}  # the basis for N classes, checked (or built) on the first call

    def g(Z: Any) -> np.ndarray:
        P = np.asarray(model(Z), dtype=float)
        if P.ndim != 2 or P.shape[1] < 2:
            raise ValueError(
                "the model must return class probabilities of shape (rows, N) with N >= 2, "
                f"got shape {P.shape}"
            )
        if not np.isfinite(P).all():
            bad = ~np.isfinite(P).all(axis=1)
            raise ValueError(
                f"the model returned NaN or infinite probabilities for {int(bad.sum())} of the {len(P)} rows it was "
                f"given, first on the row {describe_row(Z, int(np.flatnonzero(bad)[0]))}: explain a model whose "
                "probabilities are finite on every row"
            )
        total = P.sum(axis=1)
        off = np.flatnonzero(~(np.abs(total - 1.0) <= SUM_TOLERANCE))
        if off.size:
            raise ProbabilitySumError(
                f"the model's probabilities must sum to 1 over the {P.shape[1]} classes; {off.size} of "
                f"the {len(P)} evaluated rows sum to {float(np.min(total[off])):.6g} .. "
                f"{float(np.max(total[off])):.6g}. A class missing from the columns? Explain every "
                "column of predict_proba (or close the rows yourself with lib.simplex.closure)"
            )
        if eps is not None:
            P = np.maximum(P, eps)
        elif (P <= 0).any():
            raise ZeroProbabilityError(int((P <= 0).any(axis=1).sum()))
        n_classes = P.shape[1]
        if n_classes not in checked:
            checked[n_classes] = sx.helmert_basis(n_classes) if V is None else sx.check_basis(V, n_classes)
        # P is checked above (finite, > 0): sx.ilr's arithmetic without its checks, same bytes
        return sx.ilr_of_checked(P, checked[n_classes])

    g.__wrapped__ = model  # type: ignore[attr-defined]  # the classifier's columns (lib.validation.model_columns)
    return g


def _rows_text(rows: np.ndarray, name: str) -> str:
    shown = rows[:10].tolist()
    more = f" and {rows.size - 10} more" if rows.size > 10 else ""
    return f"row{'s' if rows.size > 1 else ''} {shown if rows.size > 1 else shown[0]}{more} of {name}"


def _sum_error(f: Model, X: Any, background: Any, err: ProbabilitySumError) -> ValueError:
    """The error for probabilities that do not sum to 1, in the user's rows of ``X`` and background."""
    model = as_model(f)
    where, totals = [], []
    for name, rows in (("X", X), ("background", background)):
        total = np.asarray(model(rows), dtype=float).sum(axis=1)
        bad = np.flatnonzero(~(np.abs(total - 1.0) <= SUM_TOLERANCE))
        if bad.size:
            where.append(_rows_text(bad, name))
            totals += total[bad].tolist()
    if not where:
        return ValueError(f"{err} (the rows that mix your rows of X with background rows; yours sum to 1)")
    return ValueError(
        f"the model's probabilities must sum to 1 over the classes; {' and '.join(where)} sum to "
        f"{min(totals):.6g} .. {max(totals):.6g}. A class missing from the columns? Explain every column of "
        "predict_proba (or close the rows yourself with lib.simplex.closure)"
    )


def _zero_probability_error(f: Model, X: Any, background: Any, class_names: Sequence[str] | None,
                            err: ZeroProbabilityError) -> ValueError:
    """The error for zero probabilities, in the user's rows: which rows of ``X`` and of the
    background have one, for which classes, and the remedy."""
    model = as_model(f)
    where, classes = [], set()
    for name, rows in (("X", X), ("background", background)):
        P = np.asarray(model(rows), dtype=float)
        zero = P <= 0
        bad = np.flatnonzero(zero.any(axis=1))
        if bad.size:
            where.append(_rows_text(bad, name))
            names = class_names or [str(k) for k in range(P.shape[1])]
            classes.update(names[k] for k in np.flatnonzero(zero.any(axis=0)))
    remedy = ("Smooth the model's probabilities (Laplace smoothing of a naive Bayes, a calibrated or "
              "regularised model that never outputs exactly 0 or 1), or pass clip=eps (e.g. clip=1e-9) "
              "to raise every probability to at least eps before the log-ratios are taken")
    if where:
        return ValueError(
            f"the model gives probability 0 to class{'es' if len(classes) > 1 else ''} {sorted(classes)} in "
            f"{' and '.join(where)}: a composition's log-ratios are infinite there. {remedy}"
        )
    return ValueError(
        f"the model gives probability 0 to some class on {err.rows} of the rows it was asked for, "
        "which mix your rows of X with background rows (no row of X or of the background has a zero "
        f"probability itself): a composition's log-ratios are infinite there. {remedy}"
    )


@dataclass(frozen=True)
class ShapleyCompositions:
    """Shapley compositions of a probabilistic classifier for several rows.

    Attributes
    ----------
    ilr_values
        ``(n, d, N-1)``: the ILR coordinates of the Shapley compositions, i.e. the
        Shapley values of ``ilr ∘ f``.
    base
        ``(n, N)``: the base distribution ``E^A[f(X)]`` over the background (Eq. (C8)).
    prediction
        ``(n, N)``: ``f(x)``, closed.
    basis
        ``(N, N-1)``: the ILR basis used.
    shapley
        The :class:`lib.result.ShapleyResult` of ``ilr ∘ f`` (with variances and
        sample counts when sampled).
    feature_names, class_names
        Optional labels.
    """

    ilr_values: np.ndarray
    base: np.ndarray
    prediction: np.ndarray
    basis: np.ndarray
    shapley: ShapleyResult
    feature_names: list[str] | None = None
    class_names: list[str] | None = None

    @classmethod
    def from_ilr(
        cls,
        res: ShapleyResult,
        ilr_values: np.ndarray,
        basis: np.ndarray,
        class_names: Sequence[str] | None = None,
    ) -> ShapleyCompositions:
        """The compositions of a result computed in ILR coordinates: ``res`` the Shapley result of
        ``ilr ∘ f`` in the orthonormal ``basis`` ``(N, N-1)``, ``ilr_values`` its (possibly adjusted)
        values; the base and the prediction mapped back with ``ilr^{-1}``."""
        if class_names is not None and len(class_names) != basis.shape[0]:
            raise ValueError(f"{len(class_names)} class names for {basis.shape[0]} classes")
        return cls(
            ilr_values=ilr_values,
            base=sx.ilr_inv(res.base_values, basis),
            prediction=sx.ilr_inv(res.outputs, basis),
            basis=basis,
            shapley=res,
            feature_names=res.feature_names,
            class_names=list(class_names) if class_names is not None else None,
        )

    @property
    def compositions(self) -> np.ndarray:
        """``(n, d, N)``: the Shapley compositions ``φ(i) = ilr^{-1}(ilr_values[:, i])``."""
        return sx.ilr_inv(self.ilr_values, self.basis)

    def efficiency_gap(self) -> np.ndarray:
        """Aitchison distance between ``base ⊕ φ(1) ⊕ ... ⊕ φ(d)`` and ``f(x)``, shape ``(n,)``.

        Book: :ref:`eq-comp-properties`
            (notebooks/02-shapley-compositions/02-definition-and-properties.ipynb).

        Zero for exact compositions (Eq. (C8), efficiency).
        """
        total = self.base
        comps = self.compositions
        for i in range(comps.shape[1]):
            total = sx.perturb(total, comps[:, i])
        return sx.distance(total, self.prediction)

    def norms(self) -> np.ndarray:
        """``(n, d)`` Aitchison norms (paper §5.3)."""
        return norms(self.compositions)

    def projections(self) -> np.ndarray:
        """``(n, d, N)`` projections on the unit class-compositions (paper §5.3, Appendix B)."""
        return class_projections(self.compositions)

    def cosines(self) -> np.ndarray:
        """``(n, d, d)`` cosine similarities between the features' compositions (paper §5.3)."""
        return cosine_matrix(self.compositions)

    # -- the surface every result of lib shares (values, base_values, outputs, names) ---------

    @property
    def values(self) -> np.ndarray:
        """``(n, d, N)``: the compositions in clr coordinates, ``clr φ(i) = V ilr φ(i)``, one
        column per class; ``base_values + values.sum(axis=1) = outputs`` (efficiency, Eq. (C8))."""
        return self.ilr_values @ self.basis.T

    @property
    def base_values(self) -> np.ndarray:
        """``(n, N)``: ``clr`` of the base distribution :attr:`base`."""
        return np.asarray(self.shapley.base_values, dtype=float) @ self.basis.T

    @property
    def outputs(self) -> np.ndarray:
        """``(n, N)``: ``clr f(x)``, the prediction in clr coordinates."""
        return np.asarray(self.shapley.outputs, dtype=float) @ self.basis.T

    @property
    def output_names(self) -> list[str] | None:
        """The class names (the columns of :attr:`values`)."""
        return self.class_names

    @property
    def model_rows(self) -> int | None:
        """The model rows the call spent (those of :attr:`shapley`)."""
        return self.shapley.model_rows

    def to_explanation(self, output: Any = None) -> Any:
        """The compositions as a :class:`shap.Explanation` in clr coordinates, named by class.

        ``values`` ``(n, d, N)`` (or ``(n, d)`` for one class, ``output`` = its index or name),
        ``base_values`` the clr of the base distribution; efficiency holds, so shap's plots work:
        ``shap.plots.bar(e[:, :, k])`` or ``shap.plots.waterfall(e[0, :, k])``, or
        ``to_explanation(output="class")`` (a class label, as given or as text, or a column index:
        :func:`lib.models.output_index`, the rule of every ``output=`` of ``lib``).  The clr
        coordinate of class ``k`` is the log of its probability against the geometric mean of all
        classes.
        """
        import shap  # imported lazily: importing shap is slow

        values, base = self.values, self.base_values
        names = self.class_names
        if output is not None:
            k = output_index(output, names, values.shape[2])
            values, base, names = values[:, :, k], base[:, k], None
        data = self.shapley.data
        data = data.to_numpy() if isinstance(data, pd.DataFrame) else data
        return shap.Explanation(values=values, base_values=base, data=data,
                                feature_names=self.feature_names, output_names=names)


def _n_classes(res: ShapleyResult) -> int:
    if res.values.ndim != 3:  # pragma: no cover - ilr_model always returns (r, N-1)
        raise ValueError("expected a multi-output result")
    return res.values.shape[2] + 1


def _compositions(f: Model, X: Any, background: Any, basis: npt.ArrayLike | None, output_names: Any,
                  clip: float | None, estimate: Any, **game: Any) -> tuple[ShapleyResult, np.ndarray, list[str] | None]:
    """The Shapley result of ``ilr ∘ f`` on one checked game, the ILR basis and the class names.

    ``estimate(game)`` computes the result; a zero probability or rows that do not sum to 1 are
    restated in the user's rows of ``X`` and of the background."""
    V = None if basis is None else np.asarray(basis, dtype=float)
    model, class_names = model_and_output_names(f, output_names)
    g = Game(ilr_model(model, V, clip=clip), X, background, **game)
    try:
        res = estimate(g)
    except ZeroProbabilityError as err:
        raise _zero_probability_error(model, g.X, g.background, class_names, err) from None
    except ProbabilitySumError as err:
        raise _sum_error(model, g.X, g.background, err) from None
    n_classes = _n_classes(res)
    V = sx.helmert_basis(n_classes) if V is None else sx.check_basis(V, n_classes)
    return res, V, class_names


@entry_point(model="f", rows=("X", "background"), output=False, allow_nan=True)
@renamed_keywords(class_names="output_names")
def exact_shapley_compositions(
    f: Model,
    X: Any,
    background: Any,
    *,
    basis: npt.ArrayLike | None = None,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    clip: float | None = None,
    max_rows_per_call: int = 2**16,
    allow_nan: bool = False,
    max_features: int = MAX_EXACT_FEATURES,
) -> ShapleyCompositions:
    """Exact Shapley compositions (paper Eq. (C5)-(C7)) against a background set.

    Book: :ref:`eq-comp-value`, :ref:`eq-comp-shapley-composition`, :ref:`eq-comp-ilr-shapley`
        (notebooks/02-shapley-compositions/02-definition-and-properties.ipynb).

    ``= ilr^{-1}`` of :func:`lib.shapley.exact_shapley` applied to ``ilr ∘ f``: the
    value function ``E^A[f(x_S, b_{-S})] = ilr^{-1}(mean_b ilr f(x_S, b_{-S}))`` is the
    interventional game of ``ilr ∘ f`` mapped back, and Eq. (C7) in ILR coordinates is the
    Shapley formula (module docstring).  ``max_rows_per_call``, ``allow_nan`` and
    ``max_features`` as there.

    Parameters
    ----------
    f
        A fitted classifier (its ``predict_proba``; the class names default to its classes) or a
        function mapping ``(r, d)`` rows to ``(r, N)`` strictly positive class probabilities
        summing to 1 (:func:`ilr_model`).
    X, background
        Rows to explain and background rows (arrays or DataFrames, columns matched by name, as in
        ``lib.shapley``).
    basis
        ILR basis ``(N, N-1)``; default :func:`lib.simplex.helmert_basis`.  The
        compositions do not depend on it; their ILR coordinates do.
    feature_names, output_names
        Labels of the features and of the ``N`` classes (by default a DataFrame's columns and a
        classifier's classes).  ``class_names=``, the old name of ``output_names=``, is deprecated.
    clip
        Raise every probability below ``clip`` to ``clip`` first (see :func:`ilr_model`); by
        default a zero probability is an error that names the rows of ``X`` and of the
        background that have one.
    """
    res, V, class_names = _compositions(
        f, X, background, basis, output_names, clip,
        lambda game: sh.exact_shapley(game, max_features=max_features),
        feature_names=feature_names, allow_nan=allow_nan, max_rows_per_call=max_rows_per_call)
    return ShapleyCompositions.from_ilr(res, res.values, V, class_names)


def adjust_efficiency_compositions(
    ilr_values: npt.ArrayLike,
    ilr_variances: npt.ArrayLike,
    ilr_total: npt.ArrayLike,
    *,
    eps: float = 1e-6,
) -> np.ndarray:
    """Efficiency adjustment of estimated Shapley compositions (paper Appendix E, Eq. (C18)-(C19)).

    Book: :ref:`eq-comp-adjustment`
        (notebooks/02-shapley-compositions/02-definition-and-properties.ipynb).

    With ``s_err = f(x) ⊖ f_0 ⊖ ⊕_i φ̂_i`` and one *scalar* weight per feature,
    ``w_i = v_i / (1 + Σ_j v_j)``, ``v_i = tr Σ_i / (ε max_j tr Σ_j)``, each estimate
    becomes ``φ̂_i ⊕ (w_i ⊙ s_err)``.  In ILR coordinates ``⊕, ⊙`` are ``+, ×``, so this
    is :func:`lib.sampling.adjust_efficiency` with every coordinate of feature ``i``
    given the same "variance" ``tr Σ_i`` (the trace of the covariance of the estimate,
    summed over the ``N-1`` ILR coordinates, invariant under a change of orthonormal
    basis).  Note: ``lib.sampling.sample_shapley(adjust=True)`` on a multi-output model
    weights each coordinate by its own variance instead, which is not Eq. (C18) and
    depends on the basis.

    Parameters
    ----------
    ilr_values, ilr_variances
        ``(n, d, N-1)``: estimates and the variances of the estimates, in ILR coordinates.
    ilr_total
        ``(n, N-1)``: ``ilr(f(x)) - ilr(f_0)``.
    """
    values = np.asarray(ilr_values, dtype=float)
    var = np.asarray(ilr_variances, dtype=float)
    if values.ndim != 3 or var.shape != values.shape:
        raise ValueError(
            f"expected ILR values and variances of one shape (n, d, N-1); got {values.shape} "
            f"and {var.shape}"
        )
    trace = np.broadcast_to(var.sum(axis=2, keepdims=True), values.shape)
    return sampling.adjust_efficiency(values, trace, np.asarray(ilr_total, dtype=float), eps=eps)


@entry_point(model="f", rows=("X", "background"), budget=("max_rows", 60), seed="rng", output=False,
             allow_nan=True)
@renamed_keywords(class_names="output_names")
def sample_shapley_compositions(
    f: Model,
    X: Any,
    background: Any,
    *,
    max_rows: int,
    rng: np.random.Generator,
    method: str = sampling.DEFAULT,
    options: sampling.Options | None = None,
    basis: npt.ArrayLike | None = None,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    clip: float | None = None,
    allow_nan: bool = False,
) -> ShapleyCompositions:
    """Sampled Shapley compositions: :func:`lib.sampling.sample_shapley` on ``ilr ∘ f``.

    Book: :ref:`eq-comp-ilr-shapley`, :ref:`eq-comp-adjustment`
        (notebooks/02-shapley-compositions/02-definition-and-properties.ipynb).

    The budget ``max_rows`` is in model rows per explained row, ``method`` a name of
    :mod:`lib.sampling` and ``options`` its options object, as in :func:`lib.sampling.sample_shapley`.
    Not given, ``method`` is the default estimator, :data:`lib.sampling.registry.DEFAULT`, the book's
    recommended one.  ``method="strata"`` (:mod:`lib.sampling.strata`): each background row's game
    enumerated where that costs no more than walking it, else walked by
    ``method="antithetic"``, antithetic permutation sampling (:mod:`lib.sampling.antithetic`) of the
    ILR coordinates, each walk a sample of every feature's composition.  ``method="uniform"`` and ``"variance"``: the paper's Appendix D,
    Algorithms 1-2 (:mod:`lib.sampling.strumbelj_kononenko`).  One draw of Algorithm 1 is
    ``f(b_1) ⊖ f(b_2)``, in ILR ``ilr f(b_1) - ilr f(b_2)``; the Aitchison sample mean is the
    ordinary mean in ILR.  ``"variance"`` is Algorithm 2 with the correct condition
    (``min_samples`` for every feature first, then the greedy ``argmax_i tr Σ_i/m_i - tr
    Σ_i/(m_i+1)``, Eq. (C17), where ``tr Σ_i`` is the sum of the sample variances of the ``N-1`` ILR
    coordinates).  ``options.adjust=True`` applies :func:`adjust_efficiency_compositions`
    (Eq. (C18)-(C19), ``options.eps`` = the paper's ε) to any method.  ``f``, ``feature_names``,
    ``output_names``, ``clip`` and ``allow_nan`` as in :func:`exact_shapley_compositions`; ``rng`` an int
    seed or a ``numpy.random.Generator``.
    """
    res, V, class_names = _compositions(
        f, X, background, basis, output_names, clip,
        lambda game: sampling.sample_shapley(game, max_rows=max_rows, rng=rng, method=method,
                                       options=_unadjusted(options)),
        feature_names=feature_names, allow_nan=allow_nan)
    values = res.values
    if options is not None and options.adjust:
        assert res.variances is not None
        values = adjust_efficiency_compositions(values, res.variances, res.outputs - res.base_values,
                                                eps=options.eps)
    return ShapleyCompositions.from_ilr(res, values, V, class_names)


def _unadjusted(options: sampling.Options | None) -> sampling.Options | None:
    """The options without ``adjust``: compositions adjust with the trace (Eq. (C18)) afterwards."""
    if options is None or not options.adjust:
        return options
    return replace(options, adjust=False)


# ---------------------------------------------------------------------------
# Summaries (paper §5.3, Appendix C) and the per-class logits of §6
# ---------------------------------------------------------------------------


def norms(compositions: npt.ArrayLike) -> np.ndarray:
    """Aitchison norms of compositions ``(..., N) -> (...)`` (paper §5.3: contribution strength)."""
    return sx.norm(compositions)


def class_projections(compositions: npt.ArrayLike) -> np.ndarray:
    """Projections ``<φ, c^(k)>_a`` on the ``N`` unit class-compositions, ``(..., N) -> (..., N)``.

    Paper §5.3, Appendix B-C (Tables 1 and 3): positive means "in favour of class k".
    """
    phi = sx.check_composition(compositions)
    C = sx.class_compositions(phi.shape[-1])
    return sx.clr(phi) @ sx.clr(C).T


def mixed_basis_projections(ilr_values: npt.ArrayLike, basis: npt.ArrayLike) -> np.ndarray:
    """The "projections on the class-compositions" as the authors' summary function computes them.

    ``ilr_values`` ``(..., N-1)`` are Shapley compositions in the coordinates of ``basis``
    (``(N, N-1)``, e.g. :func:`lib.simplex.sbp_basis` of a bifurcation tree); the result
    ``(..., N)`` is their dot product with the *Gram-Schmidt* coordinates of the unit
    class-compositions (``ShapleyExplainer.summarize`` in ``shapleycomposition.py`` of the
    repository ``shapley-composition/ecai-2024-code-and-exp``: ``class_vect =
    ilr(self.class_compo)``, no basis, against ``self.shapley`` in the explainer's basis).
    In clr terms this is ``<R φ, c^(k)>_a`` with the rotation ``R = V_GS V_Bᵀ``, so it
    equals the projection of the paper's §5.3 and Appendix C, :func:`class_projections`,
    only when ``basis`` is the Gram-Schmidt one.  Used to read the paper's Table 3.
    """
    z = np.asarray(ilr_values, dtype=float)
    if z.ndim == 0 or not np.all(np.isfinite(z)):
        raise ValueError("expected finite ILR coordinates (last axis N-1)")
    n = z.shape[-1] + 1
    sx.check_basis(basis, n)                      # the basis of ilr_values, validated
    U = sx.ilr(sx.class_compositions(n))          # Gram-Schmidt coordinates, as in the authors' code
    return z @ U.T


def from_class_projections(projections: npt.ArrayLike) -> np.ndarray:
    """The composition whose projections on the ``N`` class-compositions are given.

    The ILR images ``u_k = ilr(c^(k))`` of the unit class-compositions are the vertices
    of a regular simplex centred at 0 (``Σ_k u_k = 0``, ``u_k · u_l = -1/(N-1)``), a
    tight frame of ``R^{N-1}``: ``Σ_k (z · u_k) u_k = N/(N-1) z``.  Hence
    ``ilr φ = (N-1)/N Σ_k <φ, c^(k)>_a u_k``, ``(..., N) -> (..., N)``.  Used to read a
    published table of projections (paper Tables 1 and 3) back as compositions.
    """
    proj = np.asarray(projections, dtype=float)
    if proj.ndim == 0 or proj.shape[-1] < 2 or not np.all(np.isfinite(proj)):
        raise ValueError("expected finite projections on N >= 2 class-compositions (last axis)")
    n = proj.shape[-1]
    U = sx.ilr(sx.class_compositions(n))
    return sx.ilr_inv((n - 1) / n * proj @ U)


def cosine_matrix(compositions: npt.ArrayLike) -> np.ndarray:
    """Pairwise cosine similarities of ``d`` compositions, ``(..., d, N) -> (..., d, d)`` (§5.3)."""
    phi = sx.check_composition(compositions)
    if phi.ndim < 2:
        raise ValueError("expected at least two axes: (..., d, N)")
    return sx.cosine(phi[..., :, None, :], phi[..., None, :, :])


def summary_table(
    compositions: npt.ArrayLike,
    feature_names: Sequence[str],
    class_names: Sequence[str],
    order: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The numbers of the paper's Table 1 (§5.3, Appendix C) for one explanation, in long form.

    ``compositions`` is ``(d, N)``, one Shapley composition per feature.  Rows, in the
    paper's layout (features in ``order``, by default as given): the norm of each feature
    (``with`` empty), its projections on the ``N`` class-compositions (``with`` = the class)
    and its cosine with every *earlier* feature of ``order`` (``with`` = that feature).
    Columns ``quantity``, ``feature``, ``with``, ``value``: one row per published number.
    """
    phi = sx.check_composition(compositions)
    features, classes = list(feature_names), list(class_names)
    if phi.ndim != 2 or phi.shape != (len(features), len(classes)):
        raise ValueError(f"expected compositions of shape (d, N) = ({len(features)}, {len(classes)}), got {phi.shape}")
    order = features if order is None else list(order)
    if sorted(order) != sorted(features):
        raise ValueError(f"order must list the features {features} once each, got {order}")
    idx = [features.index(f) for f in order]
    nrm, proj, cos = norms(phi)[idx], class_projections(phi)[idx], cosine_matrix(phi)[np.ix_(idx, idx)]
    rows: list[tuple[str, str, str, float]] = []
    for a, feat in enumerate(order):
        rows.append(("norm", feat, "", float(nrm[a])))
        rows.extend(("projection", feat, c, float(proj[a, k])) for k, c in enumerate(classes))
        rows.extend(("cosine", feat, order[b], float(cos[a, b])) for b in range(a))
    return pd.DataFrame(rows, columns=["quantity", "feature", "with", "value"])


def class_logits(p: npt.ArrayLike) -> np.ndarray:
    """Per-class one-vs-rest logits ``log(p_k / (1 - p_k))`` (paper §6, the "Shapley vector").

    Requires ``0 < p_k < 1``; the parts are *not* closed (the input is taken as given).
    """
    arr = np.asarray(p, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0) or np.any(arr >= 1):
        raise ValueError("per-class logits need probabilities strictly between 0 and 1")
    return np.log(arr) - np.log1p(-arr)


def logistic(z: npt.ArrayLike) -> np.ndarray:
    """Inverse of :func:`class_logits`, part by part: ``1 / (1 + exp(-z))`` (no closure)."""
    arr = np.asarray(z, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError("logits must be finite")
    return 0.5 * (1.0 + np.tanh(0.5 * arr))


# ---------------------------------------------------------------------------
# shap's estimators applied to the ILR coordinates (chapter 2, notebook 06; the
# estimation study itself is compendium.experiments.comp_estimation)
# ---------------------------------------------------------------------------


def _import_shap() -> Any:
    import warnings

    with warnings.catch_warnings():
        # shap imports tqdm.auto, which warns when ipywidgets is absent (no widgets here)
        warnings.filterwarnings("ignore", message="IProgress not found")
        # shap.plots.colors calls matplotlib's soon-deprecated Colormap.set_bad on import
        warnings.filterwarnings("ignore", category=PendingDeprecationWarning)
        import shap
    return shap


def _shap_result(game: Game, values: Any, base: Any, method: str) -> ShapleyResult:
    outputs = game.outputs  # f(x) once more: n rows, counted like any other
    base = np.broadcast_to(np.asarray(base, dtype=float), outputs.shape).copy()
    return ShapleyResult(
        values=np.asarray(values, dtype=float).reshape((game.n, game.d) + outputs.shape[1:]),
        base_values=base,
        outputs=outputs,
        data=game.X,
        feature_names=game.feature_names,
        method=method,
        model_rows=game.model_rows,
    )


def _replicated(game: Game, run: Any, seed: int, replicates: int) -> ShapleyResult:
    """``run(seed)`` once per seed of :func:`lib.validation.replicate_seeds`: the one run, or, from two on,
    their mean with its standard errors (:meth:`lib.result.ShapleyResult.from_replicates`)."""
    runs = [run(s) for s in replicate_seeds(seed, replicates)]
    return runs[0] if len(runs) == 1 else ShapleyResult.from_replicates(runs, model_rows=game.model_rows)


def _coded(game: Game) -> tuple[np.ndarray, np.ndarray, Model]:
    """What shap's explainers are given: ``X`` and the background as codes of their values, and the
    model on the rows the game builds from codes (every value and dtype kept; counted)."""
    Xc, Bc = game.encoded()
    return Xc, Bc, lambda Z: game.call(game.decode(Z))


@entry_point(model="f", rows=("X", "background"), budget=("n_samples", 20), seed="seed", output=False,
             allow_nan=True)
@renamed_keywords(class_names="output_names")
def shap_sampling_compositions(
    f: Model,
    X: Any,
    background: Any,
    *,
    n_samples: int,
    seed: int | np.random.Generator,
    basis: npt.ArrayLike | None = None,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    allow_nan: bool = False,
    replicates: int = 1,
) -> ShapleyCompositions:
    """Shapley compositions estimated by ``shap.SamplingExplainer`` on ``ilr ∘ f``.

    shap's explainer (Štrumbelj & Kononenko's sampling, a variance-driven second round,
    and the efficiency adjustment that Appendix E of the Shapley-composition paper
    adapts) treats each of the ``N-1`` ILR coordinates as a separate output: each
    coordinate gets its own variance estimates and its own adjustment, whereas Eq. (C17)-(C19)
    use the *trace* over coordinates (:func:`sample_shapley_compositions`).

    ``X`` and ``background`` are the checked game's (:class:`lib.games.Game`, as in
    :func:`exact_shapley_compositions`: DataFrames or arrays, columns matched by name); shap is given
    codes of their values and the model the rows the game builds from them, so every value and dtype
    reaches the model as it is.  ``n_samples`` is shap's ``nsamples`` per explained row (each sample
    evaluates the model on 2 rows), at least ``2 d`` (shap gives each feature an even share: with
    fewer, some get none and their values are NaN).  shap draws from numpy's global generator: it is seeded with
    ``seed`` (an int, or a ``numpy.random.Generator``, which gives one:
    :func:`lib.validation.check_seed`) for the call and restored afterwards.  Cost, in model rows: ``m``
    (the mean over the background, once) ``+ n (2 n_samples + 1)`` ``+ n`` (``f(x)`` once more for
    :attr:`ShapleyCompositions.prediction`), the result's ``model_rows``.  shap gives no standard errors:
    ``replicates=R`` (``R >= 2``) runs it ``R`` times with independent seeds and keeps the mean, with its
    standard errors (:func:`_replicated`), at ``R`` times the sampling rows.
    """
    def estimate(game: Game) -> ShapleyResult:
        count = check_budget(n_samples, "n_samples", 2 * game.d, "two samples per feature: with fewer, shap leaves "
                             "some features without one and their values NaN")
        Xc, Bc, model = _coded(game)
        shap = _import_shap()

        def run(state_seed: int) -> ShapleyResult:
            state = np.random.get_state()
            np.random.seed(state_seed)
            try:
                explainer = shap.SamplingExplainer(model, Bc)
                values = explainer.shap_values(Xc, nsamples=count, silent=True)
                base = np.asarray(explainer.expected_value, dtype=float)
            finally:
                np.random.set_state(state)
            return _shap_result(game, values, base, "shap-sampling")

        return _replicated(game, run, check_seed(seed), replicates)

    res, V, class_names = _compositions(f, X, background, basis, output_names, None, estimate,
                                        feature_names=feature_names, allow_nan=allow_nan)
    return ShapleyCompositions.from_ilr(res, res.values, V, class_names)


@entry_point(model="f", rows=("X", "background"), budget=("max_evals", 14), seed="seed", output=False,
             allow_nan=True)
@renamed_keywords(class_names="output_names")
def shap_permutation_compositions(
    f: Model,
    X: Any,
    background: Any,
    *,
    max_evals: int,
    seed: int | np.random.Generator,
    basis: npt.ArrayLike | None = None,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    allow_nan: bool = False,
    replicates: int = 1,
) -> ShapleyCompositions:
    """Shapley compositions estimated by ``shap.PermutationExplainer`` on ``ilr ∘ f``.

    The masker is ``shap.maskers.Independent`` over *all* background rows, so every
    coalition is averaged over the whole background (the interventional game of
    :func:`exact_shapley_compositions`), and random orders are walked forward and
    backward (antithetic).  Each ILR coordinate is a separate output; efficiency holds by
    construction (a telescoping sum).  ``max_evals`` counts *masked* evaluations, each of
    up to ``m`` model rows (shap skips rows whose masked value does not change); it must be
    at least ``2 d + 1``.  shap's global generator is seeded with ``seed`` (an int or a
    ``numpy.random.Generator``) and restored.  One more evaluation of ``f(x)`` (``n`` rows)
    fills :attr:`ShapleyCompositions.prediction`; ``model_rows`` counts them all.  ``X`` and
    ``background`` as in :func:`shap_sampling_compositions` (the checked game's), and ``replicates`` too.
    """
    def estimate(game: Game) -> ShapleyResult:
        evals = check_budget(max_evals, "max_evals", 2 * game.d + 1,
                             "one forward-and-backward permutation, 2 d + 1")
        Xc, Bc, model = _coded(game)
        shap = _import_shap()

        def run(state_seed: int) -> ShapleyResult:
            state = np.random.get_state()
            try:
                masker = shap.maskers.Independent(Bc, max_samples=len(Bc))
                explainer = shap.PermutationExplainer(model, masker, seed=state_seed)
                ex = explainer(Xc, max_evals=evals, silent=True)
            finally:
                np.random.set_state(state)
            return _shap_result(game, ex.values, ex.base_values, "shap-permutation")

        return _replicated(game, run, check_seed(seed), replicates)

    res, V, class_names = _compositions(f, X, background, basis, output_names, None, estimate,
                                        feature_names=feature_names, allow_nan=allow_nan)
    return ShapleyCompositions.from_ilr(res, res.values, V, class_names)
