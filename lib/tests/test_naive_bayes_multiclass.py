"""Tests of the multiclass extension of Lemaire et al. (§3): the one-vs-rest value function,
the classifier's own log-odds, and Khiops' pooled-rest variant.

Ground truths that do not use eq. 10: the model's own ``predict_proba``, 2^d enumeration of
the value functions with the training rows as background (lib.shapley), and counts drawn at
random for a Khiops model built by hand (no Khiops run needed).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib import khiops_nb as kn
from lib import naive_bayes as nb
from lib import shapley as sh
from lib.tests.helpers import toy_data


def _three_class(n: int = 300, seed: int = 1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = pd.DataFrame({"a": rng.normal(y, 1.0),
                      "b": pd.Categorical(np.where(rng.random(n) < 0.2 + 0.3 * (y == 2), "p", "q")),
                      "c": rng.normal(-y, 2.0), "d": rng.normal(y == 1, 1.5)})
    model = nb.WeightedNaiveBayes(n_bins=3, weights=[1.0, 0.6, 0.8, 0.3]).fit(X, y)
    return X, y, model


def test_posterior_log_odds_is_the_models():
    X, _, model = _three_class()
    p = model.predict_proba(X)
    np.testing.assert_allclose(nb.posterior_log_odds(model.tables_, model.transform(X)),
                               np.log(p) - np.log1p(-p), atol=1e-9)


def test_two_classes_one_vs_rest_is_the_models_log_odds():
    X, y = toy_data(200, seed=3)
    model = nb.WeightedNaiveBayes(weights=[1.0, 0.5, 0.25, 0.75]).fit(X, y)
    parts = model.transform(X)
    ovr = nb.one_vs_rest_log_odds(model.tables_, parts)
    np.testing.assert_allclose(ovr, nb.posterior_log_odds(model.tables_, parts), atol=1e-10)
    np.testing.assert_allclose(ovr[:, 1], model.decision_function(X), atol=1e-10)


def test_one_vs_rest_game_has_the_multiclass_values_as_shapley_values():
    """Eq. 10 per class = 2^4 enumeration of the one-vs-rest log-odds game, training rows as
    background; efficiency (eq. 12) against the value function itself."""
    X, _, model = _three_class()
    t = model.tables_
    parts = model.transform(X)
    rows = parts[:8]
    per_class, summary = nb.multiclass_shapley(t, rows)
    exact = sh.exact_shapley(lambda z: nb.one_vs_rest_log_odds(t, z), rows, parts)
    np.testing.assert_allclose(per_class, exact.values, atol=1e-10)
    np.testing.assert_allclose(exact.outputs, nb.one_vs_rest_log_odds(t, rows), atol=1e-12)
    np.testing.assert_allclose(summary, np.abs(exact.values).sum(axis=-1), atol=1e-10)


def test_three_classes_posterior_game_is_not_additive():
    """With three classes the classifier's own log-odds of a class against the rest is not
    additive: its exact Shapley values are not eq. 10's, and eq. 10's values do not add up
    to it (efficiency against the one-vs-rest value function only)."""
    X, _, model = _three_class()
    t = model.tables_
    parts = model.transform(X)
    rows = parts[:8]
    per_class, _ = nb.multiclass_shapley(t, rows)
    exact = sh.exact_shapley(lambda z: nb.posterior_log_odds(t, z), rows, parts)
    # efficiency holds for the enumeration (a property of any game)...
    np.testing.assert_allclose(exact.base_values + exact.values.sum(axis=1), exact.outputs, atol=1e-10)
    # ...but the posterior game's values differ from eq. 10's
    assert np.abs(per_class - exact.values).max() > 1e-3
    # and the model's log-odds differ from the one-vs-rest value function
    gap = nb.posterior_log_odds(t, parts) - nb.one_vs_rest_log_odds(t, parts)
    assert np.abs(gap).max() > 1e-3


def _hand_khiops(seed: int = 0):
    """A Khiops model built from random rows: counts recomputed from the part indices."""
    rng = np.random.default_rng(seed)
    n, n_parts = 240, [3, 2, 4]
    y = rng.integers(0, 3, n)
    parts = np.column_stack([(rng.integers(0, p, n) + y * (i == 0)) % p for i, p in enumerate(n_parts)])
    variables = []
    for i, p in enumerate(n_parts):
        counts = np.zeros((p, 3))
        np.add.at(counts, (parts[:, i], y), 1)
        variables.append(kn.KhiopsVariable(name=f"v{i}", kind="categorical", counts=counts,
                                           weight=[0.9, 0.4, 0.7][i],
                                           groups=tuple((str(j),) for j in range(p))))
    model = kn.KhiopsSNB(dictionary_name="SNB", classes=np.array(["a", "b", "c"], dtype=object),
                         class_counts=np.bincount(y, minlength=3).astype(float), variables=variables)
    return model, parts.astype(np.int64)


def test_khiops_multiclass_values_are_the_pooled_rest_game():
    model, parts = _hand_khiops()
    rows = parts[:10]
    per_class, summary = kn.khiops_multiclass_shapley(model, rows)
    for k, c in enumerate(model.classes):
        np.testing.assert_allclose(per_class[..., k], model.shapley_values(rows, c), atol=0)
    np.testing.assert_allclose(summary, np.abs(per_class).sum(axis=-1), atol=0)
    exact = sh.exact_shapley(lambda z: kn.khiops_one_vs_rest_log_odds(model, z), rows, parts)
    np.testing.assert_allclose(per_class, exact.values, atol=1e-10)
    # zero mean over the training rows (§3), per class and variable
    all_pc, _ = kn.khiops_multiclass_shapley(model, parts)
    np.testing.assert_allclose(all_pc.mean(axis=0), 0.0, atol=1e-12)
    # lib.naive_bayes's mixture rest differs from the pooled one by O(1/N), not by zero
    gap = np.abs(nb.multiclass_shapley(model.tables(), rows)[0] - per_class).max()
    assert 0 < gap < 10 / model.n_train


def test_khiops_two_classes_one_vs_rest_is_eq2():
    model, parts = _hand_khiops(seed=4)
    # collapse to two classes: b and c merged
    variables = [kn.KhiopsVariable(v.name, v.kind,
                                   np.column_stack([v.counts[:, 0], v.counts[:, 1:].sum(axis=1)]),
                                   v.weight, v.bounds, v.groups) for v in model.variables]
    two = kn.KhiopsSNB("SNB", np.array(["a", "bc"], dtype=object),
                       np.array([model.class_counts[0], model.class_counts[1:].sum()]), variables)
    t = two.tables()
    np.testing.assert_allclose(kn.khiops_one_vs_rest_log_odds(two, parts),
                               nb.posterior_log_odds(t, parts), atol=1e-10)


def test_bad_input():
    X, _, model = _three_class()
    with pytest.raises(ValueError, match="shape"):
        nb.posterior_log_odds(model.tables_, np.zeros((3, 2), dtype=int))
    with pytest.raises(ValueError, match="out of range"):
        nb.one_vs_rest_log_odds(model.tables_, np.full((2, 4), 7))
    kmodel, parts = _hand_khiops()
    with pytest.raises(ValueError, match="shape"):
        kn.khiops_multiclass_shapley(kmodel, parts[:, :2])
    with pytest.raises(ValueError, match="integers"):
        kn.khiops_one_vs_rest_log_odds(kmodel, parts.astype(float))


# ---------------------------------------------------------------------------
# The Shapley composition against the one-vs-rest values (lib.compositions)
# ---------------------------------------------------------------------------


def test_geometric_rest_is_eq10_against_the_geometric_mean_of_the_others():
    """Independent route: a two-class table whose second column is the closed geometric mean
    of the other classes' likelihoods, through eq. 10 (lib.naive_bayes.shapley_values)."""
    from lib import naive_bayes_compositions as nbc

    X, _, model = _three_class()
    t = model.tables_
    parts = model.transform(X)
    geo = nbc.naive_bayes_geometric_rest(nbc.naive_bayes_shapley_compositions(t, parts).compositions)
    for k in range(3):
        others = [j for j in range(3) if j != k]
        lik = []
        for table in t.likelihood:
            g = np.exp(np.log(table[:, others]).mean(axis=1))
            lik.append(np.column_stack([table[:, k], g / g.sum()]))
        two = nb.NaiveBayesTables(feature_names=t.feature_names, classes=np.array([0, 1]),
                                  prior=np.array([0.5, 0.5]), likelihood=lik,
                                  part_prob=t.part_prob, weights=t.weights)
        np.testing.assert_allclose(geo[..., k], nb.shapley_values(two, parts, 0)[0], atol=1e-10)


def test_pairwise_clr_differences_are_one_vs_one_eq10():
    from lib import naive_bayes_compositions as nbc
    from lib import simplex as sx

    X, _, model = _three_class()
    t = model.tables_
    parts = model.transform(X)
    clr = sx.clr(nbc.naive_bayes_shapley_compositions(t, parts).compositions)
    k, j = 2, 0
    two = nb.NaiveBayesTables(feature_names=t.feature_names, classes=np.array([k, j]),
                              prior=t.prior[[k, j]] / t.prior[[k, j]].sum(),
                              likelihood=[lik[:, [k, j]] for lik in t.likelihood],
                              part_prob=t.part_prob, weights=t.weights)
    np.testing.assert_allclose(clr[..., k] - clr[..., j], nb.shapley_values(two, parts, k)[0], atol=1e-10)


@pytest.mark.parametrize("k", [2, 3, 4, 7, 10])
def test_clr_l1_over_l2_bounds(k):
    from lib import naive_bayes_compositions as nbc

    lo, hi = nbc.clr_l1_over_l2_bounds(k)
    rng = np.random.default_rng(k)
    v = rng.normal(size=(5000, k)) ** 3
    v -= v.mean(axis=1, keepdims=True)
    r = np.abs(v).sum(axis=1) / np.linalg.norm(v, axis=1)
    assert r.min() >= lo - 1e-12 and r.max() <= hi + 1e-12
    # both bounds are attained
    low = np.zeros(k)
    low[:2] = [1.0, -1.0]
    p = k // 2
    high = np.r_[np.full(p, 1.0 / p), np.full(k - p, -1.0 / (k - p))]
    for vec, bound in ((low, lo), (high, hi)):
        assert abs(np.abs(vec).sum() / np.linalg.norm(vec) - bound) < 1e-12
    with pytest.raises(ValueError, match="two parts"):
        nbc.clr_l1_over_l2_bounds(1)
