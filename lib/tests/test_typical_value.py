"""Tests of lib.typical_value against ground truth that does not reuse its code paths:
brute-force modes (collections.Counter), one-row-at-a-time model evaluations, explicit
marginalisation of a naive Bayes joint distribution, and the weight-of-evidence closed
form of lib.naive_bayes."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from lib import naive_bayes as nb
from lib import typical_value as tv

# ---------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------


def categorical_data(n: int = 600, seed: int = 0, rate: float = 0.2) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rate).astype(int)
    cols = {}
    for k, n_parts in enumerate([3, 4, 2, 3]):
        p0 = rng.dirichlet(np.ones(n_parts) * 2)
        p1 = rng.dirichlet(np.ones(n_parts) * 2)
        draws = np.array([rng.choice(n_parts, p=p1 if yi else p0) for yi in y])
        cols[f"f{k}"] = pd.Categorical([f"v{v}" for v in draws], categories=[f"v{v}" for v in range(n_parts)])
    return pd.DataFrame(cols), y


@pytest.fixture(scope="module")
def nb_fitted():
    X, y = categorical_data()
    model = nb.WeightedNaiveBayes(alpha=1.0).fit(X, y)
    return X, y, model


def brute_force_typical(model, X: pd.DataFrame, typical: tv.TypicalValues, scale: str) -> np.ndarray:
    """One feature at a time, one copy of X at a time: s(f(x)) - s(f(x with x_k := typical))."""
    def s(p):
        return np.log(p) if scale == "log" else np.log(p / (1 - p))

    out = s(model.predict_proba(X)[:, 1])
    values = np.empty(X.shape)
    for k, c in enumerate(X.columns):
        Z = X.copy()
        Z[c] = pd.Series([typical.values[k]] * len(X), dtype=X[c].dtype, index=X.index)
        values[:, k] = out - s(model.predict_proba(Z)[:, 1])
    return values


# ---------------------------------------------------------------------------
# typical values
# ---------------------------------------------------------------------------


def test_categorical_mode_and_ties_go_to_the_first_category():
    X = pd.DataFrame({"c": pd.Categorical(["b", "a", "b", "a", "c", "c"], categories=["c", "b", "a"])})
    y = [0, 0, 0, 0, 1, 1]  # among negatives: b twice, a twice -> tie -> "b" comes first in the order
    t = tv.typical_values(X, y)
    assert t.values[0] == "b" and t.kinds == ["categorical"] and t.share[0] == 0.5
    X2 = pd.DataFrame({"c": ["z", "y", "z", "y", "x"]})  # object column: sorted order breaks ties
    assert tv.typical_values(X2, [0, 0, 0, 0, 1]).values[0] == "y"


def test_discrete_mode_ties_go_to_the_smallest_value():
    X = np.array([[3], [1], [3], [1], [2], [7]])
    t = tv.typical_values(X, [0, 0, 0, 0, 0, 1])
    assert t.values[0] == 1 and t.kinds == ["discrete"]


def test_binned_mode_with_given_edges():
    # edges 0, 1, 2, 3: bin [1, 2) holds 4 negatives (the mode), median 1.45; midpoint 1.5
    v = np.array([0.1, 0.5, 1.1, 1.2, 1.7, 1.9, 2.5, 2.9, 1.5, 1.5])
    y = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1])
    t = tv.typical_values(v[:, None], y, bins=[0, 1, 2, 3], max_discrete=0)
    assert t.kinds == ["binned"]
    assert t.values[0] == pytest.approx(np.median([1.1, 1.2, 1.7, 1.9]))
    assert t.share[0] == pytest.approx(0.5)
    t2 = tv.typical_values(v[:, None], y, bins=[0, 1, 2, 3], max_discrete=0, representative="midpoint")
    assert t2.values[0] == pytest.approx(1.5)
    np.testing.assert_array_equal(t.bin_edges[0], [0, 1, 2, 3])


def test_binned_mode_uses_the_numpy_rule():
    rng = np.random.default_rng(3)
    v = rng.normal(size=500)
    for rule in ["auto", "fd", "sturges", 7]:
        t = tv.typical_values(v[:, None], np.zeros(500, int), bins=rule)
        edges = np.histogram_bin_edges(v, bins=rule)
        np.testing.assert_allclose(t.bin_edges[0], edges)
        k = int(np.argmax(np.histogram(v, edges)[0]))
        assert edges[k] <= t.values[0] <= edges[k + 1]


def test_missing_is_typical_when_most_negatives_are_missing():
    X = pd.DataFrame({"a": [np.nan, np.nan, np.nan, 1.0, 2.0, 5.0], "b": [np.nan, np.nan, 1.0, 1.0, 2.0, 5.0]})
    y = [0, 0, 0, 0, 0, 1]
    t = tv.typical_values(X, y)
    assert t.kinds[0] == "missing" and np.isnan(t.values[0]) and t.share[0] == pytest.approx(0.6)
    # exactly half missing is not "most": the mode of the present values (1.0)
    X2 = pd.DataFrame({"b": [np.nan, np.nan, 1.0, 1.0, 5.0]})
    t2 = tv.typical_values(X2, [0, 0, 0, 0, 1])
    assert t2.kinds == ["discrete"] and t2.values[0] == 1.0 and t2.missing_share[0] == 0.5


def test_constant_feature_among_negatives_is_flagged_and_gets_zero_contribution():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "k": np.where(np.arange(200) < 150, 4.0, rng.normal(size=200))})
    y = (np.arange(200) >= 150).astype(int)
    t = tv.typical_values(X, y)
    assert t.constant.tolist() == [False, True] and t.values[1] == 4.0
    model = LogisticRegression().fit(X, y)
    r = tv.typical_value_contributions(model, X.iloc[:150], t)
    np.testing.assert_array_equal(r.values[:, 1], 0.0)


def test_typical_values_bad_input():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match="no negative example"):
        tv.typical_values(X, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="negative class"):
        tv.typical_values(X, ["a", "b", "a", "b"])
    assert tv.typical_values(X, ["a", "b", "a", "b"], negative="a").n_negatives == 2
    with pytest.raises(ValueError, match="rows"):
        tv.typical_values(X, [0, 1, 0])
    with pytest.raises(ValueError, match="missing labels"):
        tv.typical_values(X, [0, 1, np.nan, 0])
    with pytest.raises(ValueError, match="2-D"):
        tv.typical_values(np.zeros(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="representative"):
        tv.typical_values(X, [0, 1, 0, 1], representative="mean")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.booleans()), min_size=1, max_size=40))
def test_discrete_mode_matches_counter(rows):
    """Property: for small integer features, x̄ is the Counter mode among negatives (ties: smallest)."""
    a = np.array([[r[0], r[1]] for r in rows])
    y = np.array([int(r[2]) for r in rows])
    if (y == 0).sum() == 0:
        with pytest.raises(ValueError):
            tv.typical_values(a, y)
        return
    t = tv.typical_values(a, y)
    for k in range(2):
        counts = Counter(a[y == 0, k].tolist())
        best = max(counts.values())
        assert t.values[k] == min(v for v, c in counts.items() if c == best)
        assert t.constant[k] == (len(counts) == 1)


# ---------------------------------------------------------------------------
# contributions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("scale", ["log", "logit"])
def test_contributions_equal_one_feature_at_a_time_evaluation(nb_fitted, scale):
    X, y, model = nb_fitted
    t = tv.typical_values(X, y)
    r = tv.typical_value_contributions(model, X.iloc[:50], t, scale=scale)
    np.testing.assert_allclose(r.values, brute_force_typical(model, X.iloc[:50], t, scale), atol=1e-12)
    np.testing.assert_allclose(r.efficiency_gap(), 0.0, atol=1e-12)  # bias closes the sum (step 3)


def test_naive_bayes_logit_contributions_are_woe_differences(nb_fitted):
    """Closed form: L additive, so contribution = λ_k(x_k) - λ_k(x̄_k), bias = L(x̄) constant."""
    X, y, model = nb_fitted
    t = tv.typical_values(X, y)
    r = tv.typical_value_contributions(model, X, t, scale="logit")
    parts = model.transform(X)
    typical_parts = model.transform(pd.DataFrame({c: pd.Categorical([t.values[k]], dtype=X[c].dtype)
                                                  for k, c in enumerate(X.columns)}))[0]
    woe = nb.weight_of_evidence(model.tables_, parts, 1)
    woe_typ = nb.weight_of_evidence(model.tables_, typical_parts[None, :], 1)[0]
    np.testing.assert_allclose(r.values, woe - woe_typ, atol=1e-10)
    values, bias = tv.nb_typical_log_odds(model.tables_, parts, typical_parts, 1)
    np.testing.assert_allclose(r.values, values, atol=1e-10)
    np.testing.assert_allclose(r.base_values, bias, atol=1e-10)


class ZeroModel:
    """predict_proba = 0 for the positive class where x0 > 0."""

    classes_ = np.array([0, 1])

    def predict_proba(self, Z):
        Z = np.asarray(Z, dtype=float)
        p = np.where(Z[:, 0] > 0, 0.0, 0.3)
        return np.column_stack([1 - p, p])


def test_zero_probability_is_an_error_unless_clipped():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    t = tv.typical_values(np.array([[-1.0, 0.0], [-2.0, 0.0]]), [0, 0])
    with pytest.raises(ValueError, match="probability 0"):
        tv.typical_value_contributions(ZeroModel(), X, t)
    with pytest.raises(ValueError, match="probability 0"):
        tv.integral_contributions(ZeroModel(), X, X)
    r = tv.typical_value_contributions(ZeroModel(), X, t, clip=1e-12)
    assert r.values[0, 0] == pytest.approx(np.log(1e-12) - np.log(0.3))
    assert np.all(np.isfinite(r.values))
    with pytest.raises(ValueError, match="clip"):
        tv.typical_value_contributions(ZeroModel(), X, t, clip=0.7)


def test_nan_rejected_unless_allowed_and_missing_typical_value_is_plugged_in():
    rng = np.random.default_rng(0)
    n = 400
    y = (rng.random(n) < 0.2).astype(int)
    a = rng.normal(size=n) + y
    b = np.where((y == 0) & (rng.random(n) < 0.8), np.nan, rng.normal(size=n) - y)
    X = pd.DataFrame({"a": a, "b": b})
    t = tv.typical_values(X, y)
    assert t.kinds[1] == "missing"
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="missing values"):
        tv.typical_value_contributions(model, X, t)
    r = tv.typical_value_contributions(model, X, t, allow_nan=True)
    # independent: plug NaN into column b by hand
    Z = X.copy()
    Z["b"] = np.nan
    expected = np.log(model.predict_proba(X)[:, 1]) - np.log(model.predict_proba(Z)[:, 1])
    np.testing.assert_allclose(r.values[:, 1], expected, atol=1e-12)
    # rows already missing in b get exactly zero
    assert np.all(r.values[np.isnan(b), 1] == 0)


def test_integral_equals_brute_force_average(nb_fitted):
    X, y, model = nb_fitted
    rows, bg = X.iloc[:7], X.iloc[100:140]
    r = tv.integral_contributions(model, rows, bg, max_rows_per_call=500)
    logf = np.log(model.predict_proba(rows)[:, 1])
    expected = np.empty((7, X.shape[1]))
    for k, c in enumerate(X.columns):
        acc = np.zeros(7)
        for j in range(len(bg)):
            Z = rows.copy()
            Z[c] = pd.Series([bg[c].iloc[j]] * 7, dtype=X[c].dtype, index=rows.index)
            acc += model.predict_proba(Z)[:, 1]
        expected[:, k] = logf - np.log(acc / len(bg))
    np.testing.assert_allclose(r.values, expected, atol=1e-12)
    np.testing.assert_allclose(r.efficiency_gap(), 0.0, atol=1e-12)


def test_integral_bad_input(nb_fitted):
    X, y, model = nb_fitted
    with pytest.raises(ValueError, match="both be DataFrames"):
        tv.integral_contributions(model, X, X.to_numpy())
    with pytest.raises(ValueError, match="columns"):
        tv.integral_contributions(model, X, X[X.columns[::-1]])
    with pytest.raises(ValueError, match="no rows"):
        tv.integral_contributions(model, X, X.iloc[:0])


# ---------------------------------------------------------------------------
# naive Bayes closed forms
# ---------------------------------------------------------------------------


def random_tables(rng: np.random.Generator, n_parts: list[int], prior1: float) -> nb.NaiveBayesTables:
    lik = [np.column_stack([rng.dirichlet(np.ones(p)), rng.dirichlet(np.ones(p))]) for p in n_parts]
    prior = np.array([1 - prior1, prior1])
    return nb.NaiveBayesTables(
        feature_names=[f"f{k}" for k in range(len(n_parts))], classes=np.array([0, 1]), prior=prior,
        likelihood=lik, part_prob=[l @ prior for l in lik], weights=np.ones(len(n_parts)),
    )


def brute_posterior_without(tables: nb.NaiveBayesTables, row: np.ndarray, k: int, c: int) -> float:
    """P(c | x_{-k}) by summing the joint over every value of x_k (no factor dropped)."""
    num = den = 0.0
    for v in range(tables.likelihood[k].shape[0]):
        z = row.copy()
        z[k] = v
        joint = tables.prior * np.prod([tables.likelihood[i][z[i]] for i in range(len(z))], axis=0)
        num += joint[c]
        den += joint.sum()
    return num / den


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(2, 4), min_size=1, max_size=4), st.floats(0.01, 0.99), st.integers(0, 2**32 - 1))
def test_leave_one_out_and_c_identities(n_parts, prior1, seed):
    rng = np.random.default_rng(seed)
    tables = random_tables(rng, n_parts, prior1)
    rows = np.array(list(itertools.product(*[range(p) for p in n_parts])))
    logs = {}
    for c in (0, 1):
        lpk, lpost = tv.nb_leave_one_out(tables, rows, c)
        for i, row in enumerate(rows):
            for k in range(len(n_parts)):
                expected = lpost[i] - np.log(brute_posterior_without(tables, row, k, c))
                assert abs(lpk[i, k] - expected) < 1e-9
        logs[c] = (lpk, lpost)
    logc = tv.nb_log_c(tables, rows)
    for c in (0, 1):  # P(c | x) = C(x) P(c) prod_k p_{-k}, with one C(x) for both classes
        lpk, lpost = logs[c]
        np.testing.assert_allclose(lpost, logc + np.log(tables.prior[c]) + lpk.sum(axis=1), atol=1e-9)
    # log-odds: the exact leave-one-out terms differ between the classes by the weight of evidence
    woe = nb.weight_of_evidence(tables, rows, 1)
    np.testing.assert_allclose(logs[1][0] - logs[0][0], woe, atol=1e-9)


def test_nb_closed_forms_refuse_weighted_models():
    tables = random_tables(np.random.default_rng(0), [2, 3], 0.1)
    weighted = nb.NaiveBayesTables(**{**tables.__dict__, "weights": np.array([1.0, 0.5])})
    with pytest.raises(ValueError, match="weights"):
        tv.nb_leave_one_out(weighted, np.zeros((1, 2), int), 1)
    with pytest.raises(ValueError, match=r"output=.* is not one of the classes"):
        tv.nb_leave_one_out(tables, np.zeros((1, 2), int), 5)


def test_sample_naive_bayes_frequencies():
    tables = random_tables(np.random.default_rng(5), [3, 2], 0.3)
    parts, y = tv.sample_naive_bayes(tables, 40_000, np.random.default_rng(0))
    assert abs(y.mean() - 0.3) < 0.01
    for k, lik in enumerate(tables.likelihood):
        for c in (0, 1):
            freq = np.bincount(parts[y == c, k], minlength=lik.shape[0]) / (y == c).sum()
            np.testing.assert_allclose(freq, lik[:, c], atol=0.02)


# ---------------------------------------------------------------------------
# simulation
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# joint tables, the exact Bayes classifier, agreement
# ---------------------------------------------------------------------------


def test_joint_leave_one_out_on_a_naive_bayes_joint_matches_the_closed_forms():
    tables = random_tables(np.random.default_rng(7), [3, 2, 4], 0.15)
    joint = tv.nb_joint(tables)
    assert joint.shape == (2, 3, 2, 4) and abs(joint.sum() - 1) < 1e-12
    post, lpk, logc = tv.joint_leave_one_out(joint)
    rows = np.array(list(itertools.product(range(3), range(2), range(4))))
    for c in (0, 1):
        lpk_nb, lpost_nb = tv.nb_leave_one_out(tables, rows, c)
        np.testing.assert_allclose(post[c].reshape(-1), lpost_nb, atol=1e-12)
        np.testing.assert_allclose(np.moveaxis(lpk[:, c].reshape(3, -1), 0, 1), lpk_nb, atol=1e-12)
        np.testing.assert_allclose(logc[c].reshape(-1), tv.nb_log_c(tables, rows), atol=1e-12)


def test_c_depends_on_the_class_without_conditional_independence():
    # x1 is (almost) a copy of x0: the features are dependent given the class
    e = 1e-3
    joint = np.array([[[0.72 - e, e], [e, 0.18 - e]], [[0.02 - e, e], [e, 0.08 - e]]])
    post, lpk, logc = tv.joint_leave_one_out(joint)
    # brute force for the cell x = (1, 1): P(y | x_{-0}) sums over x0, P(y | x_{-1}) over x1
    p_y_x = joint[:, 1, 1] / joint[:, 1, 1].sum()
    p_y_wo0 = joint[:, :, 1].sum(axis=1) / joint[:, :, 1].sum()
    p_y_wo1 = joint[:, 1, :].sum(axis=1) / joint[:, 1, :].sum()
    prior = joint.sum(axis=(1, 2))
    expected_c = np.log(p_y_x) - np.log(prior) - np.log(p_y_x / p_y_wo0) - np.log(p_y_x / p_y_wo1)
    np.testing.assert_allclose(lpk[0, :, 1, 1], np.log(p_y_x / p_y_wo0), atol=1e-12)
    np.testing.assert_allclose(logc[:, 1, 1], expected_c, atol=1e-12)
    assert abs(logc[1, 1, 1] - logc[0, 1, 1]) > 0.5  # C now depends on the class


def test_joint_classifier_and_sampling():
    tables = random_tables(np.random.default_rng(1), [2, 3], 0.2)
    joint = tv.nb_joint(tables)
    clf = tv.JointTableClassifier(joint)
    rows = np.array(list(itertools.product(range(2), range(3))))
    _, lpost = tv.nb_leave_one_out(tables, rows, 1)
    np.testing.assert_allclose(np.log(clf.predict_proba(rows)[:, 1]), lpost, atol=1e-12)
    np.testing.assert_allclose(clf.predict_proba(pd.DataFrame(rows).astype(float)).sum(axis=1), 1.0)
    codes, y = tv.sample_joint(joint, 30_000, np.random.default_rng(0))
    assert abs(y.mean() - 0.2) < 0.01
    with pytest.raises(ValueError, match="codes"):
        clf.predict_proba(np.array([[2, 0]]))
    with pytest.raises(ValueError, match="summing to one"):
        tv.JointTableClassifier(joint * 2)


def test_agreement_metrics():
    a = np.array([[3.0, -1.0, 0.5, 0.0], [1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0]])
    b = np.array([[2.0, -2.0, 0.1, 0.0], [4.0, 3.0, 2.0, 1.0], [0.0, 1.0, 2.0, 3.0]])
    m = tv.agreement(a, b, top_k=2)
    assert m.loc[0, "spearman"] == pytest.approx(1.0) and m.loc[1, "spearman"] == pytest.approx(-1.0)
    assert m.loc[1, "kendall"] == pytest.approx(-1.0) and np.isnan(m.loc[2, "spearman"])
    assert m["sign"].tolist() == [1.0, 1.0, 0.75]
    # row 0: top-2 |a| = {0, 1}, |b| = {0, 1}; row 1: {3, 2} vs {0, 1}
    assert m["top_k"].tolist()[:2] == [1.0, 0.0]
    with pytest.raises(ValueError, match="top_k"):
        tv.agreement(a, b, top_k=5)


def test_agreement_ties_values_equal_but_for_rounding():
    # exact Shapley values tied in exact arithmetic (a null player worth 0, two symmetric
    # features) reach us with last-bit noise whose sign depends on the order of the sums
    exact = np.array([[0.4, 0.4, 0.0, -0.2, 0.1]])
    noisy = exact + np.array([[5e-17, -5e-17, -1e-18, 0.0, 0.0]])
    attribution = np.array([[0.5, 0.3, 0.0, -0.1, 0.2]])
    m_exact, m_noisy = tv.agreement(attribution, exact, top_k=1), tv.agreement(attribution, noisy, top_k=1)
    pd.testing.assert_frame_equal(m_exact, m_noisy)
    assert m_noisy.loc[0, "sign"] == 1.0  # the null player's -1e-18 counts as zero
    # read raw, the noise decides: the null player's sign and the symmetric pair's order
    raw = tv.agreement(attribution, noisy, top_k=1, tie_rtol=0)
    assert raw.loc[0, "sign"] == 0.8 and raw.loc[0, "spearman"] != m_noisy.loc[0, "spearman"]


# ---------------------------------------------------------------------------
# real-data evaluation helpers
# ---------------------------------------------------------------------------


def test_log_and_logit_matches_predict_proba(nb_fitted):
    X, _, model = nb_fitted
    p = model.predict_proba(X)[:, 1]
    out = tv.log_and_logit(model)(X)
    np.testing.assert_allclose(out[:, 0], np.log(p), rtol=1e-12)
    np.testing.assert_allclose(out[:, 1], np.log(p) - np.log(1 - p), rtol=1e-12)
    # output= picks the other column: log-odds change sign
    out0 = tv.log_and_logit(model, output=0)(X)
    np.testing.assert_allclose(out0[:, 1], -out[:, 1], rtol=1e-12)
    with pytest.raises(ValueError, match="clip"):
        tv.log_and_logit(model, clip=0.7)
    with pytest.raises(ValueError, match=r"output=.* is not one of the classes"):
        tv.log_and_logit(model, output=5)


def test_log_and_logit_zero_probability_needs_clip():
    class Hard:
        classes_ = np.array([0, 1])

        def predict_proba(self, Z):
            p = (np.asarray(Z)[:, 0] > 0).astype(float)
            return np.column_stack([1 - p, p])

    Z = np.array([[1.0], [-1.0]])
    with pytest.raises(ValueError, match="clip"):
        tv.log_and_logit(Hard())(Z)
    out = tv.log_and_logit(Hard(), clip=1e-6)(Z)
    np.testing.assert_allclose(out[:, 0], np.log([1 - 1e-6, 1e-6]))
