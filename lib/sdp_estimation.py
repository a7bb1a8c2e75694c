"""Same-decision probability estimated from data, for every coalition at once.

Amoukou & Brunel, *Important variables are game-changers* (book chapter 3), Definition 3.1:
``SDP_S(C; x) = P(C(X) = C(x) | X_S = x_S)``.  :mod:`lib.sdp` computes it exactly from a
known joint distribution.  A user without the network only has a sample ``Z_1..Z_m`` of
the features and the classifier's decisions ``C(Z_j)`` on it; this module gives two
estimators from that, so their error against :mod:`lib.sdp` can be measured.

1. :func:`empirical_sdp` — the plug-in estimator on **matching rows**:
   ``hat SDP_S = #{j : Z_j,S = x_S, C(Z_j) = C(x)} / #{j : Z_j,S = x_S}``.
   When no row matches ``x`` on ``S`` the ratio is undefined: the estimate is ``NaN``
   (never a silent number) and ``count`` says how many rows matched (0).
2. :func:`forest_sdp` — a **projected-forest** estimator in the spirit of the authors'
   ACV library (the paper's §2 computes conditional probabilities of the leaves of the
   trees; ACV's random-forest SDP estimator, and the projected forests of Bénard et al.,
   reweight the training rows by leaf co-membership).  Exactly what is computed here:
   for a tree ``t`` and coalition ``S``, *project* the tree on ``S`` by ignoring every split
   on a variable outside ``S`` (``x`` goes both ways there, so it reaches several leaves).
   The projected cell of ``x`` holds the training rows that reach every leaf ``x``
   reaches; for 0/1 features these are the rows that agree with ``x`` on
   ``U_t(S) = S ∩ {variables split on along the paths x follows}``.  So each tree gives
   the matching-rows estimate at the (possibly smaller) coalition ``U_t(S)`` it can
   resolve, and the forest averages them:

   ``hat SDP_S = (1 / |T_S|) sum_{t in T_S} hat SDP^emp_{U_t(S)}``,

   over the trees ``T_S`` whose projected cell is not empty (``NaN`` if none is).  For
   ``S = N`` Definition 3.1 needs no estimate (``X_{-N}`` is empty): the full coalition is
   set to 1.  The forest only defines the *neighbourhoods*; ``C`` can be any classifier
   (the forest itself, or another model).
3. :func:`path_dependent_sdp` — the **path-dependent** (cover) estimator that tree SHAP uses for
   conditional expectations (Lundberg et al., 2020, the reference [4] that Amoukou & Brunel's
   §2.2 improves on): a tree's leaf ``L`` gets the weight
   ``w_L(S) = prod_{nodes on the path to L} (1{x goes that way} if the node splits on S, else
   cover(child) / cover(node))``, and ``hat SDP_S = sum_L w_L(S) 1{C_L = C(x)}`` with ``C_L``
   the tree's decision at the leaf.  The covers are the training rows that reached each node.

Binary (0/1) features only, as in LUCAS.  States and coalitions are bitmasks (bit ``i`` =
feature ``i``), as in :mod:`lib.shapley` and :mod:`lib.sdp`: row ``z`` matches ``x`` on
``S`` iff ``(z XOR x) & S == 0``, so all ``2**d`` counts come from one zeta transform
(:func:`lib.sdp.subset_sums`) over the histogram of disagreement sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from typing import Any

import pandas as pd

from lib.bayesnet import state_index
from lib.games import Game
from lib.models import renamed_keywords
from lib.sdp import check_pi, subset_sums, swing_game, swing_shapley
from lib.games import bitmask_rows
from lib.result import ShapleyResult
from lib.validation import match_columns
from lib.entry_points import entry_point

__all__ = ["EstimatedSDP", "empirical_sdp", "forest_leaf_paths", "forest_sdp", "path_dependent_sdp",
           "swing_explanation"]


@dataclass(frozen=True)
class EstimatedSDP:
    """Estimated SDPs of every coalition, ``(n, 2**d)``, with the data behind each.

    ``sdp[k, S]`` is ``NaN`` where the estimate is undefined (no matching row / empty cell
    in every tree); ``count[k, S]`` is the number of rows used (for :func:`forest_sdp`,
    the mean projected-cell size over the trees with a non-empty cell).
    """

    sdp: np.ndarray
    count: np.ndarray

    @property
    def defined(self) -> np.ndarray:
        """Where the estimate is a number (``count > 0``)."""
        return ~np.isnan(self.sdp)


def _check_rows(a: Any, what: str, d: int | None = None) -> np.ndarray:
    """0/1 rows as their states; a DataFrame's columns named in the errors, a bad cell by row,
    column and remedy."""
    arr = a.to_numpy() if isinstance(a, pd.DataFrame) else np.asarray(a)
    if arr.ndim == 1 and what in ("x", "X"):
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{what} must be a non-empty 2-D array of 0/1 rows, got shape {np.shape(a)}")
    if d is not None and arr.shape[1] != d:
        raise ValueError(f"{what} has {arr.shape[1]} features, the data have {d}")
    try:
        ok = (arr == 0) | (arr == 1)
    except (TypeError, ValueError):
        ok = np.zeros(arr.shape, dtype=bool)
    ok = np.asarray(ok, dtype=bool)
    if not ok.all():
        r, j = (int(v[0]) for v in np.nonzero(~ok))
        col = repr(str(a.columns[j])) if isinstance(a, pd.DataFrame) else str(j)
        raise ValueError(
            f"{what} row {r}, column {col}: {arr[r, j].item() if isinstance(arr[r, j], np.generic) else arr[r, j]!r} is not a binary state (0 or 1). The SDP here is "
            "defined on 0/1 features: binarise the column (e.g. x > threshold) before explaining"
        )
    return state_index(arr.astype(np.int64))


def _by_name(data: Any, x: Any, forest: object | None) -> tuple[Any, Any]:
    """``data`` and ``x`` with their columns matched by name (``lib.validation.match_columns``): to the
    forest's ``feature_names_in_`` when it has them, else ``x``'s to ``data``'s (both DataFrames)."""
    fitted = getattr(forest, "feature_names_in_", None)
    if isinstance(data, pd.DataFrame):
        if fitted is not None:
            data = match_columns(data, list(fitted), "data", "the forest was fitted on")
        if isinstance(x, pd.DataFrame):
            x = match_columns(x, list(data.columns), "x", "data has")
        elif isinstance(x, pd.Series):
            x = match_columns(x.to_frame().T, list(data.columns), "x", "data has")
    return data, x


def _check_decisions(c: np.typing.ArrayLike, n: int, what: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(c))
    if arr.shape != (n,):
        raise ValueError(f"{what} must hold one 0/1 decision per row ({n}), got shape {np.shape(c)}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{what} has NaN entries")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{what} must be 0/1 decisions C(z) = 1{{f(z) >= T}}")
    return arr.astype(bool)


def empirical_sdp(
    data: np.typing.ArrayLike,
    decisions: np.typing.ArrayLike,
    x: np.typing.ArrayLike,
    decision_x: np.typing.ArrayLike,
    *,
    min_count: int = 1,
) -> EstimatedSDP:
    """SDP of every coalition from the rows of ``data`` that match ``x`` on it.

    Book: :ref:`eq-sdp-est-empirical`
        (notebooks/03-same-decision-probability/04-estimated-sdp.ipynb).

    Plug-in estimate of Amoukou & Brunel, Definition 3.1: the share, among the rows
    ``z`` of ``data`` with ``z_S = x_S``, of those with ``C(z) = C(x)``.

    Parameters
    ----------
    data
        ``(m, d)`` 0/1 rows (the user's sample of the features).
    decisions
        ``(m,)`` the classifier's decisions ``C(z)`` on those rows.
    x
        ``(n, d)`` (or ``(d,)``) instances to explain.
    decision_x
        ``(n,)`` (or a scalar) their decisions ``C(x)``.
    min_count
        Coalitions matched by fewer rows get ``NaN`` (default 1: only "no row" is undefined).

    Returns
    -------
    EstimatedSDP
        ``sdp`` and ``count`` of shape ``(n, 2**d)``; ``count[k, S]`` rows match ``x_k`` on ``S``.
    """
    data, x = _by_name(data, x, None)
    sz = _check_rows(data, "data")
    d = np.asarray(data).shape[1]
    c = _check_decisions(decisions, len(sz), "decisions")
    sx = _check_rows(x, "x", d)
    cx = _check_decisions(decision_x, len(sx), "decision_x")
    if not (isinstance(min_count, (int, np.integer)) and min_count >= 1):
        raise ValueError(f"min_count must be an integer >= 1, got {min_count!r}")
    n_states = 2**d
    hist = np.bincount(sz, minlength=n_states).astype(float)
    pos = np.bincount(sz, weights=c.astype(float), minlength=n_states)
    ys = np.arange(n_states, dtype=np.int64)
    z = sx[:, None] ^ ys[None, :]  # the state disagreeing with x_k exactly on y
    den = subset_sums(hist[z])
    num = subset_sums(np.where(cx[:, None], pos[z], hist[z] - pos[z]))
    comp = (n_states - 1) ^ ys  # S -> rows whose disagreement set lies in N \ S
    count, same = den[:, comp], num[:, comp]
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(count >= min_count, same / np.where(count > 0, count, 1.0), np.nan)
    return EstimatedSDP(est, count)


def forest_leaf_paths(forest: object, d: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The leaves of each tree of a fitted scikit-learn tree or forest on 0/1 features.

    Returns, per tree, ``(variables, values)``: two int64 arrays over its leaves, the
    bitmask of the variables split on along the path to the leaf and the bitmask of the
    values the path requires (a split ``z_j <= t`` with ``0 <= t < 1`` sends 0 left, 1 right).
    """
    trees = getattr(forest, "estimators_", None)
    if trees is None:
        trees = [forest]
    trees = [t[0] if isinstance(t, np.ndarray) else t for t in trees]
    out = []
    for est in trees:
        tree = getattr(est, "tree_", None)
        if tree is None:
            raise ValueError("forest must be a fitted scikit-learn tree or tree ensemble")
        if tree.n_features != d:
            raise ValueError(f"the forest was fitted on {tree.n_features} features, the data have {d}")
        left, right = tree.children_left, tree.children_right
        feat, thr = tree.feature, tree.threshold
        var = np.zeros(tree.node_count, dtype=np.int64)
        val = np.zeros(tree.node_count, dtype=np.int64)
        for node in range(tree.node_count):  # parents precede children in sklearn trees
            if left[node] == -1:
                continue
            if not 0.0 <= thr[node] < 1.0:
                raise ValueError(f"split threshold {thr[node]} is not a split of a 0/1 feature")
            bit = np.int64(1) << np.int64(feat[node])
            var[left[node]] = var[right[node]] = var[node] | bit
            val[left[node]] = val[node]
            val[right[node]] = val[node] | bit
        leaves = left == -1
        out.append((var[leaves], val[leaves]))
    return out


def forest_sdp(
    forest: object,
    data: np.typing.ArrayLike,
    decisions: np.typing.ArrayLike,
    x: np.typing.ArrayLike,
    decision_x: np.typing.ArrayLike,
    *,
    min_count: int = 1,
) -> EstimatedSDP:
    """SDP of every coalition from projected-forest cells (see the module docstring).

    Book: :ref:`eq-sdp-est-forest` (notebooks/03-same-decision-probability/04-estimated-sdp.ipynb).

    Amoukou & Brunel, Definition 3.1, estimated in the spirit of their ACV library: each
    tree of ``forest`` is projected on ``S`` (splits on variables outside ``S`` ignored,
    ``x`` sent both ways there); the projected cell of ``x`` holds the rows that reach
    every leaf ``x`` reaches, i.e. the rows that agree with ``x`` on
    ``U_t(S) = S ∩ (variables split on along the paths x follows)``.  The tree's
    estimate is the matching-rows estimate of :func:`empirical_sdp` at ``U_t(S)``; the
    forest averages the trees whose cell is not empty.  ``SDP_N`` is 1 (nothing to draw).

    Parameters are those of :func:`empirical_sdp`, plus ``forest``: a fitted scikit-learn
    decision tree or tree ensemble (``estimators_``) trained on the ``d`` 0/1 features.
    ``count`` is the mean cell size over the trees used.
    """
    data, x = _by_name(data, x, forest)
    emp = empirical_sdp(data, decisions, x, decision_x, min_count=min_count)
    d = np.asarray(data).shape[1]
    sx = state_index(np.atleast_2d(np.asarray(x)))
    paths = forest_leaf_paths(forest, d)
    n_states, full = 2**d, 2**d - 1
    coalitions = np.arange(n_states, dtype=np.int64)
    total = np.zeros((len(sx), n_states))
    total_count = np.zeros((len(sx), n_states))
    n_trees = np.zeros((len(sx), n_states))
    rows = np.arange(len(sx))[:, None]
    for var, val in paths:
        d_x = (sx[:, None] ^ val[None, :]) & var[None, :]  # (n, leaves): conditions x violates
        # g[k, A] = OR of the split variables of the leaves whose violated set is A
        g = np.zeros((len(sx), n_states), dtype=np.int64)
        np.bitwise_or.at(g, (np.repeat(rows, len(var), axis=1), d_x), np.broadcast_to(var, d_x.shape))
        reach = _subset_or(g, d)  # reach[k, T] = OR over leaves with violated set ⊆ T
        used = coalitions[None, :] & reach[:, full ^ coalitions]  # U_t(S): leaves reachable under S
        est = np.take_along_axis(emp.sdp, used, axis=1)
        cnt = np.take_along_axis(emp.count, used, axis=1)
        ok = ~np.isnan(est)
        total[ok] += est[ok]
        total_count[ok] += cnt[ok]
        n_trees[ok] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(n_trees > 0, total / np.maximum(n_trees, 1), np.nan)
        count = np.where(n_trees > 0, total_count / np.maximum(n_trees, 1), 0.0)
    out[:, full] = 1.0  # Definition 3.1: nothing left to draw once every feature is known
    return EstimatedSDP(out, count)


def _subset_or(marks: np.ndarray, d: int) -> np.ndarray:
    """``out[..., T] = OR_{A ⊆ T} marks[..., A]`` (bitwise, over the last axis)."""
    out = marks.copy()
    lead = out.shape[:-1]
    for i in range(d):
        view = out.reshape(lead + (2 ** (d - i - 1), 2, 2**i))
        view[..., 1, :] |= view[..., 0, :]
    return out


def path_dependent_sdp(tree: object, x: np.typing.ArrayLike, decision_x: np.typing.ArrayLike) -> np.ndarray:
    """SDP of every coalition by the path-dependent (cover) estimator of a fitted decision tree.

    Book: :ref:`eq-sdp-acv-path` (notebooks/03-same-decision-probability/06-acv.ipynb).

    Amoukou & Brunel, Definition 3.1, estimated as tree SHAP estimates conditional expectations
    (Lundberg et al., 2020, "From local explanations to global understanding with explainable AI
    for trees", the algorithm of reference [4] of the paper's §2.2): at a node splitting on a
    variable of ``S``, ``x`` follows its own branch; at a node splitting on a variable outside
    ``S``, it goes both ways, weighted by the share of the node's training rows (its cover) that
    went each way.  The estimate is the total weight of the leaves where the tree's decision
    (the class of largest leaf value, as ``predict``) equals ``C(x)``.  The covers stand for
    ``P(X_j | X_{path})`` of the training data, not for ``P(. | X_S = x_S)``, so the estimate ignores
    the dependence between the variables of ``S`` and the others.

    Parameters
    ----------
    tree
        A fitted scikit-learn ``DecisionTreeClassifier`` on ``d`` 0/1 features (splits ``z_j <= t``
        with ``0 <= t < 1``), with the classes 0 and 1.
    x
        ``(n, d)`` (or ``(d,)``) 0/1 instances.
    decision_x
        ``(n,)`` (or a scalar) their decisions ``C(x)`` in {0, 1}.

    Returns
    -------
    numpy.ndarray
        ``(n, 2**d)``: the estimate of every coalition (bitmask ``S``) for every instance.
    """
    t = getattr(tree, "tree_", None)
    if t is None or getattr(tree, "estimators_", None) is not None:
        raise ValueError("tree must be one fitted scikit-learn decision tree")
    classes = np.asarray(getattr(tree, "classes_", []))
    if classes.tolist() != [0, 1]:
        raise ValueError(f"the tree must predict the classes 0 and 1, got {classes.tolist()}")
    d = int(t.n_features)
    fitted = getattr(tree, "feature_names_in_", None)
    if fitted is not None and isinstance(x, pd.DataFrame):
        x = match_columns(x, list(fitted), "x", "the tree was fitted on")
    sx = _check_rows(x, "x", d)
    cx = _check_decisions(decision_x, len(sx), "decision_x")
    n_states = 2**d
    coalitions = np.arange(n_states, dtype=np.int64)
    xbits = bitmask_rows(sx, d)                                        # (n, d)
    left, right, feat, thr = t.children_left, t.children_right, t.feature, t.threshold
    cover = t.weighted_n_node_samples
    leaf_decision = classes[np.argmax(t.value[:, 0, :], axis=1)]
    out = np.zeros((len(sx), n_states))
    stack = [(0, np.ones((len(sx), n_states)))]                          # node, weight of reaching it
    while stack:
        node, weight = stack.pop()
        if left[node] == -1:
            out += np.where((leaf_decision[node] == cx)[:, None], weight, 0.0)
            continue
        if not 0.0 <= thr[node] < 1.0:
            raise ValueError(f"split threshold {thr[node]} is not a split of a 0/1 feature")
        j = int(feat[node])
        in_s = ((coalitions >> j) & 1).astype(bool)[None, :]           # (1, 2**d)
        for child, value in ((left[node], 0), (right[node], 1)):
            follows = (xbits[:, j] == value)[:, None]                  # (n, 1)
            factor = np.where(in_s, follows.astype(float), cover[child] / cover[node])
            stack.append((child, weight * factor))
    return out


def _decisions(p: np.ndarray, threshold: float, what: str) -> np.ndarray:
    """``C(z) = 1{p(z) >= T}`` for the model's probabilities ``p`` of the explained class on the rows of ``what``."""
    if np.any((p < 0) | (p > 1)):
        r = int(np.flatnonzero((p < 0) | (p > 1))[0])
        raise ValueError(f"the model must give a probability in [0, 1] to each row of {what}; row {r} gets {p[r]:g}: "
                         "explain a class's probability (a classifier's predict_proba, or a function returning it)")
    return (p >= threshold).astype(int)


@entry_point(model="model", rows=("X", "data"), domain="binary")
@renamed_keywords(positive="output")
def swing_explanation(
    model: Any,
    X: Any,
    data: Any,
    *,
    pi: float = 0.9,
    threshold: float = 0.5,
    output: Any = None,
    estimator: str = "empirical",
    forest: object | None = None,
    min_count: int = 1,
) -> ShapleyResult:
    """Swing Shapley values of a classifier's decisions, the SDP estimated from a sample ``data``.

    Book: :ref:`eq-sdp-swing-game`
        (notebooks/03-same-decision-probability/03-swing-shapley-figure-1.ipynb);
        :ref:`eq-sdp-est-empirical`, :ref:`eq-sdp-est-forest`
        (notebooks/03-same-decision-probability/04-estimated-sdp.ipynb).

    Amoukou & Brunel, Definitions 3.1-3.2, for any model of ``d`` 0/1 features: the decision
    ``C(z) = 1{p(z) >= threshold}``, ``p`` the model's probability of the class ``output`` (a label of
    ``classes_`` or a column index, :func:`lib.models.choose_output`; ``positive=``, its old name, is
    deprecated) (default the positive class: the second of a binary classifier's two, a callable's
    ``(r,)`` probabilities or column 1 of ``(r, 2)``), on the rows of ``data`` and of ``X``, which are
    the checked game's rows and background (:class:`lib.games.Game`: columns matched by name, a
    Series one row; then their 0/1 states checked); the SDP of every
    coalition by :func:`empirical_sdp` (``estimator="empirical"``) or :func:`forest_sdp`
    (``"forest"``, with ``forest``), ``SDP_N = 1`` (Definition 3.1: nothing left to draw); then
    :func:`lib.sdp.swing_shapley` at level ``pi``.

    Returns a :class:`lib.result.ShapleyResult`: ``values`` ``(n, d)``, ``base_values`` the
    swing game's ``v(∅) = 1{SDP_∅ >= pi}``, ``outputs`` ``v(N) = 1`` (efficiency holds),
    ``model_rows`` the ``n + m`` rows the decisions took.  A
    coalition no row of ``data`` matches (undefined SDP) raises a ``ValueError`` naming the row
    of ``X`` and the remedy.
    """
    pi = check_pi(pi)
    if estimator not in ("empirical", "forest"):
        raise ValueError(f"estimator must be 'empirical' or 'forest', got {estimator!r}")
    if (estimator == "forest") != (forest is not None):
        raise ValueError("estimator='forest' needs forest= (a fitted scikit-learn tree ensemble), and only it")
    game = Game(model, X, data, output=output, output_default="positive", allow_nan=None, names=("X", "data"))
    Xs, data_s, names = game.X, game.background, game.feature_names
    _check_rows(data_s, "data")  # 0/1 states, after the game's checks
    _check_rows(Xs, "X", game.d)
    c_data = _decisions(game.background_outputs, threshold, "data")
    c_x = _decisions(game.outputs, threshold, "X")
    if estimator == "empirical":
        est = empirical_sdp(data_s, c_data, Xs, c_x, min_count=min_count)
    else:
        fitted = getattr(forest, "feature_names_in_", None)
        if fitted is not None and game.is_frame and list(fitted) != list(Xs.columns):
            Xs, data_s = match_columns(Xs, list(fitted), "X", "the forest was fitted on"), data_s[list(fitted)]
            names = [str(c) for c in Xs.columns]
        est = forest_sdp(forest, data_s, c_data, Xs, c_x, min_count=min_count)
    sdp = est.sdp.copy()
    sdp[:, -1] = 1.0
    swing = swing_game(np.nan_to_num(sdp, nan=0.0), pi)
    return ShapleyResult(
        values=swing_shapley(sdp, pi, feature_names=names), base_values=swing[:, 0], outputs=swing[:, -1],
        data=Xs, feature_names=names, output_names=[f"SDP >= {pi:g}"], method=f"swing-shapley-{estimator}",
        model_rows=game.model_rows,
    )
