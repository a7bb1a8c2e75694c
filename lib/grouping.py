"""The attribute groups of the coalitional paper's §4: six ways to find them.

Ferrettini, Aligon & Soulé-Dupuy, *Improving on coalitional prediction explanation*
(ADBIS 2020), called "the coalitional paper" below; book chapter 5.  The influence the groups
feed (Eq. (F1)-(F4), (F6)-(F7)) is :mod:`lib.coalitional`; this module only finds groups:

* data-driven (:data:`GROUP_METHODS`): PCA (Algorithm 2, :func:`pca_groups`, with a
  canonical basis where eigenvalues tie, :func:`canonical_components`), VIF and reverse VIF
  (Algorithm 3, :func:`vif_groups`, Eq. (F5)), Spearman and reverse Spearman (Algorithm 4,
  :func:`spearman_groups`);
* model-based (Algorithm 1, :func:`model_groups`), from the fidelity of a grouping
  (:func:`permutation_fidelity`).

:func:`find_groups` runs any of the six (:data:`ALL_METHODS`) by the name of the paper's
figures.  Every method returns a cover of the attributes as sorted tuples of indices
(:data:`lib.coalitional.Groups`); the printed algorithms leave details open, and each
docstring's "Reconstruction" says what was chosen and why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from lib.coalitional import Groups, check_groups
from lib.counting import ANNOUNCE_FEATURES, cost_bar
from lib.games import Game, describe_row
from lib.models import renamed_keywords
from lib.validation import check_budget, check_finite, check_seed
from lib.entry_points import entry_point

__all__ = [
    "ALL_METHODS",
    "FoundGroups",
    "GROUP_METHODS",
    "TIE_RTOL",
    "canonical_components",
    "find_groups",
    "model_groups",
    "numeric_matrix",
    "pca_groups",
    "pca_is_determined",
    "permutation_fidelity",
    "spearman_groups",
    "spearman_matrix",
    "tied_components",
    "variance_inflation_factors",
    "vif_groups",
]


# ---------------------------------------------------------------------------
# Group-finding methods (§4)
# ---------------------------------------------------------------------------


def numeric_matrix(X: Any) -> np.ndarray:
    """Attributes as a float matrix for the grouping statistics.

    Categorical DataFrame columns are replaced by their category codes (the order of
    the categories, which for KEEL is the sorted labels): PCA, VIF and Spearman need
    numbers, and the paper does not say how it encodes nominal attributes.
    """
    if isinstance(X, pd.DataFrame):
        cols = []
        for c in X.columns:
            s = X[c]
            if not isinstance(s.dtype, pd.CategoricalDtype):
                _numeric_column(s.to_numpy(), repr(str(c)), s.index)
            cols.append(s.cat.codes.to_numpy() if isinstance(s.dtype, pd.CategoricalDtype) else s.to_numpy())
        A = np.column_stack(cols).astype(float) if cols else np.empty((len(X), 0))
    else:
        raw = np.asarray(X)
        if raw.ndim == 2 and raw.dtype.kind not in "biuf":
            for j in range(raw.shape[1]):
                _numeric_column(raw[:, j], str(j), None)
        A = raw.astype(float)
    if A.ndim != 2 or A.shape[0] < 3 or A.shape[1] < 1:
        raise ValueError(f"need a 2-D table with at least 3 rows and 1 attribute, got shape {A.shape}")
    check_finite(X if isinstance(X, pd.DataFrame) else A, "X", allow_nan=None)
    return A


def _numeric_column(values: np.ndarray, name: str, index: Any) -> None:
    """Refuse a column of labels (strings): the grouping statistics need numbers."""
    for r, v in enumerate(values):
        if isinstance(v, (str, bytes)):
            try:
                float(v)
            except ValueError:
                at = f"row {r}" + (f" (index {index[r]!r})" if index is not None and index[r] != r else "")
                raise ValueError(
                    f"X's column {name} holds labels ({v!r} at {at}): PCA, VIF and Spearman need numbers. Make it "
                    "a pandas Categorical (its codes are used) or encode it (e.g. OrdinalEncoder)"
                ) from None


def _check_alpha(alpha: float) -> float:
    a = float(alpha)
    if not 0.0 < a < 1.0:
        raise ValueError(f"the threshold alpha must lie in (0, 1) (the paper uses (0, 0.5)), got {alpha}")
    return a


def _finish(groups: list[tuple[int, ...]], d: int) -> Groups:
    """Sort, drop duplicate groups (first occurrence kept) and add a singleton for
    every attribute in no group, as the authors' ``check_all_attributs_groups``."""
    out: list[tuple[int, ...]] = []
    for g in groups:
        t = tuple(sorted(set(g)))
        if t and t not in out:
            out.append(t)
    covered = {i for g in out for i in g}
    out.extend((i,) for i in range(d) if i not in covered)
    return tuple(out)


def _pca_matrix(X: Any, scale: bool) -> np.ndarray:
    """The attributes as PCA sees them: centred, and divided by their standard deviations if ``scale``."""
    A = numeric_matrix(X)
    A = A - A.mean(axis=0)
    if scale:
        sd = A.std(axis=0)
        if np.any(sd == 0):
            raise ValueError("cannot scale a constant attribute")
        A = A / sd
    return A


def pca_groups(X: Any, alpha: float, *, scale: bool = False) -> Groups:
    """PCA-based coalition: coalitional paper, Algorithm 2 (§4.2).

    For each principal component, the group of the attributes whose loading is close
    to the largest: ``|α_i| ≥ max_k |α_k| · (1 - t)``.

    Reconstruction (the algorithm compares signed loadings, which makes no sense for a
    component whose sign is arbitrary): absolute loadings, as the authors' code
    (``pca_grouping``); all ``d`` components of the centred data, unscaled unless
    ``scale=True`` (their default); duplicate groups kept once; attributes in no group
    added as singletons.  Where eigenvalues are tied (keel-monk-2, say) the components
    are not unique; the canonical basis of :func:`canonical_components` is used, so the
    groups do not depend on the CPU, and :func:`pca_is_determined` says whether another
    equally valid basis could change them.
    """
    t = _check_alpha(alpha)
    A = _pca_matrix(X, scale)
    _, sv, vt = np.linalg.svd(A, full_matrices=False)
    groups = []
    for comp in np.abs(canonical_components(sv, vt)):
        top = comp.max()
        groups.append(tuple(np.flatnonzero((comp >= top * (1 - t)) | (comp == top)).tolist()))
    return _finish(groups, A.shape[1])


#: Singular values closer than this, relative to the largest, count as tied.
TIE_RTOL = 1e-8


def tied_components(singular_values: np.ndarray, *, rtol: float = TIE_RTOL) -> list[tuple[int, ...]]:
    """Clusters of (numerically) equal singular values, as index tuples of length ≥ 2.

    Within such a cluster the principal directions are not determined by the data: any
    rotation of them is an equally valid SVD, and which one a LAPACK call returns depends
    on the CPU's floating-point kernels.  ``singular_values`` must be sorted decreasingly,
    as ``np.linalg.svd`` returns them.
    """
    s = np.asarray(singular_values, dtype=float)
    if s.ndim != 1:
        raise ValueError(f"singular values must be a 1-D array, got shape {s.shape}")
    if s.size and np.any(np.diff(s) > 0):
        raise ValueError("singular values must be sorted decreasingly")
    tol = rtol * (s[0] if s.size else 0.0)
    clusters: list[tuple[int, ...]] = []
    start = 0
    for i in range(1, s.size + 1):
        if i == s.size or s[i - 1] - s[i] > tol:
            if i - start > 1:
                clusters.append(tuple(range(start, i)))
            start = i
    return clusters


def canonical_components(singular_values: np.ndarray, vt: np.ndarray, *, rtol: float = TIE_RTOL) -> np.ndarray:
    """Principal directions with a canonical basis inside every tied eigenspace.

    Rows of ``vt`` whose singular values are tied (:func:`tied_components`) span an
    eigenspace that the data determine, but not the basis of it.  The basis used instead
    is a function of the eigenspace alone: Gram–Schmidt on the projections ``P e_1,
    P e_2, …`` of the coordinate axes (``P = V Vᵀ``, the orthogonal projector on the
    eigenspace, which is the same for every rotation of ``V``), skipping an axis whose
    projection adds less than ``1e-6`` of a unit vector, each vector signed so that its
    largest-magnitude coordinate is positive.  Untied rows are returned as they are.
    """
    vt = np.array(vt, dtype=float, copy=True)
    s = np.asarray(singular_values, dtype=float)
    if vt.ndim != 2 or vt.shape[0] != s.size:
        raise ValueError(f"vt must have one row per singular value, got {vt.shape} for {s.size} values")
    for cluster in tied_components(s, rtol=rtol):
        V = vt[list(cluster)].T                          # (d, k), orthonormal columns
        P = V @ V.T
        basis: list[np.ndarray] = []
        for j in range(P.shape[0]):
            u = P[:, j].copy()
            for b in basis:
                u -= (b @ u) * b
            norm = float(np.linalg.norm(u))
            if norm > 1e-6:
                u /= norm
                basis.append(u)
            if len(basis) == len(cluster):
                break
        if len(basis) != len(cluster):                    # cannot happen for an orthonormal V
            raise ValueError("could not build a basis of a tied eigenspace")
        for row, u in zip(cluster, basis):
            k = int(np.argmax(np.round(np.abs(u), 12)))
            vt[row] = u if u[k] > 0 else -u
    return vt


def pca_is_determined(X: Any, *, scale: bool = False) -> bool:
    """Whether the principal directions of ``X`` are unique (no tied eigenvalues).

    When they are not, :func:`pca_groups` still returns one well-defined grouping (from
    :func:`canonical_components`), but another basis of the tied eigenspace, just as valid,
    could give other groups: a grouping the data do not determine.
    """
    return not tied_components(np.linalg.svd(_pca_matrix(X, scale), compute_uv=False))


def variance_inflation_factors(X: Any) -> np.ndarray:
    """``VIF(a) = 1 / (1 - R²)``, ``R²`` of the least-squares regression (with
    intercept) of ``a`` on the other attributes: coalitional paper, Eq. (F5).

    A perfectly explained attribute gets ``inf``; with a single attribute, VIF = 1.
    """
    A = numeric_matrix(X)
    n, d = A.shape
    A = A - A.mean(axis=0)
    out = np.ones(d)
    for j in range(d):
        y = A[:, j]
        tss = float(y @ y)
        if tss == 0:
            raise ValueError(f"attribute {j} is constant: its VIF is undefined")
        others = np.delete(A, j, axis=1)
        if others.shape[1] == 0:
            continue
        beta, *_ = np.linalg.lstsq(others, y, rcond=None)
        r = y - others @ beta
        one_minus_r2 = float(r @ r) / tss
        out[j] = np.inf if one_minus_r2 <= 1e-14 else 1.0 / one_minus_r2
    return out


def vif_groups(X: Any, alpha: float, *, reverse: bool = False, reverse_step: float = 0.05) -> Groups:
    """VIF (``reverse=False``) and reverse VIF coalition: coalitional paper, Algorithm 3.

    For each attribute ``a``: ``g = {a}``; recompute the VIFs without ``a``; add
    ``a'`` when ``VIF_{-a}(a') < VIF(a') · (0.4 + t)`` (VIF: ``a'`` was collinear with
    ``a``) or, reverse VIF, when ``VIF_{-a}(a') > VIF(a') · (1 - 0.05 t)`` (``a'``
    barely depended on ``a``). ``reverse_step`` is that ``0.05``, which the paper says
    "preliminary experiments" chose over ``1`` (the plain ``1 - t``); another value tests that choice.

    Reconstruction: the loop runs over ``a' ≠ a`` (``a`` is no longer in the data);
    duplicate groups kept once; uncovered attributes added as singletons.  The authors'
    code (``vif_grouping``) maps the index ``j`` of the reduced data back with
    ``j + 1 if j >= 1 else j`` whatever ``a`` is, which is right only for ``a`` = the second
    attribute (index 1) (notebooks/05-coalitional-explanations/05-authors-code.ipynb runs it);
    here ``a'`` is the attribute itself.  VIFs include an intercept (their
    ``assign(const=1)``).  Since dropping a regressor never raises ``R²``,
    ``VIF_{-a}(a') ≤ VIF(a')`` always.
    """
    t = _check_alpha(alpha)
    if not (isinstance(reverse_step, (int, float)) and 0 < reverse_step <= 1):
        raise ValueError(f"reverse_step must lie in (0, 1], got {reverse_step!r}")
    A = numeric_matrix(X)
    d = A.shape[1]
    old = variance_inflation_factors(A)
    groups = []
    for a in range(d):
        g = [a]
        if d > 1:
            rest = [j for j in range(d) if j != a]
            new = variance_inflation_factors(A[:, rest])
            with np.errstate(invalid="ignore"):
                keep = new > old[rest] * (1 - reverse_step * t) if reverse else new < old[rest] * (0.4 + t)
            g += [rest[k] for k in np.flatnonzero(keep)]
        groups.append(tuple(g))
    return _finish(groups, d)


def spearman_matrix(X: Any) -> np.ndarray:
    """Absolute Spearman correlations of the attributes (``scipy.stats.spearmanr``).

    A constant attribute has no correlation (NaN from scipy); it is set to 0 off the
    diagonal, 1 on it.
    """
    A = numeric_matrix(X)
    d = A.shape[1]
    if d == 1:
        return np.ones((1, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = stats.spearmanr(A).statistic
    rho = np.asarray(rho, dtype=float)
    if rho.ndim == 0:  # scipy returns a scalar for two attributes
        rho = np.array([[1.0, rho], [rho, 1.0]])
    rho = np.abs(rho)
    rho = np.where(np.isfinite(rho), rho, 0.0)
    np.fill_diagonal(rho, 1.0)
    return rho


def spearman_groups(X: Any, alpha: float, *, reverse: bool = False) -> Groups:
    """Spearman and reverse Spearman coalition: coalitional paper, Algorithm 4 (§4.4).

    ``C`` = absolute Spearman correlations; for each attribute ``a`` with
    ``M = max_{a'≠a} C(a,a')`` and ``m = min_{a'≠a} C(a,a')``, the group of ``a`` is
    ``{a}`` plus every ``a' ≠ a`` with ``C(a,a') > M (1 - t)`` if ``M > 0.1``
    (Spearman), or with ``C(a,a') < m + M t`` if ``m < 0.5`` (reverse Spearman).

    Reconstruction: max and min over the row *without* the diagonal (with it,
    ``max = 1`` and the printed test ``max > 0.1`` could never fail), ``a`` always in
    its own group, as the authors' code (``spearman_grouping``); duplicates kept once.
    """
    t = _check_alpha(alpha)
    C = spearman_matrix(X)
    d = C.shape[0]
    groups = []
    for a in range(d):
        g = [a]
        if d > 1:
            rest = np.array([j for j in range(d) if j != a])
            row = C[a, rest]
            top, low = row.max(), row.min()
            if reverse:
                keep = (row < low + top * t) if low < 0.5 else np.zeros(len(rest), bool)
            else:
                keep = (row > top * (1 - t)) if top > 0.1 else np.zeros(len(rest), bool)
            g += rest[keep].tolist()
        groups.append(tuple(g))
    return _finish(groups, d)


#: The grouping methods by the names of the paper's figures: ``name -> f(X, alpha)``.
GROUP_METHODS: dict[str, Callable[[Any, float], Groups]] = {
    "PCA": pca_groups,
    "VIF": lambda X, alpha: vif_groups(X, alpha),
    "RevVIF": lambda X, alpha: vif_groups(X, alpha, reverse=True),
    "Spearman": lambda X, alpha: spearman_groups(X, alpha),
    "RevSpearman": lambda X, alpha: spearman_groups(X, alpha, reverse=True),
}


#: All six methods of §4, in the order of the paper's figures' legends: the five
#: data-driven ones of :data:`GROUP_METHODS` and the model-based one (Algorithm 1).
ALL_METHODS: tuple[str, ...] = ("PCA", "VIF", "RevVIF", "Spearman", "RevSpearman", "Model")


@entry_point(model="predict", rows=("X",), kind="labels", seed="seed", output=False,
             example={"method": "Model", "alpha": 0.1})
def find_groups(
    X: Any,
    method: str,
    alpha: float,
    *,
    predict: Callable[[Any], Any] | None = None,
    **model_options: Any,
) -> Groups:
    """Groups of the §4 method named ``method`` (one of :data:`ALL_METHODS`).

    The data-driven methods (:data:`GROUP_METHODS`) need only ``X``; ``"Model"``
    (Algorithm 1, :func:`model_groups`) also needs the model's ``predict`` and takes
    the keyword options of :func:`model_groups` (``seed``, ``fidelity_rows``, ``progress``).
    Returns the groups as :class:`FoundGroups` (a tuple of groups, and the model rows spent).
    """
    if method == "Model":
        if predict is None:
            raise ValueError("the model-based method needs the model: pass predict=model.predict")
        return model_groups(predict, X, alpha, **model_options)
    if method not in GROUP_METHODS:
        raise ValueError(f"unknown grouping method {method!r}; known: {sorted(ALL_METHODS)}")
    if model_options:
        raise ValueError(f"options {sorted(model_options)} only apply to the model-based method")
    numeric_matrix(X)  # labels, NaN and inf refused with the column, the row and the remedy
    names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None
    return FoundGroups(GROUP_METHODS[method](X, alpha), model_rows=0, feature_names=names)


# ---------------------------------------------------------------------------
# Model-based coalition (§4.1, Algorithm 1)
# ---------------------------------------------------------------------------


class FoundGroups(tuple):  # type: ignore[type-arg]
    """Groups found by a §4 method: a tuple of groups, each a sorted tuple of attribute indices (as
    :data:`lib.coalitional.Groups`), which also records the model rows spent finding them
    (``model_rows``: 0 for the data-driven methods) and the attributes' names (``feature_names``: a
    DataFrame's columns in the order the indices read, else ``None``)."""

    model_rows: int
    feature_names: list[str] | None

    def __new__(cls, groups: Any, model_rows: int = 0, feature_names: list[str] | None = None) -> FoundGroups:
        found = super().__new__(cls, tuple(tuple(g) for g in groups))
        found.model_rows = int(model_rows)
        found.feature_names = None if feature_names is None else [str(c) for c in feature_names]
        return found

    def named(self) -> list[list[str]]:
        """The groups by the attributes' names (``x0, x1, …`` for an array)."""
        names = self.feature_names or [f"x{i}" for i in range(1 + max((i for g in self for i in g), default=-1))]
        return [[names[i] for i in g] for g in self]


def _labels_model(predict: Any) -> Callable[[Any], Any]:
    """The function whose labels the fidelity compares: ``predict`` itself, or a fitted classifier's
    ``predict`` (not its ``predict_proba``: the fidelity compares predicted classes)."""
    if not callable(predict) and callable(getattr(predict, "predict", None)):
        return predict.predict
    if not callable(predict):
        raise ValueError(f"predict must be the model's predict (rows -> class labels), got {type(predict).__name__}")
    return predict


def _game(predict: Any, X: Any) -> Game:
    """The checked game of a grouping call (:class:`lib.games.Game`, no background): ``X``'s columns
    matched by name to the model's, NaN and ±inf refused with the row, the column and the remedy."""
    game = Game(_labels_model(predict), X, None, allow_nan=None)
    if game.n < 2 or game.d < 1:
        raise ValueError(f"X must be a 2-D table with at least 2 rows and 1 attribute, got shape {(game.n, game.d)}: "
                         "give at least 2 rows (the fidelity swaps values between rows)")
    return game


def _predicted(game: Game, index: np.ndarray) -> np.ndarray:
    """The model's labels of the rows ``index`` builds (:meth:`lib.games.Game.rows`), counted: one per
    row, none missing (a missing label would never equal itself and count as a changed prediction)."""
    rows = game.rows(index)
    labels = np.asarray(game.f(rows))
    if labels.shape != (len(index),):
        raise ValueError(f"predict must return one label per row: {len(index)} rows gave shape {labels.shape}; pass "
                         "the model's predict (class labels), not predict_proba")
    missing = np.asarray(pd.isna(labels), dtype=bool)
    if missing.any():
        raise ValueError(f"predict returned a missing label (NaN) on {int(missing.sum())} of the {len(labels)} rows it "
                         f"was given, first on the row {describe_row(rows, int(np.flatnonzero(missing)[0]))}: give "
                         "a model that predicts a class for every row")
    return labels


def _fidelity(game: Game, rows: np.ndarray, groups: Sequence[Sequence[Any]], labels: np.ndarray, seed: int) -> float:
    """:func:`permutation_fidelity` of the game's rows ``rows`` (positions in its ``X``); groups of
    attribute indices, or of a DataFrame's column names."""
    d = game.d
    by_name = game.is_frame and any(not isinstance(a, (int, np.integer)) or isinstance(a, bool)
                                    for g in groups for a in g)
    gs = check_groups(groups, list(game.X.columns) if by_name else d)
    index = np.empty((len(rows), d), dtype=np.int64)
    for g in gs:
        perm = _group_permutation(g, labels, seed)
        for i in g:
            index[:, i] = rows[perm]
    return float(np.mean(_predicted(game, index) == labels))


def _group_permutation(group: tuple[int, ...], labels: np.ndarray, seed: int) -> np.ndarray:
    """The row permutation applied to a group (common random numbers).

    Drawn from a generator seeded by ``(seed, bitmask of the group)``, so the same
    group always receives the same permutation, whatever grouping it is part of: the
    fidelity is a deterministic function of the grouping, and two groupings are
    compared on the same random draws.  A group of two or more attributes is permuted
    *within* each predicted class; a singleton over all rows.
    """
    n = len(labels)
    mask = sum(1 << int(i) for i in group)
    rng = np.random.default_rng([int(seed), mask, len(group) > 1])
    if len(group) == 1:
        return rng.permutation(n)
    perm = np.empty(n, dtype=np.int64)
    for c in np.unique(labels):
        rows = np.flatnonzero(labels == c)
        perm[rows] = rows[rng.permutation(len(rows))]
    return perm


@entry_point(model="predict", rows=("X",), kind="labels", seed="seed", output=False,
             example={"groups": [[0, 1], [2]]}, features=("groups",))
def permutation_fidelity(
    predict: Callable[[Any], Any],
    X: Any,
    groups: Sequence[Sequence[int]],
    *,
    labels: np.typing.ArrayLike | None = None,
    seed: int = 0,
) -> float:
    """Fidelity of a grouping: coalitional paper §4.1 (after Henelius et al., 2014).

    Each group of two or more attributes has its values swapped *together* with those
    of another row that the model assigns to the same class; each singleton is swapped
    with a row drawn completely at random.  The fidelity is the share of rows whose
    predicted class is unchanged: ``fid = mean_r [h(x̃_r) = h(x_r)]``.

    Value function: the model's **predicted class** (``predict``, hard labels) — not
    the class probability of the influence games.  A grouping that keeps together
    every attribute the model combines leaves the predictions unchanged (``fid = 1``
    when one group holds all attributes); breaking interactions lowers it.

    Parameters
    ----------
    predict
        The model's ``predict``: rows -> class labels.
    X
        The rows on which the fidelity is measured (array or DataFrame).
    groups
        A partition of the attributes (each attribute in exactly one group), by index or, for a
        DataFrame ``X``, by column name.
    labels
        ``predict(X)``, if already known (saves one call).
    seed
        Seed of the permutations (see :func:`_group_permutation`).
    """
    game = _game(predict, X)
    rows = np.arange(game.n)
    lab = _predicted(game, rows[:, None].repeat(game.d, axis=1)) if labels is None else np.asarray(labels)
    if lab.shape != (game.n,):
        raise ValueError(f"labels must have one entry per row: {lab.shape} vs {game.n} rows")
    return _fidelity(game, rows, groups, lab, check_seed(seed))


@entry_point(model="predict", rows=("X",), kind="labels", seed="seed", output=False, example={"alpha": 0.1})
@renamed_keywords(max_rows="fidelity_rows")
def model_groups(
    predict: Callable[[Any], Any],
    X: Any,
    alpha: float,
    *,
    seed: int = 0,
    fidelity_rows: int | None = None,
    trace: list[dict[str, Any]] | None = None,
    progress: bool | None = None,
) -> Groups:
    """Model-based coalition: coalitional paper, Algorithm 1 (§4.1), after ASTRID
    (Henelius et al., 2014).

    Book: :ref:`eq-coal-model-threshold`
        (notebooks/05-coalitional-explanations/03-time-and-error.ipynb).

    With ``fid`` = :func:`permutation_fidelity`, ``L(R)`` the singletons of ``R`` and
    ``F(σ)`` the singletons of the groups already fixed, and the threshold
    ``Δ = fid(L([m])) + δ`` (``δ`` = ``alpha``)::

        σ = {}; R = [m]; A = {}
        while R ≠ {} or A ≠ {}:
            if A = {} and fid({R} ∪ F(σ)) < Δ:          # R together is not above Δ
                σ = σ ∪ L(R); R = {}
            else:
                j = argmax_{j∈R} fid({R∖{j}} ∪ {{j}} ∪ {A} ∪ F(σ))
                if |R| = 1 or fid({R∖{j}} ∪ {{j}} ∪ {A} ∪ F(σ)) < Δ:
                    σ = σ ∪ {R}; R = A; A = {}        # R is fixed; A is the next candidate
                else:
                    R = R ∖ {j}; A = A ∪ {j}          # removing j keeps fid ≥ Δ
        return σ

    Reconstruction (the printed algorithm is cut off and the text is short):

    * the second test, printed ``fid({{R∖{j}} ∪ {{j}} ∪ {A} ∪ F(σ))`` with no
      comparison, is ``... < Δ``, as its comment ("if the fidelity drops below Δ")
      and the authors' code (``model_grouping``) say;
    * the input ``δ`` is the paper's threshold α: ``Δ = fid(all singletons) + α``.
      Larger α stops the removals sooner, so groups grow with α (as §4 says of every
      method) — up to ``α = 1 - fid(L([m]))``, where ``Δ = 1`` and any removal that
      changes one prediction is refused (one group of all the attributes the model
      uses); beyond it ``Δ > 1`` cannot be reached and the first test returns all
      singletons;
    * swapping follows the text (§4.1) and the code: a group of two or more attributes
      is swapped together with a row of the same predicted class, a singleton with any
      row; empty groups are dropped; ``j`` ties go to the lowest index;
    * the permutations are common random numbers (:func:`_group_permutation`), so each
      fidelity is a deterministic function of its grouping; the code draws fresh
      random permutations for each evaluation and augments data sets of fewer than
      2500 rows with rows whose attributes are drawn independently — we use the rows
      themselves (at most ``fidelity_rows`` of them, drawn with ``seed``);
    * fidelities are memoised within one call (the algorithm asks for some groupings
      twice).

    The result is a partition of the attributes (groups in the order they are fixed).

    Parameters
    ----------
    predict
        The model's ``predict`` (rows -> labels), or a fitted classifier (its ``predict``).
    X
        Rows used to measure fidelities (array or DataFrame), the checked game's
        (:class:`lib.games.Game`, no background): columns matched by name to the model's, NaN and
        ±inf refused; the swapped rows are built by the game's one builder.
    alpha
        The threshold ``δ`` in ``(0, 1)`` (the paper uses ``α ∈ (0, 0.5)``).
    seed
        Seed of the row sample and of the permutations: an int, or a ``numpy.random.Generator``
        that gives one (:func:`lib.validation.check_seed`).
    fidelity_rows
        Measure fidelities on at most this many rows (a seeded sample).  ``max_rows=``, its old
        name, is deprecated: everywhere else in ``lib`` a ``max_rows`` is a budget of model rows per
        explained row.
    trace
        If a list is given, one dict per fidelity evaluated is appended
        (``groups``, ``fidelity``) — for inspection and cost counting.
    progress
        Say the cost before starting, an estimate with its range (one ``predict`` of ``n`` rows per
        fidelity: at least ``3 n`` model rows, at most ``n (2 + d + d (d + 1) (d + 2) / 6)`` for ``n``
        rows and ``d`` attributes, the most Algorithm 1 can ask: :func:`_most_fidelities`), and show a
        progress bar of the fidelity evaluations (:func:`lib.counting.cost_bar`) whose total comes
        down, as the groups are fixed, to the fidelities asked; ``None`` (default): when ``d`` is
        over :data:`lib.counting.ANNOUNCE_FEATURES`.

    Returns
    -------
    FoundGroups
        The groups, and ``model_rows``: the rows given to ``predict``.
    """
    delta = _check_alpha(alpha)
    game = _game(predict, X)
    seed = check_seed(seed)
    rows = np.arange(game.n)
    if fidelity_rows is not None:
        fidelity_rows = check_budget(fidelity_rows, "fidelity_rows", 2)
        if game.n > fidelity_rows:
            rows = np.sort(np.random.default_rng([seed, 1]).choice(game.n, fidelity_rows, replace=False))
    d = game.d
    most = 1 + _most_fidelities(d)                # the singletons' fidelity, then the rounds
    bar = (cost_bar(f"model-based grouping of {d} attributes on {len(rows)} rows", len(rows) * (1 + most), most,
                    "fidelity", least=len(rows) * 3)
           if (progress if progress is not None else d > ANNOUNCE_FEATURES) else None)
    labels = _predicted(game, rows[:, None].repeat(d, axis=1))
    memo: dict[frozenset[tuple[int, ...]], float] = {}

    def fid(groups: list[list[int]]) -> float:
        parts = [tuple(sorted(g)) for g in groups if len(g) > 0]
        key = frozenset(parts)
        if key not in memo:
            memo[key] = _fidelity(game, rows, parts, labels, seed)
            if bar is not None:
                bar.update(1)
            if trace is not None:
                trace.append({"groups": tuple(sorted(parts)), "fidelity": memo[key]})
        return memo[key]

    sigma: list[tuple[int, ...]] = []
    R: list[int] = list(range(d))
    A: list[int] = []
    threshold = fid([[i] for i in range(d)]) + delta
    while R or A:
        if bar is not None:  # its total: what is done, and the most the rest can ask
            bar.total = bar.n + _most_fidelities(len(R), len(A))
            bar.refresh()
        fixed = [[i] for g in sigma for i in g]
        if not A and fid([R] + fixed) < threshold:
            sigma.extend((i,) for i in R)
            R = []
            continue
        best_j, best_f = R[0], -1.0
        for j in R:
            f = fid([[i for i in R if i != j], [j], A] + fixed)
            if f > best_f:
                best_j, best_f = j, f
        if len(R) == 1 or best_f < threshold:
            sigma.append(tuple(sorted(R)))
            R, A = A, []
        else:
            R = [i for i in R if i != best_j]
            A = A + [best_j]
    if bar is not None:  # the fidelities asked: the bar ends full
        bar.total = bar.n
        bar.close()
    return FoundGroups(sigma, model_rows=game.model_rows, feature_names=game.feature_names)


def _most_fidelities(r: int, a: int = 0) -> int:
    """The most fidelities Algorithm 1 (:func:`model_groups`) can still ask for, with ``|R| = r`` and
    ``|A| = a`` at the top of its loop.  A round that starts with ``A`` empty tests ``R`` together once,
    then asks ``|R|`` fidelities per removal until ``R`` is fixed (at most ``1 + r (r + 1) / 2``), and
    the next round starts from ``A`` (at most ``r - 1`` attributes); a round under way (``A`` not
    empty) asks at most ``r (r + 1) / 2`` more, then the next starts from at most ``a + r - 1``."""
    def chain(k: int) -> int:  # fresh rounds from k attributes, each removing as far as it can
        return sum(1 + j * (j + 1) // 2 for j in range(1, k + 1))
    return chain(r) if a == 0 else r * (r + 1) // 2 + chain(a + r - 1)
