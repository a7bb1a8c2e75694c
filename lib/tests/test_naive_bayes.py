"""Tests of lib.naive_bayes against ground truth that does not use eq. 10:
2^d enumeration of the value function (lib.shapley and an explicit product-distribution
expectation), the model's own predictions, and a model refitted without a variable."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import formula
from lib import naive_bayes as nb
from lib import shapley as sh
from lib.tests.helpers import toy_data


@pytest.fixture(scope="module")
def fitted():
    X, y = toy_data()
    return X, y, nb.WeightedNaiveBayes(n_bins=4, alpha=1.0, weights=[1.0, 0.7, 0.3, 0.9]).fit(X, y)


def test_eq2_decomposition_is_the_models_log_odds(fitted):
    X, _, model = fitted
    bias, terms = nb.log_odds_terms(model.tables_, model.transform(X), "yes")
    np.testing.assert_allclose(bias + terms.sum(axis=1), model.decision_function(X), atol=1e-12)
    p = model.predict_proba(X)[:, 1]
    np.testing.assert_allclose(model.decision_function(X), np.log(p / (1 - p)), atol=1e-9)


def test_eq10_equals_exact_enumeration_against_the_training_data(fitted):
    """Eq. 10 is the interventional Shapley value of the log-odds with the training rows as
    background: check it against 2^4 coalitions x 400 background rows."""
    X, _, model = fitted
    rows = X.iloc[:6]
    values, base = nb.shapley_values(model.tables_, model.transform(rows), "yes")
    exact = sh.exact_shapley(model.decision_function, rows, X)
    np.testing.assert_allclose(values, exact.values, atol=1e-10)
    np.testing.assert_allclose(base, exact.base_values, atol=1e-10)


def test_efficiency_and_zero_mean(fitted):
    X, _, model = fitted
    parts = model.transform(X)
    values, base = nb.shapley_values(model.tables_, parts, "yes")
    np.testing.assert_allclose(base + values.sum(axis=1), model.decision_function(X), atol=1e-10)
    # Lemaire et al. §3: the expectation of each variable's Shapley value is zero
    np.testing.assert_allclose(values.mean(axis=0), 0.0, atol=1e-12)


def test_swapping_the_positive_class_negates(fitted):
    X, _, model = fitted
    parts = model.transform(X)
    a, base_a = nb.shapley_values(model.tables_, parts, "yes")
    b, base_b = nb.shapley_values(model.tables_, parts, "no")
    np.testing.assert_allclose(a, -b, atol=1e-12)
    assert abs(base_a + base_b) < 1e-12


def test_woe_is_the_log_odds_lost_without_the_variable(fitted):
    """Eq. 13 -> 15: the WoE of X_m is LR(x) minus the LR of the same model deprived of X_m
    (weight 0), computed by refitting, not by eq. 15."""
    X, y, model = fitted
    woe = nb.weight_of_evidence(model.tables_, model.transform(X), "yes")
    for m in range(X.shape[1]):
        w = np.array(model.tables_.weights)
        w[m] = 0.0
        without = nb.WeightedNaiveBayes(n_bins=4, alpha=1.0, weights=w).fit(X, y)
        np.testing.assert_allclose(model.decision_function(X) - without.decision_function(X),
                                   woe[:, m], atol=1e-10)


def test_shapley_is_woe_minus_its_mean(fitted):
    X, _, model = fitted
    parts = model.transform(X)
    woe = nb.weight_of_evidence(model.tables_, parts, "yes")
    values, _ = nb.shapley_values(model.tables_, parts, "yes")
    np.testing.assert_allclose(values, woe - woe.mean(axis=0), atol=1e-12)


# ---------------------------------------------------------------------------
# Random tables: eq. 10 against the value function computed by full expectation
# ---------------------------------------------------------------------------


@st.composite
def tables(draw):
    d = draw(st.integers(1, 4))
    k = 2
    probs = st.floats(0.05, 1.0)
    likelihood, part_prob = [], []
    for _ in range(d):
        p = draw(st.integers(2, 4))
        lik = np.array([[draw(probs) for _ in range(k)] for _ in range(p)])
        likelihood.append(lik / lik.sum(axis=0))
        pp = np.array([draw(probs) for _ in range(p)])
        part_prob.append(pp / pp.sum())
    prior = np.array([draw(probs) for _ in range(k)])
    weights = np.array([draw(st.floats(0.0, 1.0)) for _ in range(d)])
    t = nb.NaiveBayesTables(
        feature_names=[f"v{i}" for i in range(d)], classes=np.array([0, 1]),
        prior=prior / prior.sum(), likelihood=likelihood, part_prob=part_prob, weights=weights)
    x = np.array([[draw(st.integers(0, lik.shape[0] - 1)) for lik in likelihood]])
    return t, x


def log_odds_from_scratch(t: nb.NaiveBayesTables, parts: tuple[int, ...]) -> float:
    num = np.log(t.prior[1]) + sum(w * np.log(l[p, 1]) for w, l, p in zip(t.weights, t.likelihood, parts))
    den = np.log(t.prior[0]) + sum(w * np.log(l[p, 0]) for w, l, p in zip(t.weights, t.likelihood, parts))
    return float(num - den)


@settings(max_examples=60, deadline=None)
@given(tables())
def test_eq10_equals_shapley_of_the_expected_log_odds(tx):
    t, x = tx
    d = len(t.feature_names)
    game = np.zeros(2**d)
    for s in range(2**d):
        free = [i for i in range(d) if not (s >> i) & 1]
        total = 0.0
        for combo in itertools.product(*[range(t.n_parts[i]) for i in free]):
            prob = np.prod([t.part_prob[i][p] for i, p in zip(free, combo)])
            parts = list(x[0])
            for i, p in zip(free, combo):
                parts[i] = p
            total += prob * log_odds_from_scratch(t, tuple(parts))
        game[s] = total
    values, base = nb.shapley_values(t, x, 1)
    np.testing.assert_allclose(values[0], formula.shapley_from_game(game), atol=1e-9)
    assert abs(base - game[0]) < 1e-9


# ---------------------------------------------------------------------------
# Multiclass (§3)
# ---------------------------------------------------------------------------


def test_multiclass_summary():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    X = pd.DataFrame({"a": rng.normal(y, 1.0), "b": pd.Categorical(rng.choice(list("pq"), 300)),
                      "c": rng.normal(-y, 2.0)})
    model = nb.WeightedNaiveBayes(n_bins=3).fit(X, y)
    parts = model.transform(X)
    per_class, summary = nb.multiclass_shapley(model.tables_, parts)
    assert per_class.shape == (300, 3, 3)
    np.testing.assert_allclose(summary, np.abs(per_class).sum(axis=-1))
    for c in range(3):
        np.testing.assert_allclose(per_class[:, :, c], nb.shapley_values(model.tables_, parts, c)[0])
    np.testing.assert_allclose(per_class.mean(axis=0), 0.0, atol=1e-12)


def test_two_class_multiclass_is_plus_minus():
    X, y = toy_data(200, seed=2)
    model = nb.WeightedNaiveBayes().fit(X, y)
    per_class, summary = nb.multiclass_shapley(model.tables_, model.transform(X))
    np.testing.assert_allclose(per_class[..., 0], -per_class[..., 1], atol=1e-12)
    np.testing.assert_allclose(summary, 2 * np.abs(per_class[..., 1]), atol=1e-12)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_bad_input(fitted):
    X, y, model = fitted
    with pytest.raises(ValueError, match="missing values"):
        model.predict_proba(X.assign(size=np.where(np.arange(len(X)) == 3, np.nan, X["size"])))
    unseen = X.copy()
    unseen["shape"] = unseen["shape"].cat.add_categories(["hexagon"])
    unseen.loc[0, "shape"] = "hexagon"
    with pytest.raises(ValueError, match="not seen in training"):
        model.predict_proba(unseen)
    with pytest.raises(ValueError, match="columns"):
        model.predict_proba(X[["size", "colour", "shape", "weight"]])
    with pytest.raises(ValueError, match="single class"):
        nb.WeightedNaiveBayes().fit(X, pd.Series(["yes"] * len(X)))
    with pytest.raises(ValueError, match="not one of the classes"):
        nb.shapley_values(model.tables_, model.transform(X), "maybe")
    with pytest.raises(ValueError, match="shape"):
        nb.shapley_values(model.tables_, model.transform(X)[:, :2], "yes")
    with pytest.raises(ValueError, match="out of range"):
        nb.shapley_values(model.tables_, model.transform(X) + 10, "yes")
    with pytest.raises(ValueError, match="weights"):
        nb.WeightedNaiveBayes(weights=[1.5, 1, 1, 1]).fit(X, y)


def test_zero_probability_cell_is_refused():
    X = pd.DataFrame({"c": pd.Categorical(["a", "a", "b", "b"])})
    y = [0, 0, 1, 1]  # 'a' never occurs with class 1
    with pytest.raises(ValueError, match="alpha"):
        nb.WeightedNaiveBayes(alpha=0.0).fit(X, y)
    assert np.isfinite(nb.WeightedNaiveBayes(alpha=1.0).fit(X, y).decision_function(X)).all()


def test_shapley_result_and_explanation(fitted):
    X, _, model = fitted
    res = nb.shapley_result(model.tables_, model.transform(X.iloc[:5]), "yes")
    np.testing.assert_allclose(res.outputs, model.decision_function(X.iloc[:5]), atol=1e-10)
    np.testing.assert_allclose(res.efficiency_gap(), 0.0, atol=1e-12)
    e = res.to_explanation()
    assert e.values.shape == (5, 4) and list(e.feature_names) == list(X.columns)
    assert e.data[0, 0] in {"red", "blue", "green"}
