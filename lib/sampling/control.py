"""A control variate: a polynomial surrogate whose Shapley values are exact, and walks of the residual only.

Book: :ref:`eq-found-control` (notebooks/00-foundations/03-estimators.ipynb).  ``method="control"``.

**The estimator.**  A share of the budget (``surrogate_share``) buys coalitions ``S`` of the explained
row's game ``v(S) = (1/m) Σ_b f(x_S, b_{-S})`` (``m`` model rows each; :func:`surrogate_coalitions`:
closed under the complement, the sizes of largest Shapley kernel weight first); they fit, by least
squares (:func:`fit_surrogate`, with ``v(∅) = E_b f(b)`` and ``v(N) = f(x)``, known), a polynomial in the
coalition's indicators ``z ∈ {0, 1}^d`` of order ``order`` (1, 2 or 3),

.. math::

    g(z) = β_0 + Σ_i β_i z_i + Σ_{i<j} β_{ij} z_i z_j + Σ_{i<j<k} β_{ijk} z_i z_j z_k.

The rest of the budget runs antithetic pairs of walks (Mitchell et al., 2022) on the *residual*
``r = v - g``, and the estimate is ``φ = φ(g) + φ̂(r)``.  ``residual="mean"`` (default) walks the mean game
(each step a coalition of ``v``, ``m`` rows); ``residual="rows"`` walks the per-row games' residuals
``u_b - g``, ``u_b(S) = f(x_S, b_{-S})`` (one row a step), with the strata sampler's plan
(:mod:`lib.sampling.strata`: its cheap strata enumerated, ``φ(u_b) - φ(g)`` exactly).  A walk's states
are coalitions, so ``g`` along it costs no model row.

**φ(g) in closed form.**  A monomial ``z_T = Π_{j∈T} z_j`` is the unanimity game of ``T`` (worth 1 when
the coalition holds all of ``T``): its members are symmetric, the others null players, and it is worth
1 in all, so each member gets ``1 / |T|``.  The Shapley value is linear, so

.. math::

    φ_i(g) = β_i + \\tfrac12 Σ_{j≠i} β_{ij} + \\tfrac13 Σ_{j<k;\\,j,k≠i} β_{ijk}

(:func:`surrogate_shapley`); for a second-order surrogate ``φ_i(g) = β_i + ½ Σ_{j≠i} β_{ij}``.

**Unbiased, efficient.**  The surrogate's coalitions are drawn first and the walks afterwards, from
independent draws, so given ``g`` the walks are an unbiased estimate of ``φ(r) = φ(v) - φ(g)`` (for
``residual="rows"`` where the strata sampler's is: once every walked stratum has a pair) and
``E[φ(g) + φ̂(r) | g] = φ(v)`` whatever ``g`` is: a poor fit costs precision, never bias.  Each residual
walk telescopes to ``v(N) - v(∅) - (g(N) - g(∅))`` (per row: ``u_b(N) - u_b(∅) - …``, averaged over the
background rows once every one has served) and ``Σ_i φ_i(g) = g(N) - g(∅)``: the values add up to
``f(x) - E_b f(b)``.

**The variance: why third order, and why the mean game.**  An antithetic pair's estimate is linear in
the game and exact on the *even* part of a game, ``(w(S) + w(N∖S)) / 2`` (walked backwards, the reverse
ordering's marginal contributions to a game with ``w(S) = w(N∖S)`` are those of the forward ordering with
the sign changed), and on every game of order at most two (Mitchell et al., 2022, §4.1).  So for
``order <= 2`` the pair is exact on ``g`` and ``φ(g) + φ̂_pair(v - g) = φ̂_pair(v)`` draw for draw: such a
surrogate only takes rows from the walks.  With ``order = 3`` the per-walk variance is that of the pair's
estimate on the *odd* part of ``v - g`` beyond what the pairs are exact on.  The fit's coalitions are
closed under the complement, so least squares fits the odd part of ``v`` on its own (the odd and even
functions are orthogonal on such a design): where ``v``'s odd part is a cubic polynomial, which holds for
every game of order at most four (an order-four monomial's odd part is of orders one and three), e.g.
a depth-3 tree ensemble's, the residual is even and the estimate is exact once the surrogate is fitted;
otherwise the variance is that of the residual's odd part of order five and more.  The surrogate fits the
mean game ``v`` (whose Shapley values are the mean of the ``φ(u_b)``), not each ``u_b``: a per-row fit
would cost ``m`` times the rows.  That is why the default walks ``v - g`` too: the per-row residuals
``u_b - g`` keep each ``u_b``'s own third-order terms, which the fit of their mean does not remove, and
on the games measured (``notebooks/00-foundations/03-estimators``) ``residual="rows"`` did no better than
the plain sampler given the whole budget.

**The budget, and the fallback.**  The surrogate gets ``surrogate_share`` of the draws' rows, or more,
up to ``max_share``, where that is needed for ``min_pairs_per_odd_parameter`` pairs of coalitions per
parameter of its odd part (:func:`odd_parameters`: ``d + d(d-1)(d-2)/6`` for ``order = 3``; a pair is one
equation for it); the walks get the rest, at least ``min_walk_pairs`` pairs.  Where the budget does not
pay for that, the estimator is the strata sampler with the whole budget (``method`` of the result: the
strata sampler's), not a lower order, which would buy nothing; from the budget at which the strata
sampler enumerates every stratum (:func:`lib.sampling.strata.enumeration_rows`) likewise: exact.
Otherwise ``method`` names the surrogate: ``"control-order-3-mean"`` (or ``-rows``).

Registered as ``"control"`` (:mod:`lib.sampling.registry`); call it through
:func:`lib.sampling.sample_shapley` (``method="control", options=ControlOptions(...)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations
from math import comb

import numpy as np

from lib.games import Game
from lib.result import ShapleyResult
from lib.sampling.base import Options, register
from lib.sampling.strata import (
    StrataOptions,
    deal_pairs,
    enumerate_stratum,
    enumeration_rows,
    plan_strata,
    strata,
)
from lib.sampling.walk import agreement_floor, pooled_dof, walk_values

__all__ = ["ControlOptions", "control", "fit_surrogate", "odd_parameters", "surrogate_coalitions",
           "surrogate_parameters", "surrogate_shapley"]


@dataclass(frozen=True)
class ControlOptions(Options):
    """Options of ``method="control"``.

    ``order``: the surrogate's order, 1, 2 or 3 (default 3: lower orders cancel in the antithetic pairs,
    see the module docstring).  ``surrogate_share``: the share of the draws' budget (the budget less
    ``f(x)`` and the background rows) spent on the surrogate's coalitions (``m`` rows each; default 0.5),
    raised to what ``min_pairs_per_odd_parameter`` asks, up to ``max_share`` (default 0.8).
    ``min_pairs_per_odd_parameter``: the least pairs of coalitions (``S`` and its complement) per
    parameter of the surrogate's odd part (:func:`odd_parameters`; default 1: as many equations as
    unknowns, see the module docstring).  ``min_walk_pairs``: the least pairs of walks of the residual
    (default 16: a standard error from fewer is itself too uncertain).  Where these cannot all be met the
    strata sampler runs with the whole budget.  ``ridge``: the ridge of the least squares, relative to the
    mean diagonal of the design's Gram matrix (default 0: the minimum-norm least squares).
    ``residual``: which residual the walks take, ``"mean"`` (default: ``v - g``, pairs of walks of the
    mean game, ``m`` rows a step) or ``"rows"`` (``u_b - g``, the strata sampler's walks per background
    row, one row a step).
    """

    order: int = 3
    surrogate_share: float = 0.5
    max_share: float = 0.8
    min_pairs_per_odd_parameter: float = 1.0
    min_walk_pairs: int = 16
    ridge: float = 0.0
    residual: str = "mean"

    def __post_init__(self) -> None:
        if self.residual not in ("mean", "rows"):
            raise ValueError(f"residual must be 'mean' or 'rows', got {self.residual!r}")
        if isinstance(self.order, bool) or self.order not in (1, 2, 3):
            raise ValueError(f"order must be 1, 2 or 3, got {self.order!r}")
        for name in ("surrogate_share", "max_share"):
            if not 0.0 < float(getattr(self, name)) < 1.0:
                raise ValueError(f"{name} must be in (0, 1), got {getattr(self, name)!r}")
        if not float(self.min_pairs_per_odd_parameter) > 0.0:
            raise ValueError(f"min_pairs_per_odd_parameter must be > 0, got {self.min_pairs_per_odd_parameter!r}")
        if isinstance(self.min_walk_pairs, bool) or not isinstance(self.min_walk_pairs, (int, np.integer)) \
                or self.min_walk_pairs < 2:
            raise ValueError(f"min_walk_pairs must be an integer >= 2, got {self.min_walk_pairs!r}")
        if not float(self.ridge) >= 0.0:
            raise ValueError(f"ridge must be >= 0, got {self.ridge!r}")


def surrogate_parameters(d: int, order: int) -> int:
    """Parameters of a polynomial of order ``order`` in ``d`` indicators: ``Σ_{t<=order} C(d, t)``."""
    return sum(comb(d, t) for t in range(order + 1))


def odd_parameters(d: int, order: int) -> int:
    """Parameters of the odd part (``(g(S) - g(N∖S)) / 2``) of such a polynomial: ``Σ_{t<=order, t odd}
    C(d, t)`` (the odd Fourier orders; an order-``t`` monomial's odd part has orders ``t, t - 2, ...``);
    a pair of coalitions ``S``, ``N∖S`` is one equation for it."""
    return sum(comb(d, t) for t in range(1, order + 1, 2))


def _monomials(d: int, order: int) -> list[tuple[int, ...]]:
    """The monomials ``T`` (tuples of features, ``()`` the constant) up to ``order``, by order."""
    return [t for o in range(order + 1) for t in combinations(range(d), o)]


def _design(masks: np.ndarray, monomials: list[tuple[int, ...]]) -> np.ndarray:
    """``z_T`` of each coalition ``(c, d)`` and monomial: ``(c, p)``."""
    Z = masks.astype(float)
    out = np.ones((len(Z), len(monomials)))
    for col, t in enumerate(monomials):
        for j in t:
            out[:, col] *= Z[:, j]
    return out


def surrogate_coalitions(d: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """At most ``count`` distinct coalitions ``(c, d)`` for the surrogate's fit, closed under the complement.

    The sizes of largest Shapley kernel weight first, each enumerated whole while the count allows it
    (``1`` and ``d - 1``, then ``2`` and ``d - 2``, ...: every coalition of size at most ``t`` determines a
    polynomial of order ``t``), then pairs ``S`` and its complement of the other sizes, drawn from the
    Shapley kernel distribution ``p(s) ∝ 1 / (s (d - s))`` and uniformly within a size, each coalition
    once (a coalition drawn twice buys nothing for the fit).  ``∅`` and ``N`` are not among them (their
    values are known)."""
    chosen: list[np.ndarray] = []
    taken = 0
    whole: list[int] = []
    for t in range(1, d // 2 + 1):
        both = list(dict.fromkeys((t, d - t)))                                 # a size and its complement's
        if taken + sum(comb(d, s) for s in both) > count:
            break
        for s in both:
            for members in combinations(range(d), s):
                row = np.zeros(d, dtype=bool)
                row[list(members)] = True
                chosen.append(row)
            taken += comb(d, s)
            whole.append(s)
    left = sorted(set(range(1, d)) - set(whole))
    masks = np.array(chosen, dtype=bool).reshape(-1, d)
    if not left or count - taken < 2:
        return masks
    seen = {np.packbits(r).tobytes() for r in masks}
    p = 1.0 / (np.array(left) * (d - np.array(left)))
    extra: list[np.ndarray] = []
    for _ in range(50):  # rounds of draws, duplicates dropped, until the count is met or the sizes run dry
        need = (count - taken - len(extra)) // 2
        if need <= 0:
            break
        s = rng.choice(left, size=4 * need, p=p / p.sum())
        ranks = np.argsort(np.argsort(rng.random((len(s), d)), axis=1), axis=1)
        for row in ranks < s[:, None]:
            key, anti = np.packbits(row).tobytes(), np.packbits(~row).tobytes()
            if key in seen or anti in seen or len(extra) + 2 > count - taken:
                continue
            seen.update((key, anti))
            extra += [row, ~row]
    return np.concatenate([masks] + ([np.array(extra)] if extra else []))


def fit_surrogate(masks: np.ndarray, values: np.ndarray, order: int, ridge: float = 0.0) -> np.ndarray:
    """The coefficients ``β_T`` ``(p, K)`` of the polynomial of order ``order`` fitted to ``values`` ``(c, K)``
    on the coalitions ``masks`` ``(c, d)`` by least squares with a ridge (relative to the mean diagonal of
    the Gram matrix; the constant not penalised; ``0``: the minimum-norm least squares, exact on a game the
    polynomial holds); monomials in the order of ``itertools.combinations``, order by order."""
    monomials = _monomials(masks.shape[1], order)
    A = _design(masks, monomials)
    if ridge == 0:
        return np.linalg.lstsq(A, values, rcond=None)[0]
    gram = A.T @ A
    pen = ridge * float(np.trace(gram)) / len(gram) * np.eye(len(gram))
    pen[0, 0] = 0.0
    return np.linalg.solve(gram + pen, A.T @ values)


def _tensors(beta: np.ndarray, d: int, order: int) -> list[np.ndarray]:
    """The coefficients as symmetric tensors: ``[B1 (d, K), B2 (d, d, K), B3 (d, d, d, K)]`` up to ``order``
    (each monomial's coefficient at every permutation of its features)."""
    K = beta.shape[1]
    out = [np.zeros((d,) * o + (K,)) for o in range(1, order + 1)]
    for row, t in enumerate(_monomials(d, order)):
        if len(t) == 0:
            continue
        for perm in set(permutations(t)):
            out[len(t) - 1][perm] = beta[row]
    return out


def surrogate_shapley(beta: np.ndarray, d: int, order: int) -> np.ndarray:
    """``φ(g)`` ``(d, K)`` of the polynomial ``g`` with coefficients ``beta`` (:func:`fit_surrogate`).

    Book: :ref:`eq-found-control` (notebooks/00-foundations/03-estimators.ipynb).

    ``φ_i(g) = Σ_{T ∋ i} β_T / |T|``: ``β_i + ½ Σ_{j≠i} β_{ij} + ⅓ Σ_{j<k} β_{ijk}``, each monomial the
    unanimity game of its features (see the module docstring)."""
    phi = np.zeros((d, beta.shape[1]))
    for row, t in enumerate(_monomials(d, order)):
        for j in t:
            phi[j] += beta[row] / len(t)
    return phi


def _walk_increments(perm: np.ndarray, tensors: list[np.ndarray]) -> np.ndarray:
    """``g(S ∪ a) - g(S)`` at each step of each pair's two walks (``perm`` and its reverse): ``(N, 2, d, K)``.

    ``S`` the features before ``a`` in the walk; ``Δ = β_a + Σ_{j∈S} β_{aj} + Σ_{j<k∈S} β_{ajk}``."""
    N, d = perm.shape
    K = tensors[0].shape[-1]
    order = np.stack([perm, perm[:, ::-1]], axis=1).reshape(2 * N, d)
    S = np.zeros((2 * N, d))
    out = np.empty((2 * N, d, K))
    for t in range(d):
        a = order[:, t]
        inc = tensors[0][a].copy()                                         # (2N, K)
        if len(tensors) > 1:
            inc += np.einsum("nj,njk->nk", S, tensors[1][a])
        if len(tensors) > 2:
            inc += 0.5 * np.einsum("nj,nl,njlk->nk", S, S, tensors[2][a])
        out[:, t] = inc
        S[np.arange(2 * N), a] = 1.0
    return out.reshape(N, 2, d, K)


def _residual_pairs(game: Game, i: int, donors: np.ndarray, perm: np.ndarray,
                    tensors: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The mean of the two walks' marginal contributions to the residual game ``u_b - g`` of each pair, and
    to ``u_b`` itself: ``(N, d, K)`` each (the model rows those of :func:`lib.sampling.walk.walk_values`;
    ``g`` costs none)."""
    N, d = perm.shape
    vals = walk_values(game, np.full(N, i), donors, perm)                  # (N, 2, d + 1[, k])
    raw = np.diff(vals, axis=2).reshape(N, 2, d, -1)
    rank = np.argsort(np.stack([perm, perm[:, ::-1]], axis=1), axis=-1)    # (N, 2, d): step of feature

    def by_feature(g: np.ndarray) -> np.ndarray:
        return np.take_along_axis(g, rank[..., None], axis=2).mean(axis=1)

    return by_feature(raw - _walk_increments(perm, tensors)), by_feature(raw)


def _mean_residual(game: Game, rows: int, rng: np.random.Generator, beta: np.ndarray, order: int,
                   ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``φ(g) + φ̂(v - g)`` ``(n, d, K)``, the variance of ``φ̂(v - g)`` and the rule of three's floor of the
    values whose residual draws all agree (:func:`lib.sampling.walk.agreement_floor`, at the scale of the
    game's own contributions along the walks): ``P`` antithetic pairs of walks of the mean game
    (``2 (d - 1) m`` rows a pair, as many as ``rows`` pays for, the same orderings for every explained row),
    their residual contributions averaged; ``ends`` ``(n, 2, K)``: ``v(∅)``, ``v(N)``."""
    n, d, m = game.n, game.d, game.m
    K = ends.shape[-1]
    P = rows // (2 * (d - 1) * m)
    perm = np.argsort(rng.random((P, d)), axis=1)
    rank = np.argsort(np.stack([perm, perm[:, ::-1]], axis=1), axis=-1)   # (P, 2, d): step of feature
    masks = rank[:, :, None, :] < np.arange(1, d)[None, None, :, None]     # (P, 2, d - 1, d): after step t
    inner = game.coalition_values(masks.reshape(-1, d)).reshape(n, P, 2, d - 1, K)
    start = np.broadcast_to(ends[:, None, None, None, 0], (n, P, 2, 1, K))
    stop = np.broadcast_to(ends[:, None, None, None, 1], (n, P, 2, 1, K))
    gain = np.diff(np.concatenate([start, inner, stop], axis=3), axis=3)   # (n, P, 2, d, K) by step
    values = np.empty((n, d, K))
    variances = np.empty((n, d, K))
    floors = np.zeros((n, d, K))
    for i in range(n):
        resid = gain[i] - _walk_increments(perm, _tensors(beta[:, i], d, order))
        contrib = np.take_along_axis(resid, rank[..., None], axis=2).mean(axis=1)   # (P, d, K)
        raw = np.take_along_axis(gain[i], rank[..., None], axis=2).mean(axis=1)     # the game's own
        values[i] = surrogate_shapley(beta[:, i], d, order) + contrib.mean(axis=0)
        variances[i] = contrib.var(axis=0, ddof=1) / P
        if P > 1:
            floors[i] = agreement_floor(contrib - contrib.mean(axis=0), P - 1, 1.0, game.differ[i].any(axis=0),
                                        scale=float(np.abs(raw - raw.mean(axis=0)).max()))
    return values, variances, floors


def _plan(game: Game, budget: int, options: ControlOptions) -> tuple[int, int]:
    """The surrogate's order and its pairs of coalitions for this budget: ``(0, 0)`` where none is affordable.

    The pairs: ``surrogate_share`` of the draws' rows, raised to ``min_pairs_per_odd_parameter`` times
    :func:`odd_parameters`; affordable if that is at most ``max_share`` of the rows and leaves
    ``min_walk_pairs`` pairs of walks of the residual."""
    d, m = game.d, game.m
    rows = max(int(budget) - 1 - m, 0)
    if d < 3:
        return 0, 0
    need = int(np.ceil(options.min_pairs_per_odd_parameter * odd_parameters(d, options.order)))
    pairs = max(int(options.surrogate_share * rows) // (2 * m), need)
    pairs = min(pairs, 2 ** (d - 1) - 1)                                   # the distinct pairs there are
    walk = 2 * (d - 1) * (m if options.residual == "mean" else 1)
    if pairs < need or 2 * pairs * m > options.max_share * rows or rows - 2 * pairs * m < options.min_walk_pairs * walk:
        return 0, 0
    return int(options.order), pairs


def _least_rows(game: Game, options: ControlOptions) -> int:
    """``f(x)``, the background rows and one pair of walks (the plain strata sampler's least budget)."""
    return 1 + game.m + 2 * max(game.d - 1, 0)


def _exact_rows(game: Game, options: ControlOptions) -> np.ndarray:
    """The strata sampler's exact cost (every stratum enumerated), from which this estimate is its."""
    return 1 + game.m + enumeration_rows(game.differ.sum(axis=2)).sum(axis=1)


@register("control", options=ControlOptions, minimum_rows=_least_rows, exact_rows=_exact_rows,
          needs="one pair of walks, 2 (d - 1) rows")
def control(game: Game, budget: int, rng: np.random.Generator, options: ControlOptions) -> ShapleyResult:
    """A polynomial surrogate whose Shapley values are exact, and antithetic walks of the residual only.

    Book: :ref:`eq-found-control` (notebooks/00-foundations/03-estimators.ipynb).

    Per explained row: ``2 P`` coalitions of the row's game (:func:`_plan`: ``P`` pairs, ``m`` model rows
    each, :func:`surrogate_coalitions`, the same coalitions for every explained row) fit the surrogate
    ``g`` (:func:`fit_surrogate`); the rest of the budget walks the residual: with ``residual="mean"``,
    antithetic pairs of walks of ``v - g`` (:func:`_mean_residual`, ``2 (d - 1) m`` rows a pair), with
    ``residual="rows"``, the strata sampler's plan (:func:`lib.sampling.strata.plan_strata`) on ``u_b -
    g`` (the enumerated strata give ``φ(u_b) - φ(g)`` exactly, the walked ones pairs of walks of the
    residual).  The estimate is ``φ(g)`` (:func:`surrogate_shapley`) plus the walks' estimate of
    ``φ(v - g)``.  Where the budget cannot pay for the surrogate and the walks (:func:`_plan`), or pays
    for every stratum's enumeration (exact), it is :func:`lib.sampling.strata.strata`'s estimate.  See
    the module docstring for the derivation and the variance argument.

    Returns
    -------
    ShapleyResult
        ``variances`` and ``standard_errors``: those of the walks' estimate of ``φ(v - g)`` (``φ(g)`` is
        fixed once the surrogate is fitted, from draws independent of the walks): the variance of the
        pairs' mean contributions over their number (``residual="mean"``), or the strata sampler's
        (``"rows"``), raised, for a value whose residual draws all agreed, to the rule of three's bound
        (:func:`lib.sampling.walk.agreement_floor` at the scale of the game's own contributions along the
        same walks: a surrogate that takes every interaction the walks met leaves residual draws that agree
        whether the value is exact or a rare interaction was missed); ``degrees_of_freedom``: theirs (the
        pairs less one, or :func:`lib.sampling.walk.pooled_dof`; ``inf`` for a bound); ``n_samples``: walks
        per feature; ``method``: ``"control-order-<order>-mean"`` or ``-rows``, or the strata sampler's where
        the estimator fell back.
    """
    n, d, m = game.n, game.d, game.m
    order, pairs = _plan(game, budget, options)
    if order == 0 or bool(np.all(_exact_rows(game, options) <= budget)):
        return strata(game, budget, rng, StrataOptions())
    outputs = game.outputs
    f_bg = game.background_outputs
    k_shape = outputs.shape[1:]
    K = int(np.prod(k_shape)) if k_shape else 1
    masks = surrogate_coalitions(d, 2 * pairs, rng)
    v = game.coalition_values(masks).reshape(n, len(masks), K)             # (n, c, K): m rows each
    full = np.concatenate([masks, np.zeros((1, d), bool), np.ones((1, d), bool)])
    ends = np.stack([np.broadcast_to(f_bg.mean(axis=0), k_shape).reshape(K) * np.ones((n, K)),
                     outputs.reshape(n, K)], axis=1)                       # (n, 2, K): v(∅), v(N)
    Y = np.concatenate([v, ends], axis=1)                                  # (n, c + 2, K)
    Y = np.moveaxis(Y, 0, 1).reshape(len(full), n * K)
    beta = fit_surrogate(full, Y, order, options.ridge).reshape(-1, n, K)  # (p, n, K)
    rows_left = int(budget) - 1 - m - len(masks) * m                      # fewer where d is small
    if options.residual == "mean":
        values, variances, floors = _mean_residual(game, rows_left, rng, beta, order, ends)
        shape = (n, d) + k_shape
        P = rows_left // (2 * (d - 1) * m)
        measured = np.sqrt(variances)
        se = np.maximum(measured, floors).reshape(shape)
        bound = (floors > measured).reshape(shape)                 # the rule of three's, not a measured spread
        return ShapleyResult(values=values.reshape(shape), base_values=game.base_values, outputs=outputs,
                             data=game.X, feature_names=game.feature_names, output_names=game.output_names,
                             variances=variances.reshape(shape), standard_errors=se,
                             n_samples=np.full((n, d), 2 * P, dtype=np.int64), method=f"control-order-{order}-mean",
                             degrees_of_freedom=np.where((se == 0.0) | bound, np.inf, float(P - 1)))

    values = np.zeros((n, d, K))
    variances = np.zeros((n, d, K))
    n_samples = np.zeros((n, d), dtype=np.int64)
    unknown = np.zeros(n, dtype=bool)
    dofs = np.full((n, d, K), np.inf)
    floors = np.zeros((n, d, K))
    rows_for_strata = rows_left
    differing = game.differ.sum(axis=2)
    for i in range(n):
        tensors = _tensors(beta[:, i], d, order)
        phi_g = surrogate_shapley(beta[:, i], d, order)                    # (d, K)
        D = differing[i]
        enumerate_b = plan_strata(D, rows_for_strata)
        left = rows_for_strata - int(enumeration_rows(D)[enumerate_b].sum())
        per_b = np.zeros((m, d, K))
        for b in np.flatnonzero(enumerate_b):
            per_b[b] = enumerate_stratum(game, i, int(b)).reshape(d, K) - phi_g
        walked = np.flatnonzero(~enumerate_b)
        if len(walked) == 0:
            values[i] = phi_g + per_b.mean(axis=0)
            n_samples[i] = m
            continue
        donors = deal_pairs(2 * np.maximum(D - 1, 0), walked, left, rng)
        contrib, raw = (_residual_pairs(game, i, donors, np.argsort(rng.random((len(donors), d)), axis=1), tensors)
                        if len(donors) else (np.zeros((0, d, K)), np.zeros((0, d, K))))
        moves = game.differ[i, walked].any(axis=0)                # not a null player of every walked u_b
        counts = np.bincount(donors, minlength=m)
        n_samples[i] = 2 * len(donors) + int(enumerate_b.sum())
        unknown[i] = len(donors) < 2
        if (counts[walked] > 0).all():
            sums = np.zeros((m, d, K))
            np.add.at(sums, donors, contrib)
            per_b[walked] = sums[walked] / counts[walked][:, None, None]
            values[i] = phi_g + per_b.mean(axis=0)
            dev = contrib - per_b[donors]
            dof = len(donors) - len(walked)
            raw_b = np.zeros((m, d, K))
            np.add.at(raw_b, donors, raw)
            scale = float(np.abs(raw - (raw_b / np.maximum(counts, 1)[:, None, None])[donors]).max())
            if dof > 0:
                variances[i] = (dev**2).sum(axis=0) / dof * (1.0 / counts[walked]).sum() / m**2
                dofs[i] = pooled_dof(dev, donors)
                floors[i] = agreement_floor(dev, dof, len(walked) / m, moves, scale=scale)
            elif len(donors) > 1:
                variances[i] = contrib.var(axis=0, ddof=1) * (1.0 / counts[walked]).sum() / m**2
                dofs[i] = len(donors) - 1
                floors[i] = agreement_floor(contrib - contrib.mean(axis=0), len(donors) - 1, len(walked) / m,
                                            moves, scale=float(np.abs(raw - raw.mean(axis=0)).max()))
        else:
            walked_mean = contrib.mean(axis=0) if len(donors) else np.zeros((d, K))
            values[i] = phi_g + (per_b[enumerate_b].sum(axis=0) + len(walked) * walked_mean) / m
            if len(donors) > 1:
                variances[i] = contrib.var(axis=0, ddof=1) / len(donors) * (len(walked) / m) ** 2
                dofs[i] = len(donors) - 1
                floors[i] = agreement_floor(contrib - walked_mean, len(donors) - 1, len(walked) / m, moves,
                                            scale=float(np.abs(raw - raw.mean(axis=0)).max()))
    # values whose residual draws all agreed: not a measured 0 but the rule of three's bound
    standard_errors = np.maximum(np.sqrt(variances), floors)
    standard_errors[unknown] = np.nan
    dofs[(standard_errors == 0.0) | (floors > np.sqrt(variances))] = np.inf
    dofs[np.isnan(standard_errors)] = np.nan
    shape = (n, d) + k_shape
    return ShapleyResult(values=values.reshape(shape), base_values=game.base_values, outputs=outputs,
                         data=game.X, feature_names=game.feature_names, output_names=game.output_names,
                         variances=variances.reshape(shape), standard_errors=standard_errors.reshape(shape),
                         n_samples=n_samples, method=f"control-order-{order}-rows",
                         degrees_of_freedom=dofs.reshape(shape))
