"""Complete and coalitional influence and their error score (the groups of §4: :mod:`lib.grouping`).

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

from lib.formula import coalition_masks, game_size, shapley_from_game
from lib.games import MAX_EXACT_FEATURES, Game, interventional_game
from lib.models import ClassifierFunction, as_model
from lib.result import ShapleyResult

__all__ = [
    "Groups",
    "RetrainedGame",
    "check_groups",
    "class_game",
    "coalitional_explanation",
    "coalitional_influence",
    "coalitional_influence_interventional",
    "coalitions_needed",
    "complete_influence",
    "error_euclidean",
    "error_printed",
    "group_summary",
    "interventional_values",
    "restrict_game",
    "subset_masks",
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
            named = missing if isinstance(features, (int, np.integer)) else [names[i] for i in missing]
            raise ValueError(f"attributes {named} are in no group: Eq. (F4) gives an attribute influence only "
                             "inside its group, so every attribute needs one (a group of its own at least)")
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
    this is :func:`lib.formula.shapley_from_game` of the game ``f(x_S)``.

    ``values``: ``(..., 2**d)``, every coalition evaluated (no NaN).  Returns ``(..., d)``.
    """
    v = np.asarray(values, dtype=float)
    return shapley_from_game(v - v[..., :1])


def _check_overlap(overlap: str) -> None:
    if overlap not in ("error", "size-factorial", "mean"):
        raise ValueError(f"overlap must be 'error', 'size-factorial' or 'mean', got {overlap!r}")


def _influence_groups(groups: Sequence[Sequence[Hashable]], d: int, names: Sequence[Hashable] | None,
                      overlap: str) -> Groups:
    """The groups of an influence call as indices: :func:`check_groups` on attribute indices, or on
    ``names`` when the groups name the attributes; overlapping groups refused for
    ``overlap="error"`` with the options that accept them."""
    _check_overlap(overlap)
    by_index = not isinstance(groups, (str, bytes)) and all(
        not isinstance(g, (str, bytes)) and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool)
                                                for a in g)
        for g in groups
    )
    features: int | Sequence[Hashable] = d if (by_index or names is None) else list(names)
    if names is not None and len(names) != d:
        raise ValueError(f"{len(names)} feature names for {d} attributes")
    gs = check_groups(groups, features, overlap=True)
    if overlap == "error":
        seen: dict[int, int] = {}
        for k, g in enumerate(gs):
            for i in g:
                if i in seen:
                    label = repr(names[i]) if names is not None else str(i)
                    raise ValueError(
                        f"attribute {label} is in groups {seen[i]} and {k}: the groups overlap, and Eq. (F4) "
                        "then gives it one influence per group. Pass overlap='size-factorial' (the authors' "
                        "code: the groups' values averaged with weights |g|!) or overlap='mean' (their plain "
                        "average) to combine them"
                    )
                seen[i] = k
    return gs


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
    groups: Sequence[Sequence[Hashable]],
    *,
    overlap: Literal["error", "size-factorial", "mean"] = "error",
    feature_names: Sequence[Hashable] | None = None,
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
        Attribute indices, or names of ``feature_names``; every attribute must be in a group.
    overlap
        How an attribute in several groups gets one influence (Eq. (F4) does not say):

        * ``"error"`` (default): the groups must be a partition (``ValueError`` if not);
        * ``"size-factorial"``: the authors' code (``compute_instance_coal_inf``)
          accumulates ``s!(|g|-s-1)! · Δ`` over the subsets of each group and divides
          by the sum of those weights, ``|g|!`` per group: the per-group Shapley values
          averaged with weights ``|g|!``;
        * ``"mean"``: the plain average of the per-group Shapley values.

        On a partition the three agree.
    feature_names
        The attributes' names (in column order), when ``groups`` name them.

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
    gs = _influence_groups(groups, d, feature_names, overlap)

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
    coalitions Eq. (F4) reads, the subsets of each group (:meth:`lib.games.Game.values`):
    ``n * m * (1 + sum_g (2**|g| - 1))`` model rows for a partition (coalitional paper,
    §3.2), each distinct coalition once, and no ``2**d`` array, so ``d`` may be in the
    hundreds; a group may have at most :data:`lib.games.MAX_EXACT_FEATURES` attributes.
    ``f`` has one output (pick a class first).  ``groups`` hold attribute indices, or column
    names of a DataFrame ``X``.  Returns ``(n, d)``; :func:`coalitional_explanation` returns the
    same numbers as a result object, at ``n`` more model rows (``f(x)``).
    """
    game = Game(f, X, background, max_rows_per_call=max_rows_per_call)
    return _interventional_influence(game, groups, overlap)[0]


def _interventional_influence(game: Game, groups: Sequence[Sequence[Hashable]],
                              overlap: str) -> tuple[np.ndarray, np.ndarray]:
    """The influences ``(n, d)`` and ``v(∅)`` ``(n,)`` of a game (see
    :func:`coalitional_influence_interventional`): each group's subsets, each distinct coalition once."""
    d = game.d
    gs = _influence_groups(groups, d, list(game.X.columns) if game.is_frame else None, overlap)
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
    values = game.values(np.vstack(blocks))
    if values.ndim != 2:
        raise ValueError("f must have a single output: pick the explained class first (output=)")
    starts = np.cumsum([0] + [len(block) for block in blocks])
    subs = (values[:, a:b] for a, b in zip(starts[:-1], starts[1:]))
    per_group = ((g, shapley_from_game(sub - sub[:, :1])) for g, sub in zip(gs, subs))
    return _combine_groups(per_group, values.shape[:1], d, overlap), values[:, 0]


def coalitional_explanation(
    model: Any,
    X: Any,
    background: Any,
    groups: Sequence[Sequence[Hashable]],
    *,
    output: int | str | None = None,
    overlap: Literal["error", "size-factorial", "mean"] = "error",
    feature_names: Sequence[str] | None = None,
    max_rows_per_call: int = 2**16,
) -> ShapleyResult:
    """Coalitional influence (Eq. (F4)) of a model's output, as a result object.

    Book: :ref:`eq-coal-coalitional` (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    :func:`coalitional_influence_interventional` (the interventional game, each group's subsets
    only), returned as a :class:`lib.result.ShapleyResult`: ``values`` ``(n, d)`` the
    influences, ``base_values`` ``v(∅) = mean_b f(b)`` (one of the coalitions Eq. (F4) reads),
    ``outputs`` ``f(x)`` (``n`` more model rows).  Unlike Shapley values, the influences need not add up to ``f(x) - v(∅)``
    (``efficiency_gap()`` shows by how much): each group shares only what its own attributes
    achieve with the others absent.

    ``model`` is a fitted classifier or a function of the rows (:func:`lib.models.as_model`);
    a classifier's output is the probability of the class ``output`` (a label of ``classes_`` or
    a column index, :func:`lib.models.output_index`; required then), a function must have one
    output (or ``output`` picks one).  ``groups`` name attributes by index or, for a DataFrame
    ``X``, by column.
    """
    f = as_model(model)
    if output is None and isinstance(f, ClassifierFunction):
        raise ValueError(f"say which class's probability to explain: output= one of {f.output_names}")
    game = Game(f, X, background, output=output, feature_names=feature_names, max_rows_per_call=max_rows_per_call)
    values, base = _interventional_influence(game, groups, overlap)
    return ShapleyResult(
        values=values, base_values=base, outputs=game.outputs, data=game.X,
        feature_names=game.feature_names, output_names=game.output_names if output is not None else None,
        method=f"coalitional-influence-{overlap}",
    )


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
    function of :func:`lib.games.interventional_game`, but evaluated only on
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
