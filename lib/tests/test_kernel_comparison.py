"""Tests of lib.kernel_comparison (Lemaire et al., §5.3, Table 3).

Ground truths that are not our own output: the model's predictions
(``WeightedNaiveBayes.predict_proba`` / ``decision_function``), 2^d enumeration of the
interventional game (``lib.shapley``), closed forms of Pearson and Kendall τ-b on small
vectors, and hand-computed means.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import formula, games
from lib import kernel_comparison as kc
from lib import naive_bayes as nb
from lib import shapley as sh
from lib.tests.helpers import toy_data

# shap imports tqdm.auto, which warns that ipywidgets is absent: irrelevant here
warnings.filterwarnings("ignore", message="IProgress not found")
# importing shap (lazily, in the first test that runs KernelSHAP) makes its colour maps with
# matplotlib calls that matplotlib plans to deprecate: shap's code, not ours
pytestmark = pytest.mark.filterwarnings(
    "ignore:The set_(bad|over|under) function will be deprecated:PendingDeprecationWarning")


@pytest.fixture(scope="module")
def toy():
    X, y = toy_data(300)
    model = nb.WeightedNaiveBayes(n_bins=4, alpha=1.0, weights=[1.0, 0.7, 0.3, 0.9]).fit(X, y)
    return X, model, model.transform(X)


def random_tables(rng: np.random.Generator, d: int, max_parts: int = 4) -> nb.NaiveBayesTables:
    lik, pp = [], []
    for _ in range(d):
        p = int(rng.integers(2, max_parts + 1))
        lik.append(rng.dirichlet(np.ones(p), size=2).T)
        pp.append(rng.dirichlet(np.ones(p)))
    prior = rng.dirichlet([2.0, 2.0])
    return nb.NaiveBayesTables(feature_names=[f"x{i}" for i in range(d)], classes=np.array(["a", "b"]),
                               prior=prior, likelihood=lik, part_prob=pp, weights=rng.uniform(0.1, 1.0, d))


def random_parts(rng: np.random.Generator, tables: nb.NaiveBayesTables, n: int) -> np.ndarray:
    return np.column_stack([rng.integers(0, p, n) for p in tables.n_parts])


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


def test_choose_rows_sizes_and_seed():
    e, b = kc.choose_rows(500, 100, 50, np.random.default_rng(1))
    assert len(e) == 100 and len(b) == 50
    assert len(np.unique(e)) == 100 and len(np.unique(b)) == 50
    assert np.all(np.diff(e) > 0) and e.min() >= 0 and e.max() < 500
    e2, b2 = kc.choose_rows(500, 100, 50, np.random.default_rng(1))
    np.testing.assert_array_equal(e, e2)
    np.testing.assert_array_equal(b, b2)
    e3, _ = kc.choose_rows(500, 100, 50, np.random.default_rng(2))
    assert not np.array_equal(e, e3)


def test_choose_rows_all_rows_when_asking_for_more():
    e, b = kc.choose_rows(30, 1000, 30, np.random.default_rng(0))
    np.testing.assert_array_equal(e, np.arange(30))
    np.testing.assert_array_equal(b, np.arange(30))


def test_choose_rows_bad_input():
    with pytest.raises(TypeError):
        kc.choose_rows(10, 5, 5, 0)  # type: ignore[arg-type]
    for args in ((0, 5, 5), (10, 0, 5), (10, 5, -1), (10, 2.5, 5)):
        with pytest.raises(ValueError):
            kc.choose_rows(*args, np.random.default_rng(0))


# ---------------------------------------------------------------------------
# The model as a black box
# ---------------------------------------------------------------------------


def test_output_is_the_models_probability_and_log_odds(toy):
    X, model, parts = toy
    f = kc.naive_bayes_output(model.tables_, "yes", ("proba", "log-odds"))
    out = f(parts)
    np.testing.assert_allclose(out[:, 0], model.predict_proba(X)[:, 1], atol=1e-12)
    np.testing.assert_allclose(out[:, 1], model.decision_function(X), atol=1e-10)
    # shap passes floats holding whole numbers; one output gives a vector
    g = kc.naive_bayes_output(model.tables_, "yes", "log-odds")
    np.testing.assert_allclose(g(parts.astype(float)), out[:, 1], atol=0)
    # the compiled and the numpy sums agree
    h = kc.naive_bayes_output(model.tables_, "yes", "log-odds", use_numba=False)
    np.testing.assert_allclose(h(parts), out[:, 1], atol=1e-12)


def test_output_bad_input(toy):
    _, model, parts = toy
    f = kc.naive_bayes_output(model.tables_, "yes")
    with pytest.raises(ValueError, match="shape"):
        f(parts[:, :3])
    with pytest.raises(ValueError, match="whole"):
        f(parts + 0.5)
    with pytest.raises(ValueError, match="range"):
        f(parts + 10)
    with pytest.raises(ValueError, match="finite"):
        f(np.full(parts.shape, np.nan))
    with pytest.raises(ValueError, match="outputs"):
        kc.naive_bayes_output(model.tables_, "yes", "probability")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"output=.* is not one of the classes"):
        kc.naive_bayes_output(model.tables_, "maybe")
    t = model.tables_
    three = nb.NaiveBayesTables(
        feature_names=t.feature_names, classes=np.array(["a", "b", "c"]), prior=np.array([0.2, 0.3, 0.5]),
        likelihood=[np.column_stack([lk[:, 0], lk[:, 1], lk[:, 1]]) for lk in t.likelihood],
        part_prob=t.part_prob, weights=t.weights)
    with pytest.raises(ValueError, match="two-class"):
        kc.naive_bayes_output(three, "a")


# ---------------------------------------------------------------------------
# KernelSHAP against exact enumeration
# ---------------------------------------------------------------------------


def test_kernelshap_with_all_coalitions_is_the_exact_shapley_value(toy):
    """With nsamples >= 2^d - 2 KernelSHAP enumerates every coalition: its values are the
    exact interventional Shapley values of the game with that background (2^4
    enumeration by lib.shapley), for the probability and for the log-odds."""
    _, model, parts = toy
    f = kc.naive_bayes_output(model.tables_, "yes", ("proba", "log-odds"))
    X, B = parts[:5], parts[100:180]
    ks = kc.kernel_shap(f, X, B, seed=0, nsamples=2**4)
    exact = sh.exact_shapley(f, X, B)
    assert ks.values.shape == (5, 4, 2)
    np.testing.assert_allclose(ks.values, exact.values, atol=1e-10)
    np.testing.assert_allclose(ks.base_values, exact.base_values, atol=1e-12)
    np.testing.assert_allclose(ks.efficiency_gap(), 0, atol=1e-10)
    # the proba game is not the log-odds game: eq. 10 is not KernelSHAP on P(Y|X)
    assert np.abs(ks.values[..., 0] - ks.values[..., 1]).max() > 0.1


def test_logit_link_explains_the_logit_of_the_mean_probability(toy):
    """link="logit" explains v(S) = logit(E_b p(x_S, b)), not E_b logit p(x_S, b)."""
    _, model, parts = toy
    p = kc.naive_bayes_output(model.tables_, "yes", "proba")
    X, B = parts[:4], parts[:150]
    ks = kc.kernel_shap(p, X, B, seed=0, nsamples=2**4, link="logit")
    game = games.interventional_game(p, X, B)
    expected = formula.shapley_from_game(np.log(game / (1 - game)))
    np.testing.assert_allclose(ks.values, expected, atol=1e-9)
    log_odds_values, _ = kc.background_shapley_values(model.tables_, X, B, "yes")
    assert np.abs(ks.values - log_odds_values).max() > 1e-3


@settings(max_examples=8, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), d=st.integers(6, 12))
def test_kernelshap_is_exact_on_the_log_odds_at_any_budget(seed, d):
    """The log-odds of a naive Bayes is additive, so its interventional game is linear in
    the coalition and KernelSHAP's weighted regression fits it exactly whatever coalitions
    it samples, once they span the d dimensions (4d + 20 samples here): the only
    difference with eq. 10 is the background."""
    rng = np.random.default_rng(seed)
    t = random_tables(rng, d)
    parts = random_parts(rng, t, 60)
    f = kc.naive_bayes_output(t, "b", "log-odds")
    ks = kc.kernel_shap(f, parts[:3], parts[10:40], seed=seed, nsamples=4 * d + 20)
    exact, base = kc.background_shapley_values(t, parts[:3], parts[10:40], "b")
    np.testing.assert_allclose(ks.values, exact, atol=1e-9)
    np.testing.assert_allclose(ks.base_values, base, atol=1e-12)


def test_kernelshap_is_seeded_and_restores_the_global_generator(toy):
    rng = np.random.default_rng(3)
    t = random_tables(rng, 12)
    parts = random_parts(rng, t, 50)
    p = kc.naive_bayes_output(t, "b", "proba")
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a = kc.kernel_shap(p, parts[:2], parts[10:30], seed=5, nsamples=60).values
    np.testing.assert_array_equal(np.random.get_state()[1], before)
    b = kc.kernel_shap(p, parts[:2], parts[10:30], seed=5, nsamples=60).values
    c = kc.kernel_shap(p, parts[:2], parts[10:30], seed=6, nsamples=60).values
    np.testing.assert_array_equal(a, b)
    assert np.abs(a - c).max() > 0
    # sampled, not exact: the estimate differs from 2^12 enumeration
    exact = sh.exact_shapley(p, parts[:2], parts[10:30]).values
    assert np.abs(a - exact).max() > 1e-6


def test_l1_reg_default_of_shap_drops_features(toy):
    """shap's own default (num_features(10)) zeroes features; ours (l1_reg=False) does not."""
    rng = np.random.default_rng(4)
    t = random_tables(rng, 14)
    parts = random_parts(rng, t, 50)
    p = kc.naive_bayes_output(t, "b", "proba")
    kept = kc.kernel_shap(p, parts[:2], parts[10:30], seed=0, nsamples=200, l1_reg="num_features(10)").values
    full = kc.kernel_shap(p, parts[:2], parts[10:30], seed=0, nsamples=200).values
    assert ((kept != 0).sum(axis=1) <= 10).all()
    assert ((full != 0).sum(axis=1) > 10).all()


def test_kernel_shap_bad_input(toy):
    _, model, parts = toy
    f = kc.naive_bayes_output(model.tables_, "yes")
    with pytest.raises(ValueError, match="features but background"):
        kc.kernel_shap(f, parts[:2], parts[:10, :3], seed=0)
    with pytest.raises(ValueError, match="2-D"):
        kc.kernel_shap(f, parts[0], parts[:10], seed=0)
    with pytest.raises(ValueError, match="background has no rows"):
        kc.kernel_shap(f, parts[:2], parts[:0], seed=0)
    with pytest.raises(ValueError, match="nsamples"):
        kc.kernel_shap(f, parts[:2], parts[:10], seed=0, nsamples=1)
    with pytest.raises(ValueError, match="NaN"):
        kc.kernel_shap(f, np.full((1, 4), np.nan), parts[:10].astype(float), seed=0)
    with pytest.raises(ValueError, match="link"):
        kc.kernel_shap(f, parts[:2], parts[:10], seed=0, link="probit")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Exact values for a background
# ---------------------------------------------------------------------------


def test_background_values_are_the_exact_interventional_values(toy):
    X, model, parts = toy
    rows, bg = X.iloc[:5], X.iloc[40:140]
    values, base = kc.background_shapley_values(model.tables_, parts[:5], parts[40:140], "yes")
    exact = sh.exact_shapley(model.decision_function, rows, bg)
    np.testing.assert_allclose(values, exact.values, atol=1e-10)
    np.testing.assert_allclose(base, exact.base_values, atol=1e-10)
    # with every training row as background it is eq. 10 itself
    all_bg, _ = kc.background_shapley_values(model.tables_, parts[:5], parts, "yes")
    eq10, _ = nb.shapley_values(model.tables_, parts[:5], "yes")
    np.testing.assert_allclose(all_bg, eq10, atol=1e-12)


def test_background_values_bad_input(toy):
    _, model, parts = toy
    with pytest.raises(ValueError):
        kc.background_shapley_values(model.tables_, parts[:5], parts[:0], "yes")
    with pytest.raises(ValueError):
        kc.background_shapley_values(model.tables_, parts[:5], parts[:10, :2], "yes")


# ---------------------------------------------------------------------------
# Global importance, correlations, errors
# ---------------------------------------------------------------------------


def test_global_importance_of_known_arrays():
    v = np.array([[1.0, -2.0, 0.0], [-3.0, 2.0, 0.5]])
    np.testing.assert_array_equal(kc.global_importance(v), [2.0, 2.0, 0.25])
    v3 = np.stack([v, -2 * v], axis=-1)
    np.testing.assert_array_equal(kc.global_importance(v3), [[2.0, 4.0], [2.0, 4.0], [0.25, 0.5]])
    for bad in (np.zeros(3), np.zeros((0, 3)), np.array([[1.0, np.nan]])):
        with pytest.raises(ValueError):
            kc.global_importance(bad)


def test_normalised():
    np.testing.assert_allclose(kc.normalised([1.0, 3.0]), [0.25, 0.75])
    for bad in ([0.0, 0.0], [1.0, -1.0], [[1.0]], [], [np.inf, 1.0]):
        with pytest.raises(ValueError):
            kc.normalised(bad)


def test_correlations_closed_forms():
    c = kc.correlations([1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0])
    assert c["pearson"] == pytest.approx(1.0) and c["kendall"] == pytest.approx(1.0)
    # one discordant pair out of six: tau = (5 - 1) / 6
    assert kc.correlations([1, 2, 3, 4], [1, 3, 2, 4])["kendall"] == pytest.approx(2 / 3)
    # tau-b with a tie in x: 2 concordant pairs, (n0 - n1)(n0 - n2) = (3 - 1)(3 - 0)
    assert kc.correlations([1, 1, 2], [1, 2, 3])["kendall"] == pytest.approx(2 / math.sqrt(6))
    # Pearson of (0, 1, 2) and (0, 1, 4): cov 4/3, sds sqrt(2/3) and sqrt(26/9)
    expected = (4 / 3) / math.sqrt(2 / 3 * 26 / 9)
    assert kc.correlations([0, 1, 2], [0, 1, 4])["pearson"] == pytest.approx(expected)


def test_correlations_treat_rounding_noise_as_ties():
    """Tic-tac-toe's case: four values equal by symmetry, differing in the last bits."""
    eps = 2.0**-52
    a = np.array([0.27, 0.27 * (1 + eps), 0.68, 0.27 * (1 - eps), 0.27 * (1 + 2 * eps)])
    b = np.array([0.053 * (1 - eps), 0.053, 0.145, 0.053 * (1 + 2 * eps), 0.053 * (1 - 2 * eps)])
    # tied within each vector: the 6 pairs of corners are tied in both, the 4 others concordant
    assert kc.correlations(a, b)["kendall"] == pytest.approx(1.0)
    assert kc.correlations(a, b, tie_rtol=0)["kendall"] < 0.5  # ranked by rounding noise
    with pytest.raises(ValueError):
        kc.correlations(a, b, tie_rtol=1.5)


def test_correlations_bad_input():
    for a, b in (([1.0], [1.0]), ([1, 2, 3], [1, 2]), ([1, 1, 1], [1, 2, 3]), ([1, np.nan], [1, 2]),
                 ([[1, 2]], [[1, 2]])):
        with pytest.raises(ValueError):
            kc.correlations(a, b)


def test_local_errors():
    e = kc.local_errors([[1.0, 2.0]], [[1.0, 4.0]])
    assert e["max_abs"] == 2.0
    assert e["rms"] == pytest.approx(math.sqrt(2.0))
    assert e["relative_rms"] == pytest.approx(math.sqrt(2.0) / math.sqrt(17 / 2))
    with pytest.raises(ValueError):
        kc.local_errors([[1.0, 2.0]], [[1.0, 2.0, 3.0]])


def test_unused_inputs_are_null_players():
    """A model that ignores an input: exact enumeration over all inputs gives it 0, and
    expand_to_inputs puts the used variables' values in place with 0 elsewhere."""
    rng = np.random.default_rng(0)
    Xall = rng.normal(size=(40, 4))

    def f(Z):  # uses inputs 0 and 2 only
        return np.tanh(Z[:, 0]) * Z[:, 2] + Z[:, 2] ** 2

    full = sh.exact_shapley(f, Xall[:3], Xall[10:30]).values
    used = sh.exact_shapley(lambda Z: f(np.column_stack([Z[:, 0], Z[:, 0], Z[:, 1], Z[:, 0]])),
                            Xall[:3, [0, 2]], Xall[10:30][:, [0, 2]]).values
    np.testing.assert_allclose(full[:, [1, 3]], 0, atol=1e-12)
    expanded = kc.expand_to_inputs(used, ["a", "c"], ["a", "b", "c", "d"])
    np.testing.assert_allclose(expanded, full, atol=1e-12)
    with pytest.raises(ValueError):
        kc.expand_to_inputs(used, ["a", "z"], ["a", "b", "c", "d"])
    with pytest.raises(ValueError):
        kc.expand_to_inputs(used, ["a"], ["a", "b"])


# ---------------------------------------------------------------------------
# The protocol
# ---------------------------------------------------------------------------


