"""Tests of lib.shapley: the Shapley axioms on random games, an independent
definition (average marginal contribution over all d! orderings), closed forms
for models whose Shapley values are known, and the error messages."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lib import formula, sampling
from lib import games as gm
from lib import shapley as sh
from lib.counting import CountingModel
from lib.sampling import strumbelj_kononenko as sk
from lib.sampling.strumbelj_kononenko import sampling_rows

# ---------------------------------------------------------------------------
# Random games
# ---------------------------------------------------------------------------

finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@st.composite
def games(draw, min_d: int = 1, max_d: int = 6, batch: bool = False):
    d = draw(st.integers(min_d, max_d))
    lead = (draw(st.integers(1, 3)),) if batch else ()
    return draw(hnp.arrays(float, lead + (2**d,), elements=finite))


def by_orderings(v: np.ndarray) -> np.ndarray:
    """Shapley values as the mean marginal contribution over all d! orderings.

    An independent definition (Shapley 1953, as a random-order value): no weights,
    no bitmask algebra shared with the implementation under test.
    """
    d = v.shape[-1].bit_length() - 1
    phi = np.zeros(d)
    for order in itertools.permutations(range(d)):
        s = 0
        for i in order:
            phi[i] += v[s | (1 << i)] - v[s]
            s |= 1 << i
    return phi / math.factorial(d)


def swap_players(v: np.ndarray, i: int, j: int) -> np.ndarray:
    """The game with players i and j exchanged."""
    s = np.arange(v.shape[-1])
    bi, bj = (s >> i) & 1, (s >> j) & 1
    t = s & ~((1 << i) | (1 << j)) | (bi << j) | (bj << i)
    return v[..., t]


@settings(max_examples=60, deadline=None)
@given(games(max_d=6))
def test_matches_average_over_all_orderings(v):
    np.testing.assert_allclose(formula.shapley_from_game(v), by_orderings(v), atol=1e-9, rtol=1e-9)


@settings(max_examples=100, deadline=None)
@given(games(batch=True))
def test_efficiency(v):
    phi = formula.shapley_from_game(v)
    np.testing.assert_allclose(phi.sum(-1), v[..., -1] - v[..., 0], atol=1e-8)


@settings(max_examples=100, deadline=None)
@given(games(min_d=2), st.data())
def test_symmetry(v, data):
    d = v.shape[-1].bit_length() - 1
    i, j = data.draw(st.lists(st.integers(0, d - 1), min_size=2, max_size=2, unique=True))
    sym = (v + swap_players(v, i, j)) / 2  # i and j now interchangeable
    phi = formula.shapley_from_game(sym)
    np.testing.assert_allclose(phi[i], phi[j], atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(games(min_d=1), st.data())
def test_null_player(v, data):
    d = v.shape[-1].bit_length() - 1
    i = data.draw(st.integers(0, d - 1))
    s = np.arange(2**d)
    null = v[s & ~(1 << i)]  # adding i never changes the value
    phi = formula.shapley_from_game(null)
    assert abs(phi[i]) < 1e-9
    # and the others are the Shapley values of the game without i
    others = [k for k in range(d) if k != i]
    if others:
        np.testing.assert_allclose(phi[others], by_orderings(null)[others], atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6).flatmap(lambda d: st.tuples(
    hnp.arrays(float, 2**d, elements=finite), hnp.arrays(float, 2**d, elements=finite))),
    finite, finite)
def test_linearity(vw, a, b):
    v, w = vw
    lhs = formula.shapley_from_game(a * v + b * w)
    rhs = a * formula.shapley_from_game(v) + b * formula.shapley_from_game(w)
    np.testing.assert_allclose(lhs, rhs, atol=1e-6 * (1 + abs(a) + abs(b)) * 1e3)


@settings(max_examples=30, deadline=None)
@given(games(batch=True, max_d=5))
def test_batched_games_equal_one_by_one(v):
    phi = formula.shapley_from_game(v)
    for g in range(v.shape[0]):
        np.testing.assert_allclose(phi[g], formula.shapley_from_game(v[g]), atol=1e-12)


def test_equals_the_matrix_of_weights():
    # phi = v W with W[S, i] = w(|S|-1) if i in S else -w(|S|): the same sums, another order
    rng = np.random.default_rng(1)
    for d in (1, 3, 7, 10):
        masks = formula.coalition_masks(d)
        size = masks.sum(axis=1)
        w = np.append(formula.shapley_weights(d), 0.0)          # w(d) = 0: the grand coalition has no i outside
        W = np.where(masks, w[np.maximum(size - 1, 0)][:, None], -w[size][:, None])
        v = rng.normal(size=(2, 2**d))
        np.testing.assert_allclose(formula.shapley_from_game(v), v @ W, rtol=0, atol=1e-12)


def test_a_games_values_do_not_depend_on_the_other_games():
    # no matrix product: the rounding of a game's values cannot depend on the batch (BLAS kernels
    # block a product by its shape), so one game alone gives the same bits as in a batch
    rng = np.random.default_rng(2)
    for d in (3, 8, 12, 17):
        v = rng.normal(size=(7, 2**d)) * np.exp(rng.normal(size=(7, 2**d)) * 4)
        batch = formula.shapley_from_game(v)
        for g in (0, 3, 6):
            np.testing.assert_array_equal(formula.shapley_from_game(v[g]), batch[g])
        assert np.abs(batch.sum(axis=1) - (v[:, -1] - v[:, 0])).max() < 1e-9 * np.abs(v).max()


def test_known_games():
    # unanimity game of {0, 2} among 3 players: 1/2 each to the members
    v = np.array([1.0 if (s & 0b101) == 0b101 else 0.0 for s in range(8)])
    np.testing.assert_allclose(formula.shapley_from_game(v), [0.5, 0, 0.5])
    # glove game: player 0 has a left glove, players 1, 2 right gloves: (2/3, 1/6, 1/6)
    v = np.array([1.0 if (s & 1) and (s & 6) else 0.0 for s in range(8)])
    np.testing.assert_allclose(formula.shapley_from_game(v), [2 / 3, 1 / 6, 1 / 6])


def test_weights_sum_to_one_over_coalitions():
    for d in range(1, 12):
        w = formula.shapley_weights(d)
        counts = np.array([math.comb(d - 1, s) for s in range(d)])
        assert abs((w * counts).sum() - 1) < 1e-12


def test_masks_follow_bit_convention():
    m = formula.coalition_masks(3)
    assert m.shape == (8, 3)
    assert m[0b101].tolist() == [True, False, True]
    assert m[0b010].tolist() == [False, True, False]


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((2, 6)), np.array(1.0)])
def test_game_length_must_be_power_of_two(bad):
    with pytest.raises(ValueError):
        formula.shapley_from_game(bad)


def test_game_with_nan_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        formula.shapley_from_game(np.array([0.0, np.nan, 1.0, 2.0]))


# ---------------------------------------------------------------------------
# Models with known interventional Shapley values
# ---------------------------------------------------------------------------


def test_linear_model_closed_form():
    # f(x) = b + w.x: phi_i = w_i (x_i - mean of background_i)
    rng = np.random.default_rng(3)
    X, B = rng.normal(size=(5, 6)), rng.normal(size=(40, 6))
    w = rng.normal(size=6)
    res = sh.exact_shapley(lambda Z: 0.3 + Z @ w, X, B)
    np.testing.assert_allclose(res.values, w * (X - B.mean(0)), atol=1e-12)
    np.testing.assert_allclose(res.base_values, 0.3 + B.mean(0) @ w, atol=1e-12)
    np.testing.assert_allclose(res.outputs, 0.3 + X @ w, atol=1e-12)


def test_product_of_two_features_with_single_background_row():
    # f = x0 * x1 against one background row b: v(∅)=b0 b1, v({0})=x0 b1, ...
    x, b = np.array([[2.0, 3.0, 5.0]]), np.array([[1.0, -1.0, 7.0]])
    res = sh.exact_shapley(lambda Z: Z[:, 0] * Z[:, 1], x, b)
    v = {0: 2 * -1 * 0 + 1 * -1, 1: 2 * -1, 2: 1 * 3, 3: 6}  # bitmask -> value
    phi0 = 0.5 * (v[1] - v[0]) + 0.5 * (v[3] - v[2])
    phi1 = 0.5 * (v[2] - v[0]) + 0.5 * (v[3] - v[1])
    np.testing.assert_allclose(res.values[0], [phi0, phi1, 0.0], atol=1e-12)


def test_game_is_the_background_average():
    rng = np.random.default_rng(4)
    X, B = rng.normal(size=(2, 3)), rng.normal(size=(7, 3))
    f = lambda Z: np.sin(Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2  # noqa: E731
    game = gm.interventional_game(f, X, B)
    for n in range(2):
        for s in range(8):
            keep = formula.coalition_masks(3)[s]
            rows = np.where(keep, X[n], B)
            assert abs(game[n, s] - f(rows).mean()) < 1e-12


def test_batching_does_not_change_the_result():
    rng = np.random.default_rng(5)
    X, B = rng.normal(size=(4, 5)), rng.normal(size=(9, 5))
    f = lambda Z: np.tanh(Z @ np.arange(1.0, 6.0)) + Z[:, 0] * Z[:, 3]  # noqa: E731
    big = sh.exact_shapley(f, X, B).values
    small = sh.exact_shapley(f, X, B, max_rows_per_call=10).values
    tiny = sh.exact_shapley(f, X, B, max_rows_per_call=1).values
    np.testing.assert_allclose(big, small, atol=1e-13)
    np.testing.assert_allclose(big, tiny, atol=1e-13)


def test_multi_output_is_each_output_separately():
    rng = np.random.default_rng(6)
    X, B = rng.normal(size=(3, 4)), rng.normal(size=(10, 4))
    f0 = lambda Z: np.exp(Z[:, 0] - Z[:, 1])  # noqa: E731
    f1 = lambda Z: Z[:, 2] * Z[:, 3]  # noqa: E731
    res = sh.exact_shapley(lambda Z: np.stack([f0(Z), f1(Z)], axis=1), X, B)
    assert res.values.shape == (3, 4, 2) and res.base_values.shape == (3, 2)
    np.testing.assert_allclose(res.values[:, :, 0], sh.exact_shapley(f0, X, B).values, atol=1e-12)
    np.testing.assert_allclose(res.values[:, :, 1], sh.exact_shapley(f1, X, B).values, atol=1e-12)
    np.testing.assert_allclose(res.efficiency_gap(), 0, atol=1e-12)


def test_dataframe_with_categoricals_equals_codes():
    rng = np.random.default_rng(7)
    cats = pd.CategoricalDtype(["a", "b", "c"])
    def frame(n):
        return pd.DataFrame({
            "num": rng.normal(size=n),
            "cat": pd.Categorical.from_codes(rng.integers(0, 3, n), dtype=cats),
        })
    X, B = frame(3), frame(8)
    effect = {"a": 0.0, "b": 1.5, "c": -2.0}
    def f_frame(df):
        return df["num"].to_numpy() ** 2 + df["cat"].map(effect).astype(float).to_numpy() * df["num"].to_numpy()
    def f_array(Z):
        return Z[:, 0] ** 2 + np.array([0.0, 1.5, -2.0])[Z[:, 1].astype(int)] * Z[:, 0]
    Xa = np.column_stack([X["num"], X["cat"].cat.codes]).astype(float)
    Ba = np.column_stack([B["num"], B["cat"].cat.codes]).astype(float)
    np.testing.assert_allclose(sh.exact_shapley(f_frame, X, B).values,
                               sh.exact_shapley(f_array, Xa, Ba).values, atol=1e-12)
    assert sh.exact_shapley(f_frame, X, B).feature_names == ["num", "cat"]


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def _lin(Z):
    return np.asarray(Z, dtype=float).sum(axis=1)


def test_too_many_features_names_the_limit_and_the_books_estimator():
    X = np.zeros((1, gm.MAX_EXACT_FEATURES + 1))
    with pytest.raises(ValueError, match=f"limit of {gm.MAX_EXACT_FEATURES}") as refused:
        sh.exact_shapley(_lin, X, X)
    # the one entry point of the API, and where its default estimator is named (not by hand)
    assert "lib.sampling.sample_shapley, which runs the default estimator, lib.sampling.DEFAULT" in str(refused.value)
    assert "max_rows=" in str(refused.value)
    with pytest.raises(ValueError, match="limit of 62"):  # int64 bitmasks, whatever max_features says
        gm.interventional_game(_lin, np.zeros((1, 63)), np.zeros((1, 63)), max_features=100)


def test_width_mismatch():
    with pytest.raises(ValueError, match="background has 2"):
        sh.exact_shapley(_lin, np.zeros((1, 3)), np.zeros((4, 2)))


def test_nan_is_refused_unless_allowed():
    X = np.array([[1.0, np.nan]])
    with pytest.raises(ValueError, match="NaN"):
        sh.exact_shapley(_lin, X, np.zeros((2, 2)))
    res = sh.exact_shapley(lambda Z: np.nan_to_num(Z).sum(1), X, np.zeros((2, 2)), allow_nan=True)
    assert np.isfinite(res.values).all()


def test_model_returning_nan_or_wrong_shape():
    X, B = np.ones((2, 2)), np.zeros((3, 2))
    with pytest.raises(ValueError, match="NaN or infinite"):
        with np.errstate(divide="ignore"):
            sh.exact_shapley(lambda Z: np.log(Z[:, 0]), X, B)
    with pytest.raises(ValueError, match="shape"):
        sh.exact_shapley(lambda Z: Z.sum(), X, B)


def test_empty_background_and_mismatched_frames():
    with pytest.raises(ValueError, match="no rows"):
        sh.exact_shapley(_lin, np.ones((1, 2)), np.zeros((0, 2)))
    a = pd.DataFrame({"x": [1.0], "y": [2.0]})
    b = pd.DataFrame({"x": [0.5, -1.0], "y": [3.0, 0.0]})
    f = lambda df: df["x"].to_numpy() - 2 * df["y"].to_numpy()  # noqa: E731
    # the background's columns are matched by name (issue 36): a reordered background is the same one
    np.testing.assert_array_equal(sh.exact_shapley(f, a, b[["y", "x"]]).values, sh.exact_shapley(f, a, b).values)
    with pytest.raises(ValueError, match=r"background's columns do not match the ones X has \(not among them: \['Y'\]; missing: \['y'\]\)"):
        sh.exact_shapley(f, a, b.rename(columns={"y": "Y"}))
    with pytest.raises(ValueError, match="both be DataFrames"):
        sh.exact_shapley(_lin, a, a.to_numpy())
    c1 = pd.DataFrame({"c": pd.Categorical(["a"], categories=["a", "b"])})
    c2 = pd.DataFrame({"c": pd.Categorical(["a"], categories=["a", "z"])})
    with pytest.raises(ValueError, match="categorical"):
        sh.exact_shapley(lambda df: np.zeros(len(df)), c1, c2)


# ---------------------------------------------------------------------------
# Sampling
# ---------------------------------------------------------------------------


def _nonlinear(Z):
    return np.tanh(Z[:, 0] * Z[:, 1]) + 0.5 * Z[:, 2] ** 2 - Z[:, 3]


def test_sampling_is_unbiased_and_its_variance_is_honest():
    """Average of many independent estimates -> exact value; spread ~ reported variance."""
    rng = np.random.default_rng(8)
    X, B = rng.normal(size=(1, 4)), rng.normal(size=(30, 4))
    exact = sh.exact_shapley(_nonlinear, X, B).values[0]
    reps = np.array([
        sampling.sample_shapley(_nonlinear, X, B, max_rows=sampling_rows(200, m=len(B)), rng=rng, method="uniform").values[0]
        for _ in range(200)
    ])
    se = reps.std(axis=0) / np.sqrt(len(reps))
    assert np.all(np.abs(reps.mean(0) - exact) < 4 * se + 1e-12)
    one = sampling.sample_shapley(_nonlinear, X, B, max_rows=sampling_rows(4000, m=len(B)), rng=rng, method="uniform")
    ratio = one.variances[0] * 1000 / (reps.var(axis=0) * 50)  # both scaled to one sample
    mask = reps.var(axis=0) > 1e-12
    assert np.all((ratio[mask] > 0.6) & (ratio[mask] < 1.6))


def test_sampling_error_shrinks_with_budget():
    rng = np.random.default_rng(9)
    X, B = rng.normal(size=(3, 4)), rng.normal(size=(30, 4))
    exact = sh.exact_shapley(_nonlinear, X, B).values
    err = [np.abs(sampling.sample_shapley(_nonlinear, X, B, max_rows=sampling_rows(m, m=len(B)), method="variance", rng=rng).values - exact).mean()
           for m in (40, 4000)]
    assert err[1] < err[0] / 4  # 100x budget: ~10x less error expected


def test_variance_allocation_follows_algorithm_2():
    # A feature with zero variance (not used by the model) gets only min_samples.
    rng = np.random.default_rng(10)
    X, B = rng.normal(size=(2, 3)), rng.normal(size=(20, 3))
    f = lambda Z: Z[:, 0] * 3 + Z[:, 1] * 0.1  # noqa: E731
    res = sampling.sample_shapley(f, X, B, max_rows=sampling_rows(300, m=len(B)), options=sk.VarianceOptions(min_samples=5), method="variance", rng=rng)
    assert (res.n_samples.sum(axis=1) == 300).all()
    assert (res.n_samples[:, 2] == 5).all()  # null player: variance 0
    assert (res.n_samples[:, 0] > res.n_samples[:, 1]).all()
    np.testing.assert_allclose(res.values[:, 2], 0, atol=1e-12)
    # the sequential greedy rule (batch 1) and a batched one agree in allocation shape
    res_b = sampling.sample_shapley(f, X, B, max_rows=sampling_rows(300, m=len(B)), options=sk.VarianceOptions(min_samples=5, batch_size=20), method="variance", rng=rng)
    assert (res_b.n_samples[:, 2] == 5).all()


def _step(Z):
    # a tree-like model: each feature moves the output only past a threshold, so the
    # differences f(b1) - f(b2) take few values and two draws are often equal
    return (Z[:, 0] > 0.8).astype(float) + (Z[:, 1] > 0.0) + 0.5 * (Z[:, 2] > -0.5)


def test_published_algorithm_2_can_starve_a_feature_and_the_prior_stops_it():
    rng = np.random.default_rng(13)
    X, B = np.array([[1.0, 1.0, 0.0]]), rng.normal(size=(40, 3))
    starved_published = starved_prior = 0
    for seed in range(40):
        kw = dict(max_rows=sampling_rows(600, m=len(B)), method="variance")
        pub = sampling.sample_shapley(_step, X, B, rng=np.random.default_rng(seed), options=sk.VarianceOptions(min_samples=2), **kw)
        pri = sampling.sample_shapley(_step, X, B, rng=np.random.default_rng(seed),
                                options=sk.VarianceOptions(min_samples=2, prior_samples=4), **kw)
        # every feature here has a variance > 0 (each one changes f for some rows)
        starved_published += int((pub.n_samples[0] == 2).any())
        starved_prior += int((pri.n_samples[0] == 2).any())
        assert pri.n_samples.sum() == 600
    assert starved_published > 0          # the published rule does starve (the reason for the option)
    assert starved_prior == 0


def test_prior_samples_zero_is_the_published_rule_and_bad_values_fail():
    rng = np.random.default_rng(14)
    X, B = rng.normal(size=(2, 4)), rng.normal(size=(30, 4))
    a = sampling.sample_shapley(_nonlinear, X, B, max_rows=sampling_rows(200, m=len(B)), method="variance", rng=np.random.default_rng(3))
    b = sampling.sample_shapley(_nonlinear, X, B, max_rows=sampling_rows(200, m=len(B)), method="variance", rng=np.random.default_rng(3), options=sk.VarianceOptions(prior_samples=0))
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.n_samples, b.n_samples)
    # a null player still gets nothing beyond its minimum when the prior is small
    f = lambda Z: Z[:, 0] * 3 + Z[:, 1]  # noqa: E731
    res = sampling.sample_shapley(f, X, B, max_rows=sampling_rows(400, m=len(B)), options=sk.VarianceOptions(min_samples=5, prior_samples=1), method="variance", rng=rng)
    assert (res.n_samples[:, 2:] < 40).all()
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="prior_samples"):
            sampling.sample_shapley(f, X, B, max_rows=sampling_rows(40, m=len(B)), method="variance", rng=rng, options=sk.VarianceOptions(prior_samples=bad))


def test_same_seed_same_estimates():
    X, B = np.ones((2, 3)), np.zeros((5, 3))
    a = sampling.sample_shapley(_lin, X, B, max_rows=sampling_rows(60, m=len(B)), method="variance", rng=np.random.default_rng(11)).values
    b = sampling.sample_shapley(_lin, X, B, max_rows=sampling_rows(60, m=len(B)), method="variance", rng=np.random.default_rng(11)).values
    np.testing.assert_array_equal(a, b)


def test_efficiency_adjustment():
    rng = np.random.default_rng(12)
    X, B = rng.normal(size=(4, 4)), rng.normal(size=(25, 4))
    res = sampling.sample_shapley(_nonlinear, X, B, max_rows=sampling_rows(100, m=len(B)), method="variance", rng=rng, options=sk.VarianceOptions(adjust=True))
    gap = res.efficiency_gap()
    assert np.all(np.abs(gap) < 1e-5)
    raw = sampling.sample_shapley(_nonlinear, X, B, max_rows=sampling_rows(100, m=len(B)), method="variance", rng=np.random.default_rng(0))
    assert np.abs(raw.efficiency_gap()).max() > 1e-3  # the adjustment had something to fix


def test_adjust_efficiency_moves_the_noisy_estimate_most():
    values = np.array([[1.0, 1.0, 1.0]])
    variances = np.array([[0.0, 1e-4, 1.0]])
    out = sampling.adjust_efficiency(values, variances, np.array([4.0]))
    np.testing.assert_allclose(out.sum(), 4.0, atol=1e-5)
    moved = out[0] - values[0]
    assert moved[0] == 0 and moved[2] > 0.99 and 0 < moved[1] < 1e-3
    # all variances zero: equal shares
    out = sampling.adjust_efficiency(values, np.zeros((1, 3)), np.array([6.0]))
    np.testing.assert_allclose(out, [[2.0, 2.0, 2.0]])


def test_sampling_bad_input():
    X, B = np.ones((1, 3)), np.zeros((5, 3))
    with pytest.raises(TypeError, match="int seed or a numpy.random.Generator"):
        sampling.sample_shapley(_lin, X, B, max_rows=sampling_rows(10, m=len(B)), method="variance", rng="0")
    with pytest.raises(ValueError, match="min_samples"):
        sampling.sample_shapley(_lin, X, B, max_rows=sampling_rows(5, m=len(B)), method="variance", rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="method must be one of"):
        sampling.sample_shapley(_lin, X, B, max_rows=sampling_rows(50, m=len(B)), method="x", rng=np.random.default_rng(0))


# ---------------------------------------------------------------------------
# Against shap, and shap.Explanation
# ---------------------------------------------------------------------------


def test_matches_shap_exact_explainer():
    shap = pytest.importorskip("shap")
    rng = np.random.default_rng(13)
    X, B = rng.normal(size=(3, 5)), rng.normal(size=(20, 5))
    f = lambda Z: np.tanh(Z[:, 0] * Z[:, 1]) + Z[:, 2] * Z[:, 3] - np.abs(Z[:, 4])  # noqa: E731
    ours = sh.exact_shapley(f, X, B)
    theirs = shap.ExactExplainer(f, shap.maskers.Independent(B, max_samples=len(B)))(X)
    np.testing.assert_allclose(ours.values, theirs.values, atol=1e-10)
    np.testing.assert_allclose(ours.base_values, theirs.base_values, atol=1e-10)


def test_to_explanation():
    shap = pytest.importorskip("shap")
    rng = np.random.default_rng(14)
    X = pd.DataFrame(rng.normal(size=(3, 2)), columns=["a", "b"])
    res = sh.exact_shapley(lambda df: df["a"].to_numpy() * 2 - df["b"].to_numpy(), X, X)
    e = res.to_explanation()
    assert isinstance(e, shap.Explanation)
    assert e.values.shape == (3, 2) and list(e.feature_names) == ["a", "b"]
    multi = sh.exact_shapley(lambda Z: np.stack([Z[:, 0], Z[:, 1]], 1), X.to_numpy(), X.to_numpy())
    assert multi.to_explanation(output=1).values.shape == (3, 2)
    with pytest.raises(ValueError):
        res.to_explanation(output=0)


def test_shap_plots_accept_our_explanations():
    shap = pytest.importorskip("shap")
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(15)
    X = rng.normal(size=(6, 3))
    res = sh.exact_shapley(lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2], X, X, feature_names=["a", "b", "c"])
    e = res.to_explanation()
    for plot in (lambda: shap.plots.waterfall(e[0], show=False),
                 lambda: shap.plots.bar(e, show=False),
                 lambda: shap.plots.beeswarm(e, show=False)):
        plot()
        plt.close("all")


def test_sampling_dataframe_path_equals_array_path():
    rng = np.random.default_rng(16)
    cats = pd.CategoricalDtype(["a", "b"])
    X = pd.DataFrame({"num": rng.normal(size=2),
                      "cat": pd.Categorical.from_codes(rng.integers(0, 2, 2), dtype=cats)})
    B = pd.DataFrame({"num": rng.normal(size=9),
                      "cat": pd.Categorical.from_codes(rng.integers(0, 2, 9), dtype=cats)})
    def f_frame(df):
        return df["num"].to_numpy() * np.where(df["cat"].to_numpy() == "b", 2.0, -1.0)
    def f_array(Z):
        return Z[:, 0] * np.where(Z[:, 1] == 1, 2.0, -1.0)
    Xa = np.column_stack([X["num"], X["cat"].cat.codes]).astype(float)
    Ba = np.column_stack([B["num"], B["cat"].cat.codes]).astype(float)
    a = sampling.sample_shapley(f_frame, X, B, max_rows=sampling_rows(40, m=len(B)), method="variance", rng=np.random.default_rng(3))
    b = sampling.sample_shapley(f_array, Xa, Ba, max_rows=sampling_rows(40, m=len(B)), method="variance", rng=np.random.default_rng(3))
    np.testing.assert_allclose(a.values, b.values, atol=1e-12)
    np.testing.assert_array_equal(a.n_samples, b.n_samples)


def test_interventional_game_on_chosen_coalitions():
    rng = np.random.default_rng(17)
    X, B = rng.normal(size=(3, 4)), rng.normal(size=(6, 4))
    full = gm.interventional_game(_nonlinear, X, B)
    part = gm.interventional_game(_nonlinear, X, B, coalitions=[0, 5, 15, 5])
    np.testing.assert_allclose(part[:, [0, 5, 15]], full[:, [0, 5, 15]], atol=1e-14)
    assert np.isnan(np.delete(part, [0, 5, 15], axis=1)).all()
    with pytest.raises(ValueError, match="bitmasks"):
        gm.interventional_game(_nonlinear, X, B, coalitions=[16])


# --- sparse games: explicit coalitions, any d (issue: beyond the 2^d wall) ---------------


def _linear_pairs(Z):
    Z = np.asarray(Z, dtype=float)
    return Z @ np.linspace(-1.0, 1.0, Z.shape[1]) + Z[:, 0] * Z[:, 1]


def test_coalition_values_match_the_dense_game():
    rng = np.random.default_rng(21)
    X, B = rng.normal(size=(3, 6)), rng.normal(size=(7, 6))
    dense = gm.interventional_game(_linear_pairs, X, B)
    wanted = [0, 5, 63, 5, 17]                     # a repeat, any order
    np.testing.assert_array_equal(gm.coalition_values(_linear_pairs, X, B, wanted), dense[:, wanted])
    masks = gm.as_coalition_masks(wanted, 6)
    np.testing.assert_array_equal(gm.coalition_values(_linear_pairs, X, B, masks), dense[:, wanted])


def test_coalition_values_for_many_features_count_each_distinct_coalition_once():
    rng = np.random.default_rng(22)
    d = 70                                         # bitmasks beyond 64 bits: Python ints
    X, B = rng.normal(size=(2, d)), rng.normal(size=(5, d))
    wanted = [0, (1 << 69) | 1, (1 << d) - 1, 1 << 65, (1 << 69) | 1]
    model = CountingModel(_linear_pairs)
    v = gm.coalition_values(model, X, B, wanted)
    assert v.shape == (2, 5)
    assert model.rows == 2 * 5 * 4                 # n * m * distinct coalitions
    np.testing.assert_allclose(v[:, 2], _linear_pairs(X), atol=1e-12)            # all present: f(x)
    np.testing.assert_allclose(v[:, 0], _linear_pairs(B).mean(), atol=1e-12)     # none: mean over B
    np.testing.assert_array_equal(v[:, 1], v[:, 4])


@pytest.mark.parametrize("bad", [[-1], [1 << 6], []])
def test_coalition_values_reject_bad_coalitions(bad):
    X, B = np.zeros((1, 6)), np.ones((2, 6))
    with pytest.raises(ValueError, match="coalitions|bitmasks"):
        gm.coalition_values(_linear_pairs, X, B, bad)
    with pytest.raises(ValueError, match="shape"):
        gm.coalition_values(_linear_pairs, X, B, np.ones((2, 5), dtype=bool))


# ---------------------------------------------------------------------------
# The reference path: every hybrid row, in cache-sized blocks (the fast path and the
# agreement of the two: test_shapley_paths.py)
# ---------------------------------------------------------------------------


def _game_by_loops(f, X: np.ndarray, bg: np.ndarray) -> np.ndarray:
    """v_x(S) = mean_b f(x_S, b_{-S}) with explicit loops: one model row at a time."""
    n, d = X.shape
    out = np.empty((n, 2**d))
    for i in range(n):
        for S in range(2**d):
            rows = [[X[i, j] if (S >> j) & 1 else b[j] for j in range(d)] for b in bg]
            out[i, S] = np.mean([float(np.asarray(f(np.array([r]))).reshape(-1)[0]) for r in rows])
    return out


def _nonlinear(Z: np.ndarray) -> np.ndarray:
    # no BLAS (a matrix product's rounding can depend on the batch under some kernels):
    # each row's output is then the same whatever rows it is evaluated with
    Z = np.asarray(Z, dtype=float)
    return np.sin((Z * np.arange(1.0, Z.shape[1] + 1)).sum(axis=1)) + Z[:, 0] * Z[:, -1] ** 2


@pytest.mark.parametrize("max_rows", [10, 64, 200, 1700, 2**16])  # k = 0 (one block > limit), 1, 3, d (2 rows a call), d (all)
def test_reference_path_evaluates_every_row_in_blocks(max_rows):
    rng = np.random.default_rng(7)
    X, bg = rng.normal(size=(3, 5)), rng.normal(size=(25, 5))
    counted = CountingModel(_nonlinear)
    game = gm.interventional_game(counted, X, bg, max_rows_per_call=max_rows)
    assert counted.rows == 3 * 2**5 * 25
    np.testing.assert_allclose(game, _game_by_loops(_nonlinear, X, bg), rtol=0, atol=1e-12)
    # the same means over the same outputs as coalition by coalition
    np.testing.assert_array_equal(game, gm.coalition_values(_nonlinear, X, bg, np.arange(32)))


def test_reference_path_on_integers_and_frames_is_the_same_game():
    rng = np.random.default_rng(8)
    X, bg = rng.integers(0, 3, (3, 4)), rng.integers(0, 3, (20, 4))
    counted = CountingModel(_nonlinear)
    game = gm.interventional_game(counted, X, bg)
    assert counted.rows == 3 * 2**4 * 20                      # no row skipped, repeats included
    frame = lambda A: pd.DataFrame(A, columns=list("abcd"))   # noqa: E731
    game_frame = gm.interventional_game(lambda df: _nonlinear(df.to_numpy()), frame(X), frame(bg))
    np.testing.assert_array_equal(game, game_frame)
    np.testing.assert_allclose(game, _game_by_loops(_nonlinear, X, bg), rtol=0, atol=1e-12)


def test_engine_refuses_outputs_that_change_shape():
    calls = {"n": 0}

    def flaky(Z):
        calls["n"] += 1
        return np.zeros((len(Z), 1 + (calls["n"] > 1)))

    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="different number of outputs"):
        gm.interventional_game(flaky, rng.normal(size=(2, 6)), rng.normal(size=(30, 6)), max_rows_per_call=60)
    calls["n"] = 0
    with pytest.raises(ValueError, match="different number of outputs"):  # the fast path
        sh.exact_shapley(flaky, rng.integers(0, 9, (2, 6)), rng.integers(0, 9, (30, 6)), max_rows_per_call=60)


# ---------------------------------------------------------------------------
# The pieces of sample_shapley: options, running moments, the greedy rule
# ---------------------------------------------------------------------------


def test_sampling_options_first_phase_and_errors():
    assert sk.SamplingOptions(10, "uniform").first_counts(4).tolist() == [3, 3, 2, 2]
    assert sk.SamplingOptions(10, "uniform").greedy_samples(4) == 0
    assert sk.SamplingOptions(20, min_samples=3).first_counts(4).tolist() == [3, 3, 3, 3]
    assert sk.SamplingOptions(20, min_samples=3).greedy_samples(4) == 8
    for options, message in [
        (sk.SamplingOptions(3, "uniform"), "less than one sample per feature"),
        (sk.SamplingOptions(7, min_samples=2), "less than min_samples"),
        (sk.SamplingOptions(20, min_samples=1), "min_samples must be >= 2"),
        (sk.SamplingOptions(20, batch_size=0), "batch_size"),
        (sk.SamplingOptions(20, prior_samples=-1.0), "prior_samples"),
        (sk.SamplingOptions(20, "greedy"), "allocation must be"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(ValueError, match=message):
            options.first_counts(4)


def test_running_moments_equal_the_moments_of_all_draws():
    rng = np.random.default_rng(5)
    cells = np.array([0, 0, 1, 1, 2, 2])
    first = rng.normal(size=(6, 2))
    moments = sk._RunningMoments.of_draws(cells, first, 3)
    later = [(np.array([0, 2]), rng.normal(size=(2, 2))), (np.array([1, 2]), rng.normal(size=(2, 2)))]
    for cell, draws in later:
        moments.add(cell, draws)
    everything = {c: [first[r] for r in np.flatnonzero(cells == c)] for c in range(3)}
    for cell, draws in later:
        for c, x in zip(cell, draws):
            everything[int(c)].append(x)
    for c in range(3):
        x = np.array(everything[c])
        assert moments.counts[c] == len(x)
        np.testing.assert_allclose(moments.mean[c], x.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(moments.sample_variances()[c], x.var(axis=0, ddof=1), rtol=1e-12)


def test_greedy_picks_go_where_the_error_drops_most():
    # one row, three features with 2 draws each: sample variances 8, 2, 0 (draws ±2, ±1, 0)
    cells = np.repeat(np.arange(3), 2)
    draws = np.array([[2.0], [-2.0], [1.0], [-1.0], [0.0], [0.0]])
    moments = sk._RunningMoments.of_draws(cells, draws, 3)
    picks = sk._greedy_picks(moments, 1, 3, 4, 0.0)[0].tolist()
    # gains σ²/(m(m+1)): 8/6, 8/12, 8/20 for feature 0 ahead of 2/6 for feature 1, then 8/30 behind it;
    # feature 2 (gain 0) never
    assert picks == [0, 0, 0, 1]
    # the variance-0 feature is starved as published, and sampled again with the book's prior
    assert 2 in sk._greedy_picks(moments, 1, 3, 12, 4.0)[0].tolist()
