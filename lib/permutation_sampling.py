"""Antithetic permutation sampling: the book's default estimator of Shapley values past exact.

Book: :ref:`eq-found-shapley-perm` (notebooks/00-foundations/01-shapley-values.ipynb).

The Shapley value is the mean marginal contribution over the ``d!`` orderings of the
features (book eq. ``eq-found-shapley-perm``).  :func:`antithetic_shapley` estimates it by
*walking* sampled orderings: along an ordering ``π`` the features are switched from a
background row ``b`` to the instance ``x`` one at a time, and the ``d + 1`` model rows of the
walk give the marginal contribution of *every* feature at once (Castro, Gómez & Tejada, 2009,
"Polynomial calculation of the Shapley value based on sampling", Comput. Oper. Res. 36:1726).
Each ordering is walked forwards and then backwards (the reversed ordering, the same
background row): *antithetic* sampling, Mitchell, Cooper, Frank & Holmes (2022), "Sampling
permutations for Shapley value estimation", JMLR 23(43), §4 and Algorithm 1 with
``π`` and its reverse.  The background rows are drawn *stratified*: each explained row goes
through a fresh shuffle of the background, so after every ``m / background_per_pair``
pairs each background row has served equally often.

What that buys, against :func:`lib.shapley.sample_shapley` (Štrumbelj & Kononenko's
Algorithm 1: one random ordering and one background row for *one* feature, two model rows)
at the same number of model rows:

* each walk costs ``d - 1`` new rows and yields one marginal contribution for each of the
  ``d`` features, about ``2 d / (d - 1)`` times as many samples per feature;
* a walk's contributions add up to ``f(x) - f(b)`` (they telescope), so the estimate is
  efficient up to the background rows' sampling, and exactly efficient once every background
  row has served equally often (``n_pairs * background_per_pair`` a multiple of ``m``);
* a pair (``π`` and its reverse) gives each pair of features ``i, j`` the interaction term
  once with ``i`` before ``j`` and once after: on a game with interactions of order at most
  two the pair is exact for its background row (Mitchell et al., 2022, §4.1), and on an
  additive game every walk is.

The estimate is unbiased for the interventional Shapley value of
:func:`lib.shapley.exact_shapley` with the same background (each walk, marginally, is a
uniform ordering and a uniform background row).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lib.shapley import ShapleyResult, check_inputs, mix_rows

__all__ = ["antithetic_rows", "antithetic_shapley", "pairs_for_budget"]


def antithetic_rows(n_pairs: int, d: int, *, n: int = 1, m: int = 1, background_per_pair: int = 1) -> int:
    """Model rows :func:`antithetic_shapley` evaluates: ``2 n q n_pairs (d - 1) + n + m``.

    Two walks per pair, ``d - 1`` intermediate rows per walk and per background row
    (``q = background_per_pair``); ``f(x)`` once per explained row and ``f(b)`` once per
    background row (the base value, exact).
    """
    if n_pairs < 1 or d < 1 or n < 1 or m < 1 or background_per_pair < 1:
        raise ValueError("n_pairs, d, n, m and background_per_pair must all be >= 1")
    return 2 * n * background_per_pair * n_pairs * (d - 1) + n + m


def pairs_for_budget(budget: int, d: int, *, m: int = 1, background_per_pair: int = 1) -> int:
    """The largest ``n_pairs`` whose cost for one explained row stays within ``budget`` rows
    (at least 1): the inverse of :func:`antithetic_rows`."""
    if budget < 1 or d < 1 or m < 1 or background_per_pair < 1:
        raise ValueError("budget, d, m and background_per_pair must all be >= 1")
    per_pair = 2 * background_per_pair * max(d - 1, 0)
    if per_pair == 0:
        return 1
    return max(1, (budget - 1 - m) // per_pair)


def _check_output(out: np.ndarray, n_rows: int) -> np.ndarray:
    out = np.asarray(out, dtype=float)
    if out.ndim == 0 or out.shape[0] != n_rows or out.ndim > 2:
        raise ValueError(
            f"the model must map {n_rows} rows to an array of shape ({n_rows},) or ({n_rows}, k); "
            f"it returned shape {out.shape}"
        )
    if not np.all(np.isfinite(out)):
        raise ValueError("the model returned NaN or infinite outputs; explain a finite output")
    return out


def _hybrid(X, background, inst: np.ndarray, bg: np.ndarray, keep: np.ndarray):
    """Row ``r`` takes ``X[inst[r]]`` where ``keep[r]`` and ``background[bg[r]]`` elsewhere."""
    if isinstance(X, pd.DataFrame):
        return mix_rows(X.iloc[inst].reset_index(drop=True), background.iloc[bg].reset_index(drop=True), keep)
    return np.where(keep, X[inst], background[bg])


def antithetic_shapley(
    f,
    X,
    background,
    *,
    n_pairs: int,
    rng: np.random.Generator,
    background_per_pair: int = 1,
    max_rows_per_call: int = 2**16,
    feature_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    allow_nan: bool = False,
) -> ShapleyResult:
    """Antithetic permutation-sampling estimates of interventional Shapley values.

    Book: :ref:`eq-found-shapley-perm` (notebooks/00-foundations/01-shapley-values.ipynb).

    For each explained row, ``n_pairs`` random orderings ``π`` of the features; each is
    walked forwards (``π``) and backwards (its reverse) against ``background_per_pair``
    background rows drawn without replacement from a shuffled, cycled background
    (stratified).  A walk from background row ``b`` to ``x`` records, for the feature added
    at each step, the model's change ``f(x_{S ∪ i}, b_{-S-i}) - f(x_S, b_{-S})``; the
    estimate of ``φ_i`` is the mean over all walks.  Mitchell et al. (2022), "Sampling
    permutations for Shapley value estimation", JMLR 23(43): antithetic sampling, their
    §4; the walk is Castro et al. (2009).  See the module docstring.

    Cost: exactly :func:`antithetic_rows` ``(n_pairs, d, n=n, m=m, background_per_pair)``
    model rows (:class:`lib.shapley.CountingModel` counts them), in calls of at most about
    ``max_rows_per_call`` rows.

    Returns
    -------
    ShapleyResult
        ``values`` ``(n, d)`` or ``(n, d, k)``; ``variances``: the sample variance of the
        ``n_pairs`` pair means divided by ``n_pairs`` (zero with a single pair: no estimate);
        ``n_samples``: ``2 * n_pairs * background_per_pair`` walks per feature; base values
        exact (the mean of ``f`` over the whole background).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. np.random.default_rng(0)")
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, (int, np.integer)) or n_pairs < 1:
        raise ValueError(f"n_pairs must be an integer >= 1, got {n_pairs!r}")
    if (isinstance(background_per_pair, bool) or not isinstance(background_per_pair, (int, np.integer))
            or background_per_pair < 1):
        raise ValueError(f"background_per_pair must be an integer >= 1, got {background_per_pair!r}")
    if max_rows_per_call < 1:
        raise ValueError("max_rows_per_call must be >= 1")
    X, background = check_inputs(X, background, allow_nan)
    n, d = X.shape
    m = background.shape[0]
    q = int(background_per_pair)
    P = int(n_pairs)

    outputs = _check_output(f(X), n)
    f_bg = _check_output(f(background), m)
    if f_bg.shape[1:] != outputs.shape[1:]:
        raise ValueError("the model returned a different number of outputs between calls")
    k_shape = outputs.shape[1:]

    # Random orderings as ranks: rank[i, t, j] = position of feature j in ordering t of row i.
    ranks = np.argsort(np.argsort(rng.random((n, P, d)), axis=-1), axis=-1)
    # Stratified background rows: a fresh shuffle of the background, cycled, per explained row.
    reps = -(-P * q // m)
    order = np.stack([np.concatenate([rng.permutation(m) for _ in range(reps)])[: P * q] for _ in range(n)])
    bg_idx = order.reshape(n, P, q)

    steps = np.arange(1, d)  # coalition sizes strictly between empty and full
    per_pair_rows = 2 * q * (d - 1)
    pairs_per_call = max(1, max_rows_per_call // max(per_pair_rows, 1))
    # walks[i, t, s, w, p]: model value after p features of walk w (0 forward, 1 backward)
    walks = np.empty((n, P, q, 2, d + 1) + k_shape)
    walks[:, :, :, :, 0] = f_bg[bg_idx][:, :, :, None]
    walks[:, :, :, :, d] = outputs[:, None, None, None]
    if d > 1:
        flat_pairs = n * P
        for start in range(0, flat_pairs, pairs_per_call):
            stop = min(flat_pairs, start + pairs_per_call)
            i_idx, t_idx = np.divmod(np.arange(start, stop), P)
            r = ranks[i_idx, t_idx]                                        # (c, d)
            fwd = r[:, None, :] < steps[None, :, None]                     # (c, d-1, d): first p in π
            bwd = r[:, None, :] >= (d - steps)[None, :, None]              # last p in π
            keep = np.stack([fwd, bwd], axis=1)                            # (c, 2, d-1, d)
            c = len(i_idx)
            keep = np.broadcast_to(keep[:, None], (c, q, 2, d - 1, d)).reshape(-1, d)
            inst = np.repeat(i_idx, q * 2 * (d - 1))
            bg = np.repeat(bg_idx[i_idx, t_idx].reshape(-1), 2 * (d - 1))
            out = _check_output(f(_hybrid(X, background, inst, bg, keep)), len(inst))
            if out.shape[1:] != k_shape:
                raise ValueError("the model returned a different number of outputs between calls")
            walks[i_idx, t_idx, :, :, 1:d] = out.reshape((c, q, 2, d - 1) + k_shape)
    steps_gain = np.diff(walks, axis=4)                                    # (n, P, q, 2, d, ...)
    # Forward walk: step p adds the feature of rank p; backward: step p adds rank d-1-p.
    pos_fwd = ranks
    pos_bwd = d - 1 - ranks
    idx_f = np.broadcast_to(pos_fwd[:, :, None, :][(...,) + (None,) * len(k_shape)],
                            (n, P, q, d) + k_shape)
    idx_b = np.broadcast_to(pos_bwd[:, :, None, :][(...,) + (None,) * len(k_shape)],
                            (n, P, q, d) + k_shape)
    contrib_f = np.take_along_axis(steps_gain[:, :, :, 0], idx_f, axis=3)  # by feature
    contrib_b = np.take_along_axis(steps_gain[:, :, :, 1], idx_b, axis=3)
    pair_means = (contrib_f + contrib_b).mean(axis=2) / 2.0               # (n, P, d, ...)
    values = pair_means.mean(axis=1)
    if P > 1:
        variances = pair_means.var(axis=1, ddof=1) / P
    else:
        variances = np.zeros_like(values)
    base = np.broadcast_to(f_bg.mean(axis=0), outputs.shape).copy()
    names = None
    if feature_names is not None:
        names = [str(c) for c in feature_names]
        if len(names) != d:
            raise ValueError(f"{len(names)} feature names for {d} features")
    elif isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
    return ShapleyResult(
        values=values,
        base_values=base,
        outputs=outputs,
        data=X,
        feature_names=names,
        output_names=list(output_names) if output_names is not None else None,
        variances=variances,
        n_samples=np.full((n, d), 2 * P * q, dtype=np.int64),
        method="antithetic-permutation",
    )
