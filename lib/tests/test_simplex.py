"""Tests of lib.simplex: the Aitchison geometry against its definitions (paper §3,
Aitchison 2001, Egozcue et al. 2003, Egozcue & Pawlowsky-Glahn 2005), closed forms
(class-compositions, Appendix B; angles of a regular simplex), and error messages.

Expected values come from independent formulas written here (double sums, explicit
balances), never from lib.simplex's own output."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lib import simplex as sx

logs = st.floats(min_value=-8, max_value=8, allow_nan=False, allow_infinity=False)
scalars = st.floats(min_value=-3, max_value=3, allow_nan=False, allow_infinity=False)


@st.composite
def comps(draw, n_parts=None, lead=()):
    n = draw(st.integers(2, 7)) if n_parts is None else n_parts
    return np.exp(draw(hnp.arrays(float, tuple(lead) + (n,), elements=logs)))


@st.composite
def comp_pairs(draw):
    n = draw(st.integers(2, 7))
    return draw(comps(n)), draw(comps(n))


@st.composite
def sbps(draw, n_parts=None):
    """A random sequential binary partition: recursively split a random group."""
    n = draw(st.integers(2, 7)) if n_parts is None else n_parts
    perm = draw(st.permutations(range(n)))
    rows = []
    stack = [list(perm)]
    while stack:
        g = stack.pop()
        if len(g) < 2:
            continue
        cut = draw(st.integers(1, len(g) - 1))
        row = np.zeros(n, dtype=int)
        row[g[:cut]] = 1
        row[g[cut:]] = -1
        rows.append(row)
        stack += [g[:cut], g[cut:]]
    order = draw(st.permutations(range(len(rows))))
    return np.array([rows[k] for k in order])


def inner_by_double_sum(x, y):
    """Paper §3.1: <x, y>_a = 1/(2N) Σ_i Σ_j log(x_i/x_j) log(y_i/y_j)."""
    n = len(x)
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += np.log(x[i] / x[j]) * np.log(y[i] / y[j])
    return s / (2 * n)


def balances_explicit(x, signs):
    """z_j = sqrt(rs/(r+s)) ln(g(x+)/g(x-)) (Egozcue & Pawlowsky-Glahn, 2005)."""
    out = []
    for row in signs:
        plus, minus = x[row > 0], x[row < 0]
        r, s = len(plus), len(minus)
        gp = np.exp(np.mean(np.log(plus)))
        gm = np.exp(np.mean(np.log(minus)))
        out.append(np.sqrt(r * s / (r + s)) * np.log(gp / gm))
    return np.array(out)


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(comps(), st.floats(min_value=1e-3, max_value=1e3))
def test_closure_sums_to_one_and_ignores_scale(x, lam):
    c = sx.closure(x)
    np.testing.assert_allclose(c.sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(sx.closure(lam * x), c, rtol=1e-10)
    np.testing.assert_allclose(sx.closure(x, total=100.0).sum(), 100.0, rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(comp_pairs())
def test_perturbation_is_closed_partwise_product(pair):
    x, y = pair
    expected = x * y / np.sum(x * y)
    np.testing.assert_allclose(sx.perturb(x, y), expected, rtol=1e-9)
    np.testing.assert_allclose(sx.difference(x, y), (x / y) / np.sum(x / y), rtol=1e-9)
    # x ⊖ y = x ⊕ ((-1) ⊙ y)
    np.testing.assert_allclose(sx.difference(x, y), sx.perturb(x, sx.power(-1.0, y)), rtol=1e-9)


@settings(max_examples=100, deadline=None)
@given(comps(), scalars)
def test_powering_is_closed_partwise_power(x, a):
    expected = x**a / np.sum(x**a)
    np.testing.assert_allclose(sx.power(a, x), expected, rtol=1e-8)


@settings(max_examples=100, deadline=None)
@given(comps())
def test_neutral_element_and_opposite(x):
    u = sx.uniform(len(x))
    np.testing.assert_allclose(sx.perturb(x, u), sx.closure(x), rtol=1e-10)
    np.testing.assert_allclose(sx.difference(x, x), u, rtol=1e-12)
    assert sx.norm(u) == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(comp_pairs())
def test_inner_product_matches_double_sum(pair):
    x, y = pair
    assert sx.inner(x, y) == pytest.approx(inner_by_double_sum(x, y), rel=1e-9, abs=1e-9)
    assert sx.distance(x, y) == pytest.approx(sx.norm(sx.difference(x, y)), rel=1e-9, abs=1e-9)
    assert sx.distance(x, y) == pytest.approx(
        np.sqrt(inner_by_double_sum(x / y, x / y)), rel=1e-9, abs=1e-9
    )


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 6), st.data())
def test_vectorised_over_leading_axes(n, data):
    x = data.draw(comps(n, lead=(3, 2)))
    y = data.draw(comps(n, lead=(3, 2)))
    a = data.draw(hnp.arrays(float, (3, 2), elements=scalars))
    assert sx.perturb(x, y).shape == (3, 2, n)
    assert sx.ilr(x).shape == (3, 2, n - 1)
    assert sx.inner(x, y).shape == (3, 2)
    for i, j in itertools.product(range(3), range(2)):
        np.testing.assert_allclose(sx.power(a, x)[i, j], sx.power(a[i, j], x[i, j]), rtol=1e-10)
        assert sx.inner(x, y)[i, j] == pytest.approx(
            inner_by_double_sum(x[i, j], y[i, j]), rel=1e-9, abs=1e-9
        )


# ---------------------------------------------------------------------------
# ILR
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 9))
def test_helmert_basis_orthonormal_and_explicit(n):
    V = sx.helmert_basis(n)
    np.testing.assert_allclose(V.T @ V, np.eye(n - 1), atol=1e-12)
    np.testing.assert_allclose(V.sum(axis=0), 0.0, atol=1e-12)
    sx.check_basis(V)
    np.testing.assert_allclose(sx.sbp_basis(sx.helmert_sbp(n)), V, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(comps())
def test_helmert_ilr_matches_egozcue_2003_balances(x):
    # z_j = sqrt(j/(j+1)) ln( (x_1...x_j)^(1/j) / x_{j+1} ), j = 1..N-1
    n = len(x)
    z = [np.sqrt(j / (j + 1)) * (np.mean(np.log(x[:j])) - np.log(x[j])) for j in range(1, n)]
    np.testing.assert_allclose(sx.ilr(x), z, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 7).flatmap(lambda n: st.tuples(sbps(n), comps(n), comps(n))))
def test_sbp_basis_orthonormal_and_balances(args):
    signs, x, y = args
    V = sx.sbp_basis(signs)
    np.testing.assert_allclose(V.T @ V, np.eye(len(x) - 1), atol=1e-12)
    np.testing.assert_allclose(sx.ilr(x, V), balances_explicit(x, signs), atol=1e-9)
    # isometry in this basis too
    assert sx.ilr(x, V) @ sx.ilr(y, V) == pytest.approx(inner_by_double_sum(x, y), rel=1e-9, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(comp_pairs(), scalars, scalars)
def test_ilr_is_an_isometric_isomorphism(pair, a, b):
    x, y = pair
    zx, zy = sx.ilr(x), sx.ilr(y)
    assert zx @ zy == pytest.approx(inner_by_double_sum(x, y), rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(sx.ilr(sx.perturb(x, y)), zx + zy, atol=1e-8)
    np.testing.assert_allclose(sx.ilr(sx.difference(x, y)), zx - zy, atol=1e-8)
    np.testing.assert_allclose(sx.ilr(sx.power(a, x)), a * zx, atol=1e-8)
    lin = sx.perturb(sx.power(a, x), sx.power(b, y))
    np.testing.assert_allclose(sx.ilr(lin), a * zx + b * zy, atol=1e-7)


@settings(max_examples=100, deadline=None)
@given(comps())
def test_ilr_inverse_round_trip(x):
    np.testing.assert_allclose(sx.ilr_inv(sx.ilr(x)), sx.closure(x), rtol=1e-7, atol=1e-300)
    np.testing.assert_allclose(sx.clr_inv(sx.clr(x)), sx.closure(x), rtol=1e-7, atol=1e-300)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 7).flatmap(lambda n: st.tuples(sbps(n), hnp.arrays(float, (n - 1,), elements=logs))))
def test_ilr_of_ilr_inverse_is_identity(args):
    signs, z = args
    V = sx.sbp_basis(signs)
    np.testing.assert_allclose(sx.ilr(sx.ilr_inv(z, V), V), z, atol=1e-8)
    np.testing.assert_allclose(sx.ilr(sx.ilr_inv(z)), z, atol=1e-8)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(comps(n, lead=(5,)))))
def test_aitchison_mean_is_ilr_mean(args):
    (x,) = args
    np.testing.assert_allclose(sx.aitchison_mean(x), sx.ilr_inv(sx.ilr(x).mean(axis=0)), rtol=1e-8)


# ---------------------------------------------------------------------------
# Class-compositions (Appendix B), projections and angles
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 11))
def test_class_compositions_unit_norm_and_eq16(n):
    C = sx.class_compositions(n)
    np.testing.assert_allclose(sx.norm(C), 1.0, rtol=1e-12)
    e = np.exp(-np.sqrt(n / (n - 1)))
    for k in range(n):
        expected = np.where(np.arange(n) == k, 1.0, e) / (1 + (n - 1) * e)  # eq. 16
        np.testing.assert_allclose(C[k], expected, rtol=1e-12)
        assert np.argmax(C[k]) == k
    # the class directions are the vertices of a regular simplex: cos = -1/(N-1)
    cos = sx.cosine(C[:, None, :], C[None, :, :])
    np.testing.assert_allclose(cos, np.where(np.eye(n, dtype=bool), 1.0, -1.0 / (n - 1)), atol=1e-12)


def test_tetrahedral_angle_for_four_classes():
    C = sx.class_compositions(4)
    assert sx.angle(C[0], C[1], degrees=True) == pytest.approx(np.degrees(np.arccos(-1 / 3)), rel=1e-12)
    assert sx.angle(C[0], C[1], degrees=True) == pytest.approx(109.47, abs=0.01)


@settings(max_examples=100, deadline=None)
@given(comp_pairs(), st.floats(min_value=0.1, max_value=5))
def test_projection_and_cosine(pair, a):
    x, y = pair
    if sx.norm(y) < 1e-6 or sx.norm(x) < 1e-6:
        return
    unit = sx.power(1.0 / sx.norm(y), y)
    assert sx.projection(x, y) == pytest.approx(sx.inner(x, unit), rel=1e-7, abs=1e-9)
    assert sx.projection(x, sx.power(a, y)) == pytest.approx(sx.projection(x, y), rel=1e-7, abs=1e-9)
    c = inner_by_double_sum(x, y) / np.sqrt(inner_by_double_sum(x, x) * inner_by_double_sum(y, y))
    assert sx.cosine(x, y) == pytest.approx(c, rel=1e-7, abs=1e-9)
    assert sx.cosine(x, sx.power(-a, x)) == pytest.approx(-1.0, abs=1e-9)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, match",
    [
        ([0.5, 0.5, 0.0], "zero or negative"),
        ([0.5, 0.7, -0.2], "zero or negative"),
        ([0.5, np.nan, 0.5], "NaN"),
        ([0.5, np.inf, 0.5], "infinite"),
        ([1.0], "at least 2 parts"),
        (1.0, "scalar"),
    ],
)
def test_bad_compositions_raise(bad, match):
    for fn in (sx.closure, sx.clr, sx.ilr, sx.norm):
        with pytest.raises(ValueError, match=match):
            fn(bad)
    if np.ndim(bad) == 1 and len(bad) == 3:
        with pytest.raises(ValueError, match=match):
            sx.perturb([0.2, 0.3, 0.5], bad)
        with pytest.raises(ValueError, match=match):
            sx.difference(bad, [0.2, 0.3, 0.5])


def test_mismatched_parts_and_bad_coordinates_raise():
    with pytest.raises(ValueError, match="parts"):
        sx.perturb([0.2, 0.8], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="NaN or infinite"):
        sx.ilr_inv([0.0, np.nan])
    with pytest.raises(ValueError, match="uniform composition"):
        sx.cosine([0.2, 0.8], [0.5, 0.5])
    with pytest.raises(ValueError, match="finite"):
        sx.power(np.nan, [0.2, 0.8])
    with pytest.raises(ValueError, match="axis"):
        sx.aitchison_mean(np.full((3, 2), 0.5), axis=-1)


def test_bad_bases_raise():
    with pytest.raises(ValueError, match="shape"):
        sx.check_basis(np.eye(3))
    with pytest.raises(ValueError, match="sum to 0"):
        sx.check_basis(np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="orthonormal"):
        sx.check_basis(2 * sx.helmert_basis(3))
    with pytest.raises(ValueError, match="4 parts but the data have 3"):
        sx.ilr([0.2, 0.3, 0.5], sx.helmert_basis(4))


@pytest.mark.parametrize(
    "signs, match",
    [
        ([[1, -1, 0], [1, 0, -1]], "exactly one row"),
        ([[1, 1, -1, -1], [1, -1, 0, 0], [1, 0, -1, 0]], "not a group"),
        ([[1, 1, 1], [1, -1, 0]], "both a \\+1 and a -1"),
        ([[1, -1, 2], [1, -1, 0]], "entries"),
        ([[1, -1, -1]], "shape"),
    ],
)
def test_bad_partitions_raise(signs, match):
    with pytest.raises(ValueError, match=match):
        sx.sbp_basis(signs)


# ---------------------------------------------------------------------------
# Bifurcation trees from data: balance_coefficients, class_mahalanobis, linkage_sbp,
# mahalanobis_sbp (paper §5.2, footnote 6, Figure 3b)
# ---------------------------------------------------------------------------


def _pattern(dim: int, scale: float) -> np.ndarray:
    """2*dim points ±scale*e_i: mean 0, sample covariance exactly 2 scale²/(2 dim - 1) I."""
    eye = np.eye(dim)
    return scale * np.concatenate([eye, -eye])


def _probs_from_ilr(Z: np.ndarray) -> np.ndarray:
    # inverse Gram-Schmidt ILR written out independently: x = C(exp(V z)), V = helmert columns
    n = Z.shape[1] + 1
    V = np.zeros((n, n - 1))
    for j in range(1, n):
        V[:j, j - 1] = np.sqrt(j / (j + 1.0)) / j
        V[j, j - 1] = -np.sqrt(j / (j + 1.0))
    E = np.exp(Z @ V.T)
    return E / E.sum(axis=1, keepdims=True)


def test_balance_coefficients_single_rows_closed_form():
    b = sx.balance_coefficients([1, -1, 0])
    assert b.shape == (3, 1)
    assert np.allclose(b[:, 0], [1 / np.sqrt(2), -1 / np.sqrt(2), 0])
    # 1 against {7, 8} among 10 parts (the paper's p̃5): +sqrt(2/3) on 1, -sqrt(1/6) on 7 and 8
    row = np.zeros(10, dtype=int)
    row[1], row[7], row[8] = 1, -1, -1
    b = sx.balance_coefficients(row)[:, 0]
    assert np.isclose(b[1], np.sqrt(2 / 3)) and np.allclose(b[[7, 8]], -np.sqrt(1 / 6))
    assert np.isclose(b[1], -2 * b[7])  # "half as long as the former" (paper §5.2)
    # coordinate = sqrt(rs/(r+s)) ln(g+/g-), on a composition
    x = np.array([0.05, 0.2, 0.05, 0.05, 0.05, 0.1, 0.1, 0.3, 0.05, 0.05])
    z = sx.clr(x) @ b
    assert np.isclose(z, np.sqrt(2 / 3) * np.log(x[1] / np.sqrt(x[7] * x[8])))


@given(sbps())
def test_balance_coefficients_equal_sbp_basis_on_full_partitions(signs):
    assert np.allclose(sx.balance_coefficients(signs), sx.sbp_basis(signs))


@pytest.mark.parametrize(
    "signs, match",
    [([1, 1, 0], "both"), ([[1, -1, 2]], "entries"), ([[1]], "shape"), (np.zeros((0, 3)), "shape")],
)
def test_balance_coefficients_bad_rows(signs, match):
    with pytest.raises(ValueError, match=match):
        sx.balance_coefficients(signs)


def test_class_mahalanobis_closed_form():
    # 3 classes in 2 ILR dimensions, each the same ±s pattern around its mean:
    # pooled covariance = 2 s²/3 I (pair or all), so D_jk = |μ_j - μ_k| / sqrt(2 s²/3)
    s = 0.5
    mus = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, -4.0]])
    Z = np.concatenate([m + _pattern(2, s) for m in mus])
    y = np.repeat([0, 1, 2], 4)
    P = _probs_from_ilr(Z)
    expected = np.linalg.norm(mus[:, None] - mus[None], axis=2) / np.sqrt(2 * s**2 / 3)
    for cov in ("pair", "all"):
        assert np.allclose(sx.class_mahalanobis(P, y, covariance=cov), expected)


def test_class_mahalanobis_pair_vs_all_covariance():
    # class 2 is spread 3x wider: the pair (0, 1) only sees classes 0 and 1 with "pair"
    mus = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 9.0]])
    scales = [0.5, 0.5, 1.5]
    Z = np.concatenate([m + _pattern(2, sc) for m, sc in zip(mus, scales)])
    y = np.repeat([0, 1, 2], 4)
    P = _probs_from_ilr(Z)
    pair = sx.class_mahalanobis(P, y, covariance="pair")
    shared = sx.class_mahalanobis(P, y, covariance="all")
    assert np.isclose(pair[0, 1], 2.0 / np.sqrt(2 * 0.25 / 3))
    # all: scatter = 2 s² I per class, pooled over n - N = 9 degrees of freedom
    var_all = 2 * (0.25 + 0.25 + 2.25) / 9
    assert np.isclose(shared[0, 1], 2.0 / np.sqrt(var_all))
    var_02 = 2 * (0.25 + 2.25) / 6
    assert np.isclose(pair[0, 2], 9.0 / np.sqrt(var_02))


def test_class_mahalanobis_does_not_depend_on_the_order_of_the_parts():
    # relabelling the parts is an orthogonal change of ILR coordinates: distances unchanged
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(4), 30)
    Z = rng.normal(size=(120, 3)) + 2.0 * rng.normal(size=(4, 3))[y]
    P = _probs_from_ilr(Z)
    perm = [2, 0, 3, 1]
    assert np.allclose(sx.class_mahalanobis(P, y), sx.class_mahalanobis(P[:, perm], y))


def _well_separated(rng, n_per=40):
    # 4 classes (3 ILR dims): {0, 1} close, {2, 3} close, the two pairs far apart,
    # and 3 closer to 2 than 1 is to 0, so the merges are {2|3}, {0|1}, {0,1|2,3}
    mus = np.array([[0.0, 0.0, 0.0], [1.5, 0.0, 0.0], [30.0, 0.0, 0.0], [30.0, 0.8, 0.0]])
    y = np.repeat(np.arange(4), n_per)
    Z = mus[y] + 0.1 * rng.normal(size=(len(y), 3))
    return _probs_from_ilr(Z), y


@pytest.mark.parametrize("method", ["merged", "single", "complete", "average", "weighted"])
@pytest.mark.parametrize("covariance", ["pair", "all"])
def test_mahalanobis_sbp_finds_the_obvious_tree(method, covariance):
    P, y = _well_separated(np.random.default_rng(0))
    signs, link = sx.mahalanobis_sbp(P, y, method=method, covariance=covariance)
    expected = np.array([[0, 0, 1, -1], [1, -1, 0, 0], [1, 1, -1, -1]])
    assert np.array_equal(signs, expected)
    assert link.shape == (3, 4) and list(link[:, 3]) == [2, 2, 4]
    V = sx.sbp_basis(signs)
    assert np.allclose(V.T @ V, np.eye(3)) and np.allclose(V.sum(axis=0), 0)


def test_mahalanobis_sbp_merged_treats_a_merged_pair_as_one_class():
    # three classes on a line at 0, 1, 10 with tiny spread: {0|1} first, then {0,1 | 2};
    # the merge height of the second step is the distance between the merged group (its
    # own mean and scatter) and class 2, computed here by hand with the pair covariance
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 25)
    Z = np.array([[0.0, 0.0], [1.0, 0.0], [10.0, 0.0]])[y] + 0.05 * rng.normal(size=(75, 2))
    P = _probs_from_ilr(Z)
    signs, link = sx.mahalanobis_sbp(P, y)
    assert np.array_equal(signs, [[1, -1, 0], [1, 1, -1]])
    Zi = sx.ilr(P)
    A, B = Zi[y < 2], Zi[y == 2]
    cov = ((len(A) - 1) * np.cov(A.T) + (len(B) - 1) * np.cov(B.T)) / (len(A) + len(B) - 2)
    d = A.mean(axis=0) - B.mean(axis=0)
    assert np.isclose(link[1, 2], np.sqrt(d @ np.linalg.solve(cov, d)))


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 7), st.integers(0, 2**32 - 1), st.sampled_from(["merged", "average", "single"]),
       st.sampled_from(["pair", "all"]))
def test_mahalanobis_sbp_is_always_a_valid_partition(n, seed, method, covariance):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n), 3 * n)
    Z = rng.normal(size=(len(y), n - 1)) + 3 * rng.normal(size=(n, n - 1))[y]
    signs, link = sx.mahalanobis_sbp(_probs_from_ilr(Z), y, method=method, covariance=covariance)
    assert signs.shape == (n - 1, n)
    V = sx.sbp_basis(signs)  # raises unless a sequential binary partition
    assert np.abs(V.T @ V - np.eye(n - 1)).max() < 1e-12 and np.abs(V.sum(axis=0)).max() < 1e-12
    # row j is merge j: its support has linkage[j, 3] classes; the root is the last row
    assert np.array_equal((signs != 0).sum(axis=1), link[:, 3].astype(int))
    assert np.all(signs[-1] != 0)
    # the numerator holds the smallest class index of the split
    for row in signs:
        assert row[np.flatnonzero(row)[0]] == 1


def test_linkage_sbp_by_hand():
    # scipy format: merge (1, 3) -> id 4, then (0, 2) -> id 5, then (4, 5) -> root
    link = np.array([[1, 3, 0.5, 2], [0, 2, 0.7, 2], [4, 5, 1.0, 4]], dtype=float)
    signs = sx.linkage_sbp(link, 4)
    assert np.array_equal(signs, [[0, 1, 0, -1], [1, 0, -1, 0], [1, -1, 1, -1]])
    with pytest.raises(ValueError, match="shape"):
        sx.linkage_sbp(link, 5)
    with pytest.raises(ValueError, match="two existing clusters"):
        sx.linkage_sbp(np.array([[1, 3, 0.5, 2], [1, 2, 0.7, 2], [4, 5, 1.0, 4]], dtype=float), 4)


def test_mahalanobis_sbp_bad_input():
    P, y = _well_separated(np.random.default_rng(0), n_per=5)
    with pytest.raises(ValueError, match="method"):
        sx.mahalanobis_sbp(P, y, method="ward")
    with pytest.raises(ValueError, match="covariance"):
        sx.mahalanobis_sbp(P, y, covariance="diag")
    with pytest.raises(ValueError, match="labels for"):
        sx.mahalanobis_sbp(P, y[:-1])
    with pytest.raises(ValueError, match="class indices"):
        sx.mahalanobis_sbp(P, y + 1)
    y_one = y.copy()
    y_one[y == 3] = 2
    y_one[-1] = 3  # class 3 has a single row
    with pytest.raises(ValueError, match="fewer than 2 rows"):
        sx.mahalanobis_sbp(P, y_one)
    bad = P.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        sx.class_mahalanobis(bad, y)
    with pytest.raises(ValueError, match="singular"):
        # two rows per class in 3 ILR dimensions: the pair's covariance has rank 2
        keep = np.concatenate([np.flatnonzero(y == k)[:2] for k in range(4)])
        sx.class_mahalanobis(P[keep], y[keep])


def test_linkage_sbp_first_child_numerator_differs_from_smallest_class():
    # 4 classes: row 0 joins classes 1 and 2 (cluster 4), row 1 joins class 0 and cluster 4
    # (cluster 5), row 2 joins class 3 and cluster 5 (the root)
    link = np.array([[1, 2, 0.5, 2], [0, 4, 0.7, 3], [3, 5, 1.0, 4]], dtype=float)
    first = sx.linkage_sbp(link, 4, numerator="first")
    smallest = sx.linkage_sbp(link, 4)
    # written by hand from the rule "linkage[i, 0] is the numerator"
    np.testing.assert_array_equal(first, [[0, 1, -1, 0], [1, -1, -1, 0], [-1, -1, -1, 1]])
    # the smallest-class rule puts the group holding class 0 in the numerator at the root
    np.testing.assert_array_equal(smallest[2], [1, 1, 1, -1])
    with pytest.raises(ValueError, match="numerator"):
        sx.linkage_sbp(link, 4, numerator="left")


def test_support_ordered_sbp_is_stable_and_keeps_a_basis():
    signs = np.array([[1, -1, 0, 0, 0], [0, 0, 1, 1, -1], [1, 1, -1, -1, -1], [0, 0, 1, -1, 0]])
    ordered = sx.support_ordered_sbp(signs)
    # supports 2, 3, 5, 2 -> rows 0, 3 (ties in their order), then 1, then 2
    np.testing.assert_array_equal(ordered, signs[[0, 3, 1, 2]])
    V = sx.sbp_basis(ordered)
    np.testing.assert_allclose(V.T @ V, np.eye(4), atol=1e-12)
    with pytest.raises(ValueError, match="shape"):
        sx.support_ordered_sbp(np.array([1, -1]))


@pytest.mark.parametrize("n_parts", [2, 3, 10])
def test_ilr_of_checked_gives_ilrs_bytes(n_parts):
    """The unchecked ILR that lib.compositions.ilr_model calls per model call is ilr's arithmetic:
    the same bytes, for rows and for one composition, in Helmert's basis and in another."""
    rng = np.random.default_rng(n_parts)
    P = sx.closure(rng.dirichlet(np.full(n_parts, 0.3), size=50) + 1e-300)
    signs = sx.helmert_sbp(n_parts)[::-1] if n_parts > 2 else sx.helmert_sbp(n_parts)
    for V in (sx.helmert_basis(n_parts), sx.sbp_basis(signs)):
        assert sx.ilr_of_checked(P, V).tobytes() == sx.ilr(P, V).tobytes()
        assert sx.ilr_of_checked(P[0], V).tobytes() == sx.ilr(P[0], V).tobytes()
