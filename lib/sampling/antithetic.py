"""Antithetic permutation sampling, ``method="antithetic"``: orderings walked forwards and backwards.

Book: :ref:`eq-found-shapley-perm` (notebooks/00-foundations/01-shapley-values.ipynb).

The Shapley value is the mean marginal contribution over the ``d!`` orderings of the
features (book eq. ``eq-found-shapley-perm``).  :func:`~lib.sampling.antithetic.antithetic` estimates it by
*walking* sampled orderings: along an ordering ``π`` the features are switched from a
background row ``b`` to the instance ``x`` one at a time, and the ``d + 1`` model rows of the
walk give the marginal contribution of *every* feature at once (Castro, Gómez & Tejada, 2009,
"Polynomial calculation of the Shapley value based on sampling", Comput. Oper. Res. 36:1726).
Each ordering is walked forwards and then backwards (the reversed ordering, the same
background row): *antithetic* sampling, Mitchell, Cooper, Frank & Holmes (2022), "Sampling
permutations for Shapley value estimation", JMLR 23(43), §4 and Algorithm 1 with
``π`` and its reverse.  The background rows are drawn *stratified*: each explained row goes
through a fresh shuffle of the background, cycled, and the walks are averaged per background
row, then over the background rows, once every row has served.

What that buys, against Štrumbelj & Kononenko's Algorithm 1 (:mod:`lib.sampling.strumbelj_kononenko`: one random ordering and one background row for *one* feature, two model rows)
at the same number of model rows:

* each walk costs ``d - 1`` new rows and yields one marginal contribution for each of the
  ``d`` features, about ``2 d / (d - 1)`` times as many samples per feature;
* a step that switches a feature on which ``x`` and ``b`` agree leaves the row unchanged: it is
  not evaluated again (its contribution is 0), and a row equal to ``x`` is not evaluated
  either (``f(x)`` is known); on discretised or categorical data, where ``x`` and a background
  row agree on many features, a walk costs ``D - 1`` rows, ``D`` the number of features on
  which they differ (shap's ``PermutationExplainer`` saves the same rows);
* a walk's contributions add up to ``f(x) - f(b)`` (they telescope); the walks are averaged
  per background row, then over the background rows (post-stratification), so the estimate
  is exactly efficient as soon as every background row has served once
  (``n_pairs * background_per_pair >= m``), and exact on an additive game from then on;
* a pair (``π`` and its reverse) gives each pair of features ``i, j`` the interaction term
  once with ``i`` before ``j`` and once after: on a game with interactions of order at most
  two the pair is exact for its background row (Mitchell et al., 2022, §4.1), and on an
  additive game every walk is.

The estimate is unbiased for the interventional Shapley value of
:func:`lib.shapley.exact_shapley` with the same background (each walk, marginally, is a
uniform ordering and a uniform background row; a background row's walks have uniform
orderings whatever their number).  One exception: with a budget below one pass through the
background, the number of pairs depends on the background rows drawn (their cost), and the
plain mean over pairs can then be slightly biased.

Registered as ``"antithetic"`` (:mod:`lib.sampling.registry`); call it through
:func:`lib.sampling.sample_shapley` (``options=AntitheticOptions(...)``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.games import Game
from lib.result import ShapleyResult
from lib.sampling.base import Options, register
from lib.sampling.walk import agreement_floor, pair_walks, pooled_dof, walk_rows

__all__ = ["AntitheticOptions", "antithetic", "antithetic_rows", "pairs_for_budget", "walk_rows"]


@dataclass(frozen=True)
class AntitheticOptions(Options):
    """Options of ``method="antithetic"``.

    ``background_per_pair``: background rows each pair of walks is run against (``q``; default 1).
    ``n_pairs``: exactly this many pairs per explained row instead of as many as the budget allows
    (a budget that cannot pay for them is refused); default ``None``.
    """

    background_per_pair: int = 1
    n_pairs: int | None = None

    def __post_init__(self) -> None:
        for name in ("background_per_pair", "n_pairs"):
            value = getattr(self, name)
            if value is None and name == "n_pairs":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


def antithetic_rows(n_pairs: int, d: int, *, n: int = 1, m: int = 1, background_per_pair: int = 1) -> int:
    """Model rows :func:`~lib.sampling.antithetic.antithetic` evaluates when ``x`` and the background rows differ
    on every feature (continuous data): ``2 n q n_pairs (d - 1) + n + m``.

    Two walks per pair, ``d - 1`` intermediate rows per walk and per background row
    (``q = background_per_pair``); ``f(x)`` once per explained row and ``f(b)`` once per
    background row (the base value, exact).  Where they agree on some features, fewer
    (:func:`walk_rows`).
    """
    if n_pairs < 1 or d < 1 or n < 1 or m < 1 or background_per_pair < 1:
        raise ValueError("n_pairs, d, n, m and background_per_pair must all be >= 1")
    return 2 * n * background_per_pair * n_pairs * (d - 1) + n + m


def pairs_for_budget(budget: int, d: int, *, m: int = 1, background_per_pair: int = 1) -> int:
    """The largest ``n_pairs`` whose cost for one explained row stays within ``budget`` rows
    (at least 1) when every step needs a row: the inverse of :func:`antithetic_rows`."""
    if budget < 1 or d < 1 or m < 1 or background_per_pair < 1:
        raise ValueError("budget, d, m and background_per_pair must all be >= 1")
    per_pair = 2 * background_per_pair * max(d - 1, 0)
    if per_pair == 0:
        return 1
    return max(1, (budget - 1 - m) // per_pair)


def _least_rows(game: Game, options: AntitheticOptions) -> int:
    """``f(x)``, the background rows and one pair of walks where ``x`` and ``b`` differ everywhere."""
    return 1 + game.m + 2 * options.background_per_pair * max(game.d - 1, 0)


def _standard_errors(walk_means: np.ndarray, bg_idx: np.ndarray, valid: np.ndarray, uses: np.ndarray,
                     covered: np.ndarray, variances: np.ndarray, q: int, exact: np.ndarray,
                     differ: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The standard error of each returned value, from the pairs' own spread, and its degrees of freedom.

    Where the estimate is post-stratified (the walks met every background row) and each pair has one
    background row (``q = 1``): the pooled within-stratum variance of the pair means times
    ``Σ_b 1 / (m^2 n_b)`` (``n_b`` pairs against ``b``), the variance of a mean of stratum means, as in
    :mod:`lib.sampling.strata`; the plain mean's variance (``variances``) would count the spread between the
    strata, which the post-stratified estimate does not have.  Elsewhere, and when no stratum has two pairs,
    the square root of ``variances``.  A value whose pairs all agreed gets the rule of three's bound
    instead of 0 (:func:`lib.sampling.walk.agreement_floor`; ``differ`` ``(n, m, d)``: where ``x`` and a
    background row differ, so that a feature equal in every background row keeps 0).  ``nan`` where a row has a single pair (no
    spread to measure), and 0 where its values are ``exact`` (every background row met, and every walk free).
    The degrees of freedom: the pooled within-stratum variance's effective ones
    (:func:`lib.sampling.walk.pooled_dof`), else the pairs less one; ``inf`` where exact or where the standard
    error is the rule of three's bound (its ``± 1.96`` standard errors are that bound), ``nan`` where the
    standard error is.
    """
    m = uses.shape[1]
    out = np.sqrt(variances)
    dof = np.zeros(out.shape)
    moves = differ.any(axis=1)                                             # (n, d): differs from some b
    pair_means = walk_means.mean(axis=2)
    for i in range(len(out)):
        means = pair_means[i, valid[i]]
        if q == 1 and covered[i] and uses[i].sum() > m:
            b = bg_idx[i, valid[i], 0]
            dev = walk_means[i, valid[i], 0] - _stratified_mean(walk_means[i, valid[i], 0], b, uses[i])[b]
            pooled = (dev**2).sum(axis=0) / (len(b) - m)
            floor = agreement_floor(dev, len(b) - m, 1.0, moves[i])
            measured = np.sqrt(pooled * (1.0 / uses[i]).sum() / m**2)
            dof[i] = np.where(floor > measured, np.inf, pooled_dof(dev, b))     # inf: the rule of three's bound
            out[i] = np.maximum(measured, floor)
        else:
            floor = agreement_floor(means - means.mean(axis=0), len(means) - 1, 1.0, moves[i])
            dof[i] = np.where(floor > out[i], np.inf, len(means) - 1)
            out[i] = np.maximum(out[i], floor)
    out[valid.sum(axis=1) < 2] = np.nan
    out[exact] = 0.0
    dof[np.isnan(out)] = np.nan
    dof[out == 0.0] = np.inf
    return out, dof


def _stratified_mean(pair_means: np.ndarray, strata: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The mean of the pair means of each stratum ``(m, d[, k])``, ``strata[p]`` the stratum of pair ``p``
    and ``counts`` the pairs of each (zero for a stratum without pairs)."""
    sums = np.zeros((len(counts),) + pair_means.shape[1:])
    np.add.at(sums, strata, pair_means)
    return sums / np.maximum(counts, 1)[(...,) + (None,) * (pair_means.ndim - 1)]


@register("antithetic", options=AntitheticOptions, minimum_rows=_least_rows,
          needs="one pair of walks, 2 (d - 1) rows per background row of the pair")
def antithetic(game: Game, budget: int, rng: np.random.Generator, options: AntitheticOptions) -> ShapleyResult:
    """Antithetic permutation-sampling estimates of interventional Shapley values.

    Book: :ref:`eq-found-shapley-perm` (notebooks/00-foundations/01-shapley-values.ipynb).

    For each explained row, random orderings ``π`` of the features; each is walked forwards
    (``π``) and backwards (its reverse) against ``background_per_pair`` background rows drawn
    without replacement from a shuffled, cycled background (stratified).  A walk from
    background row ``b`` to ``x`` records, for the feature added at each step, the model's
    change ``f(x_{S ∪ i}, b_{-S-i}) - f(x_S, b_{-S})``; the estimate of ``φ_i`` is the mean
    over all walks, post-stratified by background row (the mean over ``b`` of the mean of
    ``b``'s walks) once the walks of a row have met every background row.  Mitchell et al. (2022),
    "Sampling permutations for Shapley value estimation", JMLR 23(43): antithetic sampling, their
    §4; the walk is Castro et al. (2009).  See the module docstring.

    The budget (model rows per explained row, counting ``f(x)`` and the ``m`` background rows as
    if the row were explained alone): pairs are taken, in their random order, while the rows they
    need fit (at most ``(budget - 1 - m) // 2``), or exactly ``options.n_pairs``.  Rows that a walk
    leaves unchanged (``x`` and ``b`` agree on the feature switched, :attr:`lib.games.Game.differ`)
    are not evaluated: :func:`walk_rows`.  With continuous data the cost is :func:`antithetic_rows`.

    Returns
    -------
    ShapleyResult
        ``values`` ``(n, d)`` or ``(n, d, k)``; ``variances``: the sample variance of the pair
        means divided by their number (that of the plain mean: an upper bound for the
        post-stratified one when the background rows' games differ) (zero with a single pair: no
        estimate); ``standard_errors``: those of the returned values (:func:`_standard_errors`: for
        the post-stratified estimate, from the spread within the background rows' walks; ``nan`` with a
        single pair); ``degrees_of_freedom``: theirs (:func:`lib.sampling.walk.pooled_dof`), which
        :meth:`lib.result.ShapleyResult.interval` reads; ``n_samples``: ``2 * pairs * background_per_pair``
        walks per feature; base values exact (the mean of ``f`` over the whole background).
    """
    X = game.X
    n, d, m = game.n, game.d, game.m
    q = int(options.background_per_pair)
    n_pairs = options.n_pairs
    max_rows = None if n_pairs is not None else budget

    outputs = game.outputs
    f_bg = game.background_outputs
    k_shape = outputs.shape[1:]

    # the most pairs a row can take: n_pairs, or (max_rows) one per two rows of the budget, and
    # no more than one pass through the background when every walk is free
    P = int(n_pairs) if n_pairs is not None else max(1, (int(max_rows) - 1 - m) // 2)
    differ_ib = game.differ                                                 # (n, m, d)
    if n_pairs is None and not walk_rows(differ_ib.sum(axis=2)).any():
        P = min(P, -(-m // q))  # every walk is free: one pass through the background is exact
    # Random orderings: perm[i, t] lists the features in order; rank[i, t, j] = position of j.
    perm = np.argsort(rng.random((n, P, d)), axis=-1)
    # Stratified background rows: a fresh shuffle of the background, cycled, per explained row.
    reps = -(-P * q // m)
    bg_idx = np.stack([np.concatenate([rng.permutation(m) for _ in range(reps)])[: P * q]
                       for _ in range(n)]).reshape(n, P, q)
    differ = differ_ib[np.arange(n)[:, None, None], bg_idx]                # (n, P, q, d)
    cost = 2 * walk_rows(differ.sum(axis=-1)).sum(axis=-1)                 # (n, P) rows per pair
    if max_rows is not None:
        taken = np.maximum(1, (np.cumsum(cost, axis=1) <= max_rows - 1 - m).sum(axis=1))
    else:
        taken = np.full(n, P)
        paid = 1 + m + cost.sum(axis=1)
        if np.any(paid > budget):
            raise ValueError(f"n_pairs={P} needs up to {int(paid.max())} model rows per explained row here; "
                             f"max_rows={budget} cannot pay for them: raise max_rows or lower n_pairs")
    valid = np.arange(P)[None, :] < taken[:, None]                          # (n, P)

    # the pairs of walks (lib.sampling.walk), every pair against its q background rows
    flat_rows = np.broadcast_to(np.arange(n)[:, None, None], (n, P, q)).reshape(-1)
    flat_perm = np.broadcast_to(perm[:, :, None], (n, P, q, d)).reshape(-1, d)
    flat_active = np.broadcast_to(valid[:, :, None], (n, P, q)).reshape(-1)
    walk_means = pair_walks(game, flat_rows, bg_idx.reshape(-1), flat_perm, flat_active)
    walk_means = walk_means.reshape((n, P, q, d) + k_shape)                # (n, P, q, d, ...): both walks
    pair_means = walk_means.mean(axis=2)                                   # (n, P, d, ...)
    w = valid[(...,) + (None,) * (1 + len(k_shape))]
    cnt = taken[(slice(None),) + (None,) * (1 + len(k_shape))].astype(float)
    plain = np.where(w, pair_means, 0.0).sum(axis=1) / cnt
    # post-stratified by background row: the mean over b of the mean of b's walks, for the rows
    # whose walks met every background row (then unbiased, exact on additive games, efficient)
    flat = (np.arange(n)[:, None, None] * m + bg_idx)[np.broadcast_to(valid[:, :, None], bg_idx.shape)]
    per_b = np.zeros((n * m,) + walk_means.shape[3:])
    np.add.at(per_b, flat, walk_means[np.broadcast_to(valid[:, :, None], bg_idx.shape)])
    uses = np.bincount(flat, minlength=n * m).reshape(n, m)
    covered = (uses > 0).all(axis=1)
    stratified = (per_b.reshape((n, m) + walk_means.shape[3:])
                  / np.maximum(uses, 1)[(...,) + (None,) * (1 + len(k_shape))]).mean(axis=1)
    values = np.where(covered[(...,) + (None,) * (1 + len(k_shape))], stratified, plain)
    dev = np.where(w, pair_means - plain[:, None], 0.0)
    variances = np.where(cnt > 1, (dev**2).sum(axis=1) / np.maximum(cnt - 1, 1) / cnt, 0.0)
    exact = covered & ~walk_rows(differ_ib.sum(axis=2)).any(axis=1)        # every walk free: exact values
    standard_errors, dof = _standard_errors(walk_means, bg_idx, valid, uses, covered, variances, q, exact, differ_ib)
    base = np.broadcast_to(f_bg.mean(axis=0), outputs.shape).copy()
    return ShapleyResult(
        values=values,
        base_values=base,
        outputs=outputs,
        data=X,
        feature_names=game.feature_names,
        output_names=game.output_names,
        variances=variances,
        standard_errors=standard_errors,
        n_samples=np.repeat((2 * q * taken)[:, None], d, axis=1).astype(np.int64),
        method="antithetic-permutation",
        degrees_of_freedom=dof,
    )
