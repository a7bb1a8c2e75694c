"""Tests of lib.khiops_nb against Khiops itself.

Ground truths that do not come from our reading of the tables: Khiops' own
``predict_proba`` and its own Shapley values (``interpret_predictor``), the counts of the
training rows (recomputed from the data through our part mapping), closed forms of the
smoothing formulas, and 2^d enumeration of Khiops' own log-odds.

Khiops is required (CI installs it): without it these tests fail with a message, they do
not skip.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from compendium import data
from lib import khiops_nb as kn
from lib import naive_bayes as nb
from lib import shapley as sh

# khiops.core warns once that its sample datasets are not downloaded: irrelevant here
warnings.filterwarnings("ignore", message="Sample datasets location")

DATASETS = ["crx", "tic-tac-toe", "german-numeric", "breast-wisconsin"]


def _need_khiops() -> None:
    if not kn.khiops_available():
        pytest.fail("khiops is not installed: `pip install khiops` (the CI installs it); "
                    "the Khiops reader cannot be tested without it", pytrace=False)


_FITS: dict[str, tuple] = {}


def fitted(name: str):
    """Fit once per data set per test session (Khiops takes ~3 s per fit)."""
    _need_khiops()
    if name not in _FITS:
        X, y = data.load(name)
        clf, model = kn.fit_khiops_snb(X, y)
        _FITS[name] = (X, y, clf, model)
    return _FITS[name]


@pytest.fixture(scope="module")
def crx():
    return fitted("crx")


# ---------------------------------------------------------------------------
# Formulas (no Khiops needed)
# ---------------------------------------------------------------------------


def test_parse_rule():
    r = kn.parse_rule('DataGrid(IntervalBounds(#Missing, -0.5, 1e3), ValueGroups(ValueGroup("a""b", " * ")),'
                      ' Frequencies(1, 2), `my var`)')
    assert r.name == "DataGrid"
    ib, vg, fr, ref = r.args
    assert np.isnan(ib.args[0]) and ib.args[1:] == (-0.5, 1000.0)
    assert vg.args[0].args == ('a"b', " * ")
    assert fr.args == (1.0, 2.0)
    assert ref.name == "my var"
    with pytest.raises(ValueError):
        kn.parse_rule("DataGrid(1, 2")
    with pytest.raises(ValueError):
        kn.parse_rule("DataGrid(1) 2")


def test_laplace_likelihood_closed_form():
    counts = np.array([[3, 0], [1, 2]])  # N = 6, eps = 1/7, P = 2
    eps = 1 / 7
    expected = np.array([[(3 + eps) / (4 + 2 * eps), (0 + eps) / (2 + 2 * eps)],
                         [(1 + eps) / (4 + 2 * eps), (2 + eps) / (2 + 2 * eps)]])
    np.testing.assert_allclose(kn.laplace_likelihood(counts), expected, rtol=1e-15)
    with pytest.raises(ValueError):
        kn.laplace_likelihood([[-1, 2], [1, 1]])
    with pytest.raises(ValueError):
        kn.laplace_likelihood([1, 2])


def test_output_laplace_closed_form():
    p = np.array([[0.9, 0.1], [0.5, 0.5], [0.0, 1.0]])
    n = 690
    q = kn.output_laplace(p, n)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, atol=1e-15)
    # two classes: p' - p = (1 - 2p) / (4 (N + 1.5))
    np.testing.assert_allclose(q - p, (1 - 2 * p) / (4 * (n + 1.5)), atol=1e-15)
    with pytest.raises(ValueError):
        kn.output_laplace(np.array([0.5, 0.5]), n)


def test_khiops_shapley_tables_explicit_loops():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 30, size=(4, 3)).astype(float)
    counts[1, 2] = 0.0
    w = 0.37
    got = kn.khiops_shapley_tables(counts, w)
    n = counts.sum()
    eps = 1 / (n + 1)
    n_parts, j = counts.shape
    for c in range(j):
        lam = []
        for p in range(n_parts):
            one = (counts[p, c] + eps) / (counts[:, c].sum() + n_parts * eps)
            rest_n = counts[p].sum() - counts[p, c]
            rest = (rest_n + (j - 1) * eps) / (n - counts[:, c].sum() + n_parts * (j - 1) * eps)
            lam.append(np.log(one / rest))
        mean = sum(counts[p].sum() / n * lam[p] for p in range(n_parts))
        np.testing.assert_allclose(got[:, c], [w * (lam[p] - mean) for p in range(n_parts)], rtol=1e-12)


# ---------------------------------------------------------------------------
# Reading a real Khiops model
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", DATASETS)
def test_probabilities_equal_khiops_predict_proba(name):
    """Eq. 1 on the read tables, plus Khiops' output Laplace correction, is Khiops'
    predict_proba (which Khiops writes with 10 significant digits)."""
    X, _, clf, model = fitted(name)
    pk = clf.predict_proba(X)
    assert list(model.classes) == list(clf.classes_)
    np.testing.assert_allclose(model.predict_proba(X), pk, rtol=0, atol=1e-9)
    # without the output correction the gap is the closed form (1 - 2p) / (4 (N + 1.5))
    p = model.predict_proba_eq1(X)
    np.testing.assert_allclose(pk - p, (1 - 2 * p) / (4 * (model.n_train + 1.5)), atol=1e-9)
    assert np.abs(pk - p).max() > 1e-5


@pytest.mark.parametrize("name", DATASETS)
def test_counts_weights_and_part_mapping_on_training_rows(name):
    """Counting the training rows in the parts our mapping assigns them reproduces
    Khiops' Frequencies (missing values included), and the weights are Khiops' full
    precision ones (its metadata <Weight=...> is rounded to 6 digits)."""
    X, y, clf, model = fitted(name)
    parts = model.transform(X)
    y_idx = np.array([list(map(str, model.classes)).index(str(v)) for v in y])
    for i, v in enumerate(model.variables):
        table = np.zeros_like(v.counts)
        np.add.at(table, (parts[:, i], y_idx), 1.0)
        np.testing.assert_array_equal(table, v.counts, err_msg=v.name)
    dic = clf.model_.get_dictionary(clf.model_main_dictionary_name_)
    for v in model.variables:
        rounded = float(dic.get_variable(v.name).meta_data.get_value("Weight"))
        assert abs(rounded - v.weight) < 5e-7 and 0 < v.weight <= 1
    t = model.tables()
    assert t.feature_names == model.feature_names
    np.testing.assert_allclose(t.prior, model.class_counts / len(X))
    for pp, lik in zip(t.part_prob, t.likelihood):
        assert abs(pp.sum() - 1) < 1e-12 and np.all(lik > 0)


def test_full_precision_weights(crx):
    _, _, _, model = crx
    w = model.weights
    # Khiops' weights are multiples of 2^-10 here; the 6-digit report loses that
    assert np.any(np.abs(np.round(w, 6) - w) > 0)


def test_eq10_equals_enumeration_of_khiops_log_odds():
    """Eq. 10 on the read tables = exact 2^5 Shapley values (lib.shapley) of Khiops' OWN
    log-odds (its predict_proba with the output correction undone), with the training
    rows as background (tic-tac-toe: 5 variables, 958 rows)."""
    X, _, clf, model = fitted("tic-tac-toe")
    cols = model.feature_names
    n, j = model.n_train, len(model.classes)

    def khiops_log_odds(rows: pd.DataFrame) -> np.ndarray:
        full = X.iloc[np.zeros(len(rows), dtype=int)].reset_index(drop=True)
        for c in cols:
            full[c] = rows[c].to_numpy()
        q = clf.predict_proba(full)[:, 1]
        p = q * (1 + 0.5 / (n + 1)) - 0.5 / (j * (n + 1))  # undo the output correction
        return np.log(p / (1 - p))

    rows = X[cols].iloc[[0, 5, 700]]
    exact = sh.exact_shapley(khiops_log_odds, rows, X[cols])
    values, base = nb.shapley_values(model.tables(), model.transform(rows), model.classes[1])
    np.testing.assert_allclose(values, exact.values, atol=1e-7)
    np.testing.assert_allclose(base, exact.base_values, atol=1e-7)


def test_eq10_equals_enumeration_crx_parts(crx):
    """Same on crx (8 variables), with the log-odds of the read tables on part indices."""
    X, _, _, model = crx
    t = model.tables()
    parts = model.transform(X)
    lik = t.likelihood

    def log_odds(p: np.ndarray) -> np.ndarray:
        p = np.asarray(p, dtype=np.int64)
        out = np.full(len(p), np.log(t.prior[0] / t.prior[1]))
        for i, l in enumerate(lik):
            out += t.weights[i] * (np.log(l[p[:, i], 0]) - np.log(l[p[:, i], 1]))
        return out

    exact = sh.exact_shapley(log_odds, parts[:4], parts)
    values, base = nb.shapley_values(t, parts[:4], model.classes[0])
    np.testing.assert_allclose(values, exact.values, atol=1e-10)
    np.testing.assert_allclose(base, exact.base_values, atol=1e-10)
    p = model.predict_proba_eq1(parts=parts[:4])[:, 0]
    np.testing.assert_allclose(base + values.sum(axis=1), np.log(p / (1 - p)), atol=1e-10)


# ---------------------------------------------------------------------------
# Part mapping: unseen categories, missing values, bounds
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def synthetic():
    _need_khiops()
    rng = np.random.default_rng(0)
    n = 600
    y = rng.integers(0, 2, n)
    x = rng.normal(y * 1.0, 1.0)
    x[(y == 1) & (rng.random(n) < 0.5)] = np.nan  # informative missingness
    c = np.where(rng.random(n) < 0.3 + 0.4 * y, "red", rng.choice(["blue", "green"], n)).astype(object)
    c[(y == 0) & (rng.random(n) < 0.3)] = np.nan
    X = pd.DataFrame({"x": x, "c": pd.Categorical(c)})
    clf, model = kn.fit_khiops_snb(X, np.where(y == 1, "yes", "no"))
    return X, clf, model


def test_missing_numbers_unseen_and_missing_categories(synthetic):
    X, clf, model = synthetic
    vx, vc = model.variables
    assert vx.name == "x" and vc.name == "c"
    # Khiops isolated the missing values in an interval of their own (#Missing bound)
    assert np.isneginf(vx.bounds[0]) and vx.labels()[0] == "Missing"
    b = vx.bounds[1:]
    xs = [np.nan, b[0], b[0] + 1e-6, b[-1], b[-1] + 1e-6, -1e9, 1e9]
    expected_x = [0, 1, 2, len(b), len(b) + 1, 1, len(b) + 1]  # ]a, b]: a bound is in the lower interval
    cs = ["purple", np.nan, "", " red ", "red", "blue", "green"]
    red = next(p for p, g in enumerate(vc.groups) if "red" in g)
    blank = next(p for p, g in enumerate(vc.groups) if "" in g)
    expected_c = [vc.default_part, blank, blank, red, red,
                  next(p for p, g in enumerate(vc.groups) if "blue" in g),
                  next(p for p, g in enumerate(vc.groups) if "green" in g)]
    rows = pd.DataFrame({"x": xs, "c": pd.Categorical(cs)})
    np.testing.assert_array_equal(model.transform(rows), np.column_stack([expected_x, expected_c]))
    # and Khiops agrees row by row
    np.testing.assert_allclose(model.predict_proba(rows), clf.predict_proba(rows), atol=1e-9)


def test_crx_unseen_category_and_missing_number(crx):
    X, _, clf, model = crx
    rows = X.iloc[:6].copy()
    rows["A6"] = rows["A6"].cat.add_categories(["zz"])
    rows.loc[rows.index[0], "A6"] = "zz"          # unseen: default group " * "
    rows.loc[rows.index[1], "A14"] = np.nan        # missing number: first interval
    rows.loc[rows.index[2], "A7"] = np.nan         # missing category: the group holding ""
    parts = model.transform(rows)
    names = model.feature_names
    a6 = model.variables[names.index("A6")]
    a7 = model.variables[names.index("A7")]
    assert parts[0, names.index("A6")] == a6.default_part
    assert parts[1, names.index("A14")] == 0
    assert "" in a7.groups[parts[2, names.index("A7")]]
    np.testing.assert_allclose(model.predict_proba(rows), clf.predict_proba(rows), atol=1e-9)


# ---------------------------------------------------------------------------
# Khiops' own Shapley values (the peer)
# ---------------------------------------------------------------------------


def test_khiops_shapley_values_equal_eq10(crx):
    """Khiops 11's interpret_predictor values (10 significant digits) = eq. 10 computed by
    lib.naive_bayes from the read tables, every row, variable and class."""
    X, _, clf, model = crx
    theirs = kn.khiops_interpret(clf, X)
    parts = model.transform(X)
    for c in model.classes:
        ours, _ = nb.shapley_values(model.tables(), parts, c)
        np.testing.assert_allclose(theirs[c][model.feature_names].to_numpy(), ours, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(model.shapley_values(parts, c), ours, atol=1e-13)


def test_khiops_multiclass_shapley_pools_the_rest():
    """With > 2 unbalanced classes Khiops pools the counts of "the rest"
    (KIShapleyTable.cpp); KhiopsSNB.shapley_values reproduces it, lib.naive_bayes's
    prior-weighted mixture differs by O(1/N)."""
    _need_khiops()
    X, y = data.load_iris()
    keep = np.r_[0:50, 50:70, 100:150]
    X, y = X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)
    clf, model = kn.fit_khiops_snb(X, y)
    np.testing.assert_allclose(model.predict_proba(X), clf.predict_proba(X), atol=1e-9)
    theirs = kn.khiops_interpret(clf, X)
    parts = model.transform(X)
    gaps = []
    for c in model.classes:
        k = theirs[c][model.feature_names].to_numpy()
        np.testing.assert_allclose(model.shapley_values(parts, c), k, rtol=1e-9, atol=1e-12)
        gaps.append(np.abs(nb.shapley_values(model.tables(), parts, c)[0] - k).max())
        # the pooled rest likelihood, plugged into eq. 10, gives Khiops' values
        t = model.tables()
        ci = list(model.classes).index(c)
        lam = [np.log(l[:, ci]) - np.log(r) for l, r in zip(t.likelihood, model.rest_likelihood(c))]
        manual = np.column_stack([w * (lm[parts[:, i]] - pp @ lm)
                                  for i, (w, lm, pp) in enumerate(zip(t.weights, lam, t.part_prob))])
        np.testing.assert_allclose(manual, k, rtol=1e-9, atol=1e-12)
    assert 1e-5 < max(gaps) < 1e-2


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_bad_input(crx):
    X, _, clf, model = crx
    with pytest.raises(ValueError, match="lacks"):
        model.transform(X.drop(columns=["A9"]))
    with pytest.raises(ValueError, match="DataFrame"):
        model.transform(X.to_numpy())
    with pytest.raises(ValueError, match="not one of"):
        model.shapley_values(model.transform(X), "maybe")
    with pytest.raises(ValueError, match="numerical"):
        model.transform(X.assign(A8="abc"))
    with pytest.raises(ValueError, match="source must be"):
        kn.read_khiops_snb(42)
    # a bivariate grid (n_pairs > 0) or a constructed feature (trees) is refused
    domain = clf.model_.copy()
    snb = domain.get_dictionary(clf.model_main_dictionary_name_).get_variable("SNBClass")
    snb.rule = snb.rule.replace("DataGridStats(PA6, A6)", "DataGridStats(PA6, A6, A7)")
    with pytest.raises(ValueError, match="n_pairs"):
        kn.read_khiops_snb(domain, clf.model_main_dictionary_name_)
    domain = clf.model_.copy()
    dic = domain.get_dictionary(clf.model_main_dictionary_name_)
    dic.get_variable("A6").rule = 'Concat(A1, A4)'
    with pytest.raises(ValueError, match="n_trees"):
        kn.read_khiops_snb(domain, clf.model_main_dictionary_name_)
