"""KernelSHAP against the exact Shapley values of a naive Bayes (Lemaire et al., §5.3, Table 3).

Lemaire, Clérot & Boullé compare their analytic Shapley values (Eq. (L10), a game on the
*log-odds*) with ``shap.KernelExplainer`` run on the classifier's *probability* output
``P(Y_1 | X)``: for 1000 random rows, with ``N_k`` background ("knowledge table") rows,
they take as global importance of a variable the mean of its absolute local values over
the explained rows, and report the Pearson and Kendall (``scipy.stats.kendalltau``,
τ-b) correlations between the two vectors of global importances (Lemaire et al., §5.3,
Table 3; Figure 3 draws them for TwoNorm).

This module holds that protocol as functions:

* :func:`choose_rows` — the explained rows and the background rows (seeded);
* :func:`naive_bayes_output` — the model as a black box on *part indices*: probability
  of the positive class (Eq. (L1)) and/or log-odds (Eq. (L2));
* :func:`kernel_shap` — ``shap.KernelExplainer`` run knowingly (no L1 feature selection,
  no silent background cap, seeded, identity link, multi-output shapes);
* :func:`background_shapley_values` — Eq. (L10) with the expectation taken over the
  background rows instead of the training frequencies: the exact interventional Shapley
  value of the log-odds for the background KernelSHAP sees;
* :func:`global_importance`, :func:`normalised`, :func:`correlations`,
  :func:`local_errors`;
* :func:`compendium.experiments.nb_table3_kernelshap.table3_protocol` (not here: the experiment's home) —
  all of it for one data set, returning a ``Table3Run``.

Only the model's selected variables are explained
-------------------------------------------------
Khiops' selective naive Bayes uses ``d`` of the data set's variables; the others have
weight zero and do not enter the model's output at all. For the game of any output of
the model they are *null players*: ``v(S ∪ {j}) = v(S)`` for every ``S``, so their
Shapley value is exactly 0, for Eq. (L10) as for the probability game
(:func:`expand_to_inputs` puts those zeros back). KernelSHAP run on the raw inputs would
still spend samples on them and return small non-zero estimates, and a pair of
variables both worth 0 would add ties to the rank correlation; so, as Khiops' own
Shapley values do, we explain the ``d`` selected variables only, by handing KernelSHAP
the model as a function of the ``d`` part indices (a raw value maps to one part, so
replacing a raw value by a background row's value is replacing its part index by that
row's part index: the game is unchanged).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import Any, Iterator, Literal

import numpy as np
from scipy.stats import kendalltau, pearsonr

from .models import renamed_keywords
from .naive_bayes import NaiveBayesTables, class_log_ratios, log_odds_terms
from .ranks import tie_grid
from .result import ShapleyResult
from .games import as_game
from .validation import check_budget, check_seed, replicate_seeds
from .entry_points import entry_point

__all__ = [
    "OUTPUTS",
    "background_shapley_values",
    "choose_rows",
    "correlations",
    "expand_to_inputs",
    "global_importance",
    "kernel_shap",
    "local_errors",
    "naive_bayes_output",
    "normalised",
]

#: The outputs :func:`naive_bayes_output` can give: ``P(Y_1 | x)`` (Eq. (L1), what the paper
#: hands to KernelSHAP) and ``log P(Y_1 | x) / P(Y_0 | x)`` (Eq. (L2), Eq. (L10)'s value function).
OUTPUTS = ("proba", "log-odds")

Output = Literal["proba", "log-odds"]


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


def choose_rows(
    n_rows: int, n_explain: int, n_background: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The explained rows and the background ("knowledge table") rows of Table 3.

    Lemaire et al., §5.3, Table 3: the Shapley values are computed on 1000 randomly chosen
    rows, with ``N_k`` rows as KernelSHAP's background. Each set is drawn without
    replacement, independently of the other (a row may be in both, as when ``N_k = N``);
    asking for at least ``n_rows`` rows gives all of them. Indices are sorted.

    Returns
    -------
    explain, background
        Integer index arrays of lengths ``min(n_explain, n_rows)`` and
        ``min(n_background, n_rows)``.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. np.random.default_rng(0)")
    for name, v in (("n_rows", n_rows), ("n_explain", n_explain), ("n_background", n_background)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")

    def draw(k: int) -> np.ndarray:
        if k >= n_rows:
            return np.arange(n_rows)
        return np.sort(rng.choice(n_rows, size=k, replace=False))

    explain = draw(int(n_explain))
    background = draw(int(n_background))
    return explain, background


# ---------------------------------------------------------------------------
# The model as a black box on part indices
# ---------------------------------------------------------------------------


def _additive_sum_numpy(codes: np.ndarray, tables: list[np.ndarray]) -> np.ndarray:
    out = np.zeros(codes.shape[0])
    for j, t in enumerate(tables):
        out += t[codes[:, j]]
    return out


try:  # numba comes with shap (its own kernels use it); a plain numpy loop otherwise
    import numba

    @numba.njit(cache=False, nogil=True)
    def _additive_sum_numba(codes: np.ndarray, flat: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        n, d = codes.shape
        out = np.empty(n)
        for i in range(n):
            s = 0.0
            for j in range(d):
                s += flat[offsets[j] + codes[i, j]]
            out[i] = s
        return out

except ImportError:  # pragma: no cover - numba is a dependency of shap
    _additive_sum_numba = None


class _NaiveBayesOutput:
    """Callable: ``(r, d)`` part indices -> ``(r,)`` or ``(r, k)`` outputs."""

    def __init__(self, bias: float, terms: list[np.ndarray], n_parts: list[int], outputs: tuple[str, ...],
                 use_numba: bool):
        self.bias = bias
        self.terms = terms
        self.n_parts = np.array(n_parts)
        self.outputs = outputs
        self.flat = np.concatenate(terms) if terms else np.zeros(0)
        self.offsets = np.concatenate([[0], np.cumsum(n_parts)[:-1]]).astype(np.int64) if terms else np.zeros(0, np.int64)
        self.use_numba = use_numba and _additive_sum_numba is not None

    def codes(self, Z: Any) -> np.ndarray:
        arr = np.asarray(Z)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != len(self.terms):
            raise ValueError(f"expected part indices of shape (r, {len(self.terms)}), got {arr.shape}")
        if arr.dtype.kind == "f":
            if not np.all(np.isfinite(arr)):
                raise ValueError("part indices must be finite")
            ints = np.rint(arr)
            if np.any(ints != arr):
                raise ValueError("part indices must be whole numbers")
            arr = ints.astype(np.int64)
        elif arr.dtype.kind not in "iu":
            raise ValueError(f"part indices must be integers, got dtype {arr.dtype}")
        if arr.size and (arr.min() < 0 or np.any(arr.max(axis=0) >= self.n_parts)):
            raise ValueError("part indices out of range")
        return arr

    def log_odds(self, Z: Any) -> np.ndarray:
        codes = self.codes(Z)
        if self.use_numba:
            s = _additive_sum_numba(np.ascontiguousarray(codes), self.flat, self.offsets)
        else:
            s = _additive_sum_numpy(codes, self.terms)
        return self.bias + s

    def __call__(self, Z: Any) -> np.ndarray:
        lo = self.log_odds(Z)
        cols = []
        for o in self.outputs:
            # P(Y_1 | x) = 1 / (1 + exp(-LR)) for two classes (Eq. (L1) divided through by its numerator)
            cols.append(1.0 / (1.0 + np.exp(-lo)) if o == "proba" else lo)
        return cols[0] if len(cols) == 1 else np.column_stack(cols)


@renamed_keywords(positive="output")
def naive_bayes_output(
    tables: NaiveBayesTables,
    output: Any,
    outputs: Output | Sequence[Output] = "proba",
    *,
    use_numba: bool = True,
) -> Callable[[Any], np.ndarray]:
    """A two-class weighted naive Bayes as a black-box function of part indices.

    The returned callable maps an ``(r, d)`` array of part indices (integers, or floats
    holding whole numbers, as shap passes them) to

    * ``"proba"``: ``P(Y_1 | x)`` of Lemaire et al., Eq. (L1) — the output the paper hands to
      KernelSHAP (§5.3);
    * ``"log-odds"``: ``log P(Y_1 | x) / P(Y_0 | x) = log P(Y_1)/P(Y_0) + Σ_i w_i λ_i(x_i)``,
      Eq. (L2) — the value function of Eq. (L10);

    shape ``(r,)`` for one output, ``(r, k)`` for a sequence of ``k`` outputs (in that
    order). With two classes Eq. (L1) is the logistic function of Eq. (L2), so both come from one
    table look-up per variable (vectorised; with numba, which shap brings, a compiled
    loop — the same sums, as the tests check).

    Khiops' ``predict_proba`` adds a final Laplace correction
    (:func:`lib.khiops_nb.output_laplace`), an increasing affine map ``p -> (p + a)/(1 + b)``
    of Eq. (L1): it scales every Shapley value of the probability game by ``1/(1 + b)``
    (``1 - 7e-4`` on crx) and leaves the correlations of Table 3 unchanged, so we explain
    Eq. (L1) itself.
    """
    if len(tables.classes) != 2:
        raise ValueError(
            f"Table 3's outputs are those of a two-class model; this one has {len(tables.classes)} classes"
        )
    outs = (outputs,) if isinstance(outputs, str) else tuple(outputs)
    if not outs or any(o not in OUTPUTS for o in outs):
        raise ValueError(f"outputs must be among {OUTPUTS}, got {outputs!r}")
    bias, ratios = class_log_ratios(tables, output)
    terms = [w * r for w, r in zip(tables.weights, ratios)]
    return _NaiveBayesOutput(bias, terms, tables.n_parts, outs, use_numba)


# ---------------------------------------------------------------------------
# KernelSHAP, run knowingly
# ---------------------------------------------------------------------------


@contextmanager
def _seeded_global_numpy(seed: int) -> Iterator[None]:
    """shap's KernelExplainer samples coalitions with numpy's *global* generator
    (``np.random.choice``, ``np.random.permutation``): seed it for the call, then put
    the caller's state back."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


@contextmanager
def _quiet_shap_logger() -> Iterator[None]:
    """KernelExplainer logs a warning for any background of more than 100 rows; Table 3
    uses up to 1000 on purpose."""
    logger = logging.getLogger("shap")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


@entry_point(model="f", rows=("X", "background"), budget=("nsamples", 10), seed="seed", allow_nan=True)
def kernel_shap(
    f: Callable[[Any], Any],
    X: Any,
    background: Any,
    *,
    seed: int | np.random.Generator,
    nsamples: int | Literal["auto"] = "auto",
    l1_reg: bool | str | float = False,
    link: Literal["identity", "logit"] = "identity",
    progress: bool = False,
    output: Any = None,
    allow_nan: bool = False,
    replicates: int = 1,
) -> ShapleyResult:
    """KernelSHAP estimates (Lundberg & Lee, 2017) of the Shapley values of ``f``, as
    Lemaire et al. use them in §5.3 (Table 3), with shap's pitfalls handled:

    Book: :ref:`eq-nb-ks-regression` (notebooks/01-naive-bayes/03-kernelshap.ipynb).

    * ``l1_reg=False`` by default: shap's default (``"num_features(10)"`` since 0.47)
      keeps at most 10 features and gives the others exactly 0 — unfair with ``d > 10``
      variables (TwoNorm 20, Spam ~30);
    * the whole ``background`` is used: we pass a plain array (KernelExplainer keeps every
      row; shap's *maskers*, used by ``shap.Explainer``, would silently keep 100) and check
      that shap holds all of it;
    * ``link="identity"`` by default: ``link="logit"`` explains ``logit(E_b[p])``, not
      ``E_b[logit p]`` — another game, not Eq. (L10)'s (see the chapter's notebook);
    * seeded: shap draws coalitions from numpy's *global* generator, which is seeded with
      ``seed`` for this call and restored afterwards (an int, or a ``numpy.random.Generator``,
      which gives one: :func:`lib.validation.check_seed`);
    * ``nsamples="auto"`` is shap's ``2 d + 2048``; when it reaches ``2**d - 2`` every
      coalition is enumerated and the estimate is the exact Shapley value of the game
      with this background;
    * multi-output ``f`` (``(r, k)``): values ``(n, d, k)``, shap's current shape;
    * ``f`` (a fitted classifier or a function of the rows), ``X`` and ``background`` are the
      checked game's (:class:`lib.games.Game`, as every explainer of ``lib``: DataFrames or
      arrays, columns matched by name, one dtype per column holding both, NaN and ±inf refused
      unless ``allow_nan``; ``output=`` picks a class); shap is given codes of the values, equal
      where the values are, and the model the rows the game builds from them;
    * standard errors: shap's KernelExplainer gives none.  ``replicates=R`` (``R >= 2``) runs it ``R``
      times with independent seeds (:func:`lib.validation.replicate_seeds`; the first is ``seed``, so
      ``replicates=1``, the default, is the plain call) and returns the runs' mean with its standard
      error and ``R - 1`` degrees of freedom (:meth:`lib.result.ShapleyResult.from_replicates`:
      ``result.interval()`` is Student's t interval), at ``R`` times the model rows.

    Returns
    -------
    ShapleyResult
        ``values`` ``(n, d)`` or ``(n, d, k)``; ``base_values`` shap's ``expected_value``
        (the mean output over the background), ``outputs`` ``f(X)``; ``model_rows`` the rows
        the model was given.
    """
    import shap  # imported lazily: importing shap is slow

    game = as_game(f, X, background, "kernel_shap", output=output, allow_nan=allow_nan)
    state_seed = check_seed(seed)
    if nsamples != "auto":
        nsamples = check_budget(nsamples, "nsamples", 2)
    if link not in ("identity", "logit"):
        raise ValueError(f"link must be 'identity' or 'logit', got {link!r}")
    seeds = replicate_seeds(state_seed, replicates)
    Xc, Bc = game.encoded()
    runs = []
    for run_seed in seeds:
        with _quiet_shap_logger(), _seeded_global_numpy(run_seed):
            explainer = shap.KernelExplainer(lambda Z: game.call(game.decode(Z)), Bc, link=link)
            if explainer.data.data.shape[0] != Bc.shape[0]:  # pragma: no cover - shap's behaviour
                raise RuntimeError("shap did not keep the whole background")
            values = np.asarray(explainer.shap_values(Xc, nsamples=nsamples, l1_reg=l1_reg, silent=not progress))
        outputs = game.outputs
        base = np.broadcast_to(np.asarray(explainer.expected_value, dtype=float), outputs.shape).copy()
        runs.append(ShapleyResult(values=values.reshape((game.n, game.d) + outputs.shape[1:]), base_values=base,
                                  outputs=outputs, data=game.X, feature_names=game.feature_names,
                                  output_names=game.output_names, method=f"kernelshap-nsamples-{nsamples}",
                                  model_rows=game.model_rows))
    if len(runs) == 1:
        return runs[0]
    return ShapleyResult.from_replicates(runs, model_rows=game.model_rows)


# ---------------------------------------------------------------------------
# Exact values for a given background, and the comparison
# ---------------------------------------------------------------------------


@renamed_keywords(positive="output")
def background_shapley_values(
    tables: NaiveBayesTables,
    parts: np.typing.ArrayLike,
    background_parts: np.typing.ArrayLike,
    output: Any,
) -> tuple[np.ndarray, float]:
    """Eq. (L10) with the expectation over the background rows (Lemaire et al., Eq. (L10); §5.3).

    Book: :ref:`eq-nb-ks-linear` (notebooks/01-naive-bayes/03-kernelshap.ipynb).

    ``φ_m = w_m (λ_m(x_m) − mean_b λ_m(b_m))``: Eq. (L10) with the empirical distribution of
    the background rows in place of ``P(X_m)``. Because the log-odds is additive
    (Eq. (L2)), this is the exact interventional Shapley value of the log-odds game that
    KernelSHAP estimates with that background; with the training rows as background it
    is Eq. (L10) itself (:func:`lib.naive_bayes.shapley_values`).

    Returns ``values`` ``(n, d)`` and the base value ``mean_b LR(b)``.
    """
    bias, terms_x = log_odds_terms(tables, parts, output)
    _, terms_b = log_odds_terms(tables, background_parts, output)
    if terms_b.shape[0] == 0:
        raise ValueError("background_parts has no rows")
    mean_b = terms_b.mean(axis=0)
    return terms_x - mean_b, float(bias + mean_b.sum())


def _check_values(values: np.typing.ArrayLike, name: str = "values") -> np.ndarray:
    v = np.asarray(values, dtype=float)
    if v.ndim not in (2, 3):
        raise ValueError(f"{name} must be (n, d) or (n, d, k), got shape {v.shape}")
    if v.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} has NaN or infinite entries")
    return v


def global_importance(values: np.typing.ArrayLike) -> np.ndarray:
    """Global Shapley importance: the mean absolute local value of each variable over the
    explained rows (Lemaire et al., §5.3, Table 3 and Figure 3).

    ``values`` ``(n, d)`` -> ``(d,)``; ``(n, d, k)`` -> ``(d, k)``.
    """
    return np.abs(_check_values(values)).mean(axis=0)


def normalised(importance: np.typing.ArrayLike) -> np.ndarray:
    """Global importances divided by their sum (the "normalized global Shapley values"
    of Lemaire et al., Figure 3), so that two methods on different scales — log-odds and
    probability — can be drawn together."""
    g = np.asarray(importance, dtype=float)
    if g.ndim != 1 or g.size == 0:
        raise ValueError(f"importance must be a non-empty vector, got shape {g.shape}")
    if not np.all(np.isfinite(g)) or np.any(g < 0):
        raise ValueError("importances must be finite and non-negative")
    total = g.sum()
    if total <= 0:
        raise ValueError("all importances are zero: nothing to normalise")
    return g / total


def correlations(a: np.typing.ArrayLike, b: np.typing.ArrayLike, *, tie_rtol: float = 1e-10) -> dict[str, float]:
    """Pearson (``scipy.stats.pearsonr``) and Kendall τ-b (``scipy.stats.kendalltau``, its
    default) correlations between two vectors of global importances (Lemaire et al., §5.3,
    Table 3; τ-b as in their footnote 6).

    Ranks need ties to be ties: importances equal in exact arithmetic can differ in their
    last bits (tic-tac-toe's four corner squares, equal by symmetry, differ by ``1e-16``),
    and τ-b would then rank them by rounding noise. For Kendall, each vector is therefore
    put on a grid of step ``tie_rtol`` times its largest absolute value first
    (:func:`lib.ranks.tie_grid`: values closer than that are tied); Pearson uses the values
    as they are.
    """
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"expected two vectors of the same length, got shapes {x.shape} and {y.shape}")
    if x.size < 2:
        raise ValueError("a correlation needs at least two variables")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("importances have NaN or infinite entries")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        raise ValueError("a constant vector has no correlation")
    if not 0 <= tie_rtol < 1:
        raise ValueError("tie_rtol must be in [0, 1)")
    # τ-b is a ratio of integer counts: round away float noise (0.9999999999999998)
    return {"pearson": float(pearsonr(x, y).statistic),
            "kendall": round(float(kendalltau(tie_grid(x, tie_rtol), tie_grid(y, tie_rtol)).statistic), 12)}


def local_errors(estimate: np.typing.ArrayLike, exact: np.typing.ArrayLike) -> dict[str, float]:
    """How far estimated local Shapley values are from exact ones: the largest absolute
    error, the root-mean-square error, and the RMS error relative to the RMS of the exact
    values (all over every row and variable)."""
    e = _check_values(estimate, "estimate")
    x = _check_values(exact, "exact")
    if e.shape != x.shape:
        raise ValueError(f"estimate {e.shape} and exact {x.shape} differ in shape")
    err = e - x
    rms = float(np.sqrt(np.mean(err**2)))
    scale = float(np.sqrt(np.mean(x**2)))
    return {"max_abs": float(np.abs(err).max()), "rms": rms, "relative_rms": rms / scale if scale > 0 else math.inf}


def expand_to_inputs(values: np.typing.ArrayLike, used: Sequence[str], inputs: Sequence[str]) -> np.ndarray:
    """Local values of the model's ``used`` variables, placed among all ``inputs``, with
    exactly 0 for the inputs the model does not use (null players: the model's output does
    not depend on them, so neither does any coalition's value)."""
    v = _check_values(values)
    used, inputs = list(used), list(inputs)
    if v.shape[1] != len(used):
        raise ValueError(f"values have {v.shape[1]} columns for {len(used)} used variables")
    missing = [u for u in used if u not in inputs]
    if missing or len(set(used)) != len(used):
        raise ValueError(f"used variables must be distinct inputs; not inputs: {missing}")
    out = np.zeros((v.shape[0], len(inputs)) + v.shape[2:])
    out[:, [inputs.index(u) for u in used]] = v
    return out
