"""Tests of lib.coalitional: Eq. (F1)-(F4) against brute force, costs, Eq. (F6)-(F7), grouping methods."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from lib.counting import CountingModel
from lib import coalitional as co
from lib import grouping as gr

# ------------------------------------------------------------------ helpers (independent)


def brute_shapley_on(v: dict[frozenset, float], players: list[int]) -> dict[int, float]:
    """Eq. (F1)-(F2) written literally with itertools over a dict-valued game."""
    n = len(players)
    out = {}
    for i in players:
        others = [p for p in players if p != i]
        total = 0.0
        for r in range(n):
            w = math.factorial(r) * math.factorial(n - r - 1) / math.factorial(n)
            for S in itertools.combinations(others, r):
                total += w * (v[frozenset(S) | {i}] - v[frozenset(S)])
        out[i] = total
    return out


def as_dict(values: np.ndarray, d: int) -> dict[frozenset, float]:
    return {frozenset(i for i in range(d) if (S >> i) & 1): float(values[S]) for S in range(2**d)}


def random_partition(rng: np.random.Generator, d: int) -> list[list[int]]:
    perm = rng.permutation(d)
    cuts = sorted(rng.choice(np.arange(1, d), size=rng.integers(0, d), replace=False)) if d > 1 else []
    return [sorted(p.tolist()) for p in np.split(perm, cuts)]


# ------------------------------------------------------------------ groups


def test_check_groups_accepts_partition_and_names():
    assert co.check_groups([[2, 0], [1]], 3) == ((0, 2), (1,))
    assert co.check_groups([["b"], ["a", "c"]], ["a", "b", "c"]) == ((1,), (0, 2))


@pytest.mark.parametrize(
    "groups, match",
    [
        ([[0, 1], [1, 2]], "overlap"),
        ([[0, 1], [3]], "unknown"),
        ([[0, 1], []], "empty"),
        ([[0, 0], [1, 2]], "twice"),
        ([[0, 1]], "in no group"),
        ([], "at least one group"),
        ([[0, 1.5], [2]], "unknown"),
    ],
)
def test_check_groups_rejects(groups, match):
    with pytest.raises(ValueError, match=match):
        co.check_groups(groups, 3)


def test_check_groups_cover_allows_overlap():
    assert co.check_groups([[0, 1], [1, 2]], 3, overlap=True) == ((0, 1), (1, 2))


def test_coalitional_rejects_bad_groups():
    v = np.arange(8.0)
    for groups in ([[0, 1], [1, 2]], [[0, 1], [5]], [[0, 1], [], [2]]):
        with pytest.raises(ValueError):
            co.coalitional_influence(v, groups)
    with pytest.raises(ValueError, match="overlap must be"):
        co.coalitional_influence(v, [[0, 1, 2]], overlap="max")
    with pytest.raises(ValueError, match="2\\*\\*d"):
        co.coalitional_influence(np.arange(6.0), [[0, 1]])


def test_subset_masks():
    assert co.subset_masks([1, 3]).tolist() == [0, 2, 8, 10]
    with pytest.raises(ValueError):
        co.subset_masks([1, 1])


# ------------------------------------------------------------------ Eq. (F1)-(F4)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_complete_influence_is_brute_force_eq1(d, seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=2**d)
    phi = co.complete_influence(v)
    brute = brute_shapley_on(as_dict(v - v[0], d), list(range(d)))
    assert np.allclose(phi, [brute[i] for i in range(d)], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_coalitional_is_brute_force_eq4_on_each_group(d, seed):
    """Eq. (F4) literally: Shapley sum over the subsets of g, weights of a |g|-player game."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=2**d)
    groups = random_partition(rng, d)
    phi = co.coalitional_influence(v, groups)
    full = as_dict(v, d)
    for g in groups:
        brute = brute_shapley_on(full, g)  # only subsets of g are read
        for i in g:
            assert abs(phi[i] - brute[i]) < 1e-12


def test_single_group_of_all_is_complete():
    rng = np.random.default_rng(1)
    v = rng.normal(size=(3, 2**5))
    assert np.allclose(co.coalitional_influence(v, [range(5)]), co.complete_influence(v), atol=1e-13)


def test_disjoint_groups_restricted_game():
    """Disjoint groups: each group's influences are the Shapley values of the subgame v|_g."""
    rng = np.random.default_rng(2)
    d = 6
    v = rng.normal(size=2**d)
    groups = [[0, 3, 5], [1], [2, 4]]
    phi = co.coalitional_influence(v, groups)
    for g in groups:
        sub = np.array([v[sum(1 << g[k] for k in range(len(g)) if (T >> k) & 1)] for T in range(2 ** len(g))])
        assert np.allclose(co.restrict_game(v, g), sub)
        assert np.allclose(phi[g], co.complete_influence(sub), atol=1e-13)
        # efficiency inside the group: sum = v(g) - v(∅)
        assert abs(phi[g].sum() - (sub[-1] - sub[0])) < 1e-12


def test_singleton_groups_are_one_at_a_time_differences():
    rng = np.random.default_rng(3)
    d = 5
    v = rng.normal(size=(4, 2**d))
    phi = co.coalitional_influence(v, [[i] for i in range(d)])
    expected = np.stack([v[:, 1 << i] - v[:, 0] for i in range(d)], axis=1)
    assert np.allclose(phi, expected, atol=1e-14)


def test_additive_across_groups_gives_complete():
    """If v(S) = sum_g u_g(S ∩ g), coalitional = complete (no interaction across groups)."""
    rng = np.random.default_rng(4)
    d, groups = 5, [[0, 2], [1, 3, 4]]
    u = [rng.normal(size=2 ** len(g)) for g in groups]
    v = np.zeros(2**d)
    for S in range(2**d):
        for g, ug in zip(groups, u):
            local = sum(1 << k for k, a in enumerate(g) if (S >> a) & 1)
            v[S] += ug[local]
    assert np.allclose(co.coalitional_influence(v, groups), co.complete_influence(v), atol=1e-12)


def test_coalitional_reads_only_needed_coalitions():
    rng = np.random.default_rng(5)
    d, groups = 5, [[0, 1], [2, 3, 4]]
    v = rng.normal(size=2**d)
    partial = np.full(2**d, np.nan)
    need = co.coalitions_needed(groups, d)
    partial[need] = v[need]
    assert np.allclose(co.coalitional_influence(partial, groups), co.coalitional_influence(v, groups))
    with pytest.raises(ValueError, match="NaN"):
        co.coalitional_influence(partial, [[0, 1, 2], [3, 4]])


def test_overlap_rules():
    rng = np.random.default_rng(6)
    d, groups = 3, [[0, 1], [1, 2]]
    v = rng.normal(size=2**d)
    g1 = co.complete_influence(co.restrict_game(v, [0, 1]))
    g2 = co.complete_influence(co.restrict_game(v, [1, 2]))
    mean = co.coalitional_influence(v, groups, overlap="mean")
    assert np.allclose(mean, [g1[0], (g1[1] + g2[0]) / 2, g2[1]])
    # authors' code: sum of s!(c-s-1)! * delta over subsets, divided by the summed weights
    num, den = np.zeros(d), np.zeros(d)
    for g in groups:
        for r in range(1, len(g) + 1):
            for sub in itertools.combinations(g, r):
                for i in sub:
                    w = math.factorial(len(sub) - 1) * math.factorial(len(g) - len(sub))
                    rest = [a for a in sub if a != i]
                    num[i] += w * (v[sum(1 << a for a in sub)] - v[sum(1 << a for a in rest)])
                    den[i] += w
    assert np.allclose(co.coalitional_influence(v, groups, overlap="size-factorial"), num / den)
    triple = [[0, 1, 2], [2]]
    fact = co.coalitional_influence(v, triple, overlap="size-factorial")
    full = co.complete_influence(v)
    assert np.isclose(fact[2], (6 * full[2] + 1 * (v[4] - v[0])) / 7)


# ------------------------------------------------------------------ costs


def test_coalitions_needed_counts():
    assert len(co.coalitions_needed([range(9)], 9)) == 2**9
    # partition of n = 9 into groups of c = 3: 1 + 3 * (2**3 - 1) <= 2**3 * 9/3
    need = co.coalitions_needed([[0, 1, 2], [3, 4, 5], [6, 7, 8]], 9)
    assert len(need) == 1 + 3 * 7 <= 2**3 * 9 // 3
    assert len(co.coalitions_needed([[i] for i in range(9)], 9)) == 10


def _linear_model(X):
    X = np.asarray(X, dtype=float)
    return X @ np.arange(1.0, X.shape[1] + 1) + X[:, 0] * X[:, -1]


def test_interventional_values_match_engine_and_count_calls():
    from lib.games import interventional_game
    from lib.shapley import exact_shapley

    rng = np.random.default_rng(7)
    d, n, m = 5, 3, 4
    X, B = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    full = co.interventional_values(_linear_model, X, B)
    assert np.allclose(full, interventional_game(_linear_model, X, B))
    assert np.allclose(co.complete_influence(full), exact_shapley(_linear_model, X, B).values)

    groups = [[0, 1], [2, 3, 4]]
    f = CountingModel(_linear_model)
    part = co.interventional_values(f, X, B, co.coalitions_needed(groups, d))
    n_coal = 1 + 3 + 7
    assert f.rows == n * n_coal * m
    assert np.isnan(part).sum() == n * (2**d - n_coal)
    assert np.allclose(co.coalitional_influence(part, groups), co.coalitional_influence(full, groups))
    g = CountingModel(_linear_model)
    co.interventional_values(g, X, B)
    assert g.rows == n * 2**d * m


def test_interventional_multioutput_and_class_game():
    rng = np.random.default_rng(8)
    X, B = rng.normal(size=(2, 3)), rng.normal(size=(5, 3))

    def f(Z):
        return np.column_stack([Z.sum(axis=1), Z[:, 0] ** 2])

    game = co.interventional_values(f, X, B)
    assert game.shape == (2, 8, 2)
    pick = co.class_game(game, np.array([1, 0]))
    assert np.allclose(pick[0], game[0, :, 1]) and np.allclose(pick[1], game[1, :, 0])
    with pytest.raises(ValueError):
        co.class_game(game, np.array([2, 0]))


def test_retrained_game_fits_and_prior():
    rng = np.random.default_rng(9)
    n, d = 200, 4
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1).astype(int)
    full = GaussianNB().fit(X, y)
    rg = co.RetrainedGame(GaussianNB(), X, y, fitted=full)
    assert rg.fits == 0
    assert np.allclose(rg.prior, np.bincount(y) / n)
    groups = [[0, 1], [2, 3]]
    game = rg.game(X[:5], co.coalitions_needed(groups, d))
    assert rg.fits == 2 * (2**2 - 1)  # memoised: each non-empty subset of each group once
    assert np.all(game[:, 0] == 0)
    # v({0,1}) is the model refitted on columns 0, 1
    cls = full.predict(X[:5])
    ref = GaussianNB().fit(X[:, [0, 1]], y).predict_proba(X[:5, [0, 1]])[np.arange(5), cls] - rg.prior[cls]
    assert np.allclose(game[:, 0b0011], ref)
    rg.game(X[5:9], co.coalitions_needed(groups, d))
    assert rg.fits == 6  # no refit for other rows
    rg.game(X[:2])  # complete: all 2**d - 2 proper non-empty subsets
    assert rg.fits == 2**d - 2
    phi = co.coalitional_influence(rg.game(X[:3]), [range(d)])
    assert np.allclose(phi.sum(axis=1), full.predict_proba(X[:3])[np.arange(3), full.predict(X[:3])] - rg.prior[full.predict(X[:3])])


def test_retrained_game_dataframe_and_bad_input():
    rng = np.random.default_rng(10)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    y = (X["a"] > 0).astype(int).to_numpy()
    rg = co.RetrainedGame(DecisionTreeClassifier(random_state=0), X, y)
    assert rg.fits == 1  # the full model, fitted here
    assert rg.game(X.iloc[:4], [0, 1, 2, 3]).shape == (4, 8)
    with pytest.raises(ValueError):
        co.RetrainedGame(GaussianNB(), X, y[:-1])
    with pytest.raises(ValueError):
        rg.game(X.iloc[:, :2])


# ------------------------------------------------------------------ Eq. (F6)-(F7)


def test_error_scores_closed_forms():
    for n in (1, 4, 9):
        a, b = np.zeros(n), np.full(n, 0.2)
        assert np.isclose(co.error_printed(a, b), 0.2 * n / (2 * math.sqrt(n)))  # = 0.1 √n
        assert np.isclose(co.error_euclidean(a, b), 0.1)
    one = np.zeros(9)
    one[3] = 0.5
    assert np.isclose(co.error_printed(one, np.zeros(9)), co.error_euclidean(one, np.zeros(9)))
    assert np.isclose(co.error_printed(one, np.zeros(9)), 0.5 / 6)
    # bounds with influences in [-1, 1]: Euclidean <= 1, printed up to √n
    assert np.isclose(co.error_euclidean(np.ones(9), -np.ones(9)), 1.0)
    assert np.isclose(co.error_printed(np.ones(9), -np.ones(9)), 3.0)
    batch = co.error_printed(np.zeros((3, 4)), np.ones((3, 4)))
    assert batch.shape == (3,)


@given(st.lists(st.floats(-1, 1), min_size=1, max_size=9), st.integers(0, 1000))
def test_error_norm_inequalities(xs, seed):
    a = np.array(xs)
    b = np.random.default_rng(seed).uniform(-1, 1, size=len(a))
    e2, e1 = co.error_euclidean(a, b), co.error_printed(a, b)
    assert e2 <= e1 + 1e-12 <= math.sqrt(len(a)) * e2 + 2e-12


def test_error_bad_input():
    with pytest.raises(ValueError):
        co.error_printed(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError):
        co.error_euclidean(np.array([0.0, np.nan]), np.zeros(2))


# ------------------------------------------------------------------ §4 grouping methods


def blocks(rng, n=3000, sizes=(3, 3), noise=(0.3, 0.2), scale=(3.0, 1.0), extra=0):
    """Blocks of attributes sharing one latent factor each, plus independent ones."""
    cols = []
    for size, s, sc in zip(sizes, noise, scale):
        z = rng.normal(size=n)
        cols += [sc * (z + s * rng.normal(size=n)) for _ in range(size)]
    cols += [rng.normal(size=n) for _ in range(extra)]
    return np.column_stack(cols)


def test_vif_is_inverse_correlation_diagonal():
    rng = np.random.default_rng(11)
    X = blocks(rng, extra=2)
    assert np.allclose(gr.variance_inflation_factors(X), np.diag(np.linalg.inv(np.corrcoef(X.T))))


def test_spearman_matrix_is_pearson_of_ranks():
    from scipy.stats import rankdata

    rng = np.random.default_rng(12)
    X = np.exp(blocks(rng, n=500))
    R = np.apply_along_axis(rankdata, 0, X)
    assert np.allclose(gr.spearman_matrix(X), np.abs(np.corrcoef(R.T)))


@pytest.mark.parametrize("method", ["Spearman", "VIF", "PCA"])
def test_correlated_blocks_are_found(method):
    rng = np.random.default_rng(13)
    X = blocks(rng)
    groups = gr.find_groups(X, method, 0.4)
    A, B = {0, 1, 2}, {3, 4, 5}
    assert all(set(g) <= A or set(g) <= B for g in groups), groups  # no group straddles
    assert tuple(sorted(A)) in groups and tuple(sorted(B)) in groups, groups
    if method == "Spearman":
        assert groups == ((0, 1, 2), (3, 4, 5))


def test_vif_pairs_and_independent_singleton():
    rng = np.random.default_rng(14)
    X = blocks(rng, sizes=(2, 2), noise=(0.3, 0.3), extra=1)
    assert gr.vif_groups(X, 0.01) == ((0, 1), (2, 3), (4,))


@pytest.mark.parametrize("method", ["RevSpearman", "RevVIF"])
def test_reverse_methods_group_uncorrelated(method):
    rng = np.random.default_rng(15)
    X = blocks(rng, sizes=(2, 2), noise=(0.3, 0.3), scale=(1.0, 1.0))
    groups = gr.find_groups(X, method, 0.4)
    # the group of each attribute: itself and the pair it is not correlated with
    assert set(groups) == {(0, 2, 3), (1, 2, 3), (0, 1, 2), (0, 1, 3)}


def test_spearman_uncorrelated_are_singletons():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(3000, 4))
    assert gr.spearman_groups(X, 0.4) == ((0,), (1,), (2,), (3,))
    assert gr.vif_groups(X, 0.4) == ((0,), (1,), (2,), (3,))


def test_pca_single_dominant_attribute():
    # independent attributes with distinct variances: each component is one attribute
    rng = np.random.default_rng(17)
    X = rng.normal(size=(2000, 3)) * np.array([1.0, 5.0, 20.0])
    assert set(gr.pca_groups(X, 0.01)) == {(0,), (1,), (2,)}


def test_grouping_bad_input_and_categoricals():
    rng = np.random.default_rng(18)
    X = rng.normal(size=(50, 3))
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="alpha"):
            gr.spearman_groups(X, bad)
    with pytest.raises(ValueError, match="unknown grouping"):
        gr.find_groups(X, "Kendall", 0.1)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        gr.pca_groups(Xn, 0.1)
    with pytest.raises(ValueError, match="constant"):
        gr.variance_inflation_factors(np.column_stack([X, np.ones(50)]))
    df = pd.DataFrame({"a": pd.Categorical(rng.choice(["x", "y"], 50)), "b": X[:, 0]})
    assert gr.numeric_matrix(df).shape == (50, 2)
    assert gr.spearman_matrix(df).shape == (2, 2)
    for name in gr.GROUP_METHODS:
        gs = gr.find_groups(df, name, 0.2)
        assert co.check_groups(gs, 2, overlap=True)


def test_group_summary():
    s = co.group_summary([[0, 1], [1, 2], [3]], 4)
    assert s == {"n_groups": 3, "mean_size": 5 / 3, "max_size": 2, "n_coalitions": 1 + 3 + 2 + 1}


# ------------------------------------------------------------------ model-based grouping (Algorithm 1)


def _interaction_model(Z):
    """f = g(x0, x1) + h(x2): a strong x0-x1 interaction plus a weak additive x2."""
    Z = np.asarray(Z, dtype=float)
    return (3 * Z[:, 0] * Z[:, 1] + 0.5 * Z[:, 2] > 0).astype(int)


def _gaussian(n=2000, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def test_fidelity_one_group_is_one_and_ignored_attribute_is_free():
    X = _gaussian()
    # one group: each row is replaced by a row of the same predicted class
    assert gr.permutation_fidelity(_interaction_model, X, [[0, 1, 2]]) == 1.0

    def only_01(Z):
        Z = np.asarray(Z)
        return (Z[:, 0] * Z[:, 1] > 0).astype(int)

    # x2 is ignored: randomising it changes nothing
    assert gr.permutation_fidelity(only_01, X, [[0, 1], [2]]) == 1.0


def test_fidelity_all_singletons_is_chance_agreement():
    # a balanced binary model, every attribute randomised: agreement p^2 + (1-p)^2 ~ 0.5
    X = _gaussian(n=4000)
    fid = gr.permutation_fidelity(_interaction_model, X, [[0], [1], [2]])
    p = _interaction_model(X).mean()
    assert abs(fid - (p**2 + (1 - p) ** 2)) < 0.03


def test_fidelity_dataframe_matches_array():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": pd.Categorical(rng.choice(["x", "y", "z"], 500)), "b": rng.normal(size=500)})

    def f(Z):
        codes = Z["a"].cat.codes.to_numpy() if isinstance(Z, pd.DataFrame) else np.asarray(Z)[:, 0]
        b = Z["b"].to_numpy() if isinstance(Z, pd.DataFrame) else np.asarray(Z)[:, 1]
        return ((codes == 1) ^ (b > 0)).astype(int)

    arr = gr.numeric_matrix(df)
    for groups in ([[0], [1]], [[0, 1]]):
        assert gr.permutation_fidelity(f, df, groups) == gr.permutation_fidelity(f, arr, groups)


def test_model_groups_finds_interaction_structure():
    X = _gaussian()
    for alpha in (0.05, 0.2):
        assert gr.model_groups(_interaction_model, X, alpha) == ((0, 1), (2,))
    assert gr.find_groups(X, "Model", 0.2, predict=_interaction_model) == ((0, 1), (2,))


def test_model_groups_threshold_extremes():
    X = _gaussian()
    base = gr.permutation_fidelity(_interaction_model, X, [[0], [1], [2]])
    # Delta = base + alpha > 1 cannot be reached: every attribute a singleton
    assert gr.model_groups(_interaction_model, X, 1 - base + 0.05) == ((0,), (1,), (2,))
    # Delta just below 1: no removal keeps every prediction, one group of all
    assert gr.model_groups(_interaction_model, X, 1 - base - 1e-3) == ((0, 1, 2),)


def test_model_groups_partition_trace_and_cost():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(600, 5))
    calls = CountingModel(lambda Z: (np.asarray(Z)[:, 0] + np.asarray(Z)[:, 1] * np.asarray(Z)[:, 3] > 0).astype(int))
    trace: list = []
    gs = gr.model_groups(calls, X, 0.1, trace=trace)
    co.check_groups(gs, 5)  # a partition: disjoint and covering, else ValueError
    assert sorted(i for g in gs for i in g) == list(range(5))
    # one call for the labels + one per distinct grouping evaluated (memoised)
    assert calls.calls == 1 + len(trace)
    assert len({t["groups"] for t in trace}) == len(trace)
    # at most 1 + sum over steps of |R| evaluations: O(d^2)
    assert len(trace) <= 1 + 5 * 6


def test_model_groups_bad_input():
    X = _gaussian(n=50)
    for bad in (0.0, 1.0):
        with pytest.raises(ValueError, match="alpha"):
            gr.model_groups(_interaction_model, X, bad)
    with pytest.raises(ValueError, match="predict"):
        gr.find_groups(X, "Model", 0.1)
    with pytest.raises(ValueError, match="only apply"):
        gr.find_groups(X, "PCA", 0.1, seed=3)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        gr.model_groups(_interaction_model, Xn, 0.1)
    with pytest.raises(ValueError, match="overlap"):
        gr.permutation_fidelity(_interaction_model, X, [[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="fidelity_rows"):
        gr.model_groups(_interaction_model, X, 0.1, fidelity_rows=1)
    assert gr.model_groups(_interaction_model, X, 0.1, fidelity_rows=30)  # a sample of rows works
    with pytest.warns(DeprecationWarning, match="use fidelity_rows="):   # max_rows meant rows of data here
        assert gr.model_groups(_interaction_model, X, 0.1, max_rows=30) == gr.model_groups(
            _interaction_model, X, 0.1, fidelity_rows=30)
    assert gr.ALL_METHODS[-1] == "Model" and set(gr.ALL_METHODS[:-1]) == set(gr.GROUP_METHODS)


# --- tied eigenvalues: PCA groups that do not depend on the CPU ---------------------------


def _tied_data() -> np.ndarray:
    """Three independent attributes of equal variance (one tied eigenspace of dimension 3)
    and one of larger variance: a full factorial design, as KEEL's monk-2."""
    return np.array(list(itertools.product([0.0, 1.0, 2.0], [0.0, 1.0, 2.0], [0.0, 1.0, 2.0], [0.0, 10.0, 20.0])))


def test_tied_components_finds_clusters():
    s = np.array([5.0, 3.0, 3.0 * (1 + 1e-12), 2.0, 1.0, 1.0])
    s = np.sort(s)[::-1]
    assert gr.tied_components(s) == [(1, 2), (4, 5)]
    assert gr.tied_components(np.array([3.0, 2.0, 1.0])) == []
    with pytest.raises(ValueError, match="decreasingly"):
        gr.tied_components(np.array([1.0, 2.0]))


@given(st.floats(0.0, 2 * math.pi), st.floats(0.0, 2 * math.pi), st.booleans())
@settings(max_examples=50, deadline=None)
def test_canonical_components_ignore_the_basis_of_a_tied_eigenspace(a, b, flip):
    # any rotation (and sign) of the basis LAPACK returns inside a tied eigenspace gives
    # the same canonical components, hence the same groups
    A = _tied_data()
    A = A - A.mean(axis=0)
    _, s, vt = np.linalg.svd(A, full_matrices=False)
    cluster = gr.tied_components(s)
    assert [len(c) for c in cluster] == [3]
    idx = list(cluster[0])
    ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
    R = np.array([[ca, -sa, 0], [sa, ca, 0], [0, 0, 1]]) @ np.array([[1, 0, 0], [0, cb, -sb], [0, sb, cb]])
    if flip:
        R = -R
    rotated = vt.copy()
    rotated[idx] = R @ vt[idx]
    np.testing.assert_allclose(gr.canonical_components(s, rotated), gr.canonical_components(s, vt), atol=1e-9)


def test_canonical_components_keep_an_orthonormal_basis_and_untied_rows():
    A = _tied_data()
    A = A - A.mean(axis=0)
    _, s, vt = np.linalg.svd(A, full_matrices=False)
    c = gr.canonical_components(s, vt)
    np.testing.assert_allclose(c @ c.T, np.eye(len(s)), atol=1e-12)
    untied = [i for i in range(len(s)) if all(i not in t for t in gr.tied_components(s))]
    np.testing.assert_array_equal(c[untied], vt[untied])
    with pytest.raises(ValueError, match="one row per singular value"):
        gr.canonical_components(s[:-1], vt)


def test_pca_groups_on_tied_data_are_canonical_and_flagged():
    A = _tied_data()
    assert not gr.pca_is_determined(A)
    # the three tied, independent attributes: the canonical basis is the coordinate axes
    assert gr.pca_groups(A, 0.1) == ((3,), (0,), (1,), (2,))
    rng = np.random.default_rng(0)
    assert gr.pca_is_determined(rng.normal(size=(50, 4)) * [1.0, 2.0, 3.0, 4.0])


# --- coalitional influence without the 2^d game ------------------------------------------

from lib import shapley as sh  # noqa: E402
from lib import games


def _smooth(Z):
    Z = np.asarray(Z, dtype=float)
    return np.tanh(Z[:, 0] * Z[:, 1]) + Z @ np.linspace(0.5, -0.5, Z.shape[1]) + 0.3 * Z[:, -1] ** 2


@pytest.mark.parametrize("overlap", ["error", "size-factorial", "mean"])
def test_sparse_coalitional_influence_equals_the_dense_one(overlap):
    rng = np.random.default_rng(31)
    X, B = rng.normal(size=(4, 7)), rng.normal(size=(9, 7))
    groups = [[0, 1, 2], [3, 4], [5, 6]] if overlap == "error" else [[0, 1, 2], [2, 3, 4], [4, 5, 6], [0, 6]]
    dense = co.coalitional_influence(co.interventional_values(_smooth, X, B), groups, overlap=overlap)
    sparse = co.coalitional_influence_interventional(_smooth, X, B, groups, overlap=overlap)
    np.testing.assert_allclose(sparse, dense, atol=1e-12)


def test_sparse_coalitional_influence_on_many_attributes_reads_only_what_eq4_needs():
    rng = np.random.default_rng(32)
    d, n, m = 57, 3, 6                                              # Spambase's width: 2**57 coalitions in all
    X, B = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    groups = [list(range(k, min(k + 5, d))) for k in range(0, d, 5)]  # 11 groups of 5 and one of 2
    model = CountingModel(_smooth)
    phi = co.coalitional_influence_interventional(model, X, B, groups)
    assert phi.shape == (n, d)
    assert model.rows == n * m * (1 + 11 * (2**5 - 1) + (2**2 - 1))  # coalitional paper, §3.2
    # efficiency inside each group: its influences add up to v(g) - v(∅)
    for g in groups:
        both = games.coalition_values(_smooth, X, B, [0, sum(1 << a for a in g)])
        np.testing.assert_allclose(phi[:, g].sum(axis=1), both[:, 1] - both[:, 0], atol=1e-10)


def test_sparse_coalitional_influence_bad_input():
    X, B = np.zeros((1, 25)), np.ones((3, 25))
    with pytest.raises(ValueError, match="at most"):
        co.coalitional_influence_interventional(_smooth, X, B, [list(range(25))])
    two = lambda Z: np.column_stack([_smooth(Z), -_smooth(Z)])  # noqa: E731
    with pytest.raises(ValueError, match="single output"):
        co.coalitional_influence_interventional(two, X[:, :4], B[:, :4], [[0, 1], [2, 3]])
    with pytest.raises(ValueError, match="overlap"):
        co.coalitional_influence_interventional(_smooth, X, B, [[0]], overlap="sum")


# ---------------------------------------------------------------------------
# coalitional_explanation: the same influences as a result object (issue 32)
# ---------------------------------------------------------------------------


def test_coalitional_explanation_is_the_influence_with_base_and_outputs():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(21)
    X = pd.DataFrame(rng.normal(size=(80, 4)), columns=list("abcd"))
    y = (X["a"] + X["b"] * X["c"] > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    explain, bg = X.iloc[:5], X.iloc[40:60]
    res = co.coalitional_explanation(model, explain, bg, [("a", "b"), ("c", "d")], output=1)

    def f(Z):
        return model.predict_proba(Z)[:, 1]

    np.testing.assert_array_equal(res.values, co.coalitional_influence_interventional(f, explain, bg, [(0, 1), (2, 3)]))
    np.testing.assert_allclose(res.outputs, f(explain), atol=1e-15)
    np.testing.assert_allclose(res.base_values, f(bg).mean(), atol=1e-15)
    assert res.feature_names == list("abcd") and res.output_names == ["1"]
    # one group of every attribute: the complete influence, efficient
    whole = co.coalitional_explanation(f, explain, bg, [("a", "b", "c", "d")])
    np.testing.assert_allclose(whole.efficiency_gap(), 0.0, atol=1e-12)
    with pytest.raises(ValueError, match="output="):
        co.coalitional_explanation(model, explain, bg, [("a", "b"), ("c", "d")])


def test_reverse_vif_step_loosens_the_test_and_is_checked():
    # with the plain 1 - t factor (reverse_step = 1) the test VIF_-a(a') > VIF(a') (1 - t) is looser than
    # with 1 - 0.05 t: every group it builds contains the group of the same attribute at the paper's step
    rng = np.random.default_rng(18)
    X = blocks(rng, sizes=(2, 2), noise=(0.3, 0.3), extra=1)
    for alpha in (0.01, 0.2, 0.4):
        kept, plain = gr.vif_groups(X, alpha, reverse=True), gr.vif_groups(X, alpha, reverse=True, reverse_step=1.0)
        assert all(any(set(k) <= set(p) for p in plain) for k in kept)
    # at t = 0.4 the plain factor lets each correlated partner in: a VIF falls by less than 60 % without it
    assert max(len(g) for g in gr.vif_groups(X, 0.4, reverse=True, reverse_step=1.0)) == 5
    assert gr.vif_groups(X, 0.4, reverse=True, reverse_step=0.05) == gr.vif_groups(X, 0.4, reverse=True)
    for bad in (0, -0.1, 1.5, "0.05"):
        with pytest.raises(ValueError, match="reverse_step"):
            gr.vif_groups(X, 0.4, reverse=True, reverse_step=bad)
