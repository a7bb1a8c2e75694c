"""Standard errors of sampled Shapley values (issue 47): every estimator of the registry reports one per value.

What is checked, for every registered estimator (``lib.sampling.estimators()``), against exact values
(:func:`lib.shapley.exact_shapley`, ``2^8`` coalitions):

* nominal 95 % intervals (the result's :meth:`~lib.result.ShapleyResult.interval`: value ± Student's ``t`` at
  the standard errors' degrees of freedom) cover the exact value in a band fixed below, over 150 seeds, on a
  continuous game and on a discrete one (where the strata estimator enumerates some background rows and
  walks the others); with the intervals halved, the same check fails; at a budget of few pairs per
  background row, ``t`` at Satterthwaite's degrees of freedom (:func:`lib.sampling.walk.pooled_dof`) covers
  where ``± 1.96`` does not;
* the standard error is 0 where the value is exact (an additive game; every stratum enumerated), and
  ``nan`` where the draws cannot measure a spread (a single pair of walks, a single draw); a value whose
  draws all agree but need not be exact (a feature that matters only in rare coalitions) gets the rule of
  three's bound, not 0;
* where skewed draws make a run's mean and its standard error move together, the bootstrap-t
  (:func:`lib.sampling.walk.bootstrap_t`) covers where ``± t`` does not, agrees with ``± t`` on normal draws,
  and the default keeps it without changing its values, standard errors or random stream (pooled ``tol``
  rounds take ``± t``);
* it shrinks as ``1 / sqrt(budget)``;
* it has the values' shape, outputs included, and :func:`lib.sampling.sample_shapley` returns it.
"""

from __future__ import annotations

import numpy as np
import pytest

from lib import sampling
from lib import shapley as sh
from lib.games import Game
from lib.sampling.strata import enumeration_rows
from lib.sampling.strumbelj_kononenko import sampling_rows

ESTIMATORS = list(sampling.estimators())
D, M = 8, 4


def _model(Z):
    Z = np.asarray(Z, dtype=float)
    return (np.tanh(Z[:, 0] * Z[:, 1] - Z[:, 2]) + Z[:, 2] * Z[:, 3] * np.sin(Z[:, 4] + Z[:, 5]) + 0.3 * Z[:, 6]
            - 0.5 * Z[:, 7] * Z[:, 0])


def _rows(kind: str):
    rng = np.random.default_rng(6)
    if kind == "continuous":
        return rng.normal(size=(2, D)), rng.normal(size=(M, D))
    return rng.integers(0, 3, (2, D)).astype(float), rng.integers(0, 3, (M, D)).astype(float)


#: Budgets (model rows per explained row) of the coverage check: on the continuous game about 16 pairs of
#: walks per background row (below the exact cost, 1 + 4 + 4 (2^8 - 2) = 1021) and 56 draws per feature
#: for Štrumbelj & Kononenko's sampler; on the discrete one the strata estimator enumerates the cheap
#: background rows of the first row and walks the others (the second row's are all enumerated: exact).
#: Measured at these budgets with ``± 1.96`` standard errors: strata 0.936 and 0.930, antithetic 0.936 and 0.919
#: (since the rule of three's floor for values whose pairs all agree, :func:`lib.sampling.walk.agreement_floor`:
#: 0.952 and 0.965, 0.952 and 0.949; the values of the linear and pairwise terms, exact in every pair, now
#: count), uniform 0.935 and 0.913, variance 0.82 and 0.908 (continuous, discrete); with the result's own
#: intervals (``t`` at the degrees of freedom): strata 0.959 and 0.973, antithetic 0.959 and 0.958, uniform
#: 0.940 and 0.925, variance 0.853 and 0.922.  Below these budgets ``± 1.96`` covers less (the continuous game
#: at 200 rows, 4 pairs per background row: 0.866 for the walks, 0.894 for 12 draws per feature): a standard
#: error from few draws is itself uncertain, which the ``t`` quantile accounts for (0.924 and 0.918 there:
#: :data:`FEW_PAIRS`).
BUDGETS = {"continuous": 900, "discrete": 400}

#: The "variance" method (Štrumbelj & Kononenko's Algorithm 2) on the continuous game: coverage 0.65-0.84
#: at 200-1000 rows, its standard errors 0.3-0.5 of the measured spread, and four times the rows divide
#: them by 1.49, not 2 (on the discrete game at 400 rows it covers: 0.908).  The greedy rule stops drawing for a feature whose first draws happened to agree, so the
#: features it starves are those whose variance it underestimates: the standard errors of an adaptive
#: allocation are not those of a fixed one.  Its checks below are expected to fail, strictly (they fail
#: once it covers).
UNDER_COVERING = {("variance", "continuous")}


def _cases(kinds):
    """(method, kind) for every estimator, those of :data:`UNDER_COVERING` expected to fail, strictly."""
    miss = pytest.mark.xfail(strict=True, reason="adaptive allocation: UNDER_COVERING")
    return [pytest.param(m, k, marks=miss) if (m, k) in UNDER_COVERING else (m, k) for m in ESTIMATORS for k in kinds]


#: The budget of few pairs per background row (continuous game): 200 model rows, 4 pairs per background row
FEW_PAIRS = 200


def _coverage(method: str, kind: str, scale: float = 1.0, seeds: int = 150, budget: int | None = None,
              normal: bool = False) -> float:
    """Coverage of the results' own 95 % intervals (their half-widths times ``scale``), or, with ``normal``,
    of ``± 1.96`` standard errors."""
    X, B = _rows(kind)
    exact = sh.exact_shapley(_model, X, B).values
    hits = []
    for s in range(seeds):
        res = sampling.sample_shapley(_model, X, B, max_rows=budget or BUDGETS[kind], rng=np.random.default_rng(s),
                                      method=method)
        se = res.standard_errors
        # values exact to rounding (a feature that is a null player in every background row walked, or a
        # linear term, which every walk gets exactly) have standard errors at rounding level: not counted
        random = se > 1e-9
        half = 1.96 * se if normal else res.interval(0.95)[1] - res.values
        hits.append((np.abs(res.values - exact) <= scale * half)[random])
    return float(np.mean(np.concatenate(hits)))


@pytest.mark.parametrize("method, kind", _cases(["continuous", "discrete"]))
def test_nominal_95_percent_intervals_cover_the_exact_values(method, kind):
    """Coverage over 150 seeds x 2 rows x up to 8 features in [0.90, 0.99], a band fixed before measuring.

    The intervals of one run share its draws, so they are not independent; counting only the 300 runs
    (150 seeds x 2 rows) as independent, the binomial standard deviation of a coverage of 0.95 is 0.013:
    0.90 is four of them below, 0.99 three above.  The band also leaves room for the finite number of
    pairs or draws behind each standard error (a t rather than a normal quantile: about 1 % less
    coverage with 60 degrees of freedom).  Measured values: :data:`BUDGETS`.  The "variance" method is
    expected to miss (its standard errors are too small, :data:`UNDER_COVERING`).
    """
    coverage = _coverage(method, kind)
    assert 0.90 <= coverage <= 0.99, f"{method} on the {kind} game: coverage {coverage:.3f}"


def test_the_coverage_check_fails_with_halved_standard_errors():
    """The check above can fail: with the default estimator's standard errors halved, nominal 95 % intervals
    are nominal 68 % ones, and the coverage leaves the band."""
    coverage = _coverage(sampling.DEFAULT, "continuous", scale=0.5)
    assert not 0.90 <= coverage <= 0.99, coverage


@pytest.mark.parametrize("method", ["antithetic", "uniform"])
def test_student_t_covers_where_few_draws_make_1_96_too_narrow(method):
    """At :data:`FEW_PAIRS` model rows (continuous game), ``± 1.96`` standard errors cover less than the band's
    0.90: each standard error rests on few draws (the walks: 4 pairs in each of 4 background rows, pooled
    within them, their spread carried by few of them).  The result's own interval, Student's ``t`` at the
    degrees of freedom (Satterthwaite's for the walks, :func:`lib.sampling.walk.pooled_dof`; the draws less one
    for Štrumbelj & Kononenko's sampler), is back in the band.  Both coverages are measured on the same runs."""
    normal = _coverage(method, "continuous", budget=FEW_PAIRS, normal=True)
    student = _coverage(method, "continuous", budget=FEW_PAIRS)
    assert normal < 0.90 <= student <= 0.99, f"{method}: ± 1.96 covers {normal:.3f}, the t interval {student:.3f}"


@pytest.mark.parametrize("method", ESTIMATORS)
def test_zero_on_an_additive_game(method):
    """Every walk and every draw is exact on an additive game against one background row: the values are
    exact and their standard errors 0.  Against several background rows, the walks' estimates are exact
    once every row has served (post-stratified), and so are their standard errors."""
    rng = np.random.default_rng(1)
    X, B = rng.normal(size=(3, 6)), rng.normal(size=(1, 6))
    w = rng.normal(size=6)

    def f(Z):
        return np.asarray(Z, dtype=float) @ w

    res = sampling.sample_shapley(f, X, B, max_rows=200, rng=np.random.default_rng(0), method=method)
    np.testing.assert_allclose(res.values, (X - B) * w, atol=1e-12)
    np.testing.assert_allclose(res.standard_errors, 0.0, atol=1e-12)
    if method in ("strata", "antithetic"):
        B = rng.normal(size=(4, 6))
        res = sampling.sample_shapley(f, X, B, max_rows=400, rng=np.random.default_rng(0), method=method)
        np.testing.assert_allclose(res.values, (X - B.mean(axis=0)) * w, atol=1e-12)
        np.testing.assert_allclose(res.standard_errors, 0.0, atol=1e-12)


def test_zero_where_every_stratum_is_enumerated():
    """At the budget that pays for every background row's enumeration the strata estimator is exact, and
    says so: standard errors exactly 0."""
    X, B = _rows("discrete")
    game = Game(_model, X, B)
    needed = 1 + M + int(enumeration_rows(game.differ.sum(axis=2)).sum(axis=1).max())
    res = sampling.sample_shapley(_model, X, B, max_rows=needed, rng=np.random.default_rng(0), method="strata")
    np.testing.assert_allclose(res.values, sh.exact_shapley(_model, X, B).values, atol=1e-12)
    np.testing.assert_array_equal(res.standard_errors, 0.0)


@pytest.mark.parametrize("method", ["strata", "antithetic"])
def test_nan_with_a_single_pair(method):
    """One pair of walks measures no spread: the standard error is ``nan``, not 0 (the value is not exact)."""
    X, B = _rows("continuous")
    res = sampling.sample_shapley(_model, X, B, max_rows=1 + M + 2 * (D - 1), rng=np.random.default_rng(0),
                                  method=method)
    assert np.isnan(res.standard_errors).all()


def test_nan_with_a_single_draw():
    """Štrumbelj & Kononenko's Algorithm 1 with 12 draws for 8 features: the 4 features with one draw have
    a ``nan`` standard error, the 4 with two a number."""
    X, B = _rows("continuous")
    res = sampling.sample_shapley(_model, X, B, max_rows=sampling_rows(12, m=M), rng=np.random.default_rng(0),
                                  method="uniform")
    assert (res.n_samples == [2, 2, 2, 2, 1, 1, 1, 1]).all()
    assert np.isnan(res.standard_errors[:, 4:]).all() and np.isfinite(res.standard_errors[:, :4]).all()


@pytest.mark.parametrize("method, kind", _cases(["continuous"]))
def test_shrinks_as_one_over_the_square_root_of_the_budget(method, kind):
    """Four times the rows for the draws, half the standard error: the ratio of the mean standard errors
    (5 seeds each) is in [1.6, 2.5], as ``sqrt(4) = 2`` (a standard error that is the draws' spread,
    not divided by their number, gives about 1)."""
    X, B = _rows(kind)

    def mean_se(rows):
        return np.mean([sampling.sample_shapley(_model, X, B, max_rows=1 + M + rows, rng=np.random.default_rng(s),
                                                method=method).standard_errors for s in range(5)])

    ratio = mean_se(224) / mean_se(896)   # 224 = 16 pairs of walks of 14 rows; 112 draws of 2 rows
    assert 1.6 <= ratio <= 2.5, ratio


@pytest.mark.parametrize("method", ESTIMATORS)
def test_one_per_value_and_output(method):
    """The standard errors have the values' shape, ``(n, d, k)`` with ``k`` outputs; ``output=`` picks one."""
    X, B = _rows("continuous")

    def f(Z):
        v = _model(Z)
        return np.column_stack([v, np.sin(v)])

    both = sampling.sample_shapley(f, X, B, max_rows=900, rng=np.random.default_rng(0), method=method)
    assert both.standard_errors.shape == both.values.shape == (2, D, 2)
    one = sampling.sample_shapley(f, X, B, max_rows=900, rng=np.random.default_rng(0), method=method, output=1)
    assert one.standard_errors.shape == one.values.shape == (2, D)
    assert np.all(np.isfinite(both.standard_errors)) and np.all(both.standard_errors >= 0)


def test_exact_values_have_none():
    """Exact methods report no standard errors (``None``), not zeros."""
    X, B = _rows("discrete")
    assert sh.exact_shapley(_model, X, B).standard_errors is None


def _rare_game(Z):
    """Twelve features; the first six move the output only in the coalitions that hold all six and none of
    the last six (1 in 924 orderings), by 2: exact values 2 / (6 * 924), about 3.6e-4.  The last six
    interact at order three, so the row's draws do spread."""
    Z = np.asarray(Z, dtype=float)
    rare = np.prod(Z[:, :6], axis=1) * np.prod(1 - Z[:, 6:], axis=1)
    return Z[:, 6] * Z[:, 7] * Z[:, 8] + np.sin(Z[:, 9] + Z[:, 10]) * Z[:, 11] + 2.0 * rare


def test_agreement_floor_is_the_rule_of_three():
    """The floor of a value whose draws agree is ``-ln(0.05) R share / (1.96 N)``, ``R`` the largest
    deviation of the row, ``N`` the draws; values whose draws spread get 0; a row where nothing moved, 0."""
    from lib.sampling.walk import agreement_floor

    dev = np.array([[0.0, 0.5, -0.2], [0.0, -0.5, 0.1], [0.0, 0.25, 0.1]])
    floor = agreement_floor(dev, draws=2, share=0.5)
    np.testing.assert_allclose(floor, [np.log(20) * 0.5 * 0.5 / (1.959963984540054 * 2), 0.0, 0.0], rtol=1e-12)
    np.testing.assert_array_equal(agreement_floor(np.zeros((4, 3)), draws=3), 0.0)


@pytest.mark.parametrize("method", ["strata", "antithetic"])
def test_values_whose_draws_all_agree_are_not_called_exact(method, monkeypatch):
    """The fault the coverage benchmark found (issue 47): a feature that matters only in rare coalitions gives
    the same contribution, 0, in every pair of a run, so its measured spread is 0, yet its value is off the
    exact one.  Its standard error is the rule of three's bound instead (:func:`lib.sampling.walk.
    agreement_floor`), and the nominal 95 % intervals cover.  At 1,200 rows (54 pairs) the rare coalitions
    are missed in most of 40 seeds; with the floor taken out (planted: the old 0), those seeds' intervals
    miss the exact value."""
    import lib.sampling.antithetic as anti
    import lib.sampling.strata as strata

    X, B = np.ones((1, 12)), np.zeros((1, 12))
    exact = sh.exact_shapley(_rare_game, X, B).values[0, :6]

    def runs():
        out = []
        for s in range(40):
            res = sampling.sample_shapley(_rare_game, X, B, max_rows=1200, rng=np.random.default_rng(s), method=method)
            out.append((res.values[0, :6], res.standard_errors[0, :6]))
        return out

    fixed = runs()
    agreed = [(v, se) for v, se in fixed if (v == 0).all()]
    assert len(agreed) >= 20, len(agreed)
    assert all((se > 0).all() and (np.abs(v - exact) <= 1.96 * se).all() for v, se in agreed)

    def no_floor(deviations, draws, share=1.0, moves=None):
        return np.zeros(np.shape(deviations)[1:])

    monkeypatch.setattr(anti, "agreement_floor", no_floor)
    monkeypatch.setattr(strata, "agreement_floor", no_floor)
    planted = [(v, se) for v, se in runs() if (v == 0).all()]
    assert len(planted) == len(agreed)
    assert all((np.abs(v - exact) > 1.96 * se).all() for v, se in planted)


@pytest.mark.parametrize("method", ["strata", "antithetic"])
def test_a_feature_equal_in_every_background_row_keeps_zero(method):
    """A feature on which ``x`` agrees with every background row is a null player of every stratum's game:
    its contributions are 0 by the rows, not by the draws' luck, so it keeps standard error 0 (no floor),
    while a feature that differs and whose draws agree (the rare game's) gets the floor."""
    X, B = np.ones((1, 12)), np.zeros((3, 12))
    X[0, 11] = 0.0          # the last feature equals every background row's
    res = sampling.sample_shapley(_rare_game, X, B, max_rows=1200, rng=np.random.default_rng(0), method=method)
    assert res.values[0, 11] == 0.0 and res.standard_errors[0, 11] == 0.0
    assert (res.standard_errors[0, :6] > 0).all()


def test_pooled_dof_one_stratum_is_the_draws_less_one():
    """One stratum: the plain sample variance, ``P - 1`` degrees of freedom, whatever the draws."""
    from lib.sampling.walk import pooled_dof

    dev = np.random.default_rng(0).normal(size=(12, 3))
    assert pooled_dof(dev - dev.mean(axis=0)) == pytest.approx(np.full(3, 11.0), rel=1e-12)


def test_pooled_dof_is_that_of_the_one_stratum_that_spreads():
    """Strata of 5 draws each (``ν_b = 4``): where one stratum carries all the spread, the pooled variance
    rests on its 4 degrees of freedom, not on the 12 of the three strata; where the three spread alike, on
    about 12; never outside ``[min ν_b, Σ ν_b]``."""
    from lib.sampling.walk import pooled_dof

    rng = np.random.default_rng(1)
    strata = np.repeat([0, 1, 2], 5)
    dev = np.zeros((15, 2))
    dev[:5, 0] = rng.normal(size=5)                       # feature 0: stratum 0 alone spreads
    dev[:, 1] = rng.normal(size=15)                       # feature 1: all three
    for b in range(3):
        dev[strata == b] -= dev[strata == b].mean(axis=0)
    nu = pooled_dof(dev, strata)
    assert nu[0] == pytest.approx(4.0)
    assert 4.0 <= nu[1] <= 12.0 and nu[1] > 8.0, nu[1]


def test_interval_is_student_t_at_the_degrees_of_freedom():
    """``interval()`` is ``values ± t_{ν, (1 + level)/2} standard_errors``: Student's quantile at each value's
    degrees of freedom (the normal one at ``inf`` or without them), zero width where the standard error is 0,
    ``nan`` where it is; refused without standard errors or with a level outside (0, 1)."""
    from scipy import stats

    from lib.result import ShapleyResult

    values = np.array([[1.0, 2.0, 3.0, 4.0]])
    se = np.array([[0.5, 0.5, 0.0, np.nan]])
    dof = np.array([[4.0, np.inf, np.inf, np.nan]])
    base = dict(values=values, base_values=np.zeros(1), outputs=np.full(1, 10.0), data=np.zeros((1, 4)),
                standard_errors=se, method="test")
    low, high = ShapleyResult(**base, degrees_of_freedom=dof).interval(0.95)
    assert high[0, 0] - values[0, 0] == pytest.approx(stats.t.ppf(0.975, 4) * 0.5)
    assert high[0, 1] - values[0, 1] == pytest.approx(stats.norm.ppf(0.975) * 0.5)
    assert low[0, 2] == high[0, 2] == 3.0 and np.isnan(low[0, 3]) and np.isnan(high[0, 3])
    low90, high90 = ShapleyResult(**base).interval(0.90)
    assert high90[0, 0] - values[0, 0] == pytest.approx(stats.norm.ppf(0.95) * 0.5)
    with pytest.raises(ValueError, match="no standard errors"):
        ShapleyResult(values=values, base_values=np.zeros(1), outputs=np.full(1, 10.0), data=np.zeros((1, 4))).interval()
    for level in (0.0, 1.0, 95, True, "0.95"):
        with pytest.raises(ValueError, match="level"):
            ShapleyResult(**base).interval(level)


@pytest.mark.parametrize("method", ESTIMATORS)
def test_every_estimator_gives_degrees_of_freedom(method):
    """Every registered estimator's sampled result carries degrees of freedom of the values' shape, at least 1
    where the standard error is a measured spread, ``inf`` where it is 0, ``nan`` where it is; with ``tol``
    (rounds pooled: Welch-Satterthwaite) too."""
    X, B = _rows("continuous")
    for tol in (None, 0.05):
        res = sampling.sample_shapley(_model, X, B, max_rows=900, rng=np.random.default_rng(0), method=method,
                                      tol=tol)
        se, dof = res.standard_errors, res.degrees_of_freedom
        assert dof is not None and dof.shape == res.values.shape
        measured = np.isfinite(se) & (se > 0)
        assert (dof[measured] >= 1).all() and np.isinf(dof[se == 0]).all() and np.isnan(dof[np.isnan(se)]).all()


# ---------------------------------------------------------------------------------------------------------
# The bootstrap-t (lib.sampling.walk.bootstrap_t): where skewed draws make a run's mean and its standard
# error move together, the symmetric ± t interval misses from one side; resampling the draws within their
# strata gives the studentized mean's own quantiles.


def _skewed(rng, strata=8, per=6, spread=2):
    """Draws of a stratified mean whose spread comes from ``spread`` strata of lognormal(0, 1.5) draws (most
    small, a few large), the others constant; and the exact mean of the estimate."""
    labels = np.repeat(np.arange(strata), per)
    x = np.zeros((strata * per, 1))
    x[: spread * per, 0] = rng.lognormal(0.0, 1.5, size=spread * per)
    return x, labels, spread * np.exp(1.5**2 / 2) / strata


def _intervals(x, labels):
    """The stratified mean, its pooled standard error and the two 95 % intervals: ± t at Satterthwaite's
    degrees of freedom, and the bootstrap-t's."""
    from scipy import stats

    from lib.sampling.walk import BOOTSTRAP_LEVELS, bootstrap_t, pooled_dof

    S = labels.max() + 1
    counts = np.bincount(labels)
    means = np.array([x[labels == b].mean(axis=0) for b in range(S)])
    dev = x - means[labels]
    se = np.sqrt((dev**2).sum(axis=0) / (len(x) - S) * (1.0 / counts).sum()) / S
    estimate = means.mean(axis=0)
    t = stats.t.ppf(0.975, pooled_dof(dev, labels))
    q = bootstrap_t(x, labels)[..., BOOTSTRAP_LEVELS.index(0.95), :]
    return estimate, (estimate - t * se, estimate + t * se), (estimate - q[..., 1] * se, estimate - q[..., 0] * se)


def test_bootstrap_t_mends_what_skewed_draws_do_to_t():
    """On 400 draws of a stratified mean whose spread is lognormal in two of eight strata (six draws each),
    ± t covers the exact mean about three times in four, the bootstrap-t at least five points more, and its
    intervals reach further above the estimate than below it (the runs that miss are low and sure)."""
    rng = np.random.default_rng(1)
    hits_t = hits_b = 0
    above, below = [], []
    for _ in range(400):
        x, labels, exact = _skewed(rng)
        est, (lo_t, hi_t), (lo_b, hi_b) = _intervals(x, labels)
        hits_t += int(lo_t[0] <= exact <= hi_t[0])
        hits_b += int(lo_b[0] <= exact <= hi_b[0])
        above.append(hi_b[0] - est[0])
        below.append(est[0] - lo_b[0])
    assert hits_t / 400 <= 0.8, hits_t / 400
    assert hits_b / 400 >= hits_t / 400 + 0.05, (hits_t / 400, hits_b / 400)
    assert np.median(np.array(above) / np.array(below)) > 1.2


def test_bootstrap_t_agrees_with_t_on_normal_draws():
    """On normal draws (eight strata of twelve) the bootstrap-t's quantiles are within 15 % of ± t's and its
    intervals cover at the nominal rate (over 400 draws, in [0.92, 0.98])."""
    from scipy import stats

    from lib.sampling.walk import BOOTSTRAP_LEVELS, bootstrap_t

    rng = np.random.default_rng(2)
    labels = np.repeat(np.arange(8), 12)
    hits = 0
    for _ in range(400):
        x = rng.normal(size=(96, 1)) + labels[:, None]
        q = bootstrap_t(x, labels)[0, BOOTSTRAP_LEVELS.index(0.95)]
        t = stats.t.ppf(0.975, 88)
        assert abs(-q[0] / t - 1) < 0.15 and abs(q[1] / t - 1) < 0.15, q
        _, _, (lo, hi) = _intervals(x, labels)
        hits += int(lo[0] <= labels.mean() <= hi[0])
    assert 0.92 <= hits / 400 <= 0.98, hits / 400


def test_bootstrap_t_needs_five_draws_in_every_stratum_and_is_fixed_by_the_draws():
    from lib.sampling.walk import BOOTSTRAP_LEVELS, BOOTSTRAP_MIN_DRAWS, bootstrap_t

    rng = np.random.default_rng(3)
    x = rng.normal(size=(20, 3, 2))
    labels = np.repeat(np.arange(4), BOOTSTRAP_MIN_DRAWS)
    q = bootstrap_t(x, labels)
    assert q.shape == (3, 2, len(BOOTSTRAP_LEVELS), 2) and np.isfinite(q).all()
    np.testing.assert_array_equal(q, bootstrap_t(x, labels))            # seeded by the draws: the same
    assert not np.array_equal(q, bootstrap_t(x + 1e-3 * rng.normal(size=x.shape), labels))
    assert (q[..., 0] < 0).all() and (q[..., 1] > 0).all() and (np.diff(q[..., 1], axis=-1) > 0).all()
    short = labels.copy()
    short[-1] = 4                                                       # a stratum of one draw
    assert np.isnan(bootstrap_t(x, short)).all()
    flat = x.copy()
    flat[:, 0] = 1.0                                                    # a value with no spread: no quantiles
    q = bootstrap_t(flat, labels)
    assert np.isnan(q[0]).all() and np.isfinite(q[1:]).all()


def test_strata_keeps_the_bootstrap_t_and_leaves_its_values_as_they_were(monkeypatch):
    """The default (strata) keeps the bootstrap-t's quantiles where every walked stratum has five pairs, and
    ``interval()`` reads them at their levels (Student's t at any other); the resamples touch neither the values
    nor the standard errors nor the random stream (planted: no bootstrap, same numbers)."""
    from lib.sampling import strata
    from lib.sampling.walk import BOOTSTRAP_LEVELS

    X, B = _rows("discrete")
    res = sampling.sample_shapley(_model, X, B, max_rows=400, rng=np.random.default_rng(0))
    assert res.method == "strata" and res.bootstrap_quantiles is not None
    kept = np.isfinite(res.bootstrap_quantiles[..., BOOTSTRAP_LEVELS.index(0.9), :]).all(axis=-1)
    assert kept.any()
    q = res.bootstrap_quantiles[..., BOOTSTRAP_LEVELS.index(0.9), :]
    lo, hi = res.interval(0.9)
    np.testing.assert_allclose(lo[kept], (res.values - q[..., 1] * res.standard_errors)[kept], rtol=1e-13)
    np.testing.assert_allclose(hi[kept], (res.values - q[..., 0] * res.standard_errors)[kept], rtol=1e-13)
    _, hi7 = res.interval(0.7)                                        # not a kept level: Student's t
    from scipy import stats
    t = stats.t.ppf(0.85, np.where(np.isinf(res.degrees_of_freedom), 1e12, res.degrees_of_freedom))
    finite = np.isfinite(res.degrees_of_freedom) & (res.standard_errors > 0)
    np.testing.assert_allclose((hi7 - res.values)[finite], (t * res.standard_errors)[finite], rtol=1e-10)

    monkeypatch.setattr(strata, "bootstrap_t", lambda draws, labels: np.full(
        np.shape(draws)[1:] + (len(BOOTSTRAP_LEVELS), 2), np.nan))
    plain = sampling.sample_shapley(_model, X, B, max_rows=400, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(plain.values, res.values)
    np.testing.assert_array_equal(plain.standard_errors, res.standard_errors)
    assert plain.bootstrap_quantiles is None


def test_pooled_rounds_take_student_t(monkeypatch):
    """With ``tol``, a row sampled in several rounds pools them (Welch-Satterthwaite): no resampled interval is
    kept for it, even where every round has one (planted: every round's bootstrap-t finite)."""
    from lib.sampling import strata
    from lib.sampling.walk import BOOTSTRAP_LEVELS

    monkeypatch.setattr(strata, "bootstrap_t", lambda draws, labels: np.full(
        np.shape(draws)[1:] + (len(BOOTSTRAP_LEVELS), 2), 3.0) * np.array([-1.0, 1.0]))
    X, B = _rows("discrete")
    one = sampling.sample_shapley(_model, X, B, max_rows=500, rng=np.random.default_rng(0))
    assert one.bootstrap_quantiles is not None and np.isfinite(one.bootstrap_quantiles).any()
    with pytest.warns(UserWarning, match="was not met"):
        pooled = sampling.sample_shapley(_model, X, B, max_rows=500, tol=1e-6, rng=np.random.default_rng(0))
    # the first row misses tol: a first round of 448 draw rows (registry.FIRST_ROUND pairs' worth, its
    # bootstrap-t finite) and a second of the 47 left, pooled: Student's t at the pooled degrees of freedom
    assert pooled.rows_per_row[0] > 448 and np.isfinite(one.bootstrap_quantiles[0]).any()
    assert pooled.bootstrap_quantiles is None or np.isnan(pooled.bootstrap_quantiles[0]).all()
