"""The control-variate estimator, ``method="control"`` (issue 47, item 1): :mod:`lib.sampling.control`.

What is checked, each against exact values computed another way (:func:`lib.shapley.exact_shapley`, or the
Shapley formula on all ``2^d`` coalitions of a polynomial, :func:`lib.formula.shapley_from_game`), and each
with the planted fault it must catch:

* the closed form ``φ_i(g) = Σ_{T∋i} β_T / |T|`` (the ½ dropped: caught);
* exact, once the surrogate is fitted, on a game of order four (whose odd part a cubic holds), and exact
  at the strata sampler's exact cost;
* unbiased: the mean over 200 seeds within 4 standard errors of the exact values on a continuous game of
  8 features that no cubic holds, for both residuals (the ½ dropped: caught);
* efficient: the values add up to ``f(x) - E_b f(b)`` (the ½ dropped: caught);
* never more rows than the budget, counted by the model (a plan that buys one pair too many: caught by
  :func:`lib.sampling.registry.run`);
* nominal 95 % intervals cover (halved standard errors: caught);
* a surrogate of order at most two changes nothing but the rows (the module docstring's variance
  argument), draw for draw, and below the surrogate's cost the estimate is the strata sampler's.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from lib import sampling
from lib import shapley as sh
from lib.counting import CountingModel
from lib.formula import coalition_masks, shapley_from_game
from lib.games import Game
from lib.sampling import control as cv
from lib.sampling.control import ControlOptions

D, M = 10, 3
#: A budget (model rows per explained row) at which the default options fit the cubic surrogate (332
#: coalitions, 166 pairs for the 130 parameters of its odd part) and leave the walks 1,000 rows (18 pairs
#: of walks of the mean game, 55 of the per-row games); below the exact cost, ``1 + 3 + 3 (2^10 - 2) =
#: 3070``.
BUDGET = 2000
FITTED = ControlOptions()
ROWS = ControlOptions(residual="rows")
#: Too few pairs of coalitions for the odd part (66 for its 130 parameters): fitted, not exact.
FEW = ControlOptions(surrogate_share=0.2, min_pairs_per_odd_parameter=0.5)


def _model(Z):
    """A continuous game of ten features with interactions of every order up to ten (the product term):
    no cubic holds its odd part."""
    Z = np.asarray(Z, dtype=float)
    return (np.tanh(Z[:, 0] * Z[:, 1] - Z[:, 2]) + Z[:, 2] * Z[:, 3] * np.sin(Z[:, 4] + Z[:, 5]) + 0.3 * Z[:, 6]
            - 0.5 * Z[:, 7] * Z[:, 0] + 0.2 * np.prod(np.cos(Z), axis=1))


def _rows(seed: int = 6):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(2, D)), rng.normal(size=(M, D))


def _quartic(Z):
    """A planted game of order four: a sum of products of at most four features (multilinear in each
    row's coalition indicators, so every per-row game and their mean are of order at most four)."""
    Z = np.asarray(Z, dtype=float)
    return (Z[:, 0] * Z[:, 1] * Z[:, 2] * Z[:, 3] - 2.0 * Z[:, 4] * Z[:, 5] * Z[:, 6] + 1.5 * Z[:, 1] * Z[:, 7]
            + Z[:, 2] - 0.7 * Z[:, 3] * Z[:, 5] * Z[:, 6] * Z[:, 7])


def _drop_half(beta, d, order):
    """The planted fault: ``φ_i(g)`` with the ½ (and the ⅓) dropped, ``Σ_{T∋i} β_T``."""
    phi = np.zeros((d, beta.shape[1]))
    for row, t in enumerate(cv._monomials(d, order)):
        for j in t:
            phi[j] += beta[row]
    return phi


@pytest.mark.parametrize("order", [1, 2, 3])
def test_the_closed_form_is_the_shapley_value_of_the_polynomial(order):
    """``surrogate_shapley`` against the Shapley formula on the polynomial's ``2^d`` values (random
    coefficients, two outputs); the ½ dropped is caught (from order two)."""
    d = 6
    rng = np.random.default_rng(order)
    beta = rng.normal(size=(cv.surrogate_parameters(d, order), 2))
    values = cv._design(coalition_masks(d), cv._monomials(d, order)) @ beta      # (2^d, 2)
    exact = np.moveaxis(shapley_from_game(values.T), -1, 0)                        # (d, 2)
    np.testing.assert_allclose(cv.surrogate_shapley(beta, d, order), exact, atol=1e-12)
    if order > 1:
        assert np.abs(_drop_half(beta, d, order) - exact).max() > 0.1


def test_the_fit_and_the_walk_increments_are_the_polynomial():
    """The fitted coefficients reproduce a planted cubic from its coalitions, and the increments along a walk
    (:func:`lib.sampling.control._walk_increments`) are the differences of the polynomial's values."""
    d = 7
    rng = np.random.default_rng(0)
    beta = rng.normal(size=(cv.surrogate_parameters(d, 3), 1))
    masks = cv.surrogate_coalitions(d, 100, rng)
    assert len(np.unique(masks, axis=0)) == len(masks) and not np.isin(masks.sum(axis=1), [0, d]).any()
    np.testing.assert_array_equal(np.sort(masks.sum(axis=1)), np.sort(d - masks.sum(axis=1)))  # complements
    full = np.vstack([masks, coalition_masks(d)[[0, -1]]])
    fitted = cv.fit_surrogate(full, cv._design(full, cv._monomials(d, 3)) @ beta, 3)
    np.testing.assert_allclose(fitted, beta, atol=1e-9)
    ridged = cv.fit_surrogate(full, cv._design(full, cv._monomials(d, 3)) @ beta, 3, ridge=1e-3)
    assert 1e-9 < np.abs(ridged - beta).max() < 0.5  # shrunk a little, not exact
    perm = np.argsort(rng.random((4, d)), axis=1)
    inc = cv._walk_increments(perm, cv._tensors(beta, d, 3))                       # (4, 2, d, 1)
    for p in range(4):
        for w, order in enumerate([perm[p], perm[p][::-1]]):
            steps = np.zeros((d + 1, d), dtype=bool)
            for t in range(1, d + 1):
                steps[t, order[:t]] = True
            g = cv._design(steps, cv._monomials(d, 3)) @ beta
            np.testing.assert_allclose(inc[p, w], np.diff(g, axis=0), atol=1e-12)


def test_exact_on_a_game_of_order_four_once_the_surrogate_is_fitted(monkeypatch):
    """The residual of a cubic fit of a game of order four is even, which every antithetic pair gets
    exactly: the values are exact, below the exact cost, once the pairs of coalitions are as many as the odd
    part's parameters.  Their residual draws all agree, which the walks cannot tell from a rare interaction
    they missed (:func:`test_a_rare_interaction_the_surrogate_misses_is_not_called_exact`): the standard
    errors are the rule of three's bound (infinite degrees of freedom), not 0, and the intervals cover.  The
    strata sampler at the same budget is not exact, nor is the estimate with the ½ dropped, nor one whose
    pairs are too few (:data:`FEW`)."""
    X, B = _rows(1)
    exact = sh.exact_shapley(_quartic, X, B).values
    res = sampling.sample_shapley(_quartic, X, B, max_rows=BUDGET, rng=np.random.default_rng(0), method="control",
                                  options=FITTED)
    assert res.method == "control-order-3-mean"
    np.testing.assert_allclose(res.values, exact, atol=1e-9)
    assert (res.standard_errors > 0).all() and np.isinf(res.degrees_of_freedom).all()
    lo, hi = res.interval()
    assert ((lo <= exact) & (exact <= hi)).all()
    plain = sampling.sample_shapley(_quartic, X, B, max_rows=BUDGET, rng=np.random.default_rng(0), method="strata")
    assert np.abs(plain.values - exact).max() > 1e-3
    few = sampling.sample_shapley(_quartic, X, B, max_rows=BUDGET, rng=np.random.default_rng(0), method="control",
                                  options=FEW)
    assert few.method == "control-order-3-mean" and np.abs(few.values - exact).max() > 1e-3
    monkeypatch.setattr(cv, "surrogate_shapley", _drop_half)
    planted = sampling.sample_shapley(_quartic, X, B, max_rows=BUDGET, rng=np.random.default_rng(0),
                                      method="control", options=FITTED)
    assert np.abs(planted.values - exact).max() > 1e-3


@pytest.mark.parametrize("discrete", [False, True])
def test_exact_at_the_exact_cost(discrete):
    """At the budget that pays for every stratum's enumeration the estimate is exact (the strata
    sampler's), with standard errors 0."""
    rng = np.random.default_rng(2)
    X, B = (rng.integers(0, 3, (2, D)).astype(float), rng.integers(0, 3, (M, D)).astype(float)) if discrete \
        else _rows(2)
    game = Game(_model, X, B)
    cost = int(sampling.estimator("control").exact_rows(game, FITTED).max())
    res = sampling.sample_shapley(_model, X, B, max_rows=cost, rng=np.random.default_rng(0), method="control",
                                  options=FITTED)
    np.testing.assert_allclose(res.values, sh.exact_shapley(_model, X, B).values, atol=1e-12)
    np.testing.assert_array_equal(res.standard_errors, 0.0)


def _seeds(options, seeds=200):
    X, B = _rows()
    runs = [sampling.sample_shapley(_model, X, B, max_rows=BUDGET, rng=np.random.default_rng(s), method="control",
                                    options=options) for s in range(seeds)]
    return np.array([r.values for r in runs]), runs[0].method, sh.exact_shapley(_model, X, B).values


@pytest.mark.parametrize("options", [FITTED, ROWS], ids=["mean", "rows"])
def test_unbiased(options, monkeypatch):
    """The mean over 200 seeds is within 4 standard errors (of that mean) of every exact value; with the ½
    dropped it is not."""
    values, method, exact = _seeds(options)
    assert method.startswith("control-order-3")
    se = values.std(axis=0, ddof=1) / np.sqrt(len(values))
    z = np.abs(values.mean(axis=0) - exact) / np.maximum(se, 1e-12)
    assert z.max() <= 4.0, z.max()
    monkeypatch.setattr(cv, "surrogate_shapley", _drop_half)
    planted, _, _ = _seeds(options, seeds=20)
    se = planted.std(axis=0, ddof=1) / np.sqrt(len(planted))
    assert (np.abs(planted.mean(axis=0) - exact) / np.maximum(se, 1e-12)).max() > 4.0


@pytest.mark.parametrize("options", [FITTED, ROWS], ids=["mean", "rows"])
def test_efficient(options, monkeypatch):
    """The values add up to ``f(x) - E_b f(b)`` (every background row met, for the per-row residual); with the
    ½ dropped they do not."""
    X, B = _rows()
    target = _model(X) - _model(B).mean()
    res = sampling.sample_shapley(_model, X, B, max_rows=BUDGET, rng=np.random.default_rng(3), method="control",
                                  options=options)
    assert res.method.startswith("control-order-3")
    np.testing.assert_allclose(res.values.sum(axis=1), target, atol=1e-10)
    monkeypatch.setattr(cv, "surrogate_shapley", _drop_half)
    res = sampling.sample_shapley(_model, X, B, max_rows=BUDGET, rng=np.random.default_rng(3), method="control",
                                  options=options)
    assert np.abs(res.values.sum(axis=1) - target).max() > 1e-3


@pytest.mark.parametrize("options", [FITTED, ROWS, ControlOptions()], ids=["mean", "rows", "default"])
@pytest.mark.parametrize("outputs", [1, 2])
def test_never_more_rows_than_the_budget(options, outputs):
    """Every budget from the least to past the exact cost, one output or two: the model is given at most
    ``max_rows`` rows per explained row (counted by the model)."""
    X, B = _rows()

    def f(Z):
        v = _model(Z)
        return v if outputs == 1 else np.column_stack([v, np.sin(v)])

    least = 1 + M + 2 * (D - 1)
    for budget in (least, least + 1, 300, 1000, 1200, 1500, 1700, BUDGET, 3069, 3070, 4000):
        counted = CountingModel(f)
        res = sampling.sample_shapley(counted, X, B, max_rows=budget, rng=np.random.default_rng(budget),
                                      method="control", options=options)
        assert counted.rows <= budget * len(X), (budget, counted.rows)
        assert np.all(np.isfinite(res.values))


def test_a_plan_that_overspends_is_caught(monkeypatch):
    """The budget check can fail: walks of the residual that forget the surrogate's rows (as many pairs as
    the rows before the fit pay for) are refused by :func:`lib.sampling.registry.run` (the game's count)."""
    X, B = _rows()
    walks = cv._mean_residual

    def forgetful(game, rows, rng, beta, order, ends):
        return walks(game, BUDGET - 1 - M, rng, beta, order, ends)

    monkeypatch.setattr(cv, "_mean_residual", forgetful)
    with pytest.raises(RuntimeError, match="spent"):
        sampling.sample_shapley(_model, X, B, max_rows=BUDGET, rng=np.random.default_rng(0), method="control",
                                options=FITTED)


def _coverage(options, scale=1.0, seeds=150):
    X, B = _rows()
    exact = sh.exact_shapley(_model, X, B).values
    hits = []
    for s in range(seeds):
        res = sampling.sample_shapley(_model, X, B, max_rows=BUDGET, rng=np.random.default_rng(s), method="control",
                                      options=options)
        random = res.standard_errors > 1e-9
        hits.append((np.abs(res.values - exact) <= 1.96 * scale * res.standard_errors)[random])
    return float(np.mean(np.concatenate(hits)))


@pytest.mark.parametrize("options", [FITTED, ROWS], ids=["mean", "rows"])
def test_standard_errors_cover(options):
    """Nominal 95 % intervals cover the exact values in [0.90, 0.99] over 150 seeds (the band of
    ``lib/tests/test_standard_errors.py``); with the standard errors halved they do not."""
    coverage = _coverage(options)
    assert 0.90 <= coverage <= 0.99, coverage
    halved = _coverage(options, scale=0.5, seeds=50)
    assert not 0.90 <= halved <= 0.99, halved


def test_a_surrogate_of_order_two_changes_nothing_but_the_rows(monkeypatch):
    """The variance argument: the antithetic pair is exact on a game of order two, so with the same draws
    ``φ(g) + φ̂(v - g)`` is the pairs' plain estimate of ``φ(v)`` (a surrogate ``g = 0``), to rounding; with
    a cubic it is not."""
    X, B = _rows()
    for order, same in ((1, True), (2, True), (3, False)):
        options = ControlOptions(order=order)
        fitted = sampling.sample_shapley(_model, X, B, max_rows=BUDGET, rng=np.random.default_rng(4), method="control",
                                         options=options)
        with monkeypatch.context() as patch:
            patch.setattr(cv, "fit_surrogate", lambda masks, values, order, ridge=0.0: np.zeros(
                (cv.surrogate_parameters(masks.shape[1], order), values.shape[1])))
            zero = sampling.sample_shapley(_model, X, B, max_rows=BUDGET, rng=np.random.default_rng(4),
                                           method="control", options=options)
        assert fitted.method == zero.method == f"control-order-{order}-mean"
        assert np.allclose(fitted.values, zero.values, atol=1e-10) == same, (order, fitted.values - zero.values)


def test_below_the_surrogates_cost_it_is_the_strata_sampler():
    """Where the budget does not pay for the surrogate and 16 pairs of walks (at 1,200 rows: 260 coalitions
    for the odd part's 130 parameters, 780 rows, leave 416, 7 pairs of walks of the mean game), the
    estimate is the strata sampler's, bit for bit, and says so."""
    X, B = _rows()
    res = sampling.sample_shapley(_model, X, B, max_rows=1200, rng=np.random.default_rng(5), method="control")
    plain = sampling.sample_shapley(_model, X, B, max_rows=1200, rng=np.random.default_rng(5), method="strata")
    np.testing.assert_array_equal(res.values, plain.values)
    assert res.method == plain.method and not res.method.startswith("control")


def test_options_are_checked():
    for bad in ({"order": 4}, {"order": True}, {"surrogate_share": 1.0}, {"surrogate_share": 0},
                {"min_pairs_per_odd_parameter": 0}, {"max_share": 1.5}, {"min_walk_pairs": 1}, {"ridge": -1.0}, {"residual": "both"}):
        with pytest.raises(ValueError):
            ControlOptions(**bad)


def test_every_coalition_of_the_smallest_sizes_first():
    """The surrogate's coalitions: sizes 1 and d - 1 whole, then 2 and d - 2, ..., then kernel draws; all
    distinct and closed under the complement."""
    d = 6
    masks = cv.surrogate_coalitions(d, 6 + 6 + 15 + 15 + 4, np.random.default_rng(0))
    sizes = masks.sum(axis=1)
    for s in (1, 5, 2, 4):
        assert (sizes == s).sum() == len(list(combinations(range(d), s)))
    assert (sizes == 3).sum() == 4
    keys = {m.tobytes() for m in masks}
    assert len(keys) == len(masks) and all((~m).tobytes() in keys for m in masks)


@pytest.mark.parametrize("residual", ["mean", "rows"])
def test_a_rare_interaction_the_surrogate_misses_is_not_called_exact(residual, monkeypatch):
    """Twelve features, the first six moving the output only in the coalitions that hold all six and none of
    the others (1 in 924 orderings; the rest of order three, which the cubic surrogate takes whole): the
    residual walks never meet the rare coalitions, so their draws all agree, to rounding, while every value
    is off the exact one by about 4e-4.  A standard error measured from those draws is about 1e-16; the
    rule of three's bound at the scale of the game's own contributions along the walks
    (:func:`lib.sampling.walk.agreement_floor`'s ``scale``) is not, and every interval covers over 20 seeds.
    Planted: the bound taken out, the intervals miss."""
    from lib.tests.test_standard_errors import _rare_game

    X, B = np.ones((1, 12)), np.zeros((1, 12))
    exact = sh.exact_shapley(_rare_game, X, B).values

    def covered():
        out = []
        for s in range(20):
            res = sampling.sample_shapley(_rare_game, X, B, max_rows=1200, rng=np.random.default_rng(s),
                                          method="control", options=cv.ControlOptions(residual=residual))
            lo, hi = res.interval()
            out.append(((lo <= exact) & (exact <= hi)).all())
        return np.array(out)

    assert covered().all()
    monkeypatch.setattr(cv, "agreement_floor", lambda dev, draws, share=1.0, moves=None, scale=None:
                        np.zeros(np.shape(dev)[1:]))
    assert not covered().any()
