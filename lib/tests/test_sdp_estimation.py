"""Tests of lib.sdp_estimation: matching rows counted one by one in plain Python, projected
stumps whose cells are known by hand, convergence to the exact SDP of lib.sdp on large
samples of the LUCAS network, the full coalition, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.tree import DecisionTreeClassifier

from lib import bayesnet as bn
from lib import sdp
from lib import sdp_estimation as se


def brute_empirical(data, c, x, cx):
    """Matching rows counted coalition by coalition."""
    d = len(x)
    est, count = np.full(2**d, np.nan), np.zeros(2**d)
    for S in range(2**d):
        cols = [i for i in range(d) if (S >> i) & 1]
        match = [j for j in range(len(data)) if all(data[j][i] == x[i] for i in cols)]
        count[S] = len(match)
        if match:
            est[S] = sum(c[j] == cx for j in match) / len(match)
    return est, count


@st.composite
def samples(draw, max_d: int = 5):
    d = draw(st.integers(1, max_d))
    m = draw(st.integers(1, 30))
    data = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=d, max_size=d), min_size=m, max_size=m)))
    c = np.array(draw(st.lists(st.integers(0, 1), min_size=m, max_size=m)))
    x = np.array(draw(st.lists(st.integers(0, 1), min_size=d, max_size=d)))
    cx = draw(st.integers(0, 1))
    return data, c, x, cx


@settings(max_examples=80, deadline=None)
@given(samples())
def test_empirical_sdp_counts_matching_rows(sample):
    data, c, x, cx = sample
    out = se.empirical_sdp(data, c, x, cx)
    est, count = brute_empirical(data, c, x, cx)
    np.testing.assert_array_equal(out.count[0], count)
    np.testing.assert_allclose(out.sdp[0], est, atol=1e-12)  # NaN exactly where no row matches
    assert out.count[0, 0] == len(data)


def test_no_matching_row_gives_nan_and_a_zero_count():
    data = np.array([[0, 0], [0, 1]])
    out = se.empirical_sdp(data, [1, 0], [1, 1], 1)
    assert np.isnan(out.sdp[0, 0b01]) and out.count[0, 0b01] == 0  # nobody has feature 0 = 1
    assert np.isnan(out.sdp[0, 0b11]) and out.count[0, 0b11] == 0
    assert out.sdp[0, 0b10] == 0.0 and out.count[0, 0b10] == 1  # row (0, 1) has decision 0
    assert out.sdp[0, 0] == 0.5
    few = se.empirical_sdp(data, [1, 0], [1, 1], 1, min_count=2)
    assert np.isnan(few.sdp[0, 0b10]) and few.count[0, 0b10] == 1
    assert list(few.defined[0]) == [True, False, False, False]


def test_full_coalition_is_one():
    rng = np.random.default_rng(3)
    data = rng.integers(0, 2, size=(200, 4))
    c = data[:, 0] ^ data[:, 2]
    emp = se.empirical_sdp(data, c, data[:5], c[:5])  # instances taken from the data
    assert np.all(emp.sdp[:, -1] == 1.0)
    tree = DecisionTreeClassifier(random_state=0).fit(data, c)
    forest = se.forest_sdp(tree, data, c, [[1, 1, 1, 1], [0, 0, 0, 0]], [0, 0])
    assert np.all(forest.sdp[:, -1] == 1.0)


def test_a_projected_stump_resolves_only_its_split_variable():
    # A depth-1 tree splits on one variable j: its projected cell of x under S is the rows
    # matching x on S ∩ {j}, so the estimate is the empirical SDP at that coalition.
    rng = np.random.default_rng(4)
    data = rng.integers(0, 2, size=(300, 3))
    y = data[:, 1]
    c = (data[:, 0] | data[:, 1]).astype(int)
    stump = DecisionTreeClassifier(max_depth=1).fit(data, y)
    assert stump.tree_.feature[0] == 1
    x = np.array([[1, 0, 1]])
    emp = se.empirical_sdp(data, c, x, 1)
    out = se.forest_sdp(stump, data, c, x, 1)
    for S in range(7):  # all but the full coalition
        assert out.sdp[0, S] == pytest.approx(emp.sdp[0, S & 0b010], abs=1e-12)
        assert out.count[0, S] == emp.count[0, S & 0b010]


@pytest.fixture(scope="module")
def lucas_large():
    net = bn.lucas()
    features = list(bn.LUCAS_FEATURES)
    p = net.marginal_table(features)
    f = net.conditional_table(bn.LUCAS_TARGET, features)
    sample = net.sample(200_000, np.random.default_rng(2024))
    X = sample[features].to_numpy()
    c = (f[bn.state_index(X)] >= 0.5).astype(int)
    x = X[:6]
    exact = sdp.same_decision_probability(f, p, x, 0.5)
    return X, c, x, c[:6], exact, sample[bn.LUCAS_TARGET].to_numpy()


def _check_converged(est: se.EstimatedSDP, exact: np.ndarray) -> None:
    # Tolerance: where at least 2000 rows back the estimate its standard error is at most
    # sqrt(0.25 / 2000) ≈ 0.011, so 0.06 (5.4 standard errors) over 6 x 2048 estimates;
    # averaged over every defined coalition the error must be below 0.01.
    err = np.abs(est.sdp - exact)
    well = est.count >= 2000
    assert well.sum() > 2000
    assert err[well].max() < 0.06
    assert np.nanmean(err) < 0.01
    assert est.defined.mean() > 0.99


def test_empirical_sdp_converges_to_the_exact_sdp(lucas_large):
    X, c, x, cx, exact, _ = lucas_large
    _check_converged(se.empirical_sdp(X, c, x, cx), exact)


def test_forest_sdp_converges_to_the_exact_sdp(lucas_large):
    X, c, x, cx, exact, y = lucas_large
    forest = ExtraTreesClassifier(n_estimators=20, max_features=1, random_state=0).fit(X, y)
    _check_converged(se.forest_sdp(forest, X, c, x, cx), exact)


def test_small_sample_is_far_from_exact_on_large_coalitions(lucas_large):
    # the convergence check can fail: on 500 rows few coalitions are backed by 2000 rows
    X, c, x, cx, exact, _ = lucas_large
    with pytest.raises(AssertionError):
        _check_converged(se.empirical_sdp(X[:500], c[:500], x, cx), exact)


def test_bad_input_is_refused():
    data = np.array([[0, 1], [1, 1]])
    c = [0, 1]
    with pytest.raises(ValueError):
        se.empirical_sdp([[0, 2], [1, 1]], c, [0, 1], 0)  # not binary
    with pytest.raises(ValueError):
        se.empirical_sdp([[0.0, np.nan], [1, 1]], c, [0, 1], 0)  # NaN
    with pytest.raises(ValueError):
        se.empirical_sdp(data, c, [0, 1, 1], 0)  # x of the wrong width
    with pytest.raises(ValueError):
        se.empirical_sdp(data, [0, 1, 1], [0, 1], 0)  # one decision per row
    with pytest.raises(ValueError):
        se.empirical_sdp(data, [0, 0.5], [0, 1], 0)  # decisions are 0/1
    with pytest.raises(ValueError):
        se.empirical_sdp(data, c, [0, 1], [0, 1])  # one decision per instance
    with pytest.raises(ValueError):
        se.empirical_sdp(np.zeros((0, 2)), [], [0, 1], 0)  # no data
    with pytest.raises(ValueError):
        se.empirical_sdp(data, c, [0, 1], 0, min_count=0)
    with pytest.raises(ValueError):
        se.forest_sdp(DecisionTreeClassifier(), data, c, [0, 1], 0)  # not fitted
    wide = DecisionTreeClassifier().fit(np.array([[0, 1, 0], [1, 1, 1]]), [0, 1])
    with pytest.raises(ValueError):
        se.forest_sdp(wide, data, c, [0, 1], 0)  # fitted on 3 features
    odd = DecisionTreeClassifier().fit(np.array([[0, 1], [5, 1]]), [0, 1])
    with pytest.raises(ValueError):
        se.forest_sdp(odd, data, c, [0, 1], 0)  # a split that is not between 0 and 1


def brute_path_dependent(tree, x, cx, S):
    """Tree SHAP's recursion over the nodes, one coalition at a time, in plain Python."""
    t = tree.tree_

    def walk(node):
        if t.children_left[node] == -1:
            return float(int(np.argmax(t.value[node, 0])) == cx)
        j = t.feature[node]
        kids = (t.children_left[node], t.children_right[node])
        if (S >> j) & 1:
            return walk(kids[int(x[j])])
        return sum(t.weighted_n_node_samples[k] / t.weighted_n_node_samples[node] * walk(k) for k in kids)

    return walk(0)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_path_dependent_sdp_follows_tree_shap_recursion(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 6))
    data = rng.integers(0, 2, size=(60, d))
    y = (data[:, 0] ^ (data[:, 1] & rng.integers(0, 2, size=60))).astype(int)
    if len(set(y)) < 2:
        y[0] = 1 - y[0]
    tree = DecisionTreeClassifier(min_samples_leaf=3, random_state=seed).fit(data, y)
    x = rng.integers(0, 2, size=(2, d))
    cx = tree.predict(x)
    out = se.path_dependent_sdp(tree, x, cx)
    for k in range(len(x)):
        expected = [brute_path_dependent(tree, x[k], cx[k], S) for S in range(2**d)]
        np.testing.assert_allclose(out[k], expected, atol=1e-12)
    np.testing.assert_allclose(out[:, -1], 1.0)              # every split follows x: the tree's own decision
    share = np.mean(tree.predict(data) == cx[:, None], axis=1)  # empty coalition: the training share
    np.testing.assert_allclose(out[:, 0], share, atol=1e-12)


def test_path_dependent_sdp_refuses_forests_and_bad_rows():
    data = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    y = data[:, 0]
    with pytest.raises(ValueError, match="one fitted"):
        se.path_dependent_sdp(ExtraTreesClassifier(n_estimators=2, random_state=0).fit(data, y), [0, 1], 0)
    tree = DecisionTreeClassifier(random_state=0).fit(data, y)
    with pytest.raises(ValueError):
        se.path_dependent_sdp(tree, [0, 1, 1], 0)
    with pytest.raises(ValueError):
        se.path_dependent_sdp(tree, [0, 1], 2)


# ---------------------------------------------------------------------------
# swing_explanation: Swing Shapley values of any model's decisions (issue 32)
# ---------------------------------------------------------------------------


def _binary_problem(seed: int = 0):
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 2, size=(500, 4))
    y = ((Z[:, 0] & Z[:, 1]) | (rng.random(500) < 0.1)).astype(int)
    return Z, RandomForestClassifier(n_estimators=15, random_state=0).fit(Z, y)


def test_swing_explanation_is_swing_shapley_of_the_empirical_sdp_of_the_models_decisions():
    from lib import sdp as sd

    Z, model = _binary_problem()
    X = Z[:6]
    res = se.swing_explanation(model, X, Z, pi=0.8, threshold=0.4)
    decide = lambda rows: (model.predict_proba(rows)[:, 1] >= 0.4).astype(int)  # noqa: E731
    est = se.empirical_sdp(Z, decide(Z), X, decide(X))
    sdp = est.sdp.copy()
    sdp[:, -1] = 1.0
    np.testing.assert_array_equal(res.values, sd.swing_shapley(sdp, 0.8))
    np.testing.assert_allclose(res.efficiency_gap(), 0.0, atol=1e-12)
    np.testing.assert_array_equal(res.base_values, (sdp[:, 0] >= 0.8).astype(float))
    forest = se.swing_explanation(model, X, Z, pi=0.8, threshold=0.4, estimator="forest", forest=model)
    fsdp = se.forest_sdp(model, Z, decide(Z), X, decide(X)).sdp
    np.testing.assert_array_equal(forest.values, sd.swing_shapley(fsdp, 0.8))
    # a callable returning the positive class's probability gives the same values
    by_function = se.swing_explanation(lambda rows: model.predict_proba(rows)[:, 1], X, Z, pi=0.8, threshold=0.4)
    np.testing.assert_array_equal(by_function.values, res.values)


def test_swing_explanation_names_an_undefined_sdp_and_bad_options():
    Z, model = _binary_problem(1)
    data = Z[(Z[:, 2] == 0)]                       # no row of the data has x2 = 1
    X = np.array([[1, 1, 1, 0], [0, 0, 0, 0]])
    with pytest.raises(ValueError, match="row 0 is undefined"):
        se.swing_explanation(model, X, data, pi=0.9)
    with pytest.raises(ValueError, match="forest="):
        se.swing_explanation(model, X, Z, estimator="forest")
    with pytest.raises(ValueError, match=r"output=.* is not one of the classes"):
        se.swing_explanation(model, X, Z, output=7)
