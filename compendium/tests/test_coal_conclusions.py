"""compendium.experiments.coal_grid.conclusion_claims and coal_many.conclusion_claims on hand-made grids."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from compendium.experiments import coal_grid, coal_many

METHODS = ["PCA", "VIF", "RevVIF", "Spearman", "RevSpearman", "Model"]


def _grid(error, time, size, groups, complete=100.0):
    """A grid of two data sets x two classifiers x two alphas, each method with the given error, time, size."""
    rows = []
    for d, k, a in itertools.product(["s1", "s2"], ["c1", "c2"], [0.01, 0.4]):
        for m in METHODS:
            rows.append({"data set": d, "classifier": k, "alpha": a, "method": m, "error euclidean": error[m],
                         "time ms": time[m], "time complete ms": complete, "mean_size": size[m] * (1 + a),
                         "n_groups": groups[m]})
    return pd.DataFrame(rows)


def _summary(grid):
    s = grid.groupby("method").agg(time_ms=("time ms", "mean"), error_euclidean=("error euclidean", "mean"))
    return s.loc[METHODS]


def test_pareto_front():
    s = pd.DataFrame({"time_ms": [1, 2, 3, 4], "error_euclidean": [4, 3, 5, 1]}, index=["a", "b", "c", "d"])
    assert coal_grid.pareto_front(s) == ["a", "b", "d"]       # c is slower and less precise than b


def test_conclusion_claims_follow_the_grid():
    error = dict(PCA=0.05, VIF=0.06, RevVIF=0.01, Spearman=0.03, RevSpearman=0.02, Model=0.04)
    time = dict(PCA=1, VIF=0.5, RevVIF=9, Spearman=2, RevSpearman=5, Model=1.5)
    size = dict(PCA=1, VIF=1.1, RevVIF=4, Spearman=2, RevSpearman=3, Model=1.5)
    groups = dict(PCA=6, VIF=6, RevVIF=4, Spearman=5, RevSpearman=4, Model=5)
    grid = _grid(error, time, size, groups)
    claims = coal_grid.conclusion_claims(grid, _summary(grid), single_group_gap=0.0)
    few, interest, long, minimize, larger, number, single = (c.holds for c in claims)
    assert few and interest and long and larger and number and single
    assert not minimize                                       # VIF is the least precise, not among the three best
    assert {c.paper for c in claims} <= {q for q, _ in coal_grid.CONCLUSIONS.values()}
    # RevVIF beaten by PCA everywhere: not preferable; the complete influence faster than RevVIF: not long
    worse = _grid({**error, "RevVIF": 0.07}, time, size, groups, complete=5.0)
    claims = coal_grid.conclusion_claims(worse, _summary(worse), single_group_gap=1e-3)
    assert not claims[0].holds and not claims[2].holds and not claims[6].holds
    assert claims[0].thresholds[0].measure == 0


def _many(rev_need, rev_error=0.01, other_error=0.02, floor=0.001):
    """A many-attributes grid of four cells: RevVIF needs rev_need coalitions per cell; PCA and Model 10."""
    rows = []
    for (d, k), need in zip(itertools.product(["s1", "s2"], ["c1", "c2"]), rev_need):
        for g in ("PCA", "Model", "RevVIF"):
            n = need if g == "RevVIF" else 10
            computed = n <= coal_many.BUDGET
            rows.append({"data set": d, "classifier": k, "alpha": 0.01, "grouping": g, "n attributes": 40,
                         "largest group": int(np.ceil(np.log2(n))), "coalitions": n if computed else np.nan,
                         "computed": computed, "error mean": (rev_error if g == "RevVIF" else other_error)
                         if computed else np.nan, "noise floor": floor, "reference": "sampled"})
    return pd.DataFrame(rows)


def test_many_attributes_conclusion():
    # RevVIF over the budget in three cells of four: PCA and Model fare better in most
    fare, monitor, impossible = coal_many.conclusion_claims(_many([100, 2**30, 2**30, 2**30]))
    assert fare.holds and not monitor.holds and impossible.holds
    assert fare.thresholds[1].measure == pytest.approx(2**30 - 1)    # up to that budget RevVIF stays over it
    # RevVIF affordable and more precise everywhere: they do not
    fare, _, _ = coal_many.conclusion_claims(_many([100, 100, 100, 100]))
    assert not fare.holds
    # a noise floor as large as the errors: the sampled baseline cannot rank them
    _, monitor, _ = coal_many.conclusion_claims(_many([100] * 4, floor=0.02))
    assert monitor.holds
