"""Tests of lib.sampling.antithetic (antithetic permutation sampling, ``method="antithetic"``).

Against exact values by enumeration of the ``2**d`` coalitions (lib.shapley.exact_shapley):
unbiasedness (the mean of many independent estimates), convergence, efficiency once every
background row has served equally often, exactness on games with interactions of order at
most two (Mitchell et al., 2022, §4.1), the null player in every single walk, the cost
counted by a counting model, and the error messages.  No timing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import sampling
from lib import shapley as sh
from lib.counting import CountingModel
from lib.games import Game
from lib.sampling.antithetic import AntitheticOptions, antithetic_rows, pairs_for_budget


def antithetic_shapley(f, X, bg, *, rng, n_pairs=None, max_rows=None, background_per_pair=1, feature_names=None,
                       max_rows_per_call=2**16):
    """The estimator through the registry (:func:`lib.sampling.run`): ``max_rows`` as the budget, or
    ``n_pairs`` pairs as an option with a budget that pays for them whatever x and b share."""
    if (n_pairs is None) == (max_rows is None):
        raise ValueError("give exactly one of n_pairs and max_rows")
    game = Game(f, X, bg, feature_names=feature_names, max_rows_per_call=max_rows_per_call)
    options = AntitheticOptions(background_per_pair=background_per_pair, n_pairs=n_pairs)
    budget = max_rows if max_rows is not None else 1 + game.m + 2 * n_pairs * background_per_pair * max(game.d - 1, 0)
    return sampling.run(game, "antithetic", budget, rng, options)


def _nonlinear(W: np.ndarray):
    """A model with interactions of every order (tanh of linear maps, a triple product)."""

    def f(Z: np.ndarray) -> np.ndarray:
        Z = np.asarray(Z, dtype=float)
        return np.tanh(Z @ W).sum(axis=1) + Z[:, 0] * Z[:, 1] * Z[:, -1]

    return f


@pytest.fixture
def small():
    rng = np.random.default_rng(3)
    d = 4
    return _nonlinear(rng.normal(size=(d, d))), rng.normal(size=(1, d)), rng.normal(size=(3, d))


def test_unbiased_against_enumeration(small):
    f, x, bg = small
    exact = sh.exact_shapley(f, x, bg).values[0]
    reps = 4000  # the same row 4000 times: 4000 independent one-pair estimates in one call
    est = antithetic_shapley(f, np.repeat(x, reps, axis=0), bg, n_pairs=1, rng=np.random.default_rng(0)).values
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(se > 0)  # the game is not of order two: single estimates do vary
    assert np.all(np.abs(mean - exact) < 4 * se), (mean, exact, se)


def test_converges(small):
    f, x, bg = small
    exact = sh.exact_shapley(f, x, bg).values[0]

    def mean_error(pairs: int) -> float:
        errs = [np.linalg.norm(antithetic_shapley(f, x, bg, n_pairs=pairs, rng=np.random.default_rng(s)).values[0]
                               - exact) for s in range(20)]
        return float(np.mean(errs))

    e1, e2, e3 = mean_error(3), mean_error(30), mean_error(300)
    # the error of a mean of n independent pair estimates shrinks like 1/sqrt(n): ~3.2x per 10x
    assert e2 < e1 / 2 and e3 < e2 / 2, (e1, e2, e3)


def test_efficient_once_every_background_row_served():
    rng = np.random.default_rng(5)
    d, m = 6, 4
    f = _nonlinear(rng.normal(size=(d, d)))
    X, bg = rng.normal(size=(3, d)), rng.normal(size=(m, d))
    for pairs, q in [(4, 1), (2, 2), (8, 1), (1, 4), (5, 1), (3, 3)]:  # every row served once or more
        res = antithetic_shapley(f, X, bg, n_pairs=pairs, rng=np.random.default_rng(pairs), background_per_pair=q)
        np.testing.assert_allclose(res.efficiency_gap(), 0.0, atol=1e-12)
    # with too few pairs to serve every background row the sum misses f(x) - E f(b)
    res = antithetic_shapley(f, X, bg, n_pairs=1, rng=np.random.default_rng(0))
    assert np.abs(res.efficiency_gap()).max() > 1e-3


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_exact_on_games_of_order_two(d, m, rounds, seed):
    """Linear terms plus pairwise products: one antithetic pair per background row is exact."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=d)
    B = np.triu(rng.normal(size=(d, d)), 1)

    def f(Z: np.ndarray) -> np.ndarray:
        return Z @ a + np.einsum("ri,ij,rj->r", Z, B, Z)

    X, bg = rng.normal(size=(2, d)), rng.normal(size=(m, d))
    est = antithetic_shapley(f, X, bg, n_pairs=m * rounds, rng=np.random.default_rng(seed + 1)).values
    np.testing.assert_allclose(est, sh.exact_shapley(f, X, bg).values, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_null_player_gets_zero_in_every_walk(d, m, pairs, seed):
    """A feature the model never reads changes no row of any walk: its estimate is 0 (up to
    the round-off of the model's own matrix products, which differ between batches)."""
    rng = np.random.default_rng(seed)
    null = int(rng.integers(d))
    W = rng.normal(size=(d, d))
    W[null] = 0.0
    f = _nonlinear(W) if null not in (0, 1, d - 1) else (lambda Z: np.tanh(np.asarray(Z) @ W).sum(axis=1))
    X, bg = rng.normal(size=(2, d)), rng.normal(size=(m, d))
    est = antithetic_shapley(f, X, bg, n_pairs=pairs, rng=np.random.default_rng(seed)).values
    np.testing.assert_allclose(est[:, null], 0.0, atol=1e-12)
    assert np.abs(est).max() > 1e-6  # the other features do get values


@pytest.mark.parametrize("n,d,m,pairs,q", [(1, 14, 20, 7, 1), (3, 5, 7, 4, 2), (2, 1, 3, 5, 1), (1, 2, 1, 3, 1)])
def test_budget_counted(n, d, m, pairs, q):
    rng = np.random.default_rng(0)
    counted = CountingModel(lambda Z: np.asarray(Z).sum(axis=1))
    antithetic_shapley(counted, rng.normal(size=(n, d)), rng.normal(size=(m, d)), n_pairs=pairs, rng=rng,
                       background_per_pair=q, max_rows_per_call=50)
    # 2 walks x q background rows x (d - 1) intermediate rows per pair, f(x) and f(b) once
    assert counted.rows == 2 * q * pairs * (d - 1) * n + n + m
    assert counted.rows == antithetic_rows(pairs, d, n=n, m=m, background_per_pair=q)


@pytest.mark.parametrize("budget,d,m,q", [(500, 14, 20, 1), (50000, 14, 20, 1), (1000, 8, 10, 3), (100, 3, 5, 1)])
def test_pairs_for_budget_is_the_largest_within(budget, d, m, q):
    p = pairs_for_budget(budget, d, m=m, background_per_pair=q)
    assert antithetic_rows(p, d, m=m, background_per_pair=q) <= budget
    assert antithetic_rows(p + 1, d, m=m, background_per_pair=q) > budget


def test_multi_output_and_frames():
    rng = np.random.default_rng(2)
    d, m = 3, 4
    X, bg = rng.integers(0, 3, size=(2, d)), rng.integers(0, 3, size=(m, d))

    def f(Z) -> np.ndarray:
        Z = np.asarray(Z, dtype=float)
        s = Z[:, 0] * Z[:, 1] + Z[:, 2]
        return np.stack([s, s**2], axis=1)

    est = antithetic_shapley(f, X, bg, n_pairs=8, rng=np.random.default_rng(0))
    assert est.values.shape == (2, d, 2) and est.variances.shape == (2, d, 2)
    np.testing.assert_allclose(est.values[..., 0], sh.exact_shapley(lambda Z: f(Z)[:, 0], X, bg).values, atol=1e-9)
    cat = pd.CategoricalDtype([0, 1, 2])
    frame = pd.DataFrame(X, columns=list("abc")).astype(cat)
    bgf = pd.DataFrame(bg, columns=list("abc")).astype(cat)

    def g(Z: pd.DataFrame) -> np.ndarray:
        return f(np.stack([Z[c].cat.codes.to_numpy() for c in Z.columns], axis=1))

    est_f = antithetic_shapley(g, frame, bgf, n_pairs=8, rng=np.random.default_rng(0))
    np.testing.assert_allclose(est_f.values, est.values, atol=1e-12)  # same draws, same rows
    assert est_f.feature_names == ["a", "b", "c"]


def test_bad_input():
    rng = np.random.default_rng(0)
    X, bg = rng.normal(size=(1, 3)), rng.normal(size=(4, 3))
    f = _nonlinear(np.eye(3))
    with pytest.raises(ValueError, match="n_pairs"):
        antithetic_shapley(f, X, bg, n_pairs=0, rng=rng)
    with pytest.raises(ValueError, match="n_pairs"):
        antithetic_shapley(f, X, bg, n_pairs=2.5, rng=rng)
    with pytest.raises(ValueError, match="background_per_pair"):
        antithetic_shapley(f, X, bg, n_pairs=1, rng=rng, background_per_pair=0)
    with pytest.raises(TypeError, match="Generator"):
        antithetic_shapley(f, X, bg, n_pairs=1, rng=0.5)
    with pytest.raises(ValueError, match="features"):
        antithetic_shapley(f, X, bg[:, :2], n_pairs=1, rng=rng)
    with pytest.raises(ValueError, match="NaN or infinite"):
        antithetic_shapley(lambda Z: np.full(len(Z), np.nan), X, bg, n_pairs=1, rng=rng)
    with pytest.raises(ValueError, match="shape"):
        antithetic_shapley(lambda Z: np.ones(3), X, bg, n_pairs=1, rng=rng)
    with pytest.raises(ValueError, match="feature names"):
        antithetic_shapley(f, X, bg, n_pairs=1, rng=rng, feature_names=["a"])
    with pytest.raises(ValueError, match=">= 1"):
        pairs_for_budget(0, 3)
    with pytest.raises(ValueError, match=">= 1"):
        antithetic_rows(1, 0)


def _discrete(seed: int, n: int, d: int, m: int, levels: int = 3):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(d, d))
    return _nonlinear(W), rng.integers(0, levels, size=(n, d)), rng.integers(0, levels, size=(m, d))


def test_unbiased_on_discrete_data_where_rows_are_skipped():
    """x and the background rows agree on some features: unchanged rows are not evaluated,
    and the estimate is still unbiased."""
    f, x, bg = _discrete(11, 1, 5, 4)
    exact = sh.exact_shapley(f, x, bg).values[0]
    reps = 4000
    est = antithetic_shapley(f, np.repeat(x, reps, axis=0), bg, n_pairs=1, rng=np.random.default_rng(1)).values
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(mean - exact) < 4 * se + 1e-12), (mean, exact, se)


def test_cost_on_discrete_data_counted_by_an_independent_count():
    f, X, bg = _discrete(4, 3, 6, 5)
    counted = CountingModel(f)
    rng = np.random.default_rng(9)
    pairs = 7
    antithetic_shapley(counted, X, bg, n_pairs=pairs, rng=rng)
    # replay the draws: the walks' background rows; a walk costs (features where x and b differ) - 1
    rng = np.random.default_rng(9)
    rng.random((3, pairs, 6))
    expected = 3 + 5
    for i in range(3):
        b = np.concatenate([rng.permutation(5) for _ in range(2)])[:pairs]
        for j in b:
            D = int((X[i] != bg[j]).sum())
            expected += 2 * max(D - 1, 0)
    assert counted.rows == expected
    assert expected < antithetic_rows(pairs, 6, n=3, m=5)  # some rows were skipped


@pytest.mark.parametrize("budget", [60, 200, 1000])
def test_max_rows_is_respected(budget):
    f, x, bg = _discrete(2, 1, 8, 10)
    counted = CountingModel(f)
    res = antithetic_shapley(counted, x, bg, max_rows=budget, rng=np.random.default_rng(0))
    assert counted.rows <= budget
    assert counted.rows > budget - 2 * 7 * 2 - 1  # one more pair would not have fit (or the cap)
    assert res.n_samples[0, 0] % 2 == 0


def test_exact_once_through_background_when_walks_are_free():
    """x differs from every background row in at most one feature: no walk needs a row, and
    one pass through the background gives the exact values."""
    rng = np.random.default_rng(0)
    x = np.array([[1, 2, 3, 4]])
    bg = np.repeat(x, 4, axis=0)
    bg[np.arange(4), np.arange(4)] = 0
    f = _nonlinear(rng.normal(size=(4, 4)))
    counted = CountingModel(f)
    est = antithetic_shapley(counted, x, bg, max_rows=10_000, rng=rng)
    assert counted.rows == 1 + 4
    np.testing.assert_allclose(est.values, sh.exact_shapley(f, x, bg).values, atol=1e-12)


def test_budget_arguments():
    f, x, bg = _discrete(2, 1, 3, 4)
    with pytest.raises(ValueError, match="exactly one"):
        antithetic_shapley(f, x, bg, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="exactly one"):
        antithetic_shapley(f, x, bg, n_pairs=2, max_rows=100, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="max_rows"):
        antithetic_shapley(f, x, bg, max_rows=0, rng=np.random.default_rng(0))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_exact_on_additive_games_once_every_background_row_served(d, m, extra, seed):
    """An additive model: each walk gives its background row's exact values; averaged per
    background row, then over the rows, the estimate is exact, with any number of pairs >= m."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=d)

    def f(Z: np.ndarray) -> np.ndarray:
        return np.sin(Z) @ a

    X, bg = rng.normal(size=(2, d)), rng.normal(size=(m, d))
    est = antithetic_shapley(f, X, bg, n_pairs=m + extra, rng=np.random.default_rng(seed)).values
    np.testing.assert_allclose(est, sh.exact_shapley(f, X, bg).values, atol=1e-9)
