"""Issue 44, "never silently wrong, everywhere": one test per finding of the issue, each failing on the
code before it (the conformance suite, lib/tests/test_conformance.py, runs every entry point through
the same cases; these tests pin the issue's own examples)."""

from __future__ import annotations

import io
import re
import warnings
from contextlib import redirect_stderr

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from lib import coalitional, compositions, grouping, naive_bayes_sklearn, sdp_estimation, typical_value
from lib.counting import CountingModel
from lib.shapley import exact_shapley, sample_shapley

matplotlib.use("Agg")

NAMES = ["age", "dose", "score"]


def _data(n: int = 120, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(1.0, 1.0, (n, 3)), columns=NAMES)
    y = (X["age"] - 0.5 * X["dose"] + 0.3 * X["score"] + rng.normal(0, 0.5, n) > 0.5).astype(int).to_numpy()
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    return X, y, LogisticRegression().fit(X, y)


def _what_if(X: pd.DataFrame) -> pd.DataFrame:
    """A row typed by hand with whole numbers: int64 columns, the background's names."""
    return pd.DataFrame({"age": [2, 0], "dose": [1, 3], "score": [0, 2]}, columns=NAMES)


# -- 1. hybrid rows keep every value -----------------------------------------------------------


def test_a_whole_number_row_against_a_float_background_keeps_the_background_values(fitted):
    X, y, model = fitted
    B = X.iloc[:12]
    typed = _what_if(X)
    floats = typed.astype(float)
    pairs = [
        (exact_shapley(model, typed, B, output=1), exact_shapley(model, floats, B, output=1)),
        (sample_shapley(model, typed, B, max_rows=200, rng=np.random.default_rng(0), output=1),
         sample_shapley(model, floats, B, max_rows=200, rng=np.random.default_rng(0), output=1)),
        (coalitional.coalitional_explanation(model, typed, B, [[0, 1], [2]], output=1),
         coalitional.coalitional_explanation(model, floats, B, [[0, 1], [2]], output=1)),
        (typical_value.integral_contributions(model, typed, B), typical_value.integral_contributions(model, floats, B)),
    ]
    for ours, clean in pairs:
        np.testing.assert_allclose(ours.values, clean.values, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours.base_values, clean.base_values, rtol=0, atol=1e-12)
    comp = compositions.exact_shapley_compositions(model, typed, B)
    np.testing.assert_allclose(comp.values, compositions.exact_shapley_compositions(model, floats, B).values,
                               rtol=0, atol=1e-12)
    regressor = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, X["age"] * 10 + X["dose"] * 5)
    np.testing.assert_allclose(exact_shapley(regressor.predict, typed, B).values,
                               exact_shapley(regressor.predict, floats, B).values, rtol=0, atol=1e-12)


def test_hybrid_columns_take_a_dtype_that_holds_both_and_categories_stay():
    from lib.games import Game

    X = pd.DataFrame({"n": [1, 2], "c": pd.Categorical(["x", "y"], categories=["x", "y"])})
    B = pd.DataFrame({"n": [0.5, 1.5], "c": pd.Categorical(["y", "y"], categories=["x", "y"])})
    game = Game(lambda Z: np.zeros(len(Z)), X, B)
    rows = game.hybrid(np.array([0, 1]), np.array([[False, True], [False, False]]), np.array([0, 1]))
    assert rows["n"].tolist() == [0.5, 1.5] and isinstance(rows["c"].dtype, pd.CategoricalDtype)
    assert rows["c"].tolist() == ["x", "y"]


# -- 2. the naive Bayes adapter, a Series row, an empty background --------------------------------


def test_the_naive_bayes_adapter_reads_a_series_by_name_and_refuses_an_empty_background(fitted):
    X, y, _ = fitted
    adapter = naive_bayes_sklearn.from_sklearn(GaussianNB().fit(X * 1e3, y))
    rows, background = X.iloc[:3] * 1e3, X.iloc[10:40] * 1e3
    row = rows.iloc[1][["score", "age", "dose"]]                       # a Series in another order
    np.testing.assert_allclose(adapter.shapley(row, background).values, adapter.shapley(rows.iloc[[1]], background).values,
                               rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="background has no rows"):
        adapter.shapley(rows, background.iloc[:0])


# -- 3. swing with data in another column order ----------------------------------------------------


def test_swing_reads_data_by_name_for_a_forest_fitted_on_arrays_and_a_function():
    rng = np.random.default_rng(3)
    Z = pd.DataFrame(rng.integers(0, 2, (300, 3)), columns=["smoker", "cough", "fever"])
    y = (Z["smoker"] & Z["cough"] | Z["fever"]).to_numpy()
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(Z.to_numpy(), y)   # no feature names
    x = Z.iloc[:4]
    for model in (forest, lambda rows: forest.predict_proba(np.asarray(rows[["smoker", "cough", "fever"]]))):
        ours = sdp_estimation.swing_explanation(model, x, Z[["fever", "smoker", "cough"]])
        clean = sdp_estimation.swing_explanation(model, x, Z)
        np.testing.assert_allclose(ours.values, clean.values, rtol=0, atol=1e-12)


# -- 4. errors whose remedy works -----------------------------------------------------------------


def test_every_explainer_that_suggests_allow_nan_takes_it(fitted):
    X, y, model = fitted

    def tolerant(Z):
        return model.predict_proba(Z.fillna(0.0))

    missing = X.iloc[:2].copy()
    missing.iloc[1, 1] = np.nan
    B = X.iloc[10:16]
    calls = {
        "exact_shapley": lambda **k: exact_shapley(tolerant, missing, B, **k),
        "sample_shapley": lambda **k: sample_shapley(tolerant, missing, B, max_rows=100, rng=0, **k),
        "kernel_shap": lambda **k: __import__("lib.kernel_comparison").kernel_comparison.kernel_shap(
            tolerant, missing, B, seed=0, nsamples=10, **k),
        "coalitional_explanation": lambda **k: coalitional.coalitional_explanation(tolerant, missing, B, [[0, 1], [2]],
                                                                                   output=1, **k),
        "shap_sampling_compositions": lambda **k: compositions.shap_sampling_compositions(
            tolerant, missing, B, n_samples=20, seed=0, **k),
    }
    for name, run in calls.items():
        with pytest.raises(ValueError, match=r"X has a missing value \(NaN\) at row 1, column 'dose'") as err:
            run()
        message = str(err.value)
        assert "allow_nan=True" in message, name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            if "lib.games.Game(" in message:   # sample_shapley: through the game it is given
                from lib.games import Game

                result = sample_shapley(Game(tolerant, missing, B, allow_nan=True), max_rows=100, rng=0)
            else:
                result = run(allow_nan=True)
        assert np.all(np.isfinite(result.values)), name


def test_repeated_columns_with_a_function_model_are_named_not_an_attribute_error(fitted):
    X, y, model = fitted
    twice = pd.concat([X.iloc[:2], X.iloc[:2][["age"]]], axis=1)
    background = pd.concat([X.iloc[5:9], X.iloc[5:9][["age"]]], axis=1)
    with pytest.raises(ValueError, match=r"X has the columns \['age'\] more than once: give each feature once"):
        exact_shapley(lambda Z: np.asarray(Z, dtype=float).sum(axis=1), twice, background)


def test_the_text_inf_in_an_object_column_is_refused_before_the_model(fitted):
    X, y, model = fitted
    row = X.iloc[:2].astype(object)
    row.iloc[0, 2] = "inf"
    seen = []

    def spy(Z):
        seen.append(len(Z))
        return model.predict_proba(np.asarray(Z, dtype=float))

    with pytest.raises(ValueError, match=r"X has an infinite value \(inf or -inf\) at row 0, column 'score'"):
        exact_shapley(spy, row, X.iloc[5:9])
    assert seen == []


# -- 5. a cost said up front, a bar whose total is right -------------------------------------------


def test_the_model_based_grouping_states_a_range_that_holds_the_rows_it_spends():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(60, 20))
    counter = CountingModel(lambda A: (A[:, 0] * A[:, 1] + A[:, 2:8].sum(axis=1) > 0).astype(int))
    err = io.StringIO()
    with redirect_stderr(err):
        found = grouping.find_groups(Z, "Model", 0.1, predict=counter, progress=True)
    text = err.getvalue()
    low, high = (int(v.replace(",", "")) for v in re.search(r"between ([\d,]+) and ([\d,]+) model rows", text).groups())
    assert low <= counter.rows <= high and found.model_rows == counter.rows
    done, total = re.findall(r"(\d+)/(\d+) \[", text)[-1]
    assert done == total == str(counter.rows // 60 - 1)                     # the bar ends full


# -- 6. results a user can plot and audit ------------------------------------------------------------


def test_single_output_results_draw_shaps_three_plots(fitted):
    import matplotlib.pyplot as plt
    import shap

    X, y, model = fitted
    B = X.iloc[10:20]
    binary = (X > 1).astype(int)
    results = {
        "output=": exact_shapley(model, X.iloc[:3], B, output=1),
        "naive Bayes (binary)": naive_bayes_sklearn.from_sklearn(GaussianNB().fit(X, y)).shapley(X.iloc[:3], B),
        "swing": sdp_estimation.swing_explanation(LogisticRegression().fit(binary, y), binary.iloc[:3], binary),
        "coalitional": coalitional.coalitional_explanation(model, X.iloc[:3], B, [[0, 1], [2]], output=1),
    }
    for name, result in results.items():
        explanation = result.to_explanation()
        assert explanation.values.ndim == 2, name
        shap.plots.waterfall(explanation[0], show=False)
        shap.plots.beeswarm(explanation, show=False)
        shap.plots.bar(explanation, show=False)
        plt.close("all")


def test_every_result_records_the_model_rows_it_spent(fitted):
    X, y, model = fitted
    B = X.iloc[10:16]
    counted = {}
    for name, run in {
        "exact": lambda f: exact_shapley(f, X.iloc[:2], B),
        "sampled": lambda f: sample_shapley(f, X.iloc[:2], B, max_rows=80, rng=0),
        "typical": lambda f: typical_value.typical_value_contributions(f, X.iloc[:2], B.iloc[0]),
        "coalitional": lambda f: coalitional.coalitional_explanation(f, X.iloc[:2], B, [[0], [1, 2]], output=1),
        "compositions": lambda f: compositions.exact_shapley_compositions(f, X.iloc[:2], B),
    }.items():
        counter = CountingModel(model.predict_proba)
        counted[name] = (run(counter).model_rows, counter.rows)
    assert all(spent == rows and rows > 0 for spent, rows in counted.values()), counted


def test_an_int_seed_is_taken_as_scikit_learn_takes_it(fitted):
    X, y, model = fitted
    B = X.iloc[10:16]
    ours = sample_shapley(model, X.iloc[:2], B, max_rows=80, rng=7)
    np.testing.assert_array_equal(ours.values,
                                  sample_shapley(model, X.iloc[:2], B, max_rows=80, rng=np.random.default_rng(7)).values)


def test_removed_names_come_back_for_one_release_with_a_deprecation_warning(fitted):
    X, y, model = fitted
    from lib import naive_bayes

    nb = GaussianNB().fit(X, y)
    with pytest.warns(DeprecationWarning, match="lib.naive_bayes_sklearn.from_sklearn"):
        adapter = naive_bayes.from_sklearn(nb)
    assert isinstance(adapter, naive_bayes_sklearn.SklearnNaiveBayes) and adapter.model is nb
    with pytest.warns(DeprecationWarning, match=r"sample_shapley\(output_names=...\) is deprecated"):
        res = sample_shapley(lambda Z: model.predict_proba(Z), X.iloc[:2], X.iloc[10:16], max_rows=80, rng=0,
                             output_names=["no", "yes"])
    assert res.output_names == ["no", "yes"]


def test_the_exact_engine_past_16_features_says_a_cost_that_holds():
    # the fast path evaluates each distinct hybrid row once: its cost is a range (at most 2**D rows per
    # pair that differs on D features), never the n 2**d m the reference path spends
    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, (1, 17))
    background = np.repeat(x, 2, axis=0)
    background[0, :6] = (x[0, :6] + 1) % 3                        # differs on 6 features
    background[1, 10:15] = (x[0, 10:15] + 1) % 3                  # and on 5
    for data, path in ((x, background), (x.astype(float), background[:1].astype(float))):
        counter = CountingModel(lambda Z: np.asarray(Z, dtype=float) @ np.arange(17.0))
        err = io.StringIO()
        with redirect_stderr(err):
            exact_shapley(counter, data, path)
        text = err.getvalue()
        if data.dtype.kind == "i":
            low, high = (int(v.replace(",", "")) for v in re.search(r"between ([\d,]+) and ([\d,]+) model rows",
                                                                      text).groups())
            assert (low, high) == (2**6, 2**6 + 2**5) and low <= counter.rows <= high
        else:
            stated = int(re.search(r"about ([\d,]+) model rows", text).group(1).replace(",", ""))
            assert stated == counter.rows == 2**17
