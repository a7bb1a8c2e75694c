"""The walk the samplers share: an ordering and its reverse, walked from a background row to ``x``.

Book: :ref:`eq-found-shapley-perm` (notebooks/00-foundations/01-shapley-values.ipynb).

Along an ordering ``π`` of the features, the features are switched from a background row ``b`` to
the instance ``x`` one at a time, and the ``d + 1`` model rows of the walk give the marginal
contribution ``f(x_{S ∪ i}, b_{-S-i}) - f(x_S, b_{-S})`` of *every* feature at once (Castro, Gómez &
Tejada, 2009).  Each ordering is walked forwards and then backwards (the reversed ordering, the same
background row): *antithetic* sampling, Mitchell, Cooper, Frank & Holmes (2022), §4.  A step that
switches a feature on which ``x`` and ``b`` agree leaves the row unchanged and is not evaluated (its
contribution is 0), nor is a row equal to ``x`` (``f(x)`` is known) or to ``b``: a walk costs
``D - 1`` model rows, ``D`` the number of features on which the rows differ (:func:`walk_rows`).

:func:`pair_walks` is the one implementation, used by :mod:`lib.sampling.antithetic` and
:mod:`lib.sampling.strata` (and by any estimator that walks).
"""

from __future__ import annotations

import hashlib

import numpy as np

from lib.games import Game

__all__ = ["AGREEMENT", "BOOTSTRAP_LEVELS", "BOOTSTRAP_MIN_DRAWS", "BOOTSTRAP_RESAMPLES", "agreement_floor",
           "bootstrap_t", "pair_walks", "pooled_dof", "walk_rows", "walk_values"]

#: Draws of a value count as agreeing when they spread by at most this share of the largest deviation of
#: any value of the row (rounding of the means, never a contribution: 1e-12 relative)
AGREEMENT = 1e-12
#: The rule of three: an event not seen in ``N`` independent draws has probability at most
#: ``-ln(0.05) / N`` (about ``3 / N``) at 95 % confidence
_RULE_OF_THREE = -np.log(0.05)
#: The standard normal 97.5 % quantile: a floor ``s`` gives the nominal 95 % interval ``± 1.96 s``
_Z95 = 1.959963984540054
#: The levels whose bootstrap-t quantiles a sampled result keeps (:attr:`lib.result.ShapleyResult.bootstrap_quantiles`):
#: :meth:`lib.result.ShapleyResult.interval` at another level takes Student's t
BOOTSTRAP_LEVELS = (0.8, 0.9, 0.95, 0.99)
#: Resamples of :func:`bootstrap_t` (999: the 2.5 % and 97.5 % quantiles fall on the 25th and 975th)
BOOTSTRAP_RESAMPLES = 999
#: The fewest draws in every stratum for :func:`bootstrap_t`: with ``n`` draws a stratum's resample repeats one
#: draw ``n`` times with probability ``n^(1 - n)`` (1 in 625 at 5), a studentized value with no spread
BOOTSTRAP_MIN_DRAWS = 5



def walk_rows(n_differing: np.typing.ArrayLike) -> np.ndarray:
    """New model rows of one walk from ``b`` to ``x`` that differ on ``D`` features: ``max(D - 1, 0)``.

    The walk's row changes only when a differing feature is switched; its ``D + 1`` distinct
    states include ``b`` and ``x`` themselves, whose values are known.
    """
    D = np.asarray(n_differing)
    if np.any(D < 0):
        raise ValueError("the number of differing features must be >= 0")
    return np.maximum(D - 1, 0)


def agreement_floor(deviations: np.ndarray, draws: int, share: float = 1.0,
                    moves: np.ndarray | None = None, scale: float | None = None) -> np.ndarray:
    """The least standard error of values whose draws all agreed: the rule of three, per value.

    Book: :ref:`found-est-coverage` (notebooks/00-foundations/03-estimators.ipynb).

    ``deviations`` ``(P, d[, k])``: the draws (pairs of walks) of one explained row, each less the mean
    its value is estimated by (its stratum's mean, or the plain mean); ``draws``: the independent
    comparisons they make, ``N`` (the degrees of freedom of the variance they give: the pairs less the
    strata, or less one).  A value whose draws all agree has a measured spread of 0, yet it need not be exact: a feature that changes the model's output
    only in rare coalitions gives the same contribution in every draw until one of them hits such a
    coalition (a gradient boosting's rarely used feature: exact value 0.007, every one of 50 pairs 0).
    Not seeing an event in ``N`` draws bounds its probability by ``-ln(0.05) / N ≈ 3 / N`` at 95 %; a draw
    that hits it moves the contribution by no more than the largest deviation ``R`` the row's draws
    showed on any value (an assumption: the row's own scale), so the value is off by at most
    ``3 R / N``, times ``share``, the weight of the walked strata in the value.  Returned as a standard
    error, ``3 R share / (1.96 N)``, so that the nominal 95 % interval ``± 1.96 s`` is that bound, for
    the values whose draws agree (spread at most :data:`AGREEMENT` ``R``), 0 for the others.  It falls
    as ``1 / N``, faster than a measured standard error, so a tolerance is still met.  Where no value of
    the row moved at all (``R = 0``: an additive game, whose pairs are exact per background row), it is 0.
    ``moves`` ``(d,)``: the features that differ between ``x`` and at least one background row the draws
    stand for; the others are null players of every such row's game, their contributions 0 by the rows
    alone, not by the draws' luck, and their floor is 0 (default: every feature moves).  ``scale``: the
    largest deviation ``R`` to bound by, where the draws are of a residual whose own deviations say nothing of
    the game's scale (:mod:`lib.sampling.control`: a surrogate that takes every interaction the walks met
    leaves residual draws that all agree, exact or not); default, the draws' own.
    """
    dev = np.abs(np.asarray(deviations, dtype=float))
    n = int(draws)
    if n <= 0 or dev.shape[0] == 0:
        return np.zeros(dev.shape[1:])
    spread = dev.max(axis=0)
    largest = float(spread.max()) if scale is None else float(scale)
    if largest == 0.0:
        return np.zeros(dev.shape[1:])
    floor = _RULE_OF_THREE * largest * float(share) / (_Z95 * n)
    agreed = spread <= AGREEMENT * largest
    if moves is not None:
        agreed &= np.asarray(moves, dtype=bool).reshape((-1,) + (1,) * (agreed.ndim - 1))
    return np.where(agreed, floor, 0.0)


def pooled_dof(deviations: np.ndarray, strata: np.ndarray | None = None) -> np.ndarray:
    """The effective degrees of freedom of a pooled within-stratum variance, per value (Satterthwaite).

    Book: :ref:`found-est-coverage` (notebooks/00-foundations/03-estimators.ipynb).

    ``deviations`` ``(P, d[, k])``: the draws of one explained row, each less its stratum's mean;
    ``strata`` ``(P,)``: the stratum of each draw (default: one stratum, the plain mean).  The pooled variance
    ``s² = Σ_b SS_b / Σ_b ν_b`` (``SS_b`` the squared deviations of stratum ``b``, ``ν_b = n_b - 1``) has
    ``Σ_b ν_b`` degrees of freedom only when the strata share one variance.  When they do not (a background
    row far from ``x`` moves the contributions much more than one close to it), ``s²`` rests on the few
    strata that carry the spread, and its own variance, ``2 Σ_b ν_b σ_b⁴ / (Σ_b ν_b)²`` for normal draws, is
    that of a chi-square with Satterthwaite's (1946) ``ν = (Σ_b ν_b σ_b²)² / Σ_b ν_b σ_b⁴`` degrees of
    freedom, estimated with ``σ_b² = SS_b / ν_b``: ``ν = (Σ_b SS_b)² / Σ_b (SS_b² / ν_b)``, between the
    smallest ``ν_b`` of a stratum that spreads and ``Σ_b ν_b`` (which it is for one stratum, ``P - 1``, and
    where no value spreads).  The nominal 95 % interval of a value is then ``± t_{ν, 0.975}`` standard errors
    (:meth:`lib.result.ShapleyResult.interval`), wider than ``± 1.96`` where few strata carry the spread: a
    few pairs in each of many strata, the small budgets (the estimators page measures the coverage of both).
    """
    dev = np.asarray(deviations, dtype=float)
    if dev.shape[0] == 0:
        return np.zeros(dev.shape[1:])
    labels = np.zeros(dev.shape[0], dtype=np.int64) if strata is None else np.asarray(strata).reshape(-1)
    _, labels = np.unique(labels, return_inverse=True)
    counts = np.bincount(labels)
    ss = np.zeros((len(counts),) + dev.shape[1:])
    np.add.at(ss, labels, dev**2)
    nu = (counts - 1).astype(float)
    nominal = float(nu.sum())
    nu_b = nu.reshape((-1,) + (1,) * (dev.ndim - 1))
    denominator = np.where(nu_b > 0, ss**2 / np.maximum(nu_b, 1.0), 0.0).sum(axis=0)
    total = ss.sum(axis=0)
    spread = denominator > 0
    return np.where(spread, total**2 / np.where(spread, denominator, 1.0), nominal)


def bootstrap_t(draws: np.ndarray, strata: np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES,
                levels: tuple[float, ...] = BOOTSTRAP_LEVELS) -> np.ndarray:
    """The quantiles of the studentized stratified mean over resamples of its draws: the bootstrap-t.

    Book: :ref:`found-est-coverage` (notebooks/00-foundations/03-estimators.ipynb).

    ``draws`` ``(P, d[, k])``: the draws of one explained row (pairs of walks), ``strata`` ``(P,)`` the stratum
    of each.  The estimate is the mean over strata of their draws' means (plus what is known exactly), its
    standard error ``sqrt(s² Σ_b 1/n_b)`` up to a constant, ``s²`` the pooled within-stratum variance
    (:func:`pooled_dof`).  Each resample draws ``n_b`` of stratum ``b``'s draws with replacement, in every
    stratum, and gives ``T* = Σ_b (mean_b* - mean_b) / sqrt(s²* Σ_b 1/n_b)``; the result holds, per value, the
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of ``T*`` over ``resamples`` resamples for each of
    ``levels``: ``(d[, k], len(levels), 2)``, and the interval at ``level`` is
    ``[value - q_high se, value - q_low se]`` (:meth:`lib.result.ShapleyResult.interval`; Efron & Tibshirani,
    1993, §12.5).  Unlike ``± t se``, it is not symmetric: where the draws are skewed (most small, a few
    large), a run's mean and its spread move together (their covariance is ``μ_3 / n``), the runs low on a
    value are sure of themselves, and ``T*`` has a long lower tail, which widens the interval upwards.

    ``nan`` where a value's resamples do not say: a stratum with fewer than :data:`BOOTSTRAP_MIN_DRAWS` draws
    (then every value), or a value with a finite ``T*`` in under 90 % of the resamples (no spread: exact, or a
    rule-of-three bound).  The resamples are seeded by the draws themselves (their bytes), so the estimator's
    random stream is untouched and the interval is a function of the draws.
    """
    x = np.asarray(draws, dtype=float)
    _, labels = np.unique(np.asarray(strata).reshape(-1), return_inverse=True)
    counts = np.bincount(labels)
    out = np.full(x.shape[1:] + (len(levels), 2), np.nan)
    if x.shape[0] == 0 or counts.min() < BOOTSTRAP_MIN_DRAWS:
        return out
    flat = x.reshape(x.shape[0], -1)
    digest = hashlib.blake2b(np.ascontiguousarray(flat).tobytes() + labels.astype(np.int64).tobytes(), digest_size=8)
    rng = np.random.default_rng(int.from_bytes(digest.digest(), "little"))
    shift = np.zeros((resamples, flat.shape[1]))
    squares = np.zeros((resamples, flat.shape[1]))
    for b, n in enumerate(counts):
        y = flat[labels == b]
        y = y - y.mean(axis=0)                                                # deviations from the stratum's mean
        w = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples) / n       # (resamples, n)
        mean = w @ y
        shift += mean
        squares += np.maximum(n * (w @ y**2 - mean**2), 0.0)
    pooled = squares / (x.shape[0] - len(counts))
    scale = np.sqrt(pooled * (1.0 / counts).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        T = np.where(scale > 0.0, shift / scale, np.nan)
    finite = np.isfinite(T)
    enough = finite.mean(axis=0) >= 0.9
    tails = np.array([[(1.0 - level) / 2.0, (1.0 + level) / 2.0] for level in levels]).reshape(-1)
    q = np.full((len(tails), flat.shape[1]), np.nan)
    whole = enough & finite.all(axis=0)                   # the usual case: one vectorised quantile
    if whole.any():
        q[:, whole] = np.quantile(T[:, whole], tails, axis=0)
    for j in np.flatnonzero(enough & ~whole):             # a few resamples without spread: theirs left out
        q[:, j] = np.quantile(T[finite[:, j], j], tails)
    out[...] = np.moveaxis(q.reshape(len(levels), 2, flat.shape[1]), -1, 0).reshape(out.shape)
    return out


def walk_values(game: Game, rows: np.ndarray, donors: np.ndarray, perm: np.ndarray,
                active: np.ndarray | None = None) -> np.ndarray:
    """The model's value after each step of each pair's two walks: ``(N, 2, d + 1[, k])``.

    Pair ``p`` walks ``perm[p]`` (an ordering of the ``d`` features; walk 0) and its reverse (walk 1)
    from ``game.background[donors[p]]`` (step 0) to ``game.X[rows[p]]`` (step ``d``).  ``active``
    (``(N,)`` booleans, default all): pairs that are not active are not evaluated (their values are not
    meaningful).  The model rows are asked for in the order of the pairs, then of the two walks, then
    of the steps, in calls of at most ``game.max_rows_per_call`` rows; a step that switches a feature on
    which the rows agree repeats the previous value, and the steps after the last differing feature are
    ``f(x)``, none of them evaluated.
    """
    rows, donors, perm = np.asarray(rows), np.asarray(donors), np.asarray(perm)
    N, d = perm.shape
    k_shape = game.outputs.shape[1:]
    kx = (None,) * len(k_shape)
    order = np.stack([perm, perm[:, ::-1]], axis=1)                          # (N, 2, d): feature at step
    rank = np.argsort(order, axis=-1)                                        # (N, 2, d): step of feature
    diff = game.differ[rows, donors]                                         # (N, d)
    dord = np.take_along_axis(diff[:, None, :], order, axis=-1)              # (N, 2, d)
    remaining = dord.sum(axis=-1, keepdims=True) - np.cumsum(dord, axis=-1)  # differing still off after step
    need = dord[..., : d - 1] & (remaining[..., : d - 1] > 0)                # (N, 2, d - 1)
    if active is not None:
        need &= np.asarray(active, dtype=bool)[:, None, None]
    pp, ww, tt = np.nonzero(need)
    step = np.zeros((N, 2, max(d - 1, 0)) + k_shape)
    for start in range(0, len(pp), game.max_rows_per_call):
        sl = slice(start, start + game.max_rows_per_call)
        masks = rank[pp[sl], ww[sl]] <= tt[sl, None]
        step[pp[sl], ww[sl], tt[sl]] = game.evaluate(rows[pp[sl]], masks, donors[pp[sl]])
    # the value after each step: evaluated where needed; f(x) once no differing feature is left;
    # else the previous value (f(b) before the first differing feature)
    vals = np.empty((N, 2, d + 1) + k_shape)
    vals[:, :, 0] = game.background_outputs[donors][:, None]
    fx = game.outputs[rows][:, None]
    for t in range(1, d + 1):
        if t < d:
            here = need[:, :, t - 1][(...,) + kx]
            done = (remaining[:, :, t - 1] == 0)[(...,) + kx]
            vals[:, :, t] = np.where(here, step[:, :, t - 1], np.where(done, fx, vals[:, :, t - 1]))
        else:
            vals[:, :, t] = fx
    return vals


def pair_walks(game: Game, rows: np.ndarray, donors: np.ndarray, perm: np.ndarray,
               active: np.ndarray | None = None) -> np.ndarray:
    """The mean of the two walks' marginal contributions of each pair: ``(N, d[, k])``.

    Book: :ref:`eq-found-shapley-perm` (notebooks/00-foundations/01-shapley-values.ipynb).

    Pair ``p`` walks ``perm[p]`` (an ordering of the ``d`` features) and its reverse from
    ``game.background[donors[p]]`` to ``game.X[rows[p]]``.  ``active`` (``(N,)`` booleans, default
    all): pairs that are not active are not evaluated (their values are not meaningful).  The model
    rows are asked for in the order of the pairs, then of the two walks, then of the steps, in calls
    of at most ``game.max_rows_per_call`` rows (:func:`walk_values`).
    """
    perm = np.asarray(perm)
    vals = walk_values(game, rows, donors, perm, active)
    k_shape = vals.shape[3:]
    kx = (None,) * len(k_shape)
    rank = np.argsort(np.stack([perm, perm[:, ::-1]], axis=1), axis=-1)      # (N, 2, d): step of feature
    gain = np.diff(vals, axis=2)                                             # (N, 2, d[, k]) by step
    idx = np.broadcast_to(rank[(...,) + kx], gain.shape)
    return np.take_along_axis(gain, idx, axis=2).mean(axis=1)               # (N, d[, k]) by feature
