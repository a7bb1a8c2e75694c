"""Same-decision probability (SDP), the swing game and Swing Shapley values, exactly.

Amoukou & Brunel, *Important variables are game-changers* (book chapter 3):

* Definition 3.1 — for a probabilistic predictor ``f`` with values in ``[0, 1]`` and its
  classifier ``C(x) = 1{f(x) >= T}``, the SDP of a coalition ``S`` at ``x`` is

  ``SDP_S(C; x) = P( C(x_S, X_{-S}) = C(x) | X_S = x_S )``,

  the probability that the decision stays the same when only ``x_S`` is known and the
  other features follow their conditional distribution given ``X_S = x_S``.
* Definition 3.2, Eq. (A3.1) — the swing game ``v(S) = 1{SDP_S >= pi}``; its Shapley values
  (Eq. (A2.2) with ``v`` in place of ``f_S``) are the *Swing Shapley values*.
* §3.1 — a coalition ``S`` not containing ``i`` is a *swing* for ``i`` if ``S`` is
  losing and ``S ∪ {i}`` winning, a *reverse swing* if ``S`` is winning and
  ``S ∪ {i}`` losing.  Each Swing Shapley value is therefore the Shapley-weighted
  number of swings minus the Shapley-weighted number of reverse swings (the paper's
  Figure 1, right, "additive decomposition of the Swing-SV").

* §2.1, Eq. (A2.1) — the ordinary (observational) value function the paper criticises,
  ``v(S) = f_S(x_S) = E[f(X) | X_S = x_S]`` (:func:`conditional_game`), and beside it the
  interventional (marginal) one ``v(S) = E_{X_{-S} ~ P(X_{-S})}[f(x_S, X_{-S})]``
  (:func:`marginal_game`); their Shapley values (:func:`ordinary_shapley`,
  :func:`network_shapley`), for the probability ``f`` or the decision ``1{f >= T}``.

Everything here is exact for binary features whose joint distribution ``p`` is known
(e.g. from :mod:`lib.bayesnet`): a function of the features is a table over the ``2**d``
states, and all ``2**d`` coalitions are handled at once.

Conventions
-----------
States and coalitions are both bitmasks over the ``d`` features (bit ``i`` = feature
``i``), as in :mod:`lib.shapley`.  For a state ``z`` and instance ``x``, ``z`` agrees
with ``x`` on ``S`` iff ``(z XOR x) & S == 0``, i.e. iff the disagreement set
``y = z XOR x`` lies in the complement of ``S``.  Hence every conditional expectation
given ``X_S = x_S`` is a ratio of two *subset sums* over ``y ⊆ N \\ S``, and all
``2**d`` of them come from one fast zeta transform (``d * 2**d`` additions) — the
vectorised sum over all completions ``X_{-S}`` of every coalition.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lib import formula
from lib.bayesnet import BinaryBayesNet, state_index
from lib.result import ShapleyResult
from lib.validation import is_number

__all__ = [
    "SwingDecomposition",
    "check_pi",
    "check_sdp",
    "coalition_mask",
    "coalition_names",
    "conditional_game",
    "decision_table",
    "marginal_game",
    "minimal_sufficient_coalitions",
    "network_sdp",
    "network_shapley",
    "ordinary_shapley",
    "same_decision_probability",
    "subset_sums",
    "swing_decomposition",
    "swing_game",
    "swing_shapley",
]

#: Tolerance when checking that a distribution sums to one.
_SUM_TOL = 1e-9


# ---------------------------------------------------------------------------
# Coalitions by name
# ---------------------------------------------------------------------------


def coalition_mask(features: Sequence[str], members: Iterable[str]) -> int:
    """Bitmask of the coalition ``members`` among ``features``; ``ValueError`` for unknown names."""
    features = list(features)
    members = list(members)
    unknown = [m for m in members if m not in features]
    if unknown:
        raise ValueError(f"unknown variables {unknown}; the features are {features}")
    mask = 0
    for m in members:
        mask |= 1 << features.index(m)
    return mask


def coalition_names(features: Sequence[str], mask: int) -> tuple[str, ...]:
    """Names of the features in coalition ``mask`` (in feature order)."""
    d = len(features)
    if not 0 <= int(mask) < 2**d:
        raise ValueError(f"coalition {mask} is not a subset of {d} features")
    return tuple(f for i, f in enumerate(features) if (int(mask) >> i) & 1)


# ---------------------------------------------------------------------------
# Conditional expectations for all coalitions at once
# ---------------------------------------------------------------------------


def subset_sums(values: np.typing.ArrayLike) -> np.ndarray:
    """Zeta transform over the last axis: ``out[..., T] = sum_{U ⊆ T} values[..., U]``.

    Book: :ref:`eq-sdp-zeta`
        (notebooks/03-same-decision-probability/02-same-decision-probability.ipynb).

    The last axis must have length ``2**d``.  ``d`` passes of vectorised additions.
    """
    out = np.array(values, dtype=float, copy=True)
    d = formula.game_size(out.shape[-1])
    lead = out.shape[:-1]
    for i in range(d):
        view = out.reshape(lead + (2 ** (d - i - 1), 2, 2**i))
        view[..., 1, :] += view[..., 0, :]
    return out


def _check_distribution(p: np.typing.ArrayLike) -> tuple[np.ndarray, int]:
    p = np.asarray(p, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"the distribution must be a 1-D table over 2**d states, got shape {p.shape}")
    d = formula.game_size(p.shape[0])
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("the distribution must hold finite non-negative probabilities")
    if abs(p.sum() - 1.0) > _SUM_TOL:
        raise ValueError(f"the distribution must sum to 1, got {p.sum()!r}")
    return p, d


def _check_instances(x: np.typing.ArrayLike, d: int) -> np.ndarray:
    """Instances given as 0/1 rows ``(n, d)`` (or one row ``(d,)``) -> integer states ``(n,)``."""
    arr = np.asarray(x)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != d:
        raise ValueError(f"instances must be 0/1 rows with {d} features, got shape {np.shape(x)}")
    return state_index(arr)


def conditional_game(
    g: np.typing.ArrayLike, p: np.typing.ArrayLike, x: np.typing.ArrayLike
) -> np.ndarray:
    """``E[g(X) | X_S = x_S]`` for every coalition ``S`` and instance ``x``: ``(n, 2**d)``.

    Book: :ref:`eq-sdp-observational`
        (notebooks/03-same-decision-probability/03-swing-shapley-figure-1.ipynb).

    With ``g = f`` this is the observational (conditional) value function of the
    paper's Eq. (A2.1), ``f_S(x_S) = E[f(X) | X_S = x_S]``; with ``g`` the indicator of
    "same decision as at ``x``" it is the SDP of Definition 3.1.

    Parameters
    ----------
    g
        ``(2**d,)`` — one function of the state, shared by all instances — or
        ``(n, 2**d)``, one function per instance.
    p
        ``(2**d,)``, the joint distribution of the ``d`` binary features.
    x
        The instances: 0/1 rows ``(n, d)`` (or one row ``(d,)``).

    Raises
    ------
    ValueError
        Bad shapes, ``p`` not a distribution, non-binary instances, or a coalition
        ``S`` with ``P(X_S = x_S) = 0`` (its conditional is undefined).
    """
    p, d = _check_distribution(p)
    return _conditional_game(g, p, _check_instances(x, d), d)


def _conditional_game(g: np.typing.ArrayLike, p: np.ndarray, sx: np.ndarray, d: int) -> np.ndarray:
    g = np.asarray(g, dtype=float)
    if g.shape not in ((2**d,), (len(sx), 2**d)):
        raise ValueError(f"g must have shape ({2**d},) or ({len(sx)}, {2**d}), got {g.shape}")
    if not np.all(np.isfinite(g)):
        raise ValueError("g has NaN or infinite values")
    full = 2**d - 1
    ys = np.arange(2**d, dtype=np.int64)
    z = sx[:, None] ^ ys[None, :]  # the state that disagrees with x exactly on y
    pz = p[z]
    gz = g[z] if g.ndim == 1 else np.take_along_axis(g, z, axis=1)
    num = subset_sums(pz * gz)
    den = subset_sums(pz)
    comp = full ^ ys  # the complement of each coalition S = ys
    den_s = den[:, comp]
    if np.any(den_s <= 0):
        raise _unseen_error(den_s <= 0, d)
    return num[:, comp] / den_s


def _members(mask: int, d: int, names: Sequence[str] | None = None) -> list[int] | list[str]:
    members = [i for i in range(d) if (int(mask) >> i) & 1]
    return [str(names[i]) for i in members] if names is not None else members


def _coalitions(bad: np.ndarray, smallest: int, d: int, names: Sequence[str] | None = None) -> str:
    """``"3 coalitions, the smallest the features [0, 2]"`` (or one coalition, named; by the
    features' names when given)."""
    if len(bad) == 1:
        return f"the coalition of the features {_members(smallest, d, names)}"
    return f"{len(bad)} coalitions, the smallest the features {_members(smallest, d, names)}"


def _unseen_error(zero: np.ndarray, d: int) -> ValueError:
    """``zero[k, S]``: ``P(X_S = x_S) = 0`` for row ``k`` of ``x`` and coalition ``S``."""
    rows = np.flatnonzero(zero.any(axis=1))
    k = int(rows[0])
    bad = np.flatnonzero(zero[k])
    smallest = int(bad[np.argmin([bin(int(S)).count("1") for S in bad])])
    others = f" (and rows {rows[1:6].tolist()}{' …' if len(rows) > 6 else ''})" if len(rows) > 1 else ""
    return ValueError(
        f"row {k} of x{others}: P(X_S = x_S) = 0 for {_coalitions(bad, smallest, d)}: this instance's values there never occur under p, so the conditional "
        "distribution given them is undefined. Smooth p (give every state a little probability, e.g. "
        "(counts + 1) / (n + 2**d) for an empirical p), or explain rows that occur under p"
    )


def same_decision_probability(
    f: np.typing.ArrayLike,
    p: np.typing.ArrayLike,
    x: np.typing.ArrayLike,
    threshold: float = 0.5,
) -> np.ndarray:
    """Exact SDP of every coalition (Amoukou & Brunel, Definition 3.1): ``(n, 2**d)``.

    Book: :ref:`eq-sdp-definition`, :ref:`eq-sdp-zeta`
        (notebooks/03-same-decision-probability/02-same-decision-probability.ipynb).

    ``SDP_S(C; x) = P(C(x_S, X_{-S}) = C(x) | X_S = x_S)`` with
    ``C(z) = 1{f(z) >= threshold}``, the completions ``X_{-S}`` following the true
    conditional distribution derived from ``p``.

    Parameters
    ----------
    f
        ``(2**d,)``: the predictor's probability ``f(z) ∈ [0, 1]`` at every state.
    p
        ``(2**d,)``: the joint distribution of the features.
    x
        Instances: 0/1 rows ``(n, d)`` or one row ``(d,)``.
    threshold
        ``T ∈ [0, 1]``.

    Returns
    -------
    numpy.ndarray
        ``sdp[k, S]`` for instance ``k`` and coalition bitmask ``S``.  ``sdp[:, -1]`` (the
        full coalition) is 1.
    """
    f = np.asarray(f, dtype=float)
    if f.ndim != 1:
        raise ValueError(f"f must be a 1-D table over 2**d states, got shape {f.shape}")
    if not np.all(np.isfinite(f)) or np.any(f < 0) or np.any(f > 1):
        raise ValueError("f must be a probabilistic predictor with values in [0, 1]")
    if not (is_number(threshold) and 0.0 <= float(threshold) <= 1.0):
        raise ValueError(f"the threshold T must be a number in [0, 1], got {threshold!r}")
    p, d = _check_distribution(p)
    if f.shape != p.shape:
        raise ValueError(f"f has {f.shape[0]} states but p has {p.shape[0]}")
    sx = _check_instances(x, d)
    decision = f >= threshold
    same = (decision[None, :] == decision[sx][:, None]).astype(float)
    return _conditional_game(same, p, sx, d)


def network_sdp(
    net: BinaryBayesNet,
    x: np.typing.ArrayLike | dict[str, int],
    *,
    target: str,
    features: Sequence[str] | None = None,
    f: np.typing.ArrayLike | None = None,
    threshold: float = 0.5,
) -> np.ndarray:
    """SDP of every coalition of ``features`` at ``x`` under a Bayesian network, exactly.

    Book: :ref:`eq-sdp-definition`
        (notebooks/03-same-decision-probability/02-same-decision-probability.ipynb).

    ``features`` defaults to every variable except ``target``; ``f`` (a table over the
    ``2**d`` feature states) defaults to the Bayes classifier's probability
    ``P(target = 1 | X = z)`` of the network.  ``x`` is a dict ``{feature: 0/1}``
    (every feature) or 0/1 rows in ``features`` order.
    Unknown variable names raise ``ValueError``.
    """
    features, x = _network_instances(net, x, target, features)
    p = net.marginal_table(features)
    if f is None:
        f = net.conditional_table(target, features)
    return same_decision_probability(f, p, x, threshold)


# ---------------------------------------------------------------------------
# The swing game
# ---------------------------------------------------------------------------


def check_pi(pi: float) -> float:
    """The probability level ``pi`` of the swing game as a float in ``(0, 1]``, else ``ValueError``."""
    if not (is_number(pi) and 0.0 < float(pi) <= 1.0):
        raise ValueError(f"the probability level pi must be in (0, 1], got {pi!r}")
    return float(pi)


def check_sdp(sdp: np.typing.ArrayLike, feature_names: Sequence[str] | None = None) -> np.ndarray:
    """SDPs over the ``2**d`` coalitions (last axis) as a float array of probabilities, else
    ``ValueError`` (naming the features by ``feature_names`` when given)."""
    s = np.asarray(sdp, dtype=float)
    if s.ndim == 0:
        raise ValueError("SDPs must be an array over 2**d coalitions")
    d = formula.game_size(s.shape[-1])
    if np.isnan(s).any():
        flat = s.reshape(-1, s.shape[-1])
        k = int(np.flatnonzero(np.isnan(flat).any(axis=1))[0])
        bad = np.flatnonzero(np.isnan(flat[k]))
        smallest = int(bad[np.argmin([bin(int(S)).count("1") for S in bad])])
        where = f"row {k}" if s.ndim > 1 else "the instance"
        raise ValueError(
            f"the SDP of {where} is undefined (NaN) for {_coalitions(bad, smallest, d, feature_names)}: no row of the data matches the instance on them "
            "(lib.sdp_estimation.empirical_sdp returns NaN there rather than a number). Remedy: more rows "
            "of data, an estimator that pools coarser cells (lib.sdp_estimation.forest_sdp), or explain "
            "rows whose values occur in the data"
        )
    if not np.all(np.isfinite(s)) or np.any(s < 0) or np.any(s > 1):
        raise ValueError("SDPs must be probabilities in [0, 1]")
    return s


def swing_game(sdp: np.typing.ArrayLike, pi: float, *, feature_names: Sequence[str] | None = None) -> np.ndarray:
    """The swing game of Eq. (A3.1): ``v(S) = 1`` if ``SDP_S >= pi`` else ``0`` (same shape as ``sdp``).

    Book: :ref:`eq-sdp-swing-game`
        (notebooks/03-same-decision-probability/03-swing-shapley-figure-1.ipynb).

    ``pi`` must lie in ``(0, 1]``; ``feature_names`` name the features in the errors.
    """
    pi = check_pi(pi)
    return (check_sdp(sdp, feature_names) >= pi).astype(float)


def swing_shapley(sdp: np.typing.ArrayLike, pi: float, *, feature_names: Sequence[str] | None = None) -> np.ndarray:
    """Swing Shapley values (Definition 3.2): the Shapley values of the swing game, ``(..., d)``.

    Computed by :func:`lib.formula.shapley_from_game` (the paper's Eq. (A2.2) with
    ``v_{SDP,pi}`` in place of ``f_S``).  By efficiency they sum to ``v(N) - v(∅)``,
    i.e. to ``1 - 1{SDP_∅ >= pi}`` since ``SDP_N = 1``.
    """
    return formula.shapley_from_game(swing_game(sdp, pi, feature_names=feature_names))


@dataclass(frozen=True)
class SwingDecomposition:
    """The split of Swing Shapley values into swings and reverse swings (shapes ``(..., d)``).

    ``swings[i]`` is the Shapley-weighted count of the swings of player ``i``,
    ``sum_{S: v(S)=0, v(S ∪ i)=1} |S|!(d-|S|-1)!/d!``; ``reverse_swings[i]`` the same
    sum over reverse swings (``v(S)=1, v(S ∪ i)=0``), reported as a non-negative number.
    ``values = swings - reverse_swings`` are the Swing Shapley values.  The ``n_*`` fields
    count the coalitions ``S ∌ i`` of each kind, unweighted (they add to ``2**(d-1)``).
    """

    swings: np.ndarray
    reverse_swings: np.ndarray
    n_swings: np.ndarray
    n_reverse_swings: np.ndarray
    n_null: np.ndarray

    @property
    def values(self) -> np.ndarray:
        """Swing Shapley values: ``swings - reverse_swings``."""
        return self.swings - self.reverse_swings


def swing_decomposition(game: np.typing.ArrayLike) -> SwingDecomposition:
    """Split the Shapley values of a 0/1 game into swings and reverse swings.

    Book: :ref:`eq-sdp-swing-split`
        (notebooks/03-same-decision-probability/03-swing-shapley-figure-1.ipynb).

    Amoukou & Brunel §3.1 and Figure 1 (right).  ``game`` is ``(..., 2**d)`` with
    values in ``{0, 1}`` (e.g. from :func:`swing_game`); ``ValueError`` otherwise.
    """
    v = np.asarray(game, dtype=float)
    if v.ndim == 0:
        raise ValueError("a game needs an array of coalition values, got a scalar")
    d = formula.game_size(v.shape[-1])
    if not np.all((v == 0) | (v == 1)):
        raise ValueError("the swing decomposition needs a simple game with values 0 and 1")
    if d == 0:
        empty = np.zeros(v.shape[:-1] + (0,))
        return SwingDecomposition(empty, empty, empty.astype(int), empty.astype(int), empty.astype(int))
    w = formula.shapley_weights(d)
    s = np.arange(2**d, dtype=np.int64)
    size = formula.coalition_masks(d).sum(axis=1)
    shape = v.shape[:-1] + (d,)
    swings, reverse = np.zeros(shape), np.zeros(shape)
    n_sw, n_rev, n_null = (np.zeros(shape, dtype=np.int64) for _ in range(3))
    for i in range(d):
        without = s[((s >> i) & 1) == 0]
        delta = v[..., without | (1 << i)] - v[..., without]
        weights = w[size[without]]
        swings[..., i] = (delta > 0) @ weights
        reverse[..., i] = (delta < 0) @ weights
        n_sw[..., i] = (delta > 0).sum(axis=-1)
        n_rev[..., i] = (delta < 0).sum(axis=-1)
        n_null[..., i] = (delta == 0).sum(axis=-1)
    return SwingDecomposition(swings, reverse, n_sw, n_rev, n_null)


def minimal_sufficient_coalitions(sdp: np.typing.ArrayLike, pi: float) -> np.ndarray:
    """Coalitions with ``SDP_S >= pi`` that contain no smaller such coalition.

    These are the sufficient explanations of the SDP line of work (the "minimal
    sufficient" or "active" sets: keeping only ``x_S`` keeps the decision with
    probability at least ``pi``).  ``sdp`` is one instance's ``(2**d,)`` table; the
    result lists bitmasks sorted by size, then by value.
    """
    s = check_sdp(sdp)
    if s.ndim != 1:
        raise ValueError(f"pass the SDPs of one instance, shape (2**d,), got {s.shape}")
    win = swing_game(s, pi)
    # A winning S is minimal iff it is its own only winning subset.
    n_winning_subsets = subset_sums(win)
    minimal = np.flatnonzero((win == 1) & (np.rint(n_winning_subsets) == 1))
    d = formula.game_size(s.shape[0])
    size = formula.coalition_masks(d).sum(axis=1)
    return minimal[np.lexsort((minimal, size[minimal]))]


# ---------------------------------------------------------------------------
# Ordinary (observational and interventional) games and their Shapley values
# ---------------------------------------------------------------------------

#: Largest number of features :func:`marginal_game` enumerates (``4**d`` hybrid states per instance).
MAX_MARGINAL_FEATURES = 14


def decision_table(f: np.typing.ArrayLike, threshold: float) -> np.ndarray:
    """The classifier ``C(z) = 1{f(z) >= T}`` as a 0/1 float table (Amoukou & Brunel, Definition 3.1).

    ``f`` must hold probabilities in ``[0, 1]`` and ``T`` lie in ``[0, 1]``; ``ValueError``
    otherwise.
    """
    f = np.asarray(f, dtype=float)
    if f.ndim == 0:
        raise ValueError("f must be a table of probabilities, got a scalar")
    if not np.all(np.isfinite(f)) or np.any(f < 0) or np.any(f > 1):
        raise ValueError("f must be a probabilistic predictor with values in [0, 1]")
    if not (is_number(threshold) and 0.0 <= float(threshold) <= 1.0):
        raise ValueError(f"the threshold T must be a number in [0, 1], got {threshold!r}")
    return (f >= float(threshold)).astype(float)


def marginal_game(
    g: np.typing.ArrayLike, p: np.typing.ArrayLike, x: np.typing.ArrayLike
) -> np.ndarray:
    """Interventional (marginal) value function of every coalition, exactly: ``(n, 2**d)``.

    Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-sdp-interventional-exact`
        (notebooks/03-same-decision-probability/05-ordinary-shapley-values.ipynb).

    ``v_x(S) = E_{X_{-S} ~ P(X_{-S})}[ g(x_S, X_{-S}) ] = sum_z p(z) g(x_S, z_{-S})``:
    the absent features are drawn from their *marginal* distribution, ignoring ``x_S``
    (the interventional game of Janzing et al., 2020, and of the book's
    ``eq-found-interventional``, here with the exact distribution ``p`` in place of a
    background sample; with ``p`` the empirical distribution of background rows it is
    exactly :func:`lib.games.interventional_game` on those rows).  Compare
    :func:`conditional_game`, the observational game of Amoukou & Brunel's Eq. (A2.1).

    All ``2**d`` hybrid states ``(x_S, z_{-S})`` of all ``2**d`` coalitions are indexed at
    once (``4**d`` table look-ups per instance, in blocks of bounded memory).

    Parameters
    ----------
    g
        ``(2**d,)`` — one function of the state, shared by all instances — or
        ``(n, 2**d)``, one function per instance.
    p
        ``(2**d,)``, the joint distribution of the ``d`` binary features (zeros allowed).
    x
        The instances: 0/1 rows ``(n, d)`` (or one row ``(d,)``).
    """
    p, d = _check_distribution(p)
    if d > MAX_MARGINAL_FEATURES:
        raise ValueError(
            f"the exact interventional game enumerates 4**d hybrid states: d={d} exceeds "
            f"{MAX_MARGINAL_FEATURES}"
        )
    sx = _check_instances(x, d)
    g = np.asarray(g, dtype=float)
    if g.shape not in ((2**d,), (len(sx), 2**d)):
        raise ValueError(f"g must have shape ({2**d},) or ({len(sx)}, {2**d}), got {g.shape}")
    if not np.all(np.isfinite(g)):
        raise ValueError("g has NaN or infinite values")
    n_states = 2**d
    full = n_states - 1
    z = np.arange(n_states, dtype=np.int64)
    coalitions = np.arange(n_states, dtype=np.int64)
    block = max(1, 2**20 // n_states)
    out = np.empty((len(sx), n_states))
    for k, s in enumerate(sx):
        table = g if g.ndim == 1 else g[k]
        for start in range(0, n_states, block):
            S = coalitions[start : start + block, None]
            hybrid = (s & S) | (z[None, :] & (full ^ S))  # x on S, z elsewhere
            out[k, start : start + block] = table[hybrid] @ p
    return out


def ordinary_shapley(
    g: np.typing.ArrayLike,
    p: np.typing.ArrayLike,
    x: np.typing.ArrayLike,
    *,
    game: Literal["observational", "interventional"],
    feature_names: Sequence[str] | None = None,
) -> ShapleyResult:
    """Exact ordinary Shapley values of ``g`` at ``x`` under the distribution ``p``.

    ``game="observational"``: the game of Amoukou & Brunel's Eq. (A2.1),
    ``E[g(X) | X_S = x_S]`` (:func:`conditional_game`); ``game="interventional"``:
    ``E_{X_{-S} ~ P(X_{-S})}[g(x_S, X_{-S})]`` (:func:`marginal_game`).  The values are
    the Shapley values of that game (the paper's Eq. (A2.2) with ``C = {i}``), computed by
    :func:`lib.formula.shapley_from_game`; ``base_values`` is ``v(∅) = E[g(X)]`` and
    ``outputs`` is ``v(N) = g(x)``, so efficiency (Eq. (A2.3)) reads
    ``values.sum(axis=1) == outputs - base_values``.
    """
    if game == "observational":
        values = conditional_game(g, p, x)
    elif game == "interventional":
        values = marginal_game(g, p, x)
    else:
        raise ValueError(f"game must be 'observational' or 'interventional', got {game!r}")
    d = formula.game_size(values.shape[-1])
    if feature_names is not None and len(feature_names) != d:
        raise ValueError(f"{len(feature_names)} feature names for {d} features")
    rows = np.asarray(x)
    return ShapleyResult(
        values=formula.shapley_from_game(values),
        base_values=values[:, 0],
        outputs=values[:, -1],
        data=rows[None, :] if rows.ndim == 1 else rows,
        feature_names=list(feature_names) if feature_names is not None else None,
        method=f"exact-{game}",
    )


def _network_instances(
    net: BinaryBayesNet,
    x: np.typing.ArrayLike | Mapping[str, int],
    target: str,
    features: Sequence[str] | None,
) -> tuple[list[str], np.typing.ArrayLike]:
    """Resolve ``features`` (default: all but ``target``) and a dict instance to 0/1 rows."""
    if features is None:
        net.index(target)
        features = [v for v in net.names if v != target]
    features = list(features)
    net.indices(features)
    if target in features:
        raise ValueError(f"the target {target!r} cannot be one of the features")
    if isinstance(x, Mapping):
        unknown = [k for k in x if k not in features]
        missing = [k for k in features if k not in x]
        if unknown or missing:
            raise ValueError(f"instance: unknown variables {unknown}, missing variables {missing}")
        x = [x[k] for k in features]
    return features, x


def network_shapley(
    net: BinaryBayesNet,
    x: np.typing.ArrayLike | Mapping[str, int],
    *,
    target: str,
    game: Literal["observational", "interventional"],
    features: Sequence[str] | None = None,
    f: np.typing.ArrayLike | None = None,
    threshold: float | None = None,
) -> ShapleyResult:
    """Exact ordinary Shapley values at ``x`` under a Bayesian network (see :func:`ordinary_shapley`).

    The explained function is ``f`` — a table over the ``2**d`` states of ``features``,
    by default the Bayes classifier's probability ``P(target = 1 | X = z)`` — or, when
    ``threshold`` is given, the decision ``1{f >= threshold}`` (:func:`decision_table`).
    The distribution is the network's exact marginal of ``features``.  ``x`` is a dict
    ``{feature: 0/1}`` (every feature) or 0/1 rows in ``features`` order.  Unknown variable
    names raise ``ValueError``.
    """
    features, x = _network_instances(net, x, target, features)
    p = net.marginal_table(features)
    if f is None:
        f = net.conditional_table(target, features)
    g = np.asarray(f, dtype=float) if threshold is None else decision_table(f, threshold)
    if g.shape != p.shape:
        raise ValueError(f"f has shape {g.shape}; the {len(features)} features have {p.shape[0]} states")
    return ordinary_shapley(g, p, x, game=game, feature_names=features)
