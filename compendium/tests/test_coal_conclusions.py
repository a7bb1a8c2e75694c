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


def test_group_correlations_by_hand():
    corr = np.array([[1.0, 0.8, 0.1], [0.8, 1.0, 0.3], [0.1, 0.3, 1.0]])
    two = coal_grid.group_correlations([(0, 1), (2,)], corr)
    assert two == pytest.approx({"within": 0.8, "between": 0.3, "small share": 1.0})
    one = coal_grid.group_correlations([(0, 1, 2)], corr)
    assert one["within"] == pytest.approx(0.4) and np.isnan(one["between"]) and one["small share"] == 0
    shared = coal_grid.group_correlations([(0, 1), (1, 2)], corr)          # they share attribute 1
    assert shared == pytest.approx({"within": 0.55, "between": 1.0, "small share": 1.0})
    assert np.isnan(coal_grid.group_correlations([(0,), (1,), (2,)], corr)["within"])
    assert coal_grid.parse_groups("{0,1} {2}") == [(0, 1), (2,)]


def _cause_grid(error_of, per_coalition_of=lambda k, rows: rows / 1000):
    """Three data sets x two classifiers x two alphas; each method's within-group correlation fixed, its error
    ``error_of(within)``, its time growing with the within-group correlation, fewer groups where they are larger."""
    within = dict(VIF=0.7, Spearman=0.5, PCA=0.4, Model=0.3, RevSpearman=0.25, RevVIF=0.1)
    n_groups = dict(VIF=6, PCA=5.5, Model=5, Spearman=4.5, RevSpearman=3, RevVIF=2)
    rows = []
    for (d, n), k, a in itertools.product([("s1", 100), ("s2", 500), ("s3", 1000)], ["c1", "c2"], [0.01, 0.4]):
        for m in METHODS:
            rows.append({"data set": d, "classifier": k, "alpha": a, "method": m, "rows": n, "2^n": 16,
                         "time complete ms": 16 * per_coalition_of(k, n), "time ms": 10 * within[m],
                         "error euclidean": error_of(within[m]), "n_groups": n_groups[m],
                         "mean_size": 6 / n_groups[m], "within": within[m],
                         "between": 0.9 if m == "VIF" else 0.5, "small share": within[m], "all pairs": 0.2})
    return pd.DataFrame(rows)


def test_cause_claims_follow_the_grid():
    claims = coal_grid.cause_claims(_cause_grid(lambda w: w / 10))
    assert all(c.holds for c in claims), [c.claim for c in claims if not c.holds]
    assert {c.paper for c in claims} <= {q for q, _ in coal_grid.CAUSES.values()}
    # the error falls as the groups grow more correlated: the readings on error fail, the others stand
    claims = {c.claim: c.holds for c in coal_grid.cause_claims(_cause_grid(lambda w: 1 - w))}
    assert not claims["more correlated groups go with larger errors"]
    assert not claims["more correlated groups do not go with smaller errors"]
    assert not claims["less correlated groups go with smaller errors"]
    assert not claims["a larger share of one- and two-attribute groups goes with larger errors"]
    assert claims["RevVIF's groups are less correlated within than VIF's and Spearman's"]
    # one classifier whose coalitions cost less on more rows: one retraining is not faster on fewer rows
    slower = _cause_grid(lambda w: w / 10, lambda k, n: 1 / n if k == "c2" else n / 1000)
    first = coal_grid.cause_claims(slower)[0]
    assert first.claim.startswith("one retraining") and not first.holds
