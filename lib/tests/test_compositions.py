"""Tests of lib.compositions: Shapley compositions (paper eq. 5-8) against an
independent brute-force computation done directly in the simplex (perturbations over
all d! orders, Aitchison expectations as closed geometric means, no ILR at all), the
properties of eq. 8 (efficiency, linearity), basis independence, the null player, the
sampling estimator of Appendix D and the adjustment of Appendix E (eq. 18-19, computed
here with ⊕ and ⊙ in the simplex), and error messages."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import compositions as cp
from lib import naive_bayes_compositions as nbc
from lib import simplex as sx
from lib.counting import CountingModel
from lib.sampling import strumbelj_kononenko as sk
from lib.sampling.strumbelj_kononenko import sampling_rows

# ---------------------------------------------------------------------------
# Independent simplex arithmetic (plain numpy, no lib)
# ---------------------------------------------------------------------------


def _c(x):
    return x / x.sum(axis=-1, keepdims=True)


def _oplus(x, y):
    return _c(x * y)


def _ominus(x, y):
    return _c(x / y)


def _odot(a, x):
    return _c(x**a)


def _geo_mean(P):
    """E^A over rows: closed geometric mean (Pawlowsky-Glahn et al., 2015)."""
    return _c(np.exp(np.log(P).mean(axis=0)))


def brute_force(f, x, background):
    """Eq. 5-7 literally: φ(i) = (1/d!) ⊙ ⊕_π [v(pre ∪ {i}) ⊖ v(pre)] over all d! orders,
    with v(S) = E^A_b f(x_S, b_{-S})."""
    d = len(x)

    def v(S):
        rows = background.copy()
        idx = list(S)
        rows[:, idx] = x[idx]
        return _geo_mean(f(rows))

    N = f(x[None, :]).shape[1]
    acc = [np.full(N, 1.0 / N) for _ in range(d)]
    for order in itertools.permutations(range(d)):
        pre: list[int] = []
        for i in order:
            acc[i] = _oplus(acc[i], _ominus(v(pre + [i]), v(pre)))
            pre.append(i)
    return np.array([_odot(1.0 / math.factorial(d), a) for a in acc])


def random_model(rng, d, N):
    A = rng.normal(size=(d, 4))
    B = rng.normal(size=(4, N)) * 2
    Cq = rng.normal(size=(d, N)) * 0.3

    def f(Z):
        Z = np.asarray(Z, dtype=float)
        s = np.tanh(Z @ A) @ B + (Z**2) @ Cq
        s = s - s.max(axis=1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=1, keepdims=True)

    return f


cases = st.tuples(st.integers(1, 4), st.integers(2, 5), st.integers(1, 5), st.integers(0, 2**31))


def _setup(case):
    d, N, m, seed = case
    rng = np.random.default_rng(seed)
    f = random_model(rng, d, N)
    X = rng.normal(size=(2, d))
    bg = rng.normal(size=(m, d))
    return f, X, bg, rng


# ---------------------------------------------------------------------------
# Exact compositions
# ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(cases)
def test_exact_matches_brute_force_in_the_simplex(case):
    f, X, bg, _ = _setup(case)
    res = cp.exact_shapley_compositions(f, X, bg)
    for r in range(len(X)):
        expected = brute_force(f, X[r], bg)
        np.testing.assert_allclose(sx.clr(res.compositions[r]), sx.clr(expected), atol=1e-9)
    np.testing.assert_allclose(res.base, np.broadcast_to(_geo_mean(f(bg)), res.base.shape), rtol=1e-9)
    np.testing.assert_allclose(res.prediction, f(X), rtol=1e-9)


@settings(max_examples=40, deadline=None)
@given(cases)
def test_efficiency(case):
    f, X, bg, _ = _setup(case)
    res = cp.exact_shapley_compositions(f, X, bg)
    total = res.base
    for i in range(X.shape[1]):
        total = _oplus(total, res.compositions[:, i])
    np.testing.assert_allclose(sx.clr(total), sx.clr(f(X)), atol=1e-9)
    assert np.all(res.efficiency_gap() < 1e-9)


@settings(max_examples=30, deadline=None)
@given(cases, st.floats(-2, 2), st.floats(-2, 2))
def test_linearity(case, a, b):
    f, X, bg, rng = _setup(case)
    g = random_model(rng, X.shape[1], f(X).shape[1])

    def h(Z):
        return _oplus(_odot(a, f(Z)), _odot(b, g(Z)))

    pf = cp.exact_shapley_compositions(f, X, bg).compositions
    pg = cp.exact_shapley_compositions(g, X, bg).compositions
    ph = cp.exact_shapley_compositions(h, X, bg).compositions
    np.testing.assert_allclose(sx.clr(ph), sx.clr(_oplus(_odot(a, pf), _odot(b, pg))), atol=1e-8)


@settings(max_examples=30, deadline=None)
@given(cases, st.data())
def test_compositions_do_not_depend_on_the_basis(case, data):
    f, X, bg, rng = _setup(case)
    N = f(X).shape[1]
    perm = data.draw(st.permutations(range(N)))
    V = sx.sbp_basis(sx.helmert_sbp(N)[:, perm])  # a different orthonormal basis
    a = cp.exact_shapley_compositions(f, X, bg)
    b = cp.exact_shapley_compositions(f, X, bg, basis=V)
    np.testing.assert_allclose(sx.clr(a.compositions), sx.clr(b.compositions), atol=1e-9)
    np.testing.assert_allclose(b.ilr_values, sx.ilr(b.compositions, V), atol=1e-9)


def test_null_feature_gets_the_uniform_composition():
    rng = np.random.default_rng(3)
    f0 = random_model(rng, 3, 4)

    def f(Z):
        Z = np.array(Z, dtype=float)
        Z[:, 1] = 0.0  # feature 1 is ignored
        return f0(Z)

    res = cp.exact_shapley_compositions(f, rng.normal(size=(3, 3)), rng.normal(size=(6, 3)))
    np.testing.assert_allclose(res.compositions[:, 1], 0.25, atol=1e-12)
    assert np.all(res.norms()[:, 1] < 1e-12)


def test_summaries_against_definitions():
    rng = np.random.default_rng(5)
    f = random_model(rng, 3, 4)
    res = cp.exact_shapley_compositions(f, rng.normal(size=(2, 3)), rng.normal(size=(5, 3)))
    phi = res.compositions
    C = sx.class_compositions(4)
    for r, i, k in itertools.product(range(2), range(3), range(4)):
        assert res.projections()[r, i, k] == pytest.approx(sx.projection(phi[r, i], C[k]), abs=1e-12)
    cos = res.cosines()
    np.testing.assert_allclose(np.diagonal(cos, axis1=1, axis2=2), 1.0, atol=1e-12)
    np.testing.assert_allclose(cos, np.swapaxes(cos, 1, 2), atol=1e-12)
    assert cos[0, 0, 2] == pytest.approx(sx.cosine(phi[0, 0], phi[0, 2]), abs=1e-12)
    # the norm is the length of the ILR coordinates (isometry)
    np.testing.assert_allclose(res.norms(), np.linalg.norm(res.ilr_values, axis=2), atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 7).flatmap(lambda n: st.lists(st.floats(-5, 5), min_size=n - 1, max_size=n - 1)))
def test_composition_from_its_class_projections(z):
    phi = sx.ilr_inv(np.array(z))
    proj = cp.class_projections(phi)
    np.testing.assert_allclose(proj.sum(), 0.0, atol=1e-9)  # Σ_k clr(c^(k)) = 0
    np.testing.assert_allclose(sx.clr(cp.from_class_projections(proj)), sx.clr(phi), atol=1e-9)


# ---------------------------------------------------------------------------
# Sampling (Appendix D) and the efficiency adjustment (Appendix E)
# ---------------------------------------------------------------------------


def test_sampling_converges_to_exact():
    rng = np.random.default_rng(11)
    f = random_model(rng, 3, 3)
    X, bg = rng.normal(size=(1, 3)), rng.normal(size=(8, 3))
    exact = cp.exact_shapley_compositions(f, X, bg)
    est = cp.sample_shapley_compositions(f, X, bg, max_rows=sampling_rows(6000, m=len(bg)), rng=rng,
                                         method="variance", options=sk.VarianceOptions(batch_size=50))
    err = sx.distance(est.compositions, exact.compositions)
    se = np.sqrt(est.shapley.variances.sum(axis=2))  # per-feature total standard error
    assert np.all(err < 5 * se + 1e-12)
    assert est.shapley.n_samples.sum() == 6000


def test_adjustment_is_eq_18_19_in_the_simplex():
    rng = np.random.default_rng(7)
    f = random_model(rng, 4, 3)
    X, bg = rng.normal(size=(2, 4)), rng.normal(size=(10, 4))
    raw = cp.sample_shapley_compositions(f, X, bg, max_rows=sampling_rows(80, m=len(bg)), method="variance",
                                         rng=np.random.default_rng(1))
    adj = cp.sample_shapley_compositions(f, X, bg, max_rows=sampling_rows(80, m=len(bg)), method="variance",
                                         rng=np.random.default_rng(1), options=sk.VarianceOptions(adjust=True))
    eps = 1e-6
    for r in range(2):
        phi = raw.compositions[r]
        tr = raw.shapley.variances[r].sum(axis=1)  # trace of the estimate's covariance
        s_err = _ominus(_ominus(raw.prediction[r], raw.base[r]), _c(np.prod(phi, axis=0)))
        v = tr / (eps * tr.max())
        w = v / (1 + v.sum())
        expected = np.array([_oplus(phi[i], _odot(w[i], s_err)) for i in range(4)])
        np.testing.assert_allclose(sx.clr(adj.compositions[r]), sx.clr(expected), atol=1e-9)
    assert np.all(raw.efficiency_gap() > 1e-4)
    assert np.all(adj.efficiency_gap() < 1e-5 * np.maximum(raw.efficiency_gap(), 1))


def test_variance_allocation_skips_a_null_feature():
    rng = np.random.default_rng(2)
    f0 = random_model(rng, 3, 3)

    def f(Z):
        Z = np.array(Z, dtype=float)
        Z[:, 2] = 0.0
        return f0(Z)

    est = cp.sample_shapley_compositions(
        f, rng.normal(size=(1, 3)), rng.normal(size=(10, 3)), max_rows=sampling_rows(300, m=10), rng=rng,
        method="variance", options=sk.VarianceOptions(min_samples=3)
    )
    assert est.shapley.n_samples[0, 2] == 3  # m_min samples, then none: zero trace
    np.testing.assert_allclose(est.compositions[0, 2], 1 / 3, atol=1e-12)


# ---------------------------------------------------------------------------
# §6 logits and errors
# ---------------------------------------------------------------------------


def test_logits_round_trip_and_errors():
    p = np.array([0.1, 0.3, 0.6])
    np.testing.assert_allclose(cp.class_logits(p), np.log(p / (1 - p)), rtol=1e-12)
    np.testing.assert_allclose(cp.logistic(cp.class_logits(p)), p, rtol=1e-12)
    with pytest.raises(ValueError, match="strictly between"):
        cp.class_logits([0.0, 1.0])
    with pytest.raises(ValueError, match="finite"):
        cp.logistic([np.nan])


def test_bad_models_raise():
    X, bg = np.zeros((1, 2)), np.ones((3, 2))
    with pytest.raises(ValueError, match="probability 0 to class \\['0'\\] in row 0 of X and rows \\[0, 1, 2\\]"):
        cp.exact_shapley_compositions(lambda Z: np.tile([0.0, 1.0], (len(Z), 1)), X, bg)
    with pytest.raises(ValueError, match="shape \\(rows, N\\)"):
        cp.exact_shapley_compositions(lambda Z: np.full(len(Z), 0.5), X, bg)
    with pytest.raises(ValueError, match="NaN"):
        cp.exact_shapley_compositions(lambda Z: np.tile([np.nan, 1.0], (len(Z), 1)), X, bg)
    good = lambda Z: np.tile([0.2, 0.8], (len(Z), 1))  # noqa: E731
    with pytest.raises(ValueError, match="basis"):
        cp.exact_shapley_compositions(good, X, bg, basis=sx.helmert_basis(3))
    with pytest.raises(ValueError, match="class names"):
        cp.exact_shapley_compositions(good, X, bg, output_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="one shape"):
        cp.adjust_efficiency_compositions(np.zeros((1, 2, 2)), np.zeros((1, 2, 1)), np.zeros((1, 2)))


# ---------------------------------------------------------------------------
# Naive Bayes in closed form (notebook 07): against the 2^d enumeration of an
# independently written posterior, the two-class reduction to Lemaire et al.'s eq. 10,
# and errors
# ---------------------------------------------------------------------------

from lib import naive_bayes as nbm  # noqa: E402


def _random_tables(rng, d, K, n_bg):
    """Random weighted naive Bayes tables; part_prob = the frequencies of a background."""
    n_parts = rng.integers(2, 5, size=d)
    lik = [rng.dirichlet(np.ones(p), size=K).T for p in n_parts]  # (P_i, K), columns sum to 1
    bg = np.stack([rng.integers(0, p, size=n_bg) for p in n_parts], axis=1)
    part_prob = [np.bincount(bg[:, i], minlength=p) / n_bg for i, p in enumerate(n_parts)]
    tables = nbm.NaiveBayesTables(
        feature_names=[f"v{i}" for i in range(d)], classes=np.arange(K), prior=rng.dirichlet(np.ones(K)),
        likelihood=lik, part_prob=part_prob, weights=rng.uniform(0, 1, size=d),
    )
    return tables, bg, n_parts


def _posterior(tables):
    """Eq. 1 of Lemaire et al. written out (not lib): P(Y | parts) by a closed softmax."""

    def f(parts):
        parts = np.asarray(parts).astype(int)
        s = np.tile(np.log(tables.prior), (len(parts), 1))
        for i, lik in enumerate(tables.likelihood):
            s += tables.weights[i] * np.log(lik[parts[:, i]])
        return _c(np.exp(s - s.max(axis=1, keepdims=True)))

    return f


nb_cases = st.tuples(st.integers(1, 5), st.integers(2, 5), st.integers(1, 12), st.integers(0, 2**31))


@settings(max_examples=40, deadline=None)
@given(nb_cases)
def test_naive_bayes_closed_form_is_the_exact_shapley_composition(case):
    d, K, n_bg, seed = case
    rng = np.random.default_rng(seed)
    tables, bg, n_parts = _random_tables(rng, d, K, n_bg)
    X = np.stack([rng.integers(0, p, size=3) for p in n_parts], axis=1)
    f = _posterior(tables)
    exact = cp.exact_shapley_compositions(f, X, bg)
    closed = nbc.naive_bayes_shapley_compositions(tables, X, bg)
    np.testing.assert_allclose(closed.ilr_values, exact.ilr_values, atol=1e-10)
    np.testing.assert_allclose(sx.clr(closed.base), sx.clr(exact.base), atol=1e-10)
    np.testing.assert_allclose(closed.prediction, f(X), atol=1e-12)
    assert np.all(closed.efficiency_gap() < 1e-10)
    # background=None uses part_prob, here the background's own frequencies
    default = nbc.naive_bayes_shapley_compositions(tables, X)
    np.testing.assert_allclose(default.ilr_values, closed.ilr_values, atol=1e-12)
    # the compositions do not depend on the basis
    V = sx.sbp_basis(sx.helmert_sbp(K)[:, ::-1])
    other = nbc.naive_bayes_shapley_compositions(tables, X, bg, basis=V)
    np.testing.assert_allclose(sx.clr(other.compositions), sx.clr(closed.compositions), atol=1e-10)


def test_naive_bayes_matches_the_brute_force_in_the_simplex():
    rng = np.random.default_rng(4)
    tables, bg, n_parts = _random_tables(rng, 3, 4, 7)
    x = np.array([n_parts[0] - 1, 0, 1])
    closed = nbc.naive_bayes_shapley_compositions(tables, x[None, :], bg)
    expected = brute_force(_posterior(tables), x, bg)  # eq. 5-7 over the 3! orders, no ILR
    np.testing.assert_allclose(sx.clr(closed.compositions[0]), sx.clr(expected), atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.integers(0, 2**31))
def test_two_classes_reduce_to_lemaire_eq_10_over_sqrt_2(d, seed):
    rng = np.random.default_rng(seed)
    tables, bg, n_parts = _random_tables(rng, d, 2, 9)
    X = np.stack([rng.integers(0, p, size=4) for p in n_parts], axis=1)
    closed = nbc.naive_bayes_shapley_compositions(tables, X)
    phi, base = nbm.shapley_values(tables, X, output=tables.classes[0])
    np.testing.assert_allclose(closed.ilr_values[:, :, 0], phi / np.sqrt(2), atol=1e-12)
    np.testing.assert_allclose(sx.ilr(closed.base)[:, 0], base / np.sqrt(2), atol=1e-12)
    # by hand, for one cell: λ with the first class positive, expectation under P(X_i)
    lik, pp, w = tables.likelihood[0], tables.part_prob[0], tables.weights[0]
    lam = np.log(lik[:, 0] / lik[:, 1])
    assert closed.ilr_values[0, 0, 0] == pytest.approx(w * (lam[X[0, 0]] - pp @ lam) / np.sqrt(2), abs=1e-12)


def test_naive_bayes_accepts_a_fitted_model_and_predicts_like_it():
    rng = np.random.default_rng(0)
    import pandas as pd

    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.choice(["u", "v", "w"], size=60)})
    y = rng.choice(["p", "q", "r"], size=60)
    model = nbm.WeightedNaiveBayes(n_bins=3, weights=[0.3, 0.9]).fit(X, y)
    parts = model.transform(X.iloc[:5])
    res = nbc.naive_bayes_shapley_compositions(model, parts, model.transform(X))
    np.testing.assert_allclose(res.prediction, model.predict_proba(X.iloc[:5]), atol=1e-12)
    assert res.class_names == ["p", "q", "r"] and res.feature_names == ["a", "b"]
    prior, terms = nbc.naive_bayes_ilr_terms(model)
    assert prior.shape == (2,) and [t.shape for t in terms] == [(3, 2), (3, 2)]


def test_naive_bayes_bad_input_raises():
    rng = np.random.default_rng(1)
    tables, bg, n_parts = _random_tables(rng, 2, 3, 5)
    good = np.zeros((1, 2), dtype=int)
    with pytest.raises(ValueError, match="shape \\(n, 2\\)"):
        nbc.naive_bayes_shapley_compositions(tables, np.zeros((1, 3), dtype=int))
    with pytest.raises(ValueError, match="out of range"):
        nbc.naive_bayes_shapley_compositions(tables, np.array([[0, 9]]))
    with pytest.raises(ValueError, match="integers"):
        nbc.naive_bayes_shapley_compositions(tables, np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="no rows"):
        nbc.naive_bayes_shapley_compositions(tables, good, np.zeros((0, 2), dtype=int))
    with pytest.raises(ValueError, match="no rows"):
        nbc.naive_bayes_shapley_compositions(tables, np.zeros((0, 2), dtype=int))
    with pytest.raises(ValueError, match="out of range"):
        nbc.naive_bayes_shapley_compositions(tables, good, np.array([[-1, 0]]))
    with pytest.raises(ValueError, match="basis"):
        nbc.naive_bayes_shapley_compositions(tables, good, basis=sx.helmert_basis(4))
    with pytest.raises(ValueError, match="class names"):
        nbc.naive_bayes_shapley_compositions(tables, good, output_names=["a", "b"])
    with pytest.raises(ValueError, match="feature names"):
        nbc.naive_bayes_shapley_compositions(tables, good, feature_names=["a"])
    with pytest.raises(TypeError, match="NaiveBayesTables"):
        nbc.naive_bayes_shapley_compositions(nbm.WeightedNaiveBayes(), good)  # not fitted
    with pytest.raises(ValueError, match="zero"):  # a zero likelihood is refused by the tables
        nbm.NaiveBayesTables(feature_names=["v"], classes=np.arange(2), prior=np.array([0.5, 0.5]),
                             likelihood=[np.array([[1.0, 0.5], [0.0, 0.5]])], part_prob=[np.array([0.5, 0.5])],
                             weights=np.ones(1))


# ---------------------------------------------------------------------------
# The estimation study (notebook 06): counting, shap on the ILR coordinates
# ---------------------------------------------------------------------------


def test_counting_model_counts_rows_and_calls():
    f = random_model(np.random.default_rng(0), 2, 3)
    c = CountingModel(f)
    np.testing.assert_allclose(c(np.zeros((5, 2))), f(np.zeros((5, 2))))
    c(np.zeros((2, 2)))
    assert (c.rows, c.calls) == (7, 2)
    with pytest.raises(ValueError, match="callable"):
        CountingModel(3)


def test_sampling_cost_is_two_rows_per_sample_plus_base_and_outputs():
    rng = np.random.default_rng(3)
    f = random_model(rng, 3, 4)
    X, bg = rng.normal(size=(2, 3)), rng.normal(size=(7, 3))
    for allocation in ("uniform", "variance"):
        c = CountingModel(f)
        cp.sample_shapley_compositions(c, X, bg, max_rows=sampling_rows(40, m=len(bg)), rng=rng, method=allocation,
                                       options=sk.VarianceOptions(batch_size=3) if allocation == "variance" else None)
        assert c.rows == 2 * 40 * 2 + 7 + 2  # 2 rows per sample, the background once, f(X) once


def test_shap_estimators_on_the_ilr_coordinates():
    rng = np.random.default_rng(5)
    tables, bg, n_parts = _random_tables(rng, 3, 3, 6)
    X = np.stack([rng.integers(0, p, size=2) for p in n_parts], axis=1)
    f = _posterior(tables)
    closed = nbc.naive_bayes_shapley_compositions(tables, X, bg)
    # ilr ∘ f is additive: one forward-and-backward permutation is already exact
    c = CountingModel(f)
    perm = cp.shap_permutation_compositions(c, X.astype(float), bg.astype(float), max_evals=7, seed=0)
    np.testing.assert_allclose(perm.ilr_values, closed.ilr_values, atol=1e-10)
    assert 0 < c.rows <= 2 * 7 * len(bg) + 2 + len(bg)
    # SamplingExplainer: unbiased, and efficient after shap's adjustment
    samp = cp.shap_sampling_compositions(f, X.astype(float), bg.astype(float), n_samples=3000, seed=0)
    assert sx.distance(samp.compositions, closed.compositions).max() < 0.1
    assert samp.efficiency_gap().max() < 1e-4
    state = np.random.get_state()[1].copy()
    cp.shap_sampling_compositions(f, X.astype(float), bg.astype(float), n_samples=50, seed=1)
    np.testing.assert_array_equal(np.random.get_state()[1], state)  # global generator restored
    with pytest.raises(ValueError, match="2 d \\+ 1"):
        cp.shap_permutation_compositions(f, X.astype(float), bg.astype(float), max_evals=6, seed=0)
    with pytest.raises(ValueError, match="features"):
        cp.shap_sampling_compositions(f, X.astype(float), bg[:, :2].astype(float), n_samples=10, seed=0)


def test_summary_table_layout_and_values():
    rng = np.random.default_rng(3)
    phi = sx.closure(rng.uniform(0.2, 1.0, size=(4, 3)))
    feats, classes = ["a", "b", "c", "d"], ["x", "y", "z"]
    t = cp.summary_table(phi, feats, classes, order=["c", "a", "d", "b"])
    # 4 norms, 4 x 3 projections, 6 cosines: the 22 numbers of the paper's Table 1
    assert list(t.columns) == ["quantity", "feature", "with", "value"]
    assert t["quantity"].value_counts().to_dict() == {"projection": 12, "cosine": 6, "norm": 4}
    assert list(t.loc[t["quantity"] == "norm", "feature"]) == ["c", "a", "d", "b"]
    get = t.set_index(["quantity", "feature", "with"])["value"]
    assert get[("norm", "d", "")] == pytest.approx(float(sx.norm(phi[3])))
    assert get[("projection", "a", "y")] == pytest.approx(float(cp.class_projections(phi)[0, 1]))
    assert get[("cosine", "b", "c")] == pytest.approx(float(sx.cosine(phi[1], phi[2])))
    # every row of projections sums to 0 (the class-compositions sum to the neutral element)
    sums = t[t["quantity"] == "projection"].groupby("feature")["value"].sum()
    np.testing.assert_allclose(sums, 0.0, atol=1e-12)


def test_summary_table_rejects_bad_input():
    phi = sx.closure(np.ones((2, 3)))
    with pytest.raises(ValueError, match="shape"):
        cp.summary_table(phi, ["a"], ["x", "y", "z"])
    with pytest.raises(ValueError, match="order"):
        cp.summary_table(phi, ["a", "b"], ["x", "y", "z"], order=["a", "a"])


def test_mixed_basis_projections_equal_the_definition_only_in_the_gram_schmidt_basis():
    rng = np.random.default_rng(3)
    phi = sx.closure(np.exp(rng.normal(size=(4, 5))))
    gs = sx.helmert_basis(5)
    np.testing.assert_allclose(cp.mixed_basis_projections(sx.ilr(phi, gs), gs), cp.class_projections(phi), atol=1e-12)
    tree = sx.sbp_basis(np.array([[0, 0, 0, 1, -1], [1, -1, 0, 0, 0], [1, 1, -1, 0, 0], [1, 1, 1, -1, -1]]))
    mixed = cp.mixed_basis_projections(sx.ilr(phi, tree), tree)
    assert np.abs(mixed - cp.class_projections(phi)).max() > 0.1     # another basis: not the projections
    # the mixed numbers are the projections of the rotated composition R phi, R = V_GS V_tree^T (in clr)
    rotated = sx.clr_inv(sx.clr(phi) @ tree @ gs.T)
    np.testing.assert_allclose(mixed, cp.class_projections(rotated), atol=1e-12)
    np.testing.assert_allclose(mixed.sum(axis=1), 0, atol=1e-12)        # rows still sum to zero
    with pytest.raises(ValueError):
        cp.mixed_basis_projections(np.array([[np.nan, 0, 0, 0]]), tree)


# ---------------------------------------------------------------------------
# The result surface every explainer shares (issue 32): clr values, shap's plots
# ---------------------------------------------------------------------------


def test_compositions_in_clr_are_efficient_and_feed_shaps_bar_and_waterfall_plots():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import shap

    rng = np.random.default_rng(31)
    f = random_model(rng, 4, 3)
    X, bg = rng.normal(size=(3, 4)), rng.normal(size=(12, 4))
    res = cp.exact_shapley_compositions(f, X, bg, output_names=["a", "b", "c"])
    # clr coordinates: the compositions' clr, the prediction's and the base's; efficiency in clr
    np.testing.assert_allclose(res.values, sx.clr(res.compositions), atol=1e-12)
    np.testing.assert_allclose(res.outputs, sx.clr(res.prediction), atol=1e-12)
    np.testing.assert_allclose(res.base_values, sx.clr(res.base), atol=1e-12)
    np.testing.assert_allclose(res.outputs - res.base_values - res.values.sum(axis=1), 0.0, atol=1e-12)
    explanation = res.to_explanation()
    assert explanation.values.shape == (3, 4, 3) and list(explanation.output_names) == ["a", "b", "c"]
    one = res.to_explanation(output="b")
    np.testing.assert_array_equal(one.values, res.values[:, :, 1])
    assert res.to_explanation(output=1).values.shape == (3, 4)
    shap.plots.bar(one, show=False)
    shap.plots.waterfall(one[0], show=False)
    plt.close("all")
    with pytest.raises(ValueError, match=r"output='z' is not one of the classes \['a', 'b', 'c'\], or a column index"):
        res.to_explanation(output="z")
