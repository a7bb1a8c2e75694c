"""A tolerance that stops sampling early (issue 47): :func:`lib.sampling.sample_shapley`'s ``tol``.

What is checked, for every registered estimator (``lib.sampling.estimators()``), on the games of
``lib/tests/test_standard_errors.py`` (8 features, 4 background rows, continuous and discrete):

* with a budget that suffices, every returned standard error is at most ``tol``, on every output, and a
  loose ``tol`` spends fewer rows than ``max_rows``; the rows of each row are at most ``max_rows``,
  counted by the model itself;
* a tight ``tol`` with a small ``max_rows`` warns once (how many rows missed it, the largest standard
  error, the ``max_rows`` to give) and spends at most ``max_rows`` per row;
* nominal 95 % intervals at the stop cover the exact values (:func:`lib.shapley.exact_shapley`) within a
  band fixed before measuring;
* an additive game stops after the first round, exact, with standard error 0;
* an invalid ``tol`` is refused with a clear message;
* ``tol=None`` gives, bit for bit, what the estimator gives when run as before ``tol`` existed.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np
import pytest

from lib import sampling
from lib import shapley as sh
from lib.games import Game
from lib.result import ShapleyResult
from lib.sampling.registry import FIRST_ROUND, estimator
from lib.tests.test_standard_errors import M, _model, _rows

ESTIMATORS = list(sampling.estimators())


def _two_outputs(Z: Any) -> np.ndarray:
    v = _model(Z)
    return np.column_stack([v, np.sin(v)])


class _Counted:
    """The model, with a count of the rows it is given (independent of the game's own count)."""

    def __init__(self, f: Any) -> None:
        self.f, self.rows = f, 0

    def __call__(self, Z: Any) -> np.ndarray:
        self.rows += len(Z)
        return self.f(Z)


def _game(kind: str) -> tuple[Any, np.ndarray, np.ndarray]:
    """The model and rows of a case: ``"continuous"``, ``"discrete"`` or ``"two outputs"`` (continuous)."""
    X, B = _rows("discrete" if kind == "discrete" else "continuous")
    return (_two_outputs if kind == "two outputs" else _model), X, B


#: A loose tolerance and a budget that suffices for it for every estimator on these games (uniform
#: sampling, the least efficient, reaches standard errors of about 0.1 at 3,000 rows on the discrete game).
LOOSE, ENOUGH = 0.15, 20_000


@pytest.mark.parametrize("kind", ["continuous", "discrete", "two outputs"])
@pytest.mark.parametrize("method", ESTIMATORS)
def test_standard_errors_within_tol_and_budget_kept(method: str, kind: str) -> None:
    """With ``tol`` loose and the budget enough: no warning, every standard error (every feature, every
    output) at most ``tol``, each row's rows at most half of ``max_rows`` (it stopped early), and the
    total the model was given (counted by the model) is ``model_rows``, the rows of the rows less the
    shared background's."""
    f, X, B = _game(kind)
    counted = _Counted(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        res = sampling.sample_shapley(counted, X, B, max_rows=ENOUGH, rng=np.random.default_rng(0), method=method,
                                      tol=LOOSE)
    assert res.standard_errors is not None and res.rows_per_row is not None
    assert np.all(res.standard_errors <= LOOSE), np.nanmax(res.standard_errors)
    assert res.rows_per_row.shape == (len(X),) and res.rows_per_row.dtype.kind == "i"
    assert np.all(res.rows_per_row <= ENOUGH // 2), res.rows_per_row   # stopped early: at most half the budget
    assert counted.rows == res.model_rows == res.rows_per_row.sum() - (len(X) - 1) * M
    assert res.values.shape == res.standard_errors.shape


@pytest.mark.parametrize("method", ESTIMATORS)
def test_tight_tol_with_a_small_budget_warns_and_keeps_it(method: str) -> None:
    """``tol`` far below what ``max_rows`` buys: one ``UserWarning`` naming the rows that missed it, the
    largest standard error and a larger ``max_rows``; each row's rows at most ``max_rows`` (counted by the
    model: at most ``max_rows`` per row, the background once)."""
    f, X, B = _game("continuous")
    counted = _Counted(f)
    budget = 400
    with pytest.warns(UserWarning) as caught:
        res = sampling.sample_shapley(counted, X, B, max_rows=budget, rng=np.random.default_rng(0), method=method,
                                      tol=1e-4)
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(messages) == 1, messages
    assert f"not met on 2 of 2 explained rows within max_rows={budget}" in messages[0]
    assert f"largest standard error reached is {np.nanmax(res.standard_errors):.3g}" in messages[0]
    need = int(messages[0].split("max_rows=")[-1].split(" ")[0])
    assert need > budget, messages[0]
    assert res.rows_per_row is not None and np.all(res.rows_per_row <= budget)
    assert counted.rows == res.model_rows <= len(X) * budget


def test_the_warning_says_what_meets_tol() -> None:
    """The ``max_rows`` the warning gives meets ``tol`` (the default estimator, one seed): followed, the
    remedy works, or at least brings the largest standard error within 15 % of ``tol`` (the rate is an
    estimate from the draws of one run)."""
    f, X, B = _game("continuous")
    tol = 0.03
    with pytest.warns(UserWarning, match="would meet it") as caught:
        sampling.sample_shapley(f, X, B, max_rows=600, rng=np.random.default_rng(0), tol=tol)
    need = int(str(caught[0].message).split("max_rows=")[-1].split(" ")[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = sampling.sample_shapley(f, X, B, max_rows=need, rng=np.random.default_rng(1), tol=tol)
    assert np.nanmax(res.standard_errors) <= 1.15 * tol, (need, np.nanmax(res.standard_errors))


#: The coverage check: the antithetic sampler on the continuous game, ``tol`` 0.05 (reached at a few hundred
#: to a few thousand rows per row, the budget never binding), 100 seeds.  The strata estimator runs it
#: on continuous rows below their exact cost (the strata estimator enumerates no stratum there and runs the
#: antithetic sampler, with its random stream); here the default itself would compute the exact values, at
#: 1 + 4 + 4 (2^8 - 2) = 1,021 rows per row, within the budget (its ``exact_rows``: the test above).
COVERAGE_TOL, COVERAGE_SEEDS, COVERAGE_BUDGET = 0.05, 100, 50_000


@lru_cache(maxsize=1)
def _coverage_runs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(errors, standard errors, rows per row, the results' 95 % half-widths) of the coverage runs, against the
    exact values."""
    f, X, B = _game("continuous")
    exact = sh.exact_shapley(f, X, B).values
    errors, ses, rows, halves = [], [], [], []
    for s in range(COVERAGE_SEEDS):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # the budget never binds
            res = sampling.sample_shapley(f, X, B, max_rows=COVERAGE_BUDGET, rng=np.random.default_rng(s),
                                          tol=COVERAGE_TOL, method="antithetic")
        assert res.standard_errors is not None and res.rows_per_row is not None
        errors.append(np.abs(res.values - exact))
        ses.append(res.standard_errors)
        rows.append(res.rows_per_row)
        halves.append(res.interval(0.95)[1] - res.values)
    return np.array(errors), np.array(ses), np.array(rows), np.array(halves)


def _coverage(scale: float = 1.0, normal: bool = False) -> float:
    """Coverage of the results' own 95 % intervals (half-widths times ``scale``), or of ``± 1.96`` standard errors."""
    errors, ses, _, halves = _coverage_runs()
    random = ses > 1e-9   # values with a standard error (exact ones: 0)
    return float(np.mean((errors <= scale * (1.96 * ses if normal else halves))[random]))


def test_coverage_at_the_stop() -> None:
    """Nominal 95 % intervals at the stop cover the exact values in [0.85, 0.99] of the cases (100 seeds x
    2 rows x 8 features), a band fixed before measuring.

    Why that band: at a fixed budget, the same game covers 0.936 (``lib/tests/test_standard_errors.py``,
    900 rows), and counting only the 200 runs (100 seeds x 2 rows) as independent, the binomial standard
    deviation of a coverage of 0.95 is 0.015, so 0.90 is three of them below.  Sequential stopping lowers
    coverage: a run stops at the first round whose standard errors are all at most ``tol``, so it tends to
    stop where they are underestimated, the values then further from the exact ones than the intervals
    say; the band's lower end leaves five more points for that (0.85), a loss the test measures and
    prints rather than assumes away.  Above 0.99 the standard errors would be too large (doubled ones give
    0.9999).  The planted fault below (standard errors halved, nominal 68 % intervals) leaves the band.

    Measured after the band was fixed: 0.858 with a first round of eight pairs, inside it but 8 points
    below the fixed budget's 0.936: at this ``tol`` the second row stopped after that first round, its
    post-stratified standard error resting on four degrees of freedom (eight pairs, four background rows).
    The first round was then raised to thirty-two pairs (:data:`lib.sampling.registry.FIRST_ROUND`, whose
    docstring gives why), the band kept: 0.924, median 1,633 rows per row (measured once, not checked
    here: 0.928 at ``tol=0.02``; with eight pairs 0.919 there).  Those runs were the default's; once the
    default computed this game's exact values within the budget (its ``exact_rows``), the check moved
    to the antithetic sampler, which the strata estimator runs on continuous rows below their exact cost:
    0.921, median 2,021.  Since a value whose pairs all agree gets the rule of three's bound instead of 0
    (:func:`lib.sampling.walk.agreement_floor`: here the linear feature and the one in a pairwise term, whose
    pairs are exact, now count, and cover), 0.941, median 2,021 (the floor never delays the stop here).  Since
    the check reads the results' own intervals (:meth:`lib.result.ShapleyResult.interval`: Student's ``t`` at the
    degrees of freedom, the rounds' pooled by Welch-Satterthwaite) rather than ``± 1.96``: 0.954 (printed beside
    the ``± 1.96`` coverage of the same runs).
    """
    coverage = _coverage()
    _, ses, rows, _ = _coverage_runs()
    print(f"coverage at the stop {coverage:.3f} (± 1.96: {_coverage(normal=True):.3f}; band [0.85, 0.99]); rows per row: median "
          f"{int(np.median(rows))}, range {int(rows.min())}-{int(rows.max())}")
    assert 0.85 <= coverage <= 0.99, f"coverage {coverage:.3f} outside [0.85, 0.99]"
    assert np.all(ses <= COVERAGE_TOL)


def test_the_coverage_check_fails_with_halved_standard_errors() -> None:
    """The check above can fail: the same runs, the intervals halved, leave the band."""
    coverage = _coverage(scale=0.5)
    assert not 0.85 <= coverage <= 0.99, coverage


@pytest.mark.parametrize("method", ESTIMATORS)
def test_an_additive_game_stops_after_the_first_round_exact(method: str) -> None:
    """On an additive game every walk and every draw against one background row is exact: the first round
    gives standard errors 0, and the run stops there, at its cost: that of one run of the estimator with the
    first round's budget (``f(x)``, the background row, and :data:`lib.sampling.registry.FIRST_ROUND` times
    the least draws; the strata estimator enumerates the background row's game instead where that is no
    dearer, and spends less).  Against four background rows the
    walks' first round (thirty-two pairs) meets every one: exact too, and it stops there."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3, 6))
    w = rng.normal(size=6)

    def f(Z: Any) -> np.ndarray:
        return np.asarray(Z, dtype=float) @ w

    for m in ([1, 4] if method in ("strata", "antithetic") else [1]):
        B = rng.normal(size=(m, 6))
        least = estimator(method).minimum_rows(Game(f, X, B), estimator(method).options()) - 1 - m
        res = sampling.sample_shapley(f, X, B, max_rows=5000, rng=np.random.default_rng(0), method=method, tol=1e-6)
        np.testing.assert_allclose(res.values, (X - B.mean(axis=0)) * w, atol=1e-12)
        np.testing.assert_allclose(res.standard_errors, 0.0, atol=1e-12)
        assert res.rows_per_row is not None
        first = 1 + m + FIRST_ROUND * least   # the first round's budget; the strata estimator may spend less
        once = [_as_before(f, X[i:i + 1], B, first, 0, method).model_rows for i in range(len(X))]
        np.testing.assert_array_equal(res.rows_per_row, once)


@pytest.mark.parametrize("tol", [0, 0.0, -0.1, float("nan"), float("inf"), -float("inf"), "0.1", True, [0.1]])
def test_invalid_tol_is_refused(tol: Any) -> None:
    """``tol`` must be a finite number > 0: anything else is refused, and the message says so."""
    f, X, B = _game("continuous")
    with pytest.raises(ValueError, match=r"tol must be a (finite )?number > 0"):
        sampling.sample_shapley(f, X, B, max_rows=400, rng=0, tol=tol)


def _as_before(f: Any, X: np.ndarray, B: np.ndarray, budget: int, seed: int, method: str) -> ShapleyResult:
    """The call as it ran before ``tol`` existed: the game, the registered estimator run once with the
    whole budget, and the rows it spent (what ``sample_shapley`` and ``run`` did, kept here)."""
    game = Game(f, X, B)
    res = estimator(method).function(game, budget, np.random.default_rng(seed), estimator(method).options())
    return replace(res, model_rows=game.model_rows)


_FIELDS = ("values", "base_values", "outputs", "variances", "standard_errors", "n_samples", "method", "model_rows",
           "rows_per_row")


@pytest.mark.parametrize("method", ESTIMATORS)
def test_no_tol_is_bit_for_bit_as_before(method: str) -> None:
    """``tol=None`` (and ``tol`` left out) gives the estimator's result as it ran before ``tol``, byte for
    byte, on both games, one and two outputs, three budgets and three seeds; ``rows_per_row`` stays None."""
    for kind in ("continuous", "discrete", "two outputs"):
        f, X, B = _game(kind)
        for budget in (120, 400, 900):
            for seed in range(3):
                before = _as_before(f, X, B, budget, seed, method)
                for given in ({}, {"tol": None}):
                    now = sampling.sample_shapley(f, X, B, max_rows=budget, rng=np.random.default_rng(seed),
                                                  method=method, **given)
                    for name in _FIELDS:
                        a, b = getattr(before, name), getattr(now, name)
                        if isinstance(a, np.ndarray):
                            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), \
                                (kind, budget, seed, name)
                        else:
                            assert a == b, (kind, budget, seed, name, a, b)
                    assert now.rows_per_row is None


@pytest.mark.parametrize("method", ["strata", "antithetic", "uniform"])
def test_a_nan_standard_error_never_meets_tol(method: str) -> None:
    """At the least budget (one pair of walks; one draw per feature) no spread is measured: the standard
    errors are ``nan``, and however loose ``tol`` is, the rows are counted as missing it (the warning says
    they had too few draws), not as met."""
    f, X, B = _game("continuous")
    least = estimator(method).minimum_rows(Game(f, X, B), estimator(method).options())
    with pytest.warns(UserWarning, match="not met on 2 of 2 .* too few draws to measure a spread"):
        res = sampling.sample_shapley(f, X, B, max_rows=least, rng=np.random.default_rng(0), method=method, tol=1e9)
    assert res.standard_errors is not None and np.isnan(res.standard_errors).any()


@pytest.mark.parametrize("method", ESTIMATORS)
def test_frames_and_arrays_stop_alike(method: str) -> None:
    """The rounds run on each row's own game (:meth:`lib.games.Game.of_rows`), for DataFrames as for
    arrays: the same values, standard errors and rows."""
    import pandas as pd

    f, X, B = _game("discrete")
    cols = [f"c{j}" for j in range(X.shape[1])]
    kw: dict[str, Any] = {"max_rows": 3000, "method": method, "tol": 0.1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = sampling.sample_shapley(f, X, B, rng=np.random.default_rng(2), **kw)
        b = sampling.sample_shapley(lambda df: f(df.to_numpy()), pd.DataFrame(X, columns=cols),
                                    pd.DataFrame(B, columns=cols), rng=np.random.default_rng(2), **kw)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.standard_errors, b.standard_errors)
    np.testing.assert_array_equal(a.rows_per_row, b.rows_per_row)
    assert a.model_rows == b.model_rows


def test_a_budget_that_pays_for_the_exact_value_gives_it_with_tol() -> None:
    """Where ``max_rows`` pays for the strata estimator's exact value of a row (every stratum enumerated,
    its registered ``exact_rows``), ``tol`` gives that exact value too, standard error 0, at that cost:
    a tolerance never makes a row less accurate than the same budget without it.  The same rounds
    without the estimator's ``exact_rows`` (the planted fault: rounds of smaller budgets, none of which
    enumerates every stratum) are not exact, so the check can fail."""
    from dataclasses import replace as with_field

    from lib.sampling.registry import sequential

    rng = np.random.default_rng(0)
    table = rng.normal(size=(10, 3, 3))

    def f(Z: Any) -> np.ndarray:
        Z = np.asarray(Z)
        return np.tanh(sum(table[j, Z[:, j], Z[:, (j + 1) % 10]] for j in range(10)))

    data = rng.integers(0, 3, size=(21, 10))
    X, B = data[:2], data[2:]
    exact = sh.exact_shapley(f, X, B).values
    est = estimator("strata")
    game = Game(f, X, B)
    need = est.exact_rows(game, est.options())
    budget = int(need.max())
    assert budget < 2**10 * len(B)                      # far below the full enumeration
    res = sampling.sample_shapley(f, X, B, max_rows=budget, rng=np.random.default_rng(1), tol=1e-3)
    np.testing.assert_allclose(res.values, exact, atol=1e-12)
    np.testing.assert_array_equal(res.standard_errors, 0.0)
    assert res.rows_per_row is not None
    np.testing.assert_array_equal(res.rows_per_row, need)
    without = sequential(Game(f, X, B), with_field(est, exact_rows=None), budget, np.random.default_rng(1),
                         est.options(), 1e-3)
    assert np.abs(without.values - exact).max() > 1e-6
