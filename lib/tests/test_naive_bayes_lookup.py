"""Tests of lib.naive_bayes.shapley_lookup / ShapleyLookup (eq. 10 tabulated per part,
Lemaire et al. §5.3) against references that do not use the lookup: the 2^d enumeration
of the interventional game (lib.shapley), eq. 10 written out from the raw tables with
explicit loops, and the model's own log-odds (efficiency)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import naive_bayes as nb
from lib import shapley as sh


def _data(n: int = 300, seed: int = 0, classes: int = 2) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    X = pd.DataFrame({
        "a": rng.normal(y, 1.0),
        "b": pd.Categorical(np.where(rng.random(n) < 0.2 + 0.2 * y, "p", rng.choice(["q", "r"], n))),
        "c": rng.gamma(2.0 + y, size=n),
    })
    return X, y


@pytest.fixture(scope="module")
def binary():
    X, y = _data()
    model = nb.WeightedNaiveBayes(n_bins=4, alpha=1.0, weights=[0.8, 0.3, 1.0]).fit(X, y)
    return X, model


def eq10_by_loops(t: nb.NaiveBayesTables, parts: np.ndarray, c: int) -> np.ndarray:
    """Eq. 10 from the raw tables, one class against the pooled rest, with plain loops."""
    rest = [k for k in range(len(t.classes)) if k != c]
    out = np.empty(parts.shape)
    for i, (lik, pp, w) in enumerate(zip(t.likelihood, t.part_prob, t.weights)):
        p_rest = sum(t.prior[k] * lik[:, k] for k in rest) / sum(t.prior[k] for k in rest)
        lam = [np.log(lik[p, c] / p_rest[p]) for p in range(lik.shape[0])]
        expectation = sum(pp[p] * lam[p] for p in range(lik.shape[0]))
        for r in range(parts.shape[0]):
            out[r, i] = w * (lam[parts[r, i]] - expectation)
    return out


def test_lookup_equals_the_enumerated_game(binary):
    X, model = binary
    rows = X.iloc[:5]
    lookup = nb.shapley_lookup(model.tables_)
    values = lookup.values(model.transform(rows))
    assert values.shape == (5, 3, 2)
    exact = sh.exact_shapley(model.decision_function, rows, X)  # log-odds of classes_[1]
    np.testing.assert_allclose(values[:, :, 1], exact.values, atol=1e-10)
    np.testing.assert_allclose(values[:, :, 0], -exact.values, atol=1e-10)
    np.testing.assert_allclose(lookup.base_values, [-exact.base_values[0], exact.base_values[0]], atol=1e-10)


def test_efficiency_on_every_row_for_both_classes(binary):
    X, model = binary
    lookup = nb.shapley_lookup(model.tables_)
    values = lookup.values(model.transform(X))
    lr = model.decision_function(X)
    np.testing.assert_allclose(lookup.base_values[1] + values[:, :, 1].sum(axis=1), lr, atol=1e-10)
    np.testing.assert_allclose(lookup.base_values[0] + values[:, :, 0].sum(axis=1), -lr, atol=1e-10)


def test_lookup_is_what_shapley_values_returns(binary):
    X, model = binary
    parts = model.transform(X)
    lookup = nb.shapley_lookup(model.tables_)
    values = lookup.values(parts)
    for k, c in enumerate(model.classes_):
        ours, base = nb.shapley_values(model.tables_, parts, c)
        assert np.array_equal(ours, values[:, :, k])
        assert base == lookup.base_values[k]


def test_multiclass_against_loops_and_class_subset():
    X, y = _data(400, seed=3, classes=3)
    model = nb.WeightedNaiveBayes(n_bins=3, weights=[0.5, 1.0, 0.25]).fit(X, y)
    t, parts = model.tables_, model.transform(X)
    lookup = nb.shapley_lookup(t)
    values = lookup.values(parts)
    assert values.shape == (400, 3, 3)
    for c in range(3):
        np.testing.assert_allclose(values[:, :, c], eq10_by_loops(t, parts, c), atol=1e-12)
    only = nb.shapley_lookup(t, classes=[2])
    assert list(only.classes) == [2]
    np.testing.assert_array_equal(only.values(parts)[:, :, 0], values[:, :, 2])
    per_class, summary = nb.multiclass_shapley(t, parts)
    np.testing.assert_array_equal(per_class, values)


@st.composite
def random_tables(draw):
    d = draw(st.integers(1, 5))
    k = draw(st.integers(2, 4))
    probs = st.floats(0.05, 1.0)
    likelihood, part_prob = [], []
    for _ in range(d):
        p = draw(st.integers(1, 5))
        lik = np.array([[draw(probs) for _ in range(k)] for _ in range(p)])
        likelihood.append(lik / lik.sum(axis=0))
        pp = np.array([draw(probs) for _ in range(p)])
        part_prob.append(pp / pp.sum())
    prior = np.array([draw(probs) for _ in range(k)])
    t = nb.NaiveBayesTables(
        feature_names=[f"v{i}" for i in range(d)], classes=np.arange(k),
        prior=prior / prior.sum(), likelihood=likelihood, part_prob=part_prob,
        weights=np.array([draw(st.floats(0.0, 1.0)) for _ in range(d)]))
    n = draw(st.integers(1, 6))
    parts = np.array([[draw(st.integers(0, lik.shape[0] - 1)) for lik in likelihood] for _ in range(n)])
    return t, parts


@settings(max_examples=60, deadline=None)
@given(random_tables())
def test_lookup_matches_loops_on_random_tables(tp):
    t, parts = tp
    values = nb.shapley_lookup(t).values(parts)
    for c in range(len(t.classes)):
        np.testing.assert_allclose(values[:, :, c], eq10_by_loops(t, parts, c), atol=1e-10)


def test_bad_input(binary):
    X, model = binary
    lookup = nb.shapley_lookup(model.tables_)
    parts = model.transform(X)
    with pytest.raises(ValueError, match="shape"):
        lookup.values(parts[:, :2])
    with pytest.raises(ValueError, match="shape"):
        lookup.values(parts[0])
    with pytest.raises(ValueError, match="integers"):
        lookup.values(parts.astype(float))
    bad = parts.copy()
    bad[7, 1] = model.tables_.n_parts[1]  # one past the last part of variable 'b'
    with pytest.raises(ValueError, match="'b' has part indices out of range"):
        lookup.values(bad)
    bad = parts.copy()
    bad[3, 2] = -1
    with pytest.raises(ValueError, match="'c' has part indices out of range"):
        lookup.values(bad)
    with pytest.raises(ValueError, match="not one of the classes"):
        nb.shapley_lookup(model.tables_, classes=["maybe"])
    with pytest.raises(ValueError, match="at least one class"):
        nb.shapley_lookup(model.tables_, classes=[])


def test_no_rows_and_unsigned_indices(binary):
    X, model = binary
    lookup = nb.shapley_lookup(model.tables_)
    assert lookup.values(np.zeros((0, 3), dtype=np.int64)).shape == (0, 3, 2)
    parts = model.transform(X.iloc[:4])
    np.testing.assert_array_equal(lookup.values(parts.astype(np.uint8)), lookup.values(parts))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("row", [0, 63, 64, 255, 256, 299])  # blocks of 64 rows, then the 44 left
@pytest.mark.parametrize("order", ["C", "F"])
def test_range_check_finds_every_bad_index(binary, dtype, row, order):
    # the check reads the indices as unsigned and takes a blocked column maximum: a bad
    # index anywhere (in a block, in the remainder, negative or too large) must be caught
    X, model = binary
    lookup = nb.shapley_lookup(model.tables_)
    parts = np.asarray(model.transform(X), dtype=dtype, order=order)
    assert len(parts) == 300
    np.testing.assert_array_equal(lookup.values(parts), lookup.values(parts.astype(np.int64)))
    for j, name in enumerate(["a", "b", "c"]):
        bad_values = [model.tables_.n_parts[j], np.iinfo(dtype).max]
        if np.issubdtype(dtype, np.signedinteger):
            bad_values += [-1, np.iinfo(dtype).min]
        for value in bad_values:
            bad = parts.copy(order=order)
            bad[row, j] = value
            with pytest.raises(ValueError, match=f"'{name}' has part indices out of range"):
                lookup.values(bad)
            with pytest.raises(ValueError, match=f"'{name}' has part indices out of range"):
                model.tables_.check_parts(bad)
