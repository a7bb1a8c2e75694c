"""lib.ranks: ties survive rounding noise, distinct values keep their order."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from lib.ranks import kendall_tau_b_rows, tie_grid


def test_values_closer_than_the_step_are_tied_and_tiny_values_are_zero():
    v = np.array([0.3, 0.3 + 1e-16, -1e-17, 0.0, 1.0, -0.5])
    g = tie_grid(v)
    assert g[0] == g[1] and g[2] == g[3] == 0 and np.sign(g[2]) == 0
    assert g[4] > g[0] > g[3] > g[5]


def test_one_grid_per_row_with_axis():
    v = np.array([[1.0, 1.0 + 1e-15, 0.5], [1e-6, 1e-6 * (1 + 1e-15), 2e-6]])
    g = tie_grid(v, axis=1)
    assert g[0, 0] == g[0, 1] and g[1, 0] == g[1, 1] and g[1, 2] > g[1, 0]
    # over the whole array the small row would collapse to zero: the axis matters
    assert np.all(tie_grid(v, 1e-3)[1] == 0)


def test_zero_rtol_keeps_the_values_and_bad_input_is_refused():
    v = np.array([1.0, 1.0 + 1e-16])
    np.testing.assert_array_equal(tie_grid(v, 0), v)
    assert np.all(tie_grid(np.zeros(3)) == 0)
    with pytest.raises(ValueError, match="rtol"):
        tie_grid(v, 1.0)
    with pytest.raises(ValueError, match="finite"):
        tie_grid(np.array([1.0, np.nan]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=3, max_size=12), st.integers(0, 2**32 - 1))
def test_ranks_of_noisy_copies_equal_the_exact_ranks(ints, seed):
    # exact values with many ties; noise of a few ulps must not change any rank statistic
    exact = np.asarray(ints, dtype=float) / 7.0
    noise = np.random.default_rng(seed).integers(-4, 5, exact.size) * np.finfo(float).eps
    noisy = exact + noise * np.maximum(np.abs(exact), 1e-300)
    np.testing.assert_array_equal(np.argsort(tie_grid(noisy), kind="stable"),
                                  np.argsort(tie_grid(exact), kind="stable"))
    if np.ptp(exact) > 0:
        other = np.arange(exact.size, dtype=float)
        assert kendalltau(tie_grid(noisy), other).statistic == kendalltau(tie_grid(exact), other).statistic


@pytest.mark.parametrize("d", [2, 3, 6, 23])
@pytest.mark.parametrize("kind", ["ties", "floats"])
def test_kendall_tau_b_rows_is_scipys_statistic_to_the_bit(d, kind):
    """Every row's τ-b equals scipy.stats.kendalltau's, byte for byte: tied and untied values,
    constant rows (nan), a NaN (nan, as scipy propagates it), infinities, perfect agreement and
    reversal, and more rows than one block of pairs."""
    rng = np.random.default_rng(d)
    rows = 3 * max(1, 2**22 // (d * (d - 1) // 2)) // 2 if d == 23 else 300
    a = rng.integers(0, 4, size=(rows, d)).astype(float) if kind == "ties" else rng.normal(size=(rows, d))
    b = rng.integers(0, 3, size=(rows, d)).astype(float) if kind == "ties" else rng.normal(size=(rows, d))
    a[0], b[1], a[2, 0] = 1.0, 2.0, np.nan
    b[3, -1], a[3, 0] = np.inf, -np.inf
    b[4], b[5] = 2 * a[4] + 1, -a[5]
    ours = kendall_tau_b_rows(a, b)
    check = np.r_[0:300, rows - 50:rows] if rows > 300 else np.arange(rows)
    theirs = np.array([kendalltau(a[r], b[r]).statistic for r in check])
    assert ours[check].tobytes() == theirs.tobytes()
    assert np.isnan(ours[:3]).all() and abs(ours[4] - 1) < 1e-15 and abs(ours[5] + 1) < 1e-15


def test_kendall_tau_b_rows_refuses_arrays_of_two_shapes():
    with pytest.raises(ValueError, match="one shape"):
        kendall_tau_b_rows(np.zeros((3, 4)), np.zeros((3, 5)))
