"""Standard errors for shap's explainers, which give none: independent replicates (issue 47, item 2).

``replicates=R`` runs shap's KernelExplainer (:func:`lib.kernel_comparison.kernel_shap`), SamplingExplainer and
PermutationExplainer (:func:`lib.compositions.shap_sampling_compositions`,
:func:`lib.compositions.shap_permutation_compositions`) ``R`` times with the seeds of
:func:`lib.validation.replicate_seeds` and pools them (:meth:`lib.result.ShapleyResult.from_replicates`).
The pooled values are checked against the plain calls recomputed here; the standard errors against the spread
across 100 seeds; the intervals against the exact values (2^d enumeration).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lib import compositions as cp
from lib import kernel_comparison as kc
from lib.result import ShapleyResult
from lib.shapley import exact_shapley
from lib.validation import replicate_seeds

SEEDS = 100


def _game(d: int = 5):
    rng = np.random.default_rng(0)
    B, X = rng.normal(size=(12, d)), rng.normal(size=(2, d))

    def f(Z):   # three-way interactions: no design of shap's is exact on it below 2^d coalitions
        Z = np.asarray(Z, dtype=float)
        return np.tanh(Z.sum(axis=1)) + Z[:, 0] * Z[:, 1] * Z[:, 2] + np.sin(Z[:, 4] * Z[:, 3] * Z[:, 0])

    return f, X, B


def _classifier(d: int = 4):
    rng = np.random.default_rng(1)
    B, X, W = rng.normal(size=(8, d)), rng.normal(size=(2, d)), rng.normal(size=(d, 3))

    def p(Z):
        Z = np.asarray(Z, dtype=float)
        z = (Z @ W + np.tanh(Z[:, :1] * Z[:, 1:2] * Z[:, 2:3]) * np.array([1.0, -1.0, 0.5])
             + np.sin(Z[:, 3:4] * Z[:, :1] * Z[:, 1:2]))
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return p, X, B


def _run(values, outputs=None, model_rows=10) -> ShapleyResult:
    values = np.asarray(values, dtype=float)
    outputs = np.zeros(values.shape[0]) if outputs is None else np.asarray(outputs, dtype=float)
    return ShapleyResult(values=values, base_values=np.zeros_like(outputs), outputs=outputs,
                         data=np.zeros(values.shape), method="planted", model_rows=model_rows)


def test_replicate_seeds_start_at_the_seed_and_are_fixed_by_it() -> None:
    seeds = replicate_seeds(7, 5)
    assert seeds[0] == 7 and len(set(seeds)) == 5
    assert seeds == replicate_seeds(7, 5) and seeds[:3] == replicate_seeds(7, 3)
    assert replicate_seeds(8, 5)[1:] != seeds[1:]
    assert all(0 <= s < 2**32 for s in seeds)
    assert replicate_seeds(7, 1) == [7]
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(ValueError, match="replicates"):
            replicate_seeds(7, bad)


def test_from_replicates_gives_the_mean_its_standard_error_and_r_minus_1_degrees_of_freedom() -> None:
    rng = np.random.default_rng(3)
    runs = rng.normal(size=(6, 2, 3))
    runs[:, 1, 2] = 0.25                                           # one value every run agrees on
    res = ShapleyResult.from_replicates([_run(v) for v in runs])
    np.testing.assert_allclose(res.values, runs.mean(axis=0), rtol=0, atol=1e-15)
    spreading = np.ones((2, 3), dtype=bool)
    spreading[1, 2] = False
    np.testing.assert_allclose(res.standard_errors[spreading], (runs.std(axis=0, ddof=1) / np.sqrt(6))[spreading],
                               rtol=1e-13)
    assert np.all(res.degrees_of_freedom[spreading] == 5)
    # the agreeing value is not called exact while its row spreads: the rule of three's bound, inf dof
    largest = np.abs(runs[:, 1] - runs[:, 1].mean(axis=0)).max()
    assert res.standard_errors[1, 2] == pytest.approx(-np.log(0.05) * largest / (1.959963984540054 * 5), rel=1e-12)
    assert np.isinf(res.degrees_of_freedom[1, 2])
    assert res.model_rows == 60 and res.method == "planted-replicates-6"
    from scipy import stats

    _, hi = res.interval()
    np.testing.assert_allclose((hi - res.values)[spreading], stats.t.ppf(0.975, 5) * res.standard_errors[spreading])


def test_from_replicates_reads_rounding_as_agreement_and_refuses_one_run() -> None:
    base = np.array([[0.3, -1.2, 2.0]])
    runs = [_run(base + e, outputs=[1.1]) for e in (0.0, 2e-16, -3e-16, 1e-16)]
    res = ShapleyResult.from_replicates(runs)
    assert np.all(res.standard_errors == 0) and np.all(np.isinf(res.degrees_of_freedom))
    lo, hi = res.interval()
    assert np.all(lo == res.values) and np.all(hi == res.values)
    with pytest.raises(ValueError, match="at least two"):
        ShapleyResult.from_replicates(runs[:1])


def test_kernel_shap_replicates_pool_the_plain_calls_and_count_every_row() -> None:
    f, X, B = _game()
    plain = kc.kernel_shap(f, X, B, seed=4, nsamples=20)
    one = kc.kernel_shap(f, X, B, seed=4, nsamples=20, replicates=1)
    np.testing.assert_array_equal(one.values, plain.values)
    assert one.standard_errors is None
    calls = [kc.kernel_shap(f, X, B, seed=s, nsamples=20) for s in replicate_seeds(4, 3)]
    three = kc.kernel_shap(f, X, B, seed=4, nsamples=20, replicates=3)
    np.testing.assert_allclose(three.values, np.mean([c.values for c in calls], axis=0), rtol=0, atol=1e-14)
    np.testing.assert_allclose(three.standard_errors,
                               np.std([c.values for c in calls], axis=0, ddof=1) / np.sqrt(3), rtol=1e-10)
    # each run pays shap's rows; f(x) is evaluated once for the call (the checked game keeps it)
    assert three.model_rows == sum(c.model_rows for c in calls) - 2 * len(X)
    np.testing.assert_allclose(three.efficiency_gap(), 0.0, atol=1e-12)
    # at the exact cost every run enumerates: standard error 0, the exact values
    exact = kc.kernel_shap(f, X, B, seed=4, nsamples=2**5 - 2, replicates=3)
    assert np.all(exact.standard_errors == 0)
    np.testing.assert_allclose(exact.values, exact_shapley(f, X, B).values, atol=1e-12)


def _coverage(call, exact) -> tuple[float, float]:
    """Over :data:`SEEDS` seeds: the share of intervals that cover the exact values, and the mean ratio of the
    standard errors to the spread of the values across seeds (values with a measured spread)."""
    values, ses, covered = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(SEEDS):
            res = call(s)
            lo, hi = res.interval()
            covered.append((lo <= exact) & (exact <= hi))
            values.append(res.values)
            ses.append(res.standard_errors)
    values, ses = np.array(values), np.array(ses)
    spread = values.std(axis=0, ddof=1)
    measured = spread > 1e-9
    return float(np.mean(covered)), float((ses.mean(axis=0)[measured] / spread[measured]).mean())


def test_permutation_replicates_cover_the_exact_compositions() -> None:
    """shap's PermutationExplainer is unbiased: its replicates' intervals cover the exact values at the
    nominal rate (one permutation of 4 features draws few distinct values: the agreeing ones carry bounds)."""
    p, X, B = _classifier()
    exact = cp.exact_shapley_compositions(p, X, B).ilr_values
    cover, _ = _coverage(lambda s: cp.shap_permutation_compositions(p, X, B, max_evals=9, seed=s,
                                                                      replicates=4).shapley, exact)
    assert 0.93 <= cover <= 0.99, f"coverage {cover:.3f}, outside [0.93, 0.99]"
    sampled = _coverage(lambda s: cp.shap_sampling_compositions(p, X, B, n_samples=8, seed=s,
                                                                replicates=4).shapley, exact)
    # SamplingExplainer's efficiency adjustment is not unbiased; its standard errors still measure its spread
    assert 0.90 <= sampled[0] <= 0.99, f"coverage {sampled[0]:.3f}, outside [0.90, 0.99]"
    assert 0.8 <= sampled[1] <= 1.1, f"standard error / spread {sampled[1]:.3f}, outside [0.8, 1.1]"


def test_kernel_shap_standard_errors_measure_its_spread_and_its_bias_shows() -> None:
    """The standard errors are those of KernelSHAP's mean over the runs: on a game with three-way interactions,
    at 26 of 30 coalitions and 8 runs, their mean is the spread across seeds (E[s] = c4 σ, c4(8) = 0.965);
    KernelSHAP's regression is biased at small budgets, so the intervals cover the exact values less often
    than 95 % (measured, bounded below)."""
    f, X, B = _game()
    exact = exact_shapley(f, X, B).values
    cover, ratio = _coverage(lambda s: kc.kernel_shap(f, X, B, seed=s, nsamples=26, replicates=8), exact)
    assert 0.85 <= ratio <= 1.1, f"standard error / spread {ratio:.3f}, outside [0.85, 1.1]"
    assert 0.90 <= cover <= 0.97, f"coverage {cover:.3f}, outside [0.90, 0.97]"
