"""Complete and coalitional influence, their error score, and the attribute groups of §4.

Ferrettini, Aligon & Soulé-Dupuy, *Improving on coalitional prediction explanation*
(ADBIS 2020), called "the coalitional paper" below; book chapter 5.

Games
-----
As in :mod:`lib.shapley`, a coalition is an integer bitmask (bit ``i`` set iff
attribute ``i`` belongs to it) and a game is an array whose **last** axis holds the
``2**d`` coalition values.  The functions here also accept *partial* games: entries
of coalitions that were never evaluated are ``NaN``, and only the coalitions a set
of groups needs (:func:`coalitions_needed`) have to be filled in.

* The **complete influence** (Eq. (F1)-(F3)) is the Shapley value of the game
  ``v(A') = inf_{f,A'}(x) = f(x_{A'}) - f(∅)`` on all ``d`` attributes
  (:func:`complete_influence`).
* The **coalitional influence** (Eq. (F4)) of an attribute ``a_i`` of a group ``g`` is the
  same Shapley sum taken over the subsets of ``g`` only, with the Shapley weights of a
  ``|g|``-player game (Eq. (F2) with ``A = g``).  That is exactly the Shapley value of the
  *restricted game* ``v|_g`` (the subgame on the player set ``g``): ``v|_g(T) = v(T)``
  for ``T ⊆ g``, the attributes outside ``g`` being *absent* (not known), as
  ``inf_{f,g'} = f(x_{g'}) - f(∅)`` in Eq. (F4) says (:func:`restrict_game`,
  :func:`coalitional_influence`).

Two value functions ``f(x_S)`` are provided:

* :func:`interventional_values`: the absent attributes are averaged over background
  rows (book eq. ``eq-found-interventional``);
* :class:`RetrainedGame`: the authors' published code retrains a clone of the model on
  each attribute subset, ``f(x_S) = P_{h_S}(ŷ | x_S)`` with ``f(∅)`` the class prior of
  the training labels and ``ŷ`` the class the full model predicts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from lib.shapley import (
    MAX_EXACT_FEATURES,
    check_inputs,
    coalition_masks,
    coalition_values,
    game_size,
    interventional_game,
    shapley_from_game,
)

__all__ = [
    "ALL_METHODS",
    "GROUP_METHODS",
    "Groups",
    "RetrainedGame",
    "check_groups",
    "class_game",
    "coalitional_influence",
    "coalitional_influence_interventional",
    "coalitions_needed",
    "complete_influence",
    "error_euclidean",
    "error_printed",
    "find_groups",
    "group_summary",
    "interventional_values",
    "model_groups",
    "numeric_matrix",
    "pca_groups",
    "permutation_fidelity",
    "restrict_game",
    "spearman_groups",
    "spearman_matrix",
    "subset_masks",
    "variance_inflation_factors",
    "vif_groups",
]

#: Groups of attributes, each a sorted tuple of attribute indices.
Groups = tuple[tuple[int, ...], ...]


# ---------------------------------------------------------------------------
# Groups and the coalitions they need
# ---------------------------------------------------------------------------


def check_groups(
    groups: Sequence[Sequence[Hashable]],
    features: int | Sequence[Hashable],
    *,
    overlap: bool = False,
    cover: bool = True,
) -> Groups:
    """Validate groups of attributes and return them as sorted tuples of indices.

    Parameters
    ----------
    groups
        Each group is a non-empty sequence of attribute indices ``0 .. d-1`` or, when
        ``features`` is a list of names, of names.
    features
        The number of attributes ``d``, or their names (in column order).
    overlap
        ``False`` (default): the groups must be disjoint (a partition when
        ``cover``).  ``True``: an attribute may belong to several groups (a cover, as
        the methods of §4 produce).
    cover
        Require every attribute to be in some group (Eq. (F4) gives no influence to an
        attribute in no group).

    Raises
    ------
    ValueError
        Empty group, unknown attribute, an attribute twice in one group, overlapping
        groups when ``overlap=False``, an uncovered attribute when ``cover=True``.
    """
    if isinstance(features, (int, np.integer)):
        d = int(features)
        if d < 1:
            raise ValueError(f"need at least one attribute, got d={d}")
        index = {i: i for i in range(d)}
    else:
        names = list(features)
        d = len(names)
        if d == 0 or len(set(names)) != d:
            raise ValueError("feature names must be non-empty and unique")
        index = {name: i for i, name in enumerate(names)}
    if isinstance(groups, (str, bytes)) or len(groups) == 0:
        raise ValueError("need at least one group of attributes")
    out = []
    seen: dict[int, int] = {}
    for k, g in enumerate(groups):
        if isinstance(g, (str, bytes)) or not isinstance(g, Sequence | np.ndarray | set | frozenset):
            raise ValueError(f"group {k} must be a sequence of attributes, got {g!r}")
        members = list(g)
        if len(members) == 0:
            raise ValueError(f"group {k} is empty")
        idx = []
        for a in members:
            key = int(a) if isinstance(a, (np.integer,)) else a
            if isinstance(key, bool) or key not in index:
                raise ValueError(f"group {k}: unknown attribute {a!r} (attributes: {list(index)})")
            idx.append(index[key])
        if len(set(idx)) != len(idx):
            raise ValueError(f"group {k} names an attribute twice: {members!r}")
        for i in idx:
            if i in seen and not overlap:
                raise ValueError(
                    f"attribute {i} is in groups {seen[i]} and {k}: the groups overlap "
                    "(pass overlap=True for a cover)"
                )
            seen.setdefault(i, k)
        out.append(tuple(sorted(idx)))
    if cover:
        missing = sorted(set(range(d)) - set(seen))
        if missing:
            raise ValueError(f"attributes {missing} are in no group")
    return tuple(out)


def subset_masks(group: Sequence[int]) -> np.ndarray:
    """Global bitmask of every subset of ``group``, indexed by its local bitmask.

    Local bit ``k`` stands for attribute ``group[k]``; ``subset_masks(g)[T]`` is the
    bitmask (over all attributes) of the subset ``T`` of ``g``.  Shape ``(2**|g|,)``.
    """
    g = np.asarray(group, dtype=np.int64)
    if g.ndim != 1 or np.any(g < 0) or len(set(g.tolist())) != len(g):
        raise ValueError(f"a group is a sequence of distinct non-negative indices, got {group!r}")
    local = coalition_masks(len(g))
    return (local * (np.int64(1) << g)).sum(axis=1).astype(np.int64)


def coalitions_needed(groups: Sequence[Sequence[int]], d: int, *, overlap: bool = True) -> np.ndarray:
    """Sorted bitmasks of the coalitions Eq. (F4) evaluates for these groups (∅ included).

    Book: :ref:`eq-coal-cost` (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    The union over groups of all subsets of each group.  For a partition into groups
    of sizes ``c_1 .. c_k`` there are ``1 + sum_j (2**c_j - 1)`` of them, at most
    ``2**c * n / c`` when every group has ``c`` attributes (coalitional paper, §3.2),
    against ``2**d`` for the complete influence (§3.1).
    """
    gs = check_groups(groups, d, overlap=overlap, cover=False)
    return np.unique(np.concatenate([subset_masks(g) for g in gs]))


def restrict_game(values: np.typing.ArrayLike, group: Sequence[int]) -> np.ndarray:
    """The subgame ``v|_g`` on the player set ``g``: ``v|_g(T) = v(T)`` for ``T ⊆ g``.

    Book: :ref:`eq-coal-restricted` (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    ``values`` has the ``2**d`` coalitions on its last axis; the result has the
    ``2**|g|`` subsets of ``g`` on its last axis, local bit ``k`` = ``group[k]``.
    The attributes outside ``g`` stay *absent* in every coalition (coalitional paper,
    Eq. (F4): ``inf_{f,g'}(x) = f(x_{g'}) - f(∅)``).
    """
    v = np.asarray(values, dtype=float)
    d = game_size(v.shape[-1])
    check_groups([group], d, cover=False)
    return v[..., subset_masks(group)]


# ---------------------------------------------------------------------------
# Complete (Eq. (F1)-(F3)) and coalitional (Eq. (F4)) influence
# ---------------------------------------------------------------------------


def complete_influence(values: np.typing.ArrayLike) -> np.ndarray:
    """Complete influence of every attribute: coalitional paper, Eq. (F1)-(F3).

    Book: :ref:`eq-coal-complete`, :ref:`eq-coal-weights`, :ref:`eq-coal-base`
        (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    ``I_{a_i}(x) = sum_{A' ⊆ A \\ a_i} p(A', A) (inf_{A' ∪ a_i} - inf_{A'})`` with the
    Shapley weights ``p(A', A) = |A'|! (|A|-|A'|-1)! / |A|!`` (Eq. (F2)) and
    ``inf_{A'} = f(x_{A'}) - f(∅)`` (Eq. (F3)).  ``f(∅)`` cancels in the differences, so
    this is :func:`lib.shapley.shapley_from_game` of the game ``f(x_S)``.

    ``values``: ``(..., 2**d)``, every coalition evaluated (no NaN).  Returns ``(..., d)``.
    """
    v = np.asarray(values, dtype=float)
    return shapley_from_game(v - v[..., :1])


def _check_overlap(overlap: str) -> None:
    if overlap not in ("error", "size-factorial", "mean"):
        raise ValueError(f"overlap must be 'error', 'size-factorial' or 'mean', got {overlap!r}")


def _combine_groups(
    per_group: Iterable[tuple[Sequence[int], np.ndarray]],
    lead: tuple[int, ...],
    d: int,
    overlap: str,
) -> np.ndarray:
    """One influence per attribute from the Shapley values ``phi`` of each group's subgame.

    ``per_group`` yields ``(g, phi)`` with ``phi`` of shape ``lead + (len(g),)``; an attribute
    in several groups gets their average, weighted by ``|g|!`` (``overlap="size-factorial"``)
    or not (``"mean"``); on a partition every attribute has one group and its value is kept.
    """
    total = np.zeros(lead + (d,))
    weight = np.zeros(d)
    for g, phi in per_group:
        w = float(math.factorial(len(g))) if overlap == "size-factorial" else 1.0
        total[..., list(g)] += w * phi
        weight[list(g)] += w
    return total / weight


def coalitional_influence(
    values: np.typing.ArrayLike,
    groups: Sequence[Sequence[int]],
    *,
    overlap: Literal["error", "size-factorial", "mean"] = "error",
) -> np.ndarray:
    """Coalitional influence of every attribute: coalitional paper, Eq. (F4).

    Book: :ref:`eq-coal-coalitional` (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    For an attribute ``a_i`` of a group ``g``:
    ``simpleI_{a_i}(x) = sum_{g' ⊆ g \\ a_i} p(g', g) (inf_{g' ∪ a_i} - inf_{g'})``,
    the Shapley value of ``a_i`` in the restricted game ``v|_g``
    (:func:`restrict_game`).  Only the coalitions of :func:`coalitions_needed` are
    read; the others may be ``NaN``.

    Parameters
    ----------
    values
        ``(..., 2**d)``: ``f(x_S)`` (or ``inf_S``; ``f(∅)`` cancels) per coalition.
    groups
        Attribute indices; every attribute must be in a group.
    overlap
        How an attribute in several groups gets one influence (Eq. (F4) does not say):

        * ``"error"`` (default): the groups must be a partition (``ValueError`` if not);
        * ``"size-factorial"``: the authors' code (``compute_instance_coal_inf``)
          accumulates ``s!(|g|-s-1)! · Δ`` over the subsets of each group and divides
          by the sum of those weights, ``|g|!`` per group: the per-group Shapley values
          averaged with weights ``|g|!``;
        * ``"mean"``: the plain average of the per-group Shapley values.

        On a partition the three agree.

    Returns
    -------
    numpy.ndarray
        ``(..., d)``.
    """
    _check_overlap(overlap)
    v = np.asarray(values, dtype=float)
    if v.ndim == 0:
        raise ValueError("a game needs an array of coalition values, got a scalar")
    d = game_size(v.shape[-1])
    gs = check_groups(groups, d, overlap=(overlap != "error"))

    def per_group() -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
        for g in gs:
            sub = v[..., subset_masks(g)]
            if not np.all(np.isfinite(sub)):
                raise ValueError(f"group {g}: the game has NaN or infinite values on subsets of the group")
            yield g, shapley_from_game(sub - sub[..., :1])

    return _combine_groups(per_group(), v.shape[:-1], d, overlap)


def coalitional_influence_interventional(
    f: Callable[[Any], Any],
    X: Any,
    background: Any,
    groups: Sequence[Sequence[Hashable]],
    *,
    overlap: Literal["error", "size-factorial", "mean"] = "error",
    max_rows_per_call: int = 2**16,
) -> np.ndarray:
    """Coalitional influence (Eq. (F4)) of the interventional game, for any number of attributes.

    Book: :ref:`eq-coal-coalitional` (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    The same numbers as :func:`coalitional_influence` of
    ``interventional_values(f, X, background)``, but the model is asked only for the
    coalitions Eq. (F4) reads, the subsets of each group (:func:`lib.shapley.coalition_values`):
    ``n * m * (1 + sum_g (2**|g| - 1))`` model rows for a partition (coalitional paper,
    §3.2), each distinct coalition once, and no ``2**d`` array, so ``d`` may be in the
    hundreds; a group may have at most :data:`lib.shapley.MAX_EXACT_FEATURES` attributes.
    ``f`` has one output (pick a class first).  Returns ``(n, d)``.
    """
    _check_overlap(overlap)
    Xc, bg = check_inputs(X, background, False)
    d = Xc.shape[1]
    gs = check_groups(groups, d, overlap=(overlap != "error"))
    too_big = [g for g in gs if len(g) > MAX_EXACT_FEATURES]
    if too_big:
        raise ValueError(
            f"a group of {len(too_big[0])} attributes needs 2**{len(too_big[0])} coalitions; groups may "
            f"have at most {MAX_EXACT_FEATURES} attributes (split the group)"
        )
    blocks = []
    for g in gs:
        full = np.zeros((2 ** len(g), d), dtype=bool)
        full[:, list(g)] = coalition_masks(len(g))
        blocks.append(full)
    values = coalition_values(f, Xc, bg, np.vstack(blocks), max_rows_per_call=max_rows_per_call)
    if values.ndim != 2:
        raise ValueError("f must have a single output (pick the explained class first)")
    starts = np.cumsum([0] + [len(block) for block in blocks])
    subs = (values[:, a:b] for a, b in zip(starts[:-1], starts[1:]))
    per_group = ((g, shapley_from_game(sub - sub[:, :1])) for g, sub in zip(gs, subs))
    return _combine_groups(per_group, values.shape[:1], d, overlap)


def class_game(game: np.typing.ArrayLike, classes: np.typing.ArrayLike) -> np.ndarray:
    """Pick one output per row of a multi-output game: ``(n, 2**d, k) -> (n, 2**d)``.

    ``classes[r]`` is the output index explained for row ``r`` (e.g. the predicted
    class, as the coalitional paper explains the prediction).
    """
    g = np.asarray(game, dtype=float)
    c = np.asarray(classes)
    if g.ndim != 3:
        raise ValueError(f"expected a multi-output game (n, 2**d, k), got shape {g.shape}")
    if c.shape != (g.shape[0],) or c.dtype.kind not in "iu" or np.any(c < 0) or np.any(c >= g.shape[2]):
        raise ValueError(f"classes must be {g.shape[0]} output indices in [0, {g.shape[2]})")
    return g[np.arange(g.shape[0]), :, c]


# ---------------------------------------------------------------------------
# Value functions
# ---------------------------------------------------------------------------


def interventional_values(
    f: Callable[[Any], Any],
    X: Any,
    background: Any,
    coalitions: np.typing.ArrayLike | None = None,
    *,
    max_rows_per_call: int = 2**16,
) -> np.ndarray:
    """Interventional game ``v_x(S) = mean_b f(x_S, b_{-S})`` on chosen coalitions only.

    Book: :ref:`eq-found-interventional` (book/foundations.md).

    Book eq. ``eq-found-interventional`` (Štrumbelj & Kononenko, 2014), the value
    function of :func:`lib.shapley.interventional_game`, but evaluated only on
    ``coalitions`` (bitmasks; default: all ``2**d``).  Cost: ``n * len(coalitions) * m``
    model rows.  Returns ``(n, 2**d)`` or ``(n, 2**d, k)`` with ``NaN`` on the
    coalitions not evaluated.
    """
    return interventional_game(f, X, background, coalitions=coalitions,
                               max_rows_per_call=max_rows_per_call)


class RetrainedGame:
    """The authors' value function: one model retrained per attribute subset.

    The coalitional paper's code (``train_models`` / ``explain_groups_w_retrain``)
    clones the classifier and refits it on the training rows restricted to each
    attribute subset ``S``; ``f(x_S) = P_{h_S}(ŷ | x_S)`` where ``ŷ`` is the class the
    full model predicts for ``x``, and ``f(∅)`` is the class prior (frequencies of the
    training labels), so ``inf_S = P_{h_S}(ŷ | x_S) - prior(ŷ)`` and ``inf_∅ = 0``.

    Counting: :attr:`fits` is the number of ``fit`` calls.  Fits are memoised per
    subset, so each subset is fitted once whatever the number of groups or rows that
    need it; ``∅`` needs no fit (the prior) and the full set ``A`` uses ``fitted`` when
    given (no fit).  The complete influence thus costs ``2**d - 2`` fits and a
    partition into groups of sizes ``c_j`` costs ``sum_j (2**c_j - 1)`` fits (minus one
    if a group is all of ``A``).

    Parameters
    ----------
    estimator
        An unfitted scikit-learn classifier (template for ``sklearn.base.clone``).
    X, y
        Training data (array or DataFrame; columns are selected by position).
    fitted
        The model to explain, already fitted on all of ``X``; default: a clone fitted
        here (counted as a fit).
    """

    def __init__(self, estimator: Any, X: Any, y: Any, *, fitted: Any | None = None):
        from sklearn.base import clone

        self._clone = clone
        self.estimator = estimator
        self.X = X if isinstance(X, pd.DataFrame) else np.asarray(X)
        if self.X.ndim != 2 or self.X.shape[0] == 0 or self.X.shape[1] == 0:
            raise ValueError(f"X must be a non-empty 2-D table, got shape {self.X.shape}")
        self.y = np.asarray(y)
        if self.y.shape != (self.X.shape[0],):
            raise ValueError(f"y must have one label per row of X: {self.y.shape} vs {self.X.shape[0]} rows")
        self.d = self.X.shape[1]
        self.fits = 0
        self._models: dict[int, Any] = {}
        full = 2**self.d - 1
        if fitted is not None:
            self._models[full] = fitted
        self.classes = np.asarray(self._model(full).classes_)
        counts = np.array([(self.y == c).sum() for c in self.classes], dtype=float)
        self.prior = counts / counts.sum()

    def _columns(self, X: Any, mask: int) -> Any:
        cols = [i for i in range(self.d) if (mask >> i) & 1]
        return X.iloc[:, cols] if isinstance(X, pd.DataFrame) else np.asarray(X)[:, cols]

    def _model(self, mask: int) -> Any:
        if mask not in self._models:
            model = self._clone(self.estimator).fit(self._columns(self.X, mask), self.y)
            self.fits += 1
            if not np.array_equal(np.asarray(model.classes_), getattr(self, "classes", model.classes_)):
                raise ValueError(f"the model refitted on subset {mask} sees other classes")
            self._models[mask] = model
        return self._models[mask]

    def predicted_class(self, X: Any) -> np.ndarray:
        """Index in :attr:`classes` of the class the full model predicts (``predict``)."""
        pred = np.asarray(self._model(2**self.d - 1).predict(X))
        idx = np.searchsorted(self.classes, pred)
        if np.any(idx >= len(self.classes)) or not np.array_equal(self.classes[idx], pred):
            raise ValueError("the full model predicted a class outside its classes_")
        return idx

    def game(
        self,
        X: Any,
        coalitions: np.typing.ArrayLike | None = None,
        *,
        classes: np.typing.ArrayLike | None = None,
    ) -> np.ndarray:
        """``inf_S(x) = P_{h_S}(c | x_S) - prior(c)`` for each row, ``NaN`` off ``coalitions``.

        Book: :ref:`eq-coal-base` (notebooks/05-coalitional-explanations/01-definitions.ipynb).

        ``classes``: index of the explained class per row; default the predicted class.
        Returns ``(n, 2**d)``.
        """
        Xe = X if isinstance(X, pd.DataFrame) else np.asarray(X)
        if Xe.ndim != 2 or Xe.shape[1] != self.d:
            raise ValueError(f"X must have {self.d} columns, got shape {Xe.shape}")
        n = Xe.shape[0]
        cls = self.predicted_class(Xe) if classes is None else np.asarray(classes)
        if cls.shape != (n,) or cls.dtype.kind not in "iu" or np.any(cls < 0) or np.any(cls >= len(self.classes)):
            raise ValueError(f"classes must be {n} class indices in [0, {len(self.classes)})")
        coal = np.arange(2**self.d) if coalitions is None else np.unique(np.asarray(coalitions, dtype=np.int64))
        if len(coal) == 0 or coal[0] < 0 or coal[-1] >= 2**self.d:
            raise ValueError(f"coalitions must be bitmasks in [0, 2**{self.d})")
        game = np.full((n, 2**self.d), np.nan)
        for S in coal.tolist():
            if S == 0:
                game[:, 0] = 0.0
                continue
            proba = np.asarray(self._model(S).predict_proba(self._columns(Xe, S)), dtype=float)
            game[:, S] = proba[np.arange(n), cls] - self.prior[cls]
        return game


# ---------------------------------------------------------------------------
# Error score (Eq. (F6)-(F7))
# ---------------------------------------------------------------------------


def _pair(a: np.typing.ArrayLike, b: np.typing.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"influence vectors must have the same non-empty shape, got {x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("influence vectors contain NaN or infinite values")
    return x, y


def error_printed(a: np.typing.ArrayLike, b: np.typing.ArrayLike) -> np.ndarray:
    """Eq. (F6) exactly as printed: ``d(i, j) = 1/(2√n) · sum_k sqrt((i_k - j_k)²)``.

    Book: :ref:`eq-coal-error-printed` (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    That is the sum of absolute differences over ``2√n`` (an L1 distance), although
    the paper calls it "the normalised euclidian distance"; see :func:`error_euclidean`.
    Vectorised over leading axes; the last axis holds the ``n`` attributes.
    """
    x, y = _pair(a, b)
    return np.abs(x - y).sum(axis=-1) / (2.0 * math.sqrt(x.shape[-1]))


def error_euclidean(a: np.typing.ArrayLike, b: np.typing.ArrayLike) -> np.ndarray:
    """Eq. (F6) read as the normalised Euclidean distance the text names:
    ``1/(2√n) · sqrt(sum_k (i_k - j_k)²)``.

    Book: :ref:`eq-coal-error-euclidean`
        (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    With influences in ``[-1, 1]`` each difference is at most 2, so this lies in
    ``[0, 1]``; the printed form can reach ``√n``.
    """
    x, y = _pair(a, b)
    return np.sqrt(((x - y) ** 2).sum(axis=-1)) / (2.0 * math.sqrt(x.shape[-1]))


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
            cols.append(s.cat.codes.to_numpy() if isinstance(s.dtype, pd.CategoricalDtype) else s.to_numpy())
        A = np.column_stack(cols).astype(float) if cols else np.empty((len(X), 0))
    else:
        A = np.asarray(X, dtype=float)
    if A.ndim != 2 or A.shape[0] < 3 or A.shape[1] < 1:
        raise ValueError(f"need a 2-D table with at least 3 rows and 1 attribute, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError("the attributes contain NaN or infinite values")
    return A


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


def vif_groups(X: Any, alpha: float, *, reverse: bool = False) -> Groups:
    """VIF (``reverse=False``) and reverse VIF coalition: coalitional paper, Algorithm 3.

    For each attribute ``a``: ``g = {a}``; recompute the VIFs without ``a``; add
    ``a'`` when ``VIF_{-a}(a') < VIF(a') · (0.4 + t)`` (VIF: ``a'`` was collinear with
    ``a``) or, reverse VIF, when ``VIF_{-a}(a') > VIF(a') · (1 - 0.05 t)`` (``a'``
    barely depended on ``a``).

    Reconstruction: the loop runs over ``a' ≠ a`` (``a`` is no longer in the data);
    duplicate groups kept once; uncovered attributes added as singletons.  The authors'
    code (``vif_grouping``) maps the index ``j`` of the reduced data back with
    ``j + 1 if j >= 1 else j``, which is right only for ``a`` = the first attribute;
    here ``a'`` is the attribute itself.  VIFs include an intercept (their
    ``assign(const=1)``).  Since dropping a regressor never raises ``R²``,
    ``VIF_{-a}(a') ≤ VIF(a')`` always.
    """
    t = _check_alpha(alpha)
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
                keep = new > old[rest] * (1 - 0.05 * t) if reverse else new < old[rest] * (0.4 + t)
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
    the keyword options of :func:`model_groups` (``seed``, ``max_rows``).
    """
    if method == "Model":
        if predict is None:
            raise ValueError("the model-based method needs the model: pass predict=model.predict")
        return model_groups(predict, X, alpha, **model_options)
    if method not in GROUP_METHODS:
        raise ValueError(f"unknown grouping method {method!r}; known: {sorted(ALL_METHODS)}")
    if model_options:
        raise ValueError(f"options {sorted(model_options)} only apply to the model-based method")
    return GROUP_METHODS[method](X, alpha)


# ---------------------------------------------------------------------------
# Model-based coalition (§4.1, Algorithm 1)
# ---------------------------------------------------------------------------


def _take_rows(X: Any, columns_rows: list[np.ndarray]) -> Any:
    """Column ``j`` of the result is column ``j`` of ``X`` at rows ``columns_rows[j]``."""
    if isinstance(X, pd.DataFrame):
        return pd.DataFrame(
            {c: X[c].iloc[columns_rows[j]].reset_index(drop=True) for j, c in enumerate(X.columns)},
            columns=X.columns,
        )
    A = np.asarray(X)
    return np.column_stack([A[columns_rows[j], j] for j in range(A.shape[1])])


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
        A partition of the attributes (each attribute in exactly one group).
    labels
        ``predict(X)``, if already known (saves one call).
    seed
        Seed of the permutations (see :func:`_group_permutation`).
    """
    Xv = X if isinstance(X, pd.DataFrame) else np.asarray(X)
    if Xv.ndim != 2 or Xv.shape[0] < 2 or Xv.shape[1] < 1:
        raise ValueError(f"X must be a 2-D table with at least 2 rows, got shape {Xv.shape}")
    d = Xv.shape[1]
    gs = check_groups(groups, d)
    lab = np.asarray(predict(Xv)) if labels is None else np.asarray(labels)
    if lab.shape != (Xv.shape[0],):
        raise ValueError(f"labels must have one entry per row: {lab.shape} vs {Xv.shape[0]} rows")
    columns_rows: list[np.ndarray] = [np.empty(0, np.int64)] * d
    for g in gs:
        perm = _group_permutation(g, lab, seed)
        for i in g:
            columns_rows[i] = perm
    new = np.asarray(predict(_take_rows(Xv, columns_rows)))
    return float(np.mean(new == lab))


def model_groups(
    predict: Callable[[Any], Any],
    X: Any,
    alpha: float,
    *,
    seed: int = 0,
    max_rows: int | None = None,
    trace: list[dict[str, Any]] | None = None,
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
      themselves (at most ``max_rows`` of them, drawn with ``seed``);
    * fidelities are memoised within one call (the algorithm asks for some groupings
      twice).

    The result is a partition of the attributes (groups in the order they are fixed).

    Parameters
    ----------
    predict
        The model's ``predict`` (rows -> labels).
    X
        Rows used to measure fidelities (array or DataFrame with the model's columns).
    alpha
        The threshold ``δ`` in ``(0, 1)`` (the paper uses ``α ∈ (0, 0.5)``).
    seed
        Seed of the row sample and of the permutations.
    max_rows
        Measure fidelities on at most this many rows (a seeded sample).
    trace
        If a list is given, one dict per fidelity evaluated is appended
        (``groups``, ``fidelity``) — for inspection and cost counting.
    """
    delta = _check_alpha(alpha)
    Xv = X if isinstance(X, pd.DataFrame) else np.asarray(X)
    if Xv.ndim != 2 or Xv.shape[0] < 2 or Xv.shape[1] < 1:
        raise ValueError(f"X must be a 2-D table with at least 2 rows, got shape {Xv.shape}")
    if isinstance(Xv, np.ndarray) and Xv.dtype.kind in "fc" and not np.all(np.isfinite(Xv)):
        raise ValueError("X contains NaN or infinite values")
    if max_rows is not None:
        if max_rows < 2:
            raise ValueError(f"max_rows must be at least 2, got {max_rows}")
        if Xv.shape[0] > max_rows:
            keep = np.sort(np.random.default_rng([int(seed), 1]).choice(Xv.shape[0], max_rows, replace=False))
            Xv = Xv.iloc[keep].reset_index(drop=True) if isinstance(Xv, pd.DataFrame) else Xv[keep]
    d = Xv.shape[1]
    labels = np.asarray(predict(Xv))
    memo: dict[frozenset[tuple[int, ...]], float] = {}

    def fid(groups: list[list[int]]) -> float:
        parts = [tuple(sorted(g)) for g in groups if len(g) > 0]
        key = frozenset(parts)
        if key not in memo:
            memo[key] = permutation_fidelity(predict, Xv, parts, labels=labels, seed=seed)
            if trace is not None:
                trace.append({"groups": tuple(sorted(parts)), "fidelity": memo[key]})
        return memo[key]

    sigma: list[tuple[int, ...]] = []
    R: list[int] = list(range(d))
    A: list[int] = []
    threshold = fid([[i] for i in range(d)]) + delta
    while R or A:
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
    return tuple(sigma)


def group_summary(groups: Sequence[Sequence[int]], d: int) -> dict[str, float]:
    """Number of groups, their mean size, and the coalitions Eq. (F4) then evaluates
    (the quantities of the paper's Figures 3-4, and the cost of §3.2).

    Book: :ref:`eq-coal-cost` (notebooks/05-coalitional-explanations/01-definitions.ipynb).
    """
    gs = check_groups(groups, d, overlap=True)
    return {
        "n_groups": len(gs),
        "mean_size": float(np.mean([len(g) for g in gs])),
        "max_size": max(len(g) for g in gs),
        "n_coalitions": len(coalitions_needed(gs, d)),
    }
