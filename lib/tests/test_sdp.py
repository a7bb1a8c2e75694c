"""Tests of lib.sdp against independent definitions: Definition 3.1 summed state by state in
plain Python, swings counted over all d! orders, minimal coalitions found by brute force,
and properties the paper and the LUCAS graph imply (full coalition, Markov blanket, null
player, efficiency)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import bayesnet as bn
from lib import formula, games, sdp
from lib import shapley as sh


@st.composite
def problems(draw, max_d: int = 5):
    """A strictly positive distribution on d binary features, a predictor table, an instance."""
    d = draw(st.integers(1, max_d))
    w = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=2**d, max_size=2**d)))
    f = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=2**d, max_size=2**d)))
    x = np.array(draw(st.lists(st.integers(0, 1), min_size=d, max_size=d)))
    threshold = draw(st.floats(0.0, 1.0))
    return w / w.sum(), f, x, threshold


def brute_sdp(p, f, x, threshold):
    """Definition 3.1 state by state: P(C(Z) = C(x) | Z_S = x_S) for each S."""
    d = len(x)
    sx = sum(int(b) << i for i, b in enumerate(x))
    cx = f[sx] >= threshold
    out = np.empty(2**d)
    for S in range(2**d):
        num = den = 0.0
        for z in range(2**d):
            if all(((z >> i) & 1) == ((sx >> i) & 1) for i in range(d) if (S >> i) & 1):
                den += p[z]
                num += p[z] * ((f[z] >= threshold) == cx)
        out[S] = num / den
    return out


def swings_by_orders(v):
    """Average over the d! orders of the swing / reverse-swing indicators of each player."""
    d = v.size.bit_length() - 1
    sw, rev = np.zeros(d), np.zeros(d)
    for order in itertools.permutations(range(d)):
        s = 0
        for i in order:
            delta = v[s | (1 << i)] - v[s]
            sw[i] += delta > 0
            rev[i] += delta < 0
            s |= 1 << i
    return sw / math.factorial(d), rev / math.factorial(d)


# --------------------------------------------------------------------------- Definition 3.1
def test_subset_sums_brute_force():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(3, 32))
    out = sdp.subset_sums(v)
    for T in range(32):
        expect = sum(v[:, U] for U in range(32) if U & ~T == 0)
        np.testing.assert_allclose(out[:, T], expect, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(problems())
def test_sdp_equals_definition_3_1_state_by_state(problem):
    p, f, x, threshold = problem
    ours = sdp.same_decision_probability(f, p, x, threshold)
    assert ours.shape == (1, 2 ** len(x))
    np.testing.assert_allclose(ours[0], brute_sdp(p, f, x, threshold), atol=1e-12)
    assert ours[0, -1] == 1.0  # the full coalition keeps the decision surely
    assert np.all((ours >= 0) & (ours <= 1 + 1e-12))


@settings(max_examples=40, deadline=None)
@given(problems(max_d=4))
def test_conditional_game_is_the_conditional_expectation(problem):
    p, f, x, _ = problem
    d = len(x)
    sx = sum(int(b) << i for i, b in enumerate(x))
    ours = sdp.conditional_game(f, p, x)[0]
    for S in range(2**d):
        agree = [z for z in range(2**d) if (z ^ sx) & S == 0]
        expect = sum(p[z] * f[z] for z in agree) / sum(p[z] for z in agree)
        assert abs(ours[S] - expect) < 1e-12
    assert abs(ours[0] - p @ f) < 1e-12 and abs(ours[-1] - f[sx]) < 1e-12


def test_several_instances_at_once_match_one_at_a_time():
    rng = np.random.default_rng(1)
    p = rng.random(64)
    p /= p.sum()
    f = rng.random(64)
    X = rng.integers(0, 2, size=(7, 6))
    together = sdp.same_decision_probability(f, p, X, 0.4)
    for k in range(7):
        np.testing.assert_array_equal(together[k], sdp.same_decision_probability(f, p, X[k], 0.4)[0])


# --------------------------------------------------------------------------- LUCAS properties
@pytest.fixture(scope="module")
def lucas():
    net = bn.lucas()
    features = list(bn.LUCAS_FEATURES)
    p = net.marginal_table(features)
    f = net.conditional_table(bn.LUCAS_TARGET, features)
    X = bn.states(11)[np.random.default_rng(5).choice(2**11, size=64, replace=False)]
    return net, features, p, f, X


def test_sdp_is_one_for_every_coalition_containing_the_markov_blanket(lucas):
    net, features, p, f, X = lucas
    mb = sdp.coalition_mask(features, net.markov_blanket(bn.LUCAS_TARGET))
    S = np.arange(2**11)
    supersets = S[(S & mb) == mb]
    assert len(supersets) == 2**6
    for threshold in (0.3, 0.5, 0.8):
        values = sdp.same_decision_probability(f, p, X, threshold)
        np.testing.assert_array_equal(values[:, supersets], 1.0)
        # ...and the blanket is needed: dropping it entirely loses certainty for some instance
        assert values[:, 0].min() < 1


def test_born_an_even_day_is_a_null_player_of_the_swing_game(lucas):
    _, features, p, f, X = lucas
    b = features.index("Born_an_Even_Day")
    S = np.arange(2**11)
    without = S[((S >> b) & 1) == 0]
    values = sdp.same_decision_probability(f, p, X, 0.5)
    np.testing.assert_allclose(values[:, without | (1 << b)], values[:, without], atol=1e-12)
    for pi in (0.6, 0.75, 0.9, 0.95, 1.0):
        game = sdp.swing_game(values, pi)
        np.testing.assert_array_equal(game[:, without | (1 << b)], game[:, without])
        assert np.all(np.abs(sdp.swing_shapley(values, pi)[:, b]) < 1e-12)
        dec = sdp.swing_decomposition(game)
        assert np.all(dec.n_swings[:, b] == 0) and np.all(dec.n_reverse_swings[:, b] == 0)


def test_network_sdp_matches_the_table_route(lucas):
    net, features, p, f, X = lucas
    x = dict(zip(features, X[0].tolist()))
    np.testing.assert_array_equal(
        sdp.network_sdp(net, x, target=bn.LUCAS_TARGET, threshold=0.5),
        sdp.same_decision_probability(f, p, X[0], 0.5),
    )


# --------------------------------------------------------------------------- the swing game
@st.composite
def simple_games(draw, max_d: int = 6):
    d = draw(st.integers(1, max_d))
    v = np.array(draw(st.lists(st.integers(0, 1), min_size=2**d, max_size=2**d)), dtype=float)
    return v


@settings(max_examples=100, deadline=None)
@given(simple_games())
def test_swings_minus_reverse_swings_are_the_shapley_values(v):
    dec = sdp.swing_decomposition(v)
    phi = formula.shapley_from_game(v)
    np.testing.assert_allclose(dec.swings - dec.reverse_swings, phi, atol=1e-12)
    np.testing.assert_allclose(dec.values, phi, atol=1e-12)
    assert np.all(dec.swings >= 0) and np.all(dec.reverse_swings >= 0)
    d = v.size.bit_length() - 1
    np.testing.assert_array_equal(dec.n_swings + dec.n_reverse_swings + dec.n_null, 2 ** (d - 1))


@settings(max_examples=40, deadline=None)
@given(simple_games(max_d=5))
def test_swing_parts_are_the_order_averages_of_swings(v):
    dec = sdp.swing_decomposition(v)
    sw, rev = swings_by_orders(v)
    np.testing.assert_allclose(dec.swings, sw, atol=1e-12)
    np.testing.assert_allclose(dec.reverse_swings, rev, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(problems(), st.floats(0.01, 1.0))
def test_swing_shapley_efficiency(problem, pi):
    p, f, x, threshold = problem
    values = sdp.same_decision_probability(f, p, x, threshold)
    phi = sdp.swing_shapley(values, pi)
    game = sdp.swing_game(values, pi)
    assert set(np.unique(game)) <= {0.0, 1.0}
    assert game[0, -1] == 1.0
    assert abs(phi.sum() - (1.0 - game[0, 0])) < 1e-12


@settings(max_examples=80, deadline=None)
@given(problems(), st.floats(0.01, 1.0))
def test_minimal_sufficient_coalitions_brute_force(problem, pi):
    p, f, x, threshold = problem
    values = sdp.same_decision_probability(f, p, x, threshold)[0]
    d = len(x)
    win = [S for S in range(2**d) if values[S] >= pi]
    expect = {S for S in win if not any(T != S and T & ~S == 0 for T in win)}
    ours = sdp.minimal_sufficient_coalitions(values, pi)
    assert set(ours.tolist()) == expect
    sizes = [bin(int(S)).count("1") for S in ours]
    assert sizes == sorted(sizes)


def test_coalition_names_round_trip():
    features = list(bn.LUCAS_FEATURES)
    mask = sdp.coalition_mask(features, ["Coughing", "Smoking"])
    assert mask == (1 << 0) | (1 << 10)
    assert sdp.coalition_names(features, mask) == ("Smoking", "Coughing")


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("pi", [0.0, -0.1, 1.01, float("nan"), "0.9"])
def test_pi_outside_the_unit_interval_is_refused(pi):
    with pytest.raises(ValueError, match="pi"):
        sdp.swing_game(np.full(4, 0.5), pi)
    with pytest.raises(ValueError, match="pi"):
        sdp.swing_shapley(np.full(4, 0.5), pi)
    with pytest.raises(ValueError, match="pi"):
        sdp.minimal_sufficient_coalitions(np.full(4, 0.5), pi)


@pytest.mark.parametrize("threshold", [-0.01, 1.5, float("nan"), None])
def test_threshold_outside_the_unit_interval_is_refused(threshold):
    p = np.full(4, 0.25)
    with pytest.raises(ValueError, match="threshold"):
        sdp.same_decision_probability(np.full(4, 0.5), p, [0, 1], threshold)


def test_unknown_variables_are_refused():
    net = bn.lucas()
    features = list(bn.LUCAS_FEATURES)
    with pytest.raises(ValueError, match="unknown"):
        sdp.coalition_mask(features, ["Smoking", "Lung_Cancer"])
    x = {name: 1 for name in features}
    with pytest.raises(ValueError, match="unknown"):
        sdp.network_sdp(net, {**x, "Shoe_Size": 1}, target=bn.LUCAS_TARGET)
    with pytest.raises(ValueError, match="missing"):
        sdp.network_sdp(net, {k: v for k, v in x.items() if k != "Allergy"}, target=bn.LUCAS_TARGET)
    with pytest.raises(ValueError, match="unknown"):
        sdp.network_sdp(net, x, target="Lung_Cancer")
    with pytest.raises(ValueError, match="unknown"):
        sdp.network_sdp(net, x, target=bn.LUCAS_TARGET, features=features + ["Shoe_Size"])
    with pytest.raises(ValueError, match="subset"):
        sdp.coalition_names(features, 2**11)
    with pytest.raises(ValueError, match="target"):  # also when f is given (no Bayes classifier built)
        sdp.network_sdp(net, x, target=bn.LUCAS_TARGET, features=features[:-1] + [bn.LUCAS_TARGET],
                        f=np.full(2**11, 0.5))


def test_other_bad_input_is_refused():
    p = np.full(4, 0.25)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        sdp.same_decision_probability(np.array([0.2, 1.3, 0.5, 0.5]), p, [0, 1])
    with pytest.raises(ValueError, match="sum to 1"):
        sdp.same_decision_probability(np.full(4, 0.5), np.full(4, 0.3), [0, 1])
    with pytest.raises(ValueError, match="2\\*\\*d"):
        sdp.same_decision_probability(np.full(3, 0.5), np.full(3, 1 / 3), [0, 1])
    with pytest.raises(ValueError, match="features"):
        sdp.same_decision_probability(np.full(4, 0.5), p, [0, 1, 1])
    with pytest.raises(ValueError, match="only 0 and 1"):
        sdp.same_decision_probability(np.full(4, 0.5), p, [0, 2])
    with pytest.raises(ValueError, match="probability zero|= 0"):
        sdp.same_decision_probability(np.full(4, 0.5), np.array([0.5, 0.5, 0.0, 0.0]), [0, 1])
    with pytest.raises(ValueError, match="values 0 and 1"):
        sdp.swing_decomposition(np.array([0.0, 0.5, 1.0, 1.0]))
    with pytest.raises(ValueError, match="probabilities"):
        sdp.swing_game(np.array([0.0, 1.5]), 0.9)


# --------------------------------------------------------------------------- ordinary games (eq. 2.1)
def brute_marginal_game(p, g, x):
    """E_{Z ~ p}[g(x_S, Z_{-S})] coalition by coalition, state by state, in plain Python."""
    d = len(x)
    sx = sum(int(b) << i for i, b in enumerate(x))
    out = np.empty(2**d)
    for S in range(2**d):
        total = 0.0
        for z in range(2**d):
            hybrid = sum(((sx if (S >> i) & 1 else z) >> i & 1) << i for i in range(d))
            total += p[z] * g[hybrid]
        out[S] = total
    return out


def shapley_two_players(v0, v1, v2, v12):
    """Shapley values of a two-player game written out: each order has probability 1/2."""
    return np.array([0.5 * (v1 - v0) + 0.5 * (v12 - v2), 0.5 * (v2 - v0) + 0.5 * (v12 - v1)])


@settings(max_examples=60, deadline=None)
@given(problems(max_d=4))
def test_marginal_game_is_the_interventional_expectation(problem):
    p, f, x, _ = problem
    ours = sdp.marginal_game(f, p, x)
    assert ours.shape == (1, 2 ** len(x))
    np.testing.assert_allclose(ours[0], brute_marginal_game(p, f, x), atol=1e-12)
    sx = sum(int(b) << i for i, b in enumerate(x))
    assert abs(ours[0, 0] - p @ f) < 1e-12 and abs(ours[0, -1] - f[sx]) < 1e-12


def test_two_node_network_by_hand():
    # A -> B, features (A, B) = bits (0, 1), instance A = B = 1.
    a, b0, b1 = 0.3, 0.2, 0.9
    net = bn.BinaryBayesNet(["A", "B", "Y"], {"B": ["A"], "Y": ["B"]}, {"A": a, "B": [b0, b1], "Y": [0.1, 0.7]})
    f = np.array([0.05, 0.4, 0.6, 0.95])  # f(A, B) at states (0,0), (1,0), (0,1), (1,1)
    f00, f10, f01, f11 = f
    pA = np.array([1 - a, a])
    pB_given_A = np.array([[1 - b0, b0], [1 - b1, b1]])  # [a, b]
    joint = pA[:, None] * pB_given_A
    v0 = sum(joint[i, j] * f[i + 2 * j] for i in (0, 1) for j in (0, 1))
    # observational: E[f | A = 1], E[f | B = 1] by Bayes' rule
    pA1_given_B1 = a * b1 / (a * b1 + (1 - a) * b0)
    obs = shapley_two_players(v0, b1 * f11 + (1 - b1) * f10,
                              pA1_given_B1 * f11 + (1 - pA1_given_B1) * f01, f11)
    # interventional: the absent feature from its marginal
    pB1 = a * b1 + (1 - a) * b0
    inter = shapley_two_players(v0, pB1 * f11 + (1 - pB1) * f10, a * f11 + (1 - a) * f01, f11)
    x = {"A": 1, "B": 1}
    for game, expect in (("observational", obs), ("interventional", inter)):
        res = sdp.network_shapley(net, x, target="Y", features=["A", "B"], f=f, game=game)
        np.testing.assert_allclose(res.values[0], expect, atol=1e-12)
        assert abs(res.base_values[0] - v0) < 1e-12 and abs(res.outputs[0] - f11) < 1e-12
    # f = 1{B = 1} reads B only: A is a null player of the interventional game, but the
    # observational game credits it with half of what A = 1 reveals about B.
    g = np.array([0.0, 0.0, 1.0, 1.0])
    inter_g = sdp.network_shapley(net, x, target="Y", features=["A", "B"], f=g, game="interventional")
    obs_g = sdp.network_shapley(net, x, target="Y", features=["A", "B"], f=g, game="observational")
    assert abs(inter_g.values[0, 0]) < 1e-12
    assert abs(obs_g.values[0, 0] - 0.5 * (b1 - pB1)) < 1e-12
    # ...and the Bayes classifier of Y given (A, B) reads B only, so the same holds for it
    bayes = sdp.network_shapley(net, x, target="Y", features=["A", "B"], game="interventional")
    assert abs(bayes.values[0, 0]) < 1e-12 and abs(bayes.values[0, 1] - (0.7 - (0.7 * pB1 + 0.1 * (1 - pB1)))) < 1e-12


def test_three_independent_features_and_an_and_gate_by_hand():
    # X1, X2, X3 independent with P(X_i = 1) = q_i; g = X1 AND X2; instance (1, 1, 1).
    q = np.array([0.2, 0.7, 0.4])
    Z = bn.states(3)
    p = np.prod(np.where(Z == 1, q, 1 - q), axis=1)
    g = (Z[:, 0] & Z[:, 1]).astype(float)
    expect = np.array([0.5 * (q[1] - q[0] * q[1]) + 0.5 * (1 - q[0]),
                       0.5 * (q[0] - q[0] * q[1]) + 0.5 * (1 - q[1]), 0.0])
    for game in ("observational", "interventional"):  # independent features: the two games agree
        res = sdp.ordinary_shapley(g, p, [1, 1, 1], game=game)
        np.testing.assert_allclose(res.values[0], expect, atol=1e-12)


@st.composite
def product_problems(draw, max_d: int = 5):
    d = draw(st.integers(1, max_d))
    q = np.array(draw(st.lists(st.floats(0.01, 0.99), min_size=d, max_size=d)))
    Z = bn.states(d)
    p = np.prod(np.where(Z == 1, q, 1 - q), axis=1)
    g = np.array(draw(st.lists(st.floats(-5.0, 5.0), min_size=2**d, max_size=2**d)))
    x = np.array(draw(st.lists(st.integers(0, 1), min_size=d, max_size=d)))
    return p, g, x


@settings(max_examples=60, deadline=None)
@given(product_problems())
def test_games_agree_when_the_features_are_independent(problem):
    p, g, x = problem
    np.testing.assert_allclose(sdp.marginal_game(g, p, x), sdp.conditional_game(g, p, x), atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(problems(max_d=5))
def test_ordinary_shapley_efficiency(problem):
    p, f, x, threshold = problem
    for g in (f, sdp.decision_table(f, threshold)):
        for game in ("observational", "interventional"):
            res = sdp.ordinary_shapley(g, p, x, game=game)
            sx = sum(int(b) << i for i, b in enumerate(x))
            assert abs(res.values.sum() - (g[sx] - p @ g)) < 1e-10
            assert abs(res.efficiency_gap()[0]) < 1e-10


def test_marginal_game_on_an_empirical_distribution_is_the_background_game():
    # p = the histogram of m background rows: the game is lib.shapley's interventional game on them
    rng = np.random.default_rng(3)
    d, m = 5, 37
    background = rng.integers(0, 2, size=(m, d))
    p = np.bincount(bn.state_index(background), minlength=2**d) / m
    f = rng.random(2**d)
    X = rng.integers(0, 2, size=(4, d))
    expect = games.interventional_game(lambda rows: f[bn.state_index(rows)], X, background)
    np.testing.assert_allclose(sdp.marginal_game(f, p, X), expect, atol=1e-12)
    # one table per instance
    G = rng.random((4, 2**d))
    for k in range(4):
        np.testing.assert_allclose(sdp.marginal_game(G, p, X)[k], sdp.marginal_game(G[k], p, X[k])[0], atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(problems(max_d=5))
def test_observational_game_of_the_decision_is_the_sdp(problem):
    # E[1{f(X) >= T} | X_S = x_S] is the SDP when C(x) = 1, and 1 - SDP when C(x) = 0
    p, f, x, threshold = problem
    sx = sum(int(b) << i for i, b in enumerate(x))
    game = sdp.conditional_game(sdp.decision_table(f, threshold), p, x)[0]
    values = sdp.same_decision_probability(f, p, x, threshold)[0]
    expect = values if f[sx] >= threshold else 1.0 - values
    np.testing.assert_allclose(game, expect, atol=1e-12)


def test_lucas_non_blanket_variables_are_null_in_the_interventional_game(lucas):
    net, features, p, f, X = lucas
    outside = [features.index(v) for v in features if v not in net.markov_blanket(bn.LUCAS_TARGET)]
    for threshold in (None, 0.5):
        res = sdp.network_shapley(net, X[:6], target=bn.LUCAS_TARGET, game="interventional", threshold=threshold)
        assert np.abs(res.values[:, outside]).max() < 1e-12
        assert np.abs(res.efficiency_gap()).max() < 1e-12


def test_lucas_observational_game_credits_variables_outside_the_blanket(lucas):
    # the paper's criticism, at the paper's instance: Yellow_Fingers = 1 reveals Smoking = 1
    net, features, p, f, X = lucas
    x = {v: 0 for v in features} | {"Smoking": 1, "Genetics": 1, "Coughing": 1, "Yellow_Fingers": 1}
    y = features.index("Yellow_Fingers")
    for threshold in (None, 0.5):
        obs = sdp.network_shapley(net, x, target=bn.LUCAS_TARGET, game="observational", threshold=threshold)
        inter = sdp.network_shapley(net, x, target=bn.LUCAS_TARGET, game="interventional", threshold=threshold)
        assert obs.values[0, y] > 1e-3 and abs(inter.values[0, y]) < 1e-12


def test_lucas_born_an_even_day_is_null_in_both_ordinary_games(lucas):
    # independent of every variable and not read by f: null in both games, for f and for 1{f >= T}
    net, features, p, f, X = lucas
    b = features.index("Born_an_Even_Day")
    S = np.arange(2**11)
    without = S[((S >> b) & 1) == 0]
    for g in (f, sdp.decision_table(f, 0.5)):
        for game in (sdp.conditional_game(g, p, X[:4]), sdp.marginal_game(g, p, X[:4])):
            np.testing.assert_allclose(game[:, without | (1 << b)], game[:, without], atol=1e-12)
            assert np.abs(formula.shapley_from_game(game)[:, b]).max() < 1e-12


def test_lucas_interventional_values_agree_with_a_sampled_background(lucas):
    # exact (network marginal) vs lib.shapley.exact_shapley on m rows sampled from the network.
    # The sampled values are the mean over the rows z of the Shapley values of the one-row
    # games v_z(S) = f(x_S, z_{-S}); their exact mean and variance under p give the standard error.
    net, features, p, f, X = lucas
    x = X[0]
    g = np.stack([f, sdp.decision_table(f, 0.5)], axis=1)  # two outputs: probability, decision
    exact = np.stack([sdp.ordinary_shapley(g[:, k], p, x, game="interventional").values[0] for k in (0, 1)], axis=1)
    sx = bn.state_index(x)
    full = 2**11 - 1
    S = np.arange(2**11)
    z = np.arange(2**11)
    hybrid = (sx & S[None, :]) | (z[:, None] & (full ^ S[None, :]))  # (state z, coalition S)
    se = np.empty_like(exact)
    for k in (0, 1):
        per_row = formula.shapley_from_game(g[:, k][hybrid])  # (2**11 states, 11)
        np.testing.assert_allclose(p @ per_row, exact[:, k], atol=1e-12)  # linearity: the mean is exact
        se[:, k] = np.sqrt(p @ (per_row - exact[:, k]) ** 2)
    m = 4000
    background = net.sample(m, np.random.default_rng(11))[features].to_numpy()
    sampled = sh.exact_shapley(lambda rows: g[bn.state_index(rows)], x, background).values[0]
    se /= np.sqrt(m)
    assert se.max() > 1e-3  # the check has teeth: some values are genuinely uncertain
    assert np.all(np.abs(sampled - exact) <= 4 * se + 1e-12)


@pytest.mark.parametrize("threshold", [-0.01, 1.5, float("nan"), None, "0.5"])
def test_decision_table_refuses_bad_thresholds(threshold):
    with pytest.raises(ValueError, match="threshold"):
        sdp.decision_table(np.full(4, 0.5), threshold)


def test_ordinary_games_refuse_bad_input():
    p = np.full(4, 0.25)
    with pytest.raises(ValueError, match="observational"):
        sdp.ordinary_shapley(np.full(4, 0.5), p, [0, 1], game="causal")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        sdp.decision_table(np.array([0.2, 1.3, 0.5, 0.5]), 0.5)
    with pytest.raises(ValueError, match="NaN"):
        sdp.marginal_game(np.array([0.2, np.nan, 0.5, 0.5]), p, [0, 1])
    with pytest.raises(ValueError, match="shape"):
        sdp.marginal_game(np.full(8, 0.5), p, [0, 1])
    with pytest.raises(ValueError, match="sum to 1"):
        sdp.marginal_game(np.full(4, 0.5), np.full(4, 0.3), [0, 1])
    with pytest.raises(ValueError, match="features"):
        sdp.marginal_game(np.full(4, 0.5), p, [0, 1, 1])
    with pytest.raises(ValueError, match="only 0 and 1"):
        sdp.marginal_game(np.full(4, 0.5), p, [0, 2])
    with pytest.raises(ValueError, match="exceeds"):
        sdp.marginal_game(np.zeros(2**15), np.full(2**15, 2.0**-15), np.zeros(15, dtype=int))
    with pytest.raises(ValueError, match="feature names"):
        sdp.ordinary_shapley(np.full(4, 0.5), p, [0, 1], game="interventional", feature_names=["a"])


def test_network_shapley_refuses_unknown_variables_and_bad_tables():
    net = bn.lucas()
    features = list(bn.LUCAS_FEATURES)
    x = {name: 1 for name in features}
    kw = dict(target=bn.LUCAS_TARGET, game="observational")
    with pytest.raises(ValueError, match="unknown"):
        sdp.network_shapley(net, {**x, "Shoe_Size": 1}, **kw)
    with pytest.raises(ValueError, match="missing"):
        sdp.network_shapley(net, {k: v for k, v in x.items() if k != "Allergy"}, **kw)
    with pytest.raises(ValueError, match="unknown"):
        sdp.network_shapley(net, x, target="Lung_Cancer", game="observational")
    with pytest.raises(ValueError, match="unknown"):
        sdp.network_shapley(net, x, features=features + ["Shoe_Size"], **kw)
    with pytest.raises(ValueError, match="target"):
        sdp.network_shapley(net, x, features=features + [bn.LUCAS_TARGET], **kw)
    with pytest.raises(ValueError, match="states"):
        sdp.network_shapley(net, x, f=np.full(16, 0.5), **kw)
    with pytest.raises(ValueError, match="threshold"):
        sdp.network_shapley(net, x, threshold=1.2, **kw)


# --------------------------------------------------------------------------- figure1_claims
