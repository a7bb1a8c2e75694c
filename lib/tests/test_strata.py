"""lib.sampling.strata (issue 40): background strata enumerated where that is no dearer than their walks.

What the estimator promises, tested against exact values (:func:`lib.shapley.exact_shapley`):
the plan (a stratum is enumerated only within its equal share of the rows left); exact values once
the budget pays for every stratum's enumeration (on discrete data far below ``2^d m``); the
antithetic sampler's very estimate when no stratum is enumerated; unbiasedness (a test that fails
on a biased estimator: the mean of many seeds within a few standard errors of the exact value, and
the same test catches a deliberately biased variant); the Shapley axioms where they hold for a
sampled estimate (efficiency once every stratum is served, null players exactly zero, symmetric
players equal in expectation) under hypothesis; and the budget kept.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import sampling
from lib import shapley as sh
from lib.counting import CountingModel
from lib.games import Game
from lib.sampling.strata import enumeration_rows, plan_strata


def _model(Z):
    Z = np.asarray(Z, dtype=float)
    return np.tanh(Z[:, 0] * Z[:, 1] - Z[:, 2]) + Z[:, 2] * Z[:, 3] * Z[:, 4] + 0.3 * Z[:, 5]


def _discrete(seed=0, n=2, d=6, m=12, levels=3):
    rng = np.random.default_rng(seed)
    return rng.integers(0, levels, (n, d)), rng.integers(0, levels, (m, d))


def test_enumeration_rows_counts_the_distinct_rows_less_b_and_x():
    assert enumeration_rows([0, 1, 2, 3, 10]).tolist() == [0, 0, 2, 6, 1022]
    with pytest.raises(ValueError):
        enumeration_rows([-1])


def test_the_plan_never_leaves_a_walked_stratum_fewer_pairs_than_the_antithetic_sampler():
    rng = np.random.default_rng(0)
    for _ in range(200):
        D = rng.integers(0, 12, size=rng.integers(1, 25))
        rows = int(rng.integers(0, 20_000))
        chosen = plan_strata(D, rows)
        cost, pair = enumeration_rows(D), 2 * np.maximum(D - 1, 0)
        assert chosen[cost == 0].all()                       # free strata are always enumerated
        assert cost[chosen].sum() <= max(rows, 0) or not (cost[chosen] > 0).any()
        if (~chosen).any():
            antithetic = rows / pair.sum() if pair.sum() else np.inf     # pairs each, equal dealing
            ours = (rows - cost[chosen].sum()) / pair[~chosen].sum()
            assert ours >= antithetic - 1e-9
            assert not (cost[~chosen] <= ours * pair[~chosen]).any()  # no stratum left that qualifies
    assert plan_strata([3, 3], int(enumeration_rows([3, 3]).sum())).all()  # every stratum once paid for
    assert not plan_strata([5, 5, 5], 0).any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_once_the_budget_pays_for_every_enumeration(seed):
    X, B = _discrete(seed)
    exact = sh.exact_shapley(_model, X, B).values
    game = Game(_model, X, B)
    needed = 1 + game.m + int(enumeration_rows(game.differ.sum(axis=2)).sum(axis=1).max())
    assert needed < 2 ** X.shape[1] * len(B)  # the rows agree somewhere: cheaper than full enumeration
    counted = CountingModel(_model)
    res = sampling.sample_shapley(counted, X, B, max_rows=needed, rng=np.random.default_rng(seed))
    assert res.method == "strata"
    np.testing.assert_allclose(res.values, exact, atol=1e-12)
    assert counted.rows <= needed * len(X)
    np.testing.assert_allclose(res.variances, 0.0)


def test_continuous_data_below_the_exact_cost_is_the_antithetic_sampler():
    rng = np.random.default_rng(3)
    X, B = rng.normal(size=(3, 6)), rng.normal(size=(10, 6))
    budget = 1 + 10 + 10 * (2**6 - 2) - 1  # one row short of the exact cost: no stratum enumerated
    assert not plan_strata(np.full(10, 6), budget - 1 - 10).any()
    assert plan_strata(np.full(10, 6), budget - 1 - 10 + 1).all()
    for rows in (400, budget):
        a = sampling.run(Game(_model, X, B), "antithetic", rows, np.random.default_rng(5))
        s = sampling.run(Game(_model, X, B), "strata", rows, np.random.default_rng(5))
        np.testing.assert_array_equal(a.values, s.values)


def test_multi_output_models_and_partial_plans():
    X, B = _discrete(4, n=3, d=7, m=10)

    def f(Z):
        v = _model(Z)
        return np.column_stack([v, np.sin(v)])

    exact = sh.exact_shapley(f, X, B).values
    res = sampling.sample_shapley(f, X, B, max_rows=400, rng=np.random.default_rng(0))
    assert res.values.shape == exact.shape == (3, 7, 2)
    assert np.abs(res.values - exact).max() < 0.5
    assert np.all(res.variances >= 0)


def _biased(game, budget, rng, options):
    """The estimator with a deliberate bias (a constant added): the unbiasedness test must catch it."""
    res = sampling.run(game, "strata", budget, rng)
    res.values[...] += 0.01
    return res


@pytest.mark.parametrize("estimate, unbiased", [("strata", True), ("biased", False)])
def test_unbiased_over_seeds_and_the_test_catches_a_bias(estimate, unbiased):
    """Mean over 400 seeds within 4 standard errors of the exact value, at a budget where strata are
    both enumerated and walked (every walked stratum served); a bias of 0.01 is caught."""
    X, B = _discrete(7, n=1, d=7, m=10)
    game_rows = Game(_model, X, B)
    D = game_rows.differ.sum(axis=2)[0]
    cost, pair = enumeration_rows(D), 2 * np.maximum(D - 1, 0)

    def partial(rows):  # some strata enumerated, some walked, every walked one with a pair
        plan = plan_strata(D, rows)
        return plan.any() and not plan.all() and rows - cost[plan].sum() >= pair[~plan].sum()

    budget = 11 + next(r for r in range(0, 20_000, 10) if partial(r))
    exact = sh.exact_shapley(_model, X, B).values[0]
    runs = []
    for s in range(400):
        game = Game(_model, X, B)
        rng = np.random.default_rng(10_000 + s)
        runs.append((sampling.run(game, "strata", budget, rng) if estimate == "strata"
                     else _biased(game, budget, rng, None)).values[0])
    runs = np.array(runs)
    se = runs.std(axis=0, ddof=1) / np.sqrt(len(runs))
    z = np.abs(runs.mean(axis=0) - exact) / np.maximum(se, 1e-12)
    assert bool((z < 4.5).all()) == unbiased, z


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.integers(60, 3000))
def test_efficiency_and_null_players(seed, budget):
    """Efficiency once every stratum is enumerated or walked; a feature the model ignores gets 0."""
    rng = np.random.default_rng(seed)
    X, B = rng.integers(0, 3, (2, 7)), rng.integers(0, 3, (8, 7))

    def f(Z):  # feature 6 is a null player
        return _model(np.asarray(Z)[:, :6])

    game = Game(f, X, B)
    res = sampling.run(game, "strata", budget, np.random.default_rng(seed))
    np.testing.assert_allclose(res.values[:, 6], 0.0, atol=1e-12)
    D = game.differ.sum(axis=2)
    for i in range(2):
        plan = plan_strata(D[i], budget - 1 - 8)
        walked = np.flatnonzero(~plan)
        pair = 2 * np.maximum(D[i] - 1, 0)
        left = budget - 1 - 8 - int(enumeration_rows(D[i])[plan].sum())
        if plan.all() or (len(walked) and pair[walked].sum() <= left):
            np.testing.assert_allclose(res.values[i].sum(), res.outputs[i] - res.base_values[i], atol=1e-10)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_symmetric_players_equal_when_exact_and_in_expectation(seed):
    """Features 0 and 1 enter the model symmetrically and take the same values in every row: their
    values are equal exactly when every stratum is enumerated, and their difference averages out
    over seeds otherwise."""
    rng = np.random.default_rng(seed)
    X, B = rng.integers(0, 3, (1, 6)), rng.integers(0, 3, (8, 6))
    X[:, 1], B[:, 1] = X[:, 0], B[:, 0]

    def f(Z):
        Z = np.asarray(Z, dtype=float)
        return np.tanh(Z[:, 0] + Z[:, 1] - Z[:, 2]) * (1 + Z[:, 3]) + Z[:, 0] * Z[:, 1] * Z[:, 4]

    game = Game(f, X, B)
    full = 1 + 8 + int(enumeration_rows(game.differ.sum(axis=2)).sum())
    res = sampling.run(game, "strata", full, np.random.default_rng(seed))
    assert abs(res.values[0, 0] - res.values[0, 1]) < 1e-12
    diffs = [sampling.run(Game(f, X, B), "strata", 60, np.random.default_rng(s)).values[0, :2] for s in range(200)]
    diffs = np.array(diffs)
    gap = diffs[:, 0] - diffs[:, 1]
    assert abs(gap.mean()) <= 4.5 * gap.std(ddof=1) / np.sqrt(len(gap)) + 1e-12
