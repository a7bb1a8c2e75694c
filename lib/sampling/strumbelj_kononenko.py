"""Štrumbelj & Kononenko's sampling (2014), ``method="uniform"`` and ``method="variance"``.

Book: :ref:`eq-found-shapley-perm`, :ref:`eq-found-sampling`
    (notebooks/00-foundations/01-shapley-values.ipynb).

One draw for feature ``i``: a random ordering and a random background row ``w``; ``b1`` takes
``x`` on the features preceding ``i`` and on ``i``, ``w`` elsewhere, ``b2`` the same without
``i``; the draw is ``f(b1) - f(b2)`` (two model rows) and the estimate the mean of the draws.

* ``"uniform"``: their Algorithm 1 for every feature with an equal share of the draws (the
  remainder goes to the first features);
* ``"variance"``: their Algorithm 2.  Every feature first gets ``min_samples`` draws; each further
  draw goes to the feature maximising ``σ_i²/m_i − σ_i²/(m_i+1)``, the expected drop in the
  summed squared error, with ``σ_i²`` the running sample variance (for ``k`` outputs, the trace:
  the sum of the ``k`` variances, as in the Shapley-composition paper's Appendix D, Eq. (C17)).
  The draws are allocated ``batch_size`` at a time (default 1, the algorithm as published) with
  the variances frozen during a batch.  ``prior_samples`` (book extension, default 0 = as
  published): the variance the greedy rule uses is shrunk towards the instance's mean over
  features, as if each feature had ``prior_samples`` extra squared deviations at that mean,
  ``σ̃_i² = (Σ(δ - δ̄)² + p σ̄²) / (m_i - 1 + p)``.  With a model whose differences take few
  values (trees), two draws are often equal, the published rule then sees ``σ_i² = 0`` and never
  samples that feature again (it is *starved* at ``min_samples``); the shrinkage fades as ``m_i``
  grows, so the allocation still tends to ``m_i ∝ σ_i``.  The returned ``variances`` are always
  the plain sample variances (divided by the draws' number).

The standard error of each value is the square root of its variance (``nan`` for a feature with a
single draw).  For ``"uniform"`` that is the standard error of a mean of independent draws; for
``"variance"`` it is too small where the greedy rule starved a feature whose first draws happened to
agree (``lib/tests/test_standard_errors.py`` measures both).

A budget of ``max_rows`` model rows per explained row makes ``(max_rows - 1 - m) // 2`` draws:
``f(x)`` once, the ``m`` background rows once (the base value is exact), two rows per draw
(:func:`sampling_rows` is the inverse).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from lib.games import Game
from lib.result import ShapleyResult
from lib.sampling.base import Options, register

__all__ = ["SamplingOptions", "UniformOptions", "VarianceOptions", "sampling_rows", "uniform", "variance"]


@dataclass(frozen=True)
class UniformOptions(Options):
    """Options of ``method="uniform"`` (Algorithm 1, equal shares): none beyond :class:`lib.sampling.Options`."""


@dataclass(frozen=True)
class VarianceOptions(Options):
    """Options of ``method="variance"`` (Algorithm 2): ``min_samples`` draws per feature first
    (default 2), then the greedy rule ``batch_size`` draws at a time (default 1, as published), its
    variances shrunk by ``prior_samples`` (default 0, as published; the module docstring)."""

    min_samples: int = 2
    batch_size: int = 1
    prior_samples: float = 0.0


def sampling_rows(n_samples: int, *, m: int = 1) -> int:
    """Model rows of Štrumbelj & Kononenko's sampler for ``n_samples`` draws of one explained row.

    ``2 n_samples + 1 + m``: two rows per draw, ``f(x)`` once, and the ``m`` background rows once
    (the exact base value), counted as if the row were explained alone, as every budget of
    :func:`lib.sampling.sample_shapley` is (``max_rows``).  Its inverse is how :func:`~lib.sampling.strumbelj_kononenko.uniform` and
    :func:`~lib.sampling.strumbelj_kononenko.variance` turn ``max_rows`` into draws, so ``max_rows=sampling_rows(s, m=m)`` makes
    exactly ``s`` draws.
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"n_samples must be an integer >= 1, got {n_samples!r}")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m (background rows) must be an integer >= 1, got {m!r}")
    return 2 * int(n_samples) + 1 + int(m)


def _one_sample_each(game: Game, inst: np.ndarray, feat: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw of Štrumbelj & Kononenko's Algorithm 1 for each (instance, feature) pair.

    A random permutation is drawn as random priorities ``u``: the features placed
    before ``i`` are those with ``u_j < u_i``.  A random background row ``w`` is drawn;
    ``b1`` takes ``x`` on the features before ``i`` and on ``i``, ``w`` elsewhere;
    ``b2`` takes ``x`` on the features before ``i`` only.  Returns ``f(b1) - f(b2)``,
    shape ``(r,)`` or ``(r, k)``.
    """
    r = len(inst)
    d = game.d
    u = rng.random((r, d))
    before = u < u[np.arange(r), feat][:, None]
    with_i = before.copy()
    with_i[np.arange(r), feat] = True
    w = rng.integers(0, game.m, size=r)
    # b1 and b2 in one call: the hybrid rows of x and w with and without feature i
    out = game.evaluate(np.concatenate([inst, inst]), np.concatenate([with_i, before]), np.concatenate([w, w]))
    return out[:r] - out[r:]



@dataclass(frozen=True)
class SamplingOptions:
    """How Štrumbelj & Kononenko's sampler spends ``n_samples`` draws per explained row.

    The plan :func:`~lib.sampling.strumbelj_kononenko.uniform` and :func:`~lib.sampling.strumbelj_kononenko.variance` make from the budget and their options (the
    module docstring says what each means): ``allocation`` ``"uniform"`` (their Algorithm 1 with equal shares) or ``"variance"``
    (their Algorithm 2: ``min_samples`` each, then the greedy rule of :func:`_greedy_picks`,
    ``batch_size`` at a time, with the book's ``prior_samples`` shrinkage).  A draw costs two model
    rows: :func:`sampling_rows` converts draws to the budget in model rows.
    """

    n_samples: int
    allocation: Literal["variance", "uniform"] = "variance"
    min_samples: int = 2
    batch_size: int = 1
    prior_samples: float = 0.0

    def first_counts(self, d: int) -> np.ndarray:
        """The draws of the fixed first phase, per feature ``(d,)``; checks the options for ``d`` features."""
        if self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if not (np.isfinite(self.prior_samples) and self.prior_samples >= 0):
            raise ValueError(f"prior_samples must be a finite number >= 0, got {self.prior_samples}")
        if self.allocation == "uniform":
            if self.n_samples < d:
                raise ValueError(f"n_samples={self.n_samples} is less than one sample per feature (d={d})")
            counts = np.full(d, self.n_samples // d)
            counts[: self.n_samples % d] += 1
            return counts
        if self.allocation == "variance":
            if self.min_samples < 2:
                raise ValueError("min_samples must be >= 2 so that every feature has a variance estimate")
            if self.n_samples < d * self.min_samples:
                raise ValueError(
                    f"n_samples={self.n_samples} is less than min_samples * d = {self.min_samples} * {d}"
                )
            return np.full(d, self.min_samples)
        raise ValueError(f"allocation must be 'variance' or 'uniform', got {self.allocation!r}")

    def greedy_samples(self, d: int) -> int:
        """The draws per explained row left for the greedy phase (Algorithm 2) after the first."""
        if self.allocation != "variance":
            return 0
        return self.n_samples - int(self.first_counts(d).sum())


@dataclass
class _RunningMoments:
    """Count, mean and summed squared deviations of the draws of each ``(row, feature)`` cell.

    ``counts`` ``(n d,)``; ``mean`` and ``m2`` ``(n d, k)`` (``k = 1`` for one output), the
    cells numbered ``row * d + feature``.
    """

    counts: np.ndarray
    mean: np.ndarray
    m2: np.ndarray

    @classmethod
    def of_draws(cls, cell: np.ndarray, draws: np.ndarray, n_cells: int) -> _RunningMoments:
        """The moments of a first batch of draws, ``draws[r]`` a draw of cell ``cell[r]``."""
        counts = np.bincount(cell, minlength=n_cells).astype(float)
        sums = np.zeros((n_cells, draws.shape[1]))
        np.add.at(sums, cell, draws)
        mean = sums / counts[:, None]
        m2 = np.zeros_like(sums)
        np.add.at(m2, cell, (draws - mean[cell]) ** 2)
        return cls(counts, mean, m2)

    def add(self, cell: np.ndarray, draws: np.ndarray) -> None:
        """Welford's update by one draw in each of the distinct cells ``cell``."""
        self.counts[cell] += 1
        delta = draws - self.mean[cell]
        self.mean[cell] += delta / self.counts[cell][:, None]
        self.m2[cell] += delta * (draws - self.mean[cell])

    def sample_variances(self) -> np.ndarray:
        """The plain sample variance of each cell's draws, ``(n d, k)``."""
        return self.m2 / np.maximum(self.counts[:, None] - 1, 1)


def _greedy_picks(moments: _RunningMoments, n: int, d: int, batch: int, prior_samples: float) -> np.ndarray:
    """The features of the next ``batch`` draws of each row: Štrumbelj & Kononenko's Algorithm 2.

    Each draw goes to the feature maximising ``σ̃_i²/m_i − σ̃_i²/(m_i+1)`` (the trace over
    outputs, the variances frozen during the batch, the counts as planned so far), with
    ``σ̃_i²`` the sample variance shrunk by ``prior_samples`` (the module docstring).
    Returns ``(n, batch)`` feature indices.
    """
    ss = moments.m2.sum(axis=1).reshape(n, d)                  # summed squared deviations
    dof = moments.counts.reshape(n, d) - 1.0
    if prior_samples > 0:
        pooled = (ss / dof).mean(axis=1, keepdims=True)      # the instance's mean variance
        trace = (ss + prior_samples * pooled) / (dof + prior_samples)
    else:
        trace = ss / dof
    planned = moments.counts.reshape(n, d).copy()
    rows_idx = np.arange(n)
    picks = np.empty((n, batch), dtype=np.int64)
    for t in range(batch):
        gain = trace / (planned * (planned + 1.0))
        j = np.argmax(gain, axis=1)
        picks[:, t] = j
        planned[rows_idx, j] += 1
    return picks


def _gains(moments: _RunningMoments, cells: np.ndarray) -> np.ndarray:
    """``σ_i²/m_i − σ_i²/(m_i+1) = σ_i² / (m_i (m_i+1))`` of the ``cells`` (the trace over outputs),
    without shrinkage: :func:`_greedy_picks`'s gain, the same arithmetic."""
    counts = moments.counts[cells]
    return (moments.m2[cells].sum(axis=1) / (counts - 1.0)) / (counts * (counts + 1.0))


def _one_at_a_time(game: Game, moments: _RunningMoments, n: int, d: int, draws: int,
                   rng: np.random.Generator) -> None:
    """Algorithm 2 as published (``batch_size=1``, ``prior_samples=0``): ``draws`` greedy draws per row.

    The same picks, draws and moments as the loop of :func:`_strumbelj_kononenko` with batches of one
    (the same random numbers, taken in the same order, and the same arithmetic): only the gain of
    the cell a draw went to changes, so each row's gains are kept and that one recomputed, instead
    of every cell's at every draw."""
    rows_idx = np.arange(n)
    gain = _gains(moments, np.arange(n * d)).reshape(n, d)
    for _ in range(draws):
        picks = np.argmax(gain, axis=1)
        cells = rows_idx * d + picks
        moments.add(cells, _one_sample_each(game, rows_idx, picks, rng).reshape(n, -1))
        gain[rows_idx, picks] = _gains(moments, cells)


def _least_draws(game: Game, options: Options) -> int:
    if isinstance(options, VarianceOptions):
        return game.d * options.min_samples
    return game.d


def _least_rows(game: Game, options: Options) -> int:
    return sampling_rows(max(_least_draws(game, options), 1), m=game.m)


@register("uniform", options=UniformOptions, minimum_rows=_least_rows, needs="one draw per feature, 2 rows each")
def uniform(game: Game, budget: int, rng: np.random.Generator, options: UniformOptions) -> ShapleyResult:
    """Štrumbelj & Kononenko's Algorithm 1: every feature an equal share of the draws."""
    draws = (budget - 1 - game.m) // 2
    return _strumbelj_kononenko(game, SamplingOptions(draws, "uniform"), rng)


@register("variance", options=VarianceOptions, minimum_rows=_least_rows,
          needs="min_samples draws per feature, 2 rows each")
def variance(game: Game, budget: int, rng: np.random.Generator, options: VarianceOptions) -> ShapleyResult:
    """Štrumbelj & Kononenko's Algorithm 2: the draws allocated greedily by the running variances."""
    if options.min_samples < 2:
        raise ValueError("min_samples must be >= 2 so that every feature has a variance estimate")
    draws = (budget - 1 - game.m) // 2
    return _strumbelj_kononenko(game, SamplingOptions(draws, "variance", options.min_samples, options.batch_size,
                                                      options.prior_samples), rng)


def _strumbelj_kononenko(game: Game, options: SamplingOptions, rng: np.random.Generator) -> ShapleyResult:
    """Štrumbelj & Kononenko's Algorithms 1 and 2 on a game (see the module docstring)."""
    n, d = game.n, game.d
    allocation, batch_size, prior_samples = options.allocation, options.batch_size, options.prior_samples
    first = np.broadcast_to(options.first_counts(d), (n, d))

    # Phase 1: the fixed allocation, all at once.
    inst = np.repeat(np.repeat(np.arange(n), d), first.reshape(-1))
    feat = np.repeat(np.tile(np.arange(d), n), first.reshape(-1))
    diffs = _one_sample_each(game, inst, feat, rng)
    k_shape = diffs.shape[1:]
    moments = _RunningMoments.of_draws((inst * d + feat).astype(np.int64), diffs.reshape(len(diffs), -1), n * d)

    # Phase 2 (Algorithm 2): greedy allocation of the rest, batch_size at a time.
    remaining = options.greedy_samples(d)
    rows_idx = np.arange(n)
    if batch_size == 1 and prior_samples == 0 and remaining > 0:  # as published: _one_at_a_time
        _one_at_a_time(game, moments, n, d, remaining, rng)
        remaining = 0
    while remaining > 0:
        b = min(batch_size, remaining)
        picks = _greedy_picks(moments, n, d, b, prior_samples)
        new = _one_sample_each(game, np.repeat(rows_idx, b), picks.reshape(-1), rng).reshape(n * b, -1)
        for t in range(b):  # one draw at a time per (instance, feature) cell
            moments.add(rows_idx * d + picks[:, t], new[rows_idx * b + t])
        remaining -= b

    values = moments.mean.reshape((n, d) + k_shape)
    sample_var = moments.sample_variances().reshape((n, d) + k_shape)
    cnt = moments.counts.reshape(n, d)
    variances = sample_var / cnt.reshape((n, d) + (1,) * len(k_shape))

    base = game.base_values
    return ShapleyResult(
        values=values,
        base_values=base,
        outputs=game.outputs,
        data=game.X,
        feature_names=game.feature_names,
        output_names=game.output_names,
        variances=variances,
        standard_errors=np.where((cnt < 2).reshape((n, d) + (1,) * len(k_shape)), np.nan, np.sqrt(variances)),
        n_samples=cnt.astype(np.int64),
        method=f"sampling-{allocation}",
        degrees_of_freedom=np.broadcast_to(np.where(cnt < 2, np.nan, cnt - 1.0).reshape((n, d) + (1,) * len(k_shape)),
                                           variances.shape).copy(),
    )
