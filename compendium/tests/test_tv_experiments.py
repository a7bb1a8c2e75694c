"""compendium.experiments.tv_simulated and tv_real_data with lib.typical_value (moved from lib/tests/test_typical_value.py)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from compendium.experiments import tv_real_data as rd
from compendium.experiments.tv_simulated import simulate
from lib import naive_bayes as nb
from lib import typical_value as tv
from lib.tests.test_typical_value import categorical_data, nb_fitted  # noqa: F401 - pytest fixtures and helpers shared with lib's tests


def test_array_and_frame_inputs_agree():
    X, y = simulate("naive-bayes", 500, 3, 0.2, np.random.default_rng(1))
    t = tv.typical_values(X, y)
    m_frame = LogisticRegression().fit(X, y)
    m_arr = LogisticRegression().fit(X.to_numpy(), y)
    a = tv.typical_value_contributions(m_frame, X.iloc[:20], t)
    b = tv.typical_value_contributions(m_arr, X.iloc[:20].to_numpy(), t)
    np.testing.assert_allclose(a.values, b.values, atol=1e-9)
    assert isinstance(b.data, np.ndarray) and isinstance(a.data, pd.DataFrame)


def test_contributions_bad_input(nb_fitted):
    X, y, model = nb_fitted
    t = tv.typical_values(X, y)
    with pytest.raises(ValueError, match="features"):
        tv.typical_value_contributions(model, X.iloc[:, :3], t)
    with pytest.raises(ValueError, match="predict_proba"):
        tv.typical_value_contributions(object(), X, t)
    with pytest.raises(ValueError, match=r"output=.* is not one of the classes"):
        tv.typical_value_contributions(model, X, t, output=7)
    with pytest.raises(ValueError, match="scale"):
        tv.typical_value_contributions(model, X, t, scale="prob")
    with pytest.raises(ValueError, match="no rows"):
        tv.typical_value_contributions(model, X.iloc[:0], t)
    Xn, yn = simulate("naive-bayes", 300, 3, 0.3, np.random.default_rng(0))
    yn3 = np.where(np.arange(300) % 7 == 0, 2, yn)
    m3 = LogisticRegression().fit(Xn, yn3)
    with pytest.raises(ValueError, match="binary"):
        tv.typical_value_contributions(m3, Xn, tv.typical_values(Xn, yn3, negative=0))


def test_integral_with_one_background_row_is_the_typical_value_method():
    X, y = simulate("interaction", 800, 4, 0.1, np.random.default_rng(2))
    model = LogisticRegression().fit(X, y)
    t = tv.typical_values(X, y)
    one = pd.DataFrame([t.values.astype(float)], columns=X.columns)
    a = tv.integral_contributions(model, X.iloc[:30], one, scale="logit")
    b = tv.typical_value_contributions(model, X.iloc[:30], t, scale="logit")
    np.testing.assert_allclose(a.values, b.values, atol=1e-12)
    # for a logistic regression the logit contribution is beta_k (x_k - x̄_k)
    np.testing.assert_allclose(b.values, model.coef_[0] * (X.iloc[:30].to_numpy() - t.values.astype(float)),
                               atol=1e-9)


@pytest.mark.parametrize("kind", ["naive-bayes", "correlated", "interaction"])
def test_simulate_positive_rate(kind):
    X, y = simulate(kind, 20_000, 4, 0.05, np.random.default_rng(0))
    assert X.shape == (20_000, 4) and abs(y.mean() - 0.05) < 0.01


def test_simulate_correlation_and_errors():
    X, y = simulate("correlated", 20_000, 3, 0.5, np.random.default_rng(0), rho=0.6)
    r = np.corrcoef(X[y == 0].to_numpy().T)
    assert abs(r[0, 1] - 0.6) < 0.03
    with pytest.raises(ValueError, match="kind"):
        simulate("other", 10, 2, 0.1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="positive_rate"):
        simulate("naive-bayes", 10, 2, 1.0, np.random.default_rng(0))
    with pytest.raises(TypeError):
        simulate("naive-bayes", 10, 2, 0.1, 0)


def test_compare_with_shapley_on_naive_bayes_uses_closed_forms(nb_fitted):
    """On a naive Bayes log-odds: Shapley = Lemaire et al. eq. 10 with the background's part
    frequencies, typical value = WoE(x_k) - WoE(typical); the per-row metrics must be those of
    these closed forms, computed here with scipy directly."""
    from scipy.stats import spearmanr

    X, y, model = nb_fitted
    rows, background = X.iloc[:25].reset_index(drop=True), X.iloc[100:160].reset_index(drop=True)
    typical = tv.typical_values(X, y)
    rec, shap_res = rd.compare_with_shapley(model, rows, background, typical, top_k=(1, 2))
    t = model.tables_
    parts_bg = model.transform(background)
    freq = [np.bincount(parts_bg[:, k], minlength=t.n_parts[k]) / len(background) for k in range(X.shape[1])]
    eq10, _ = nb.shapley_values(nb.NaiveBayesTables(**{**t.__dict__, "part_prob": freq}), model.transform(rows), 1)
    np.testing.assert_allclose(shap_res.values[:, :, 1], eq10, atol=1e-10)
    woe = nb.weight_of_evidence(t, model.transform(rows), 1)
    typ_parts = model.transform(pd.DataFrame({c: pd.Categorical([typical.values[k]], dtype=X[c].dtype)
                                              for k, c in enumerate(X.columns)}))
    tv_logit = woe - nb.weight_of_evidence(t, typ_parts, 1)
    sel = rec[(rec["scale"] == "logit") & (rec["method"] == "typical value")].set_index("row")
    for i in range(len(rows)):
        a, b = tv_logit[i], eq10[i]
        expected = np.nan if np.ptp(a) == 0 or np.ptp(b) == 0 else spearmanr(a, b).statistic
        np.testing.assert_allclose(sel.loc[i, "spearman"], expected, atol=1e-12)
        assert sel.loc[i, "sign"] == pytest.approx(np.mean(np.sign(a) == np.sign(b)))
        assert sel.loc[i, "top-1"] == float(np.argmax(np.abs(a)) == np.argmax(np.abs(b)))
    # the bias closes the sum; the Shapley base value is the same for every row
    assert np.ptp(rec["shapley base"][rec["scale"] == "log"]) < 1e-12
    logf = np.log(model.predict_proba(rows)[:, 1])
    np.testing.assert_allclose(rec.loc[rec["scale"] == "log", "output"].to_numpy()[:25], logf, rtol=1e-12)
    np.testing.assert_allclose(rec["f"].to_numpy()[:25], np.exp(logf), rtol=1e-12)
    assert len(rec) == 4 * len(rows) and set(rec["method"]) == {"typical value", "integral"}
    with pytest.raises(ValueError, match="top_k"):
        rd.compare_with_shapley(model, rows, background, typical, top_k=(9,))


def test_compare_with_shapley_integral_with_the_typical_row_as_background(nb_fitted):
    """A background made of the typical row alone makes the integral variant the typical-value
    method, and the interventional game's v(N \\ {k}) that same one-feature replacement."""
    X, y, model = nb_fitted
    typical = tv.typical_values(X, y)
    bg = pd.DataFrame({c: pd.Categorical([typical.values[k]], dtype=X[c].dtype) for k, c in enumerate(X.columns)})
    rec, _ = rd.compare_with_shapley(model, X.iloc[:10], bg, typical)
    a = rec[rec["method"] == "typical value"].drop(columns="method").reset_index(drop=True)
    b = rec[rec["method"] == "integral"].drop(columns="method").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, atol=1e-12)


def test_summarise_comparison_by_hand():
    rec = pd.DataFrame({
        "scale": ["log"] * 4, "method": ["a", "a", "b", "b"],
        "bias": [1.0, 3.0, 2.0, 2.0], "output": [0.0, 4.0, 0.0, 2.0],
        "spearman": [1.0, 0.0, np.nan, 0.5], "kendall": [1.0, 0.0, 0.2, 0.4],
        "sign": [1.0, 0.5, 0.25, 0.75], "top-3": [1.0, 1.0, 0.0, 1 / 3], "top-1": [1.0, 0.0, 0.0, 1.0],
    })
    s = rd.summarise_comparison(rec)
    assert list(s.columns) == ["spearman", "kendall", "sign", "top-1", "top-3", "sd of bias", "bias sd / output sd", "rows"]
    assert s.loc[("log", "a"), "spearman"] == 0.5 and s.loc[("log", "b"), "spearman"] == 0.5  # NaN skipped
    assert s.loc[("log", "a"), "sd of bias"] == 1.0 and s.loc[("log", "a"), "bias sd / output sd"] == 0.5
    assert s.loc[("log", "b"), "sd of bias"] == 0.0 and s.loc[("log", "b"), "rows"] == 2
    with pytest.raises(ValueError, match="lack columns"):
        rd.summarise_comparison(rec.drop(columns="bias"))


def _real_like(n=1200, seed=3):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.1, "pos", "neg")
    X = pd.DataFrame({f"noise{j}": rng.standard_normal(n) for j in range(4)})
    X["signal"] = rng.standard_normal(n) + 2.0 * (y == "pos")
    X["cat"] = pd.Categorical(np.where((y == "pos") & (rng.random(n) < 0.8), "b", "a"), categories=["a", "b"])
    X.loc[rng.random(n) < 0.1, "signal"] = np.nan
    X.loc[rng.random(n) < 0.1, "cat"] = np.nan
    return X, y


def test_prepare_real_data_selects_imputes_and_samples():
    X, y = _real_like()
    s = rd.prepare_real_data("toy", X, y, "pos", max_features=2, n_background=30, n_explain=20, seed=1)
    assert s.selected == ["signal", "cat"]  # the informative ones, original order
    assert not s.X_train.isna().any().any() and not s.X_test.isna().any().any()
    # imputation with the training median / mode: the train rows that were missing hold it
    med = s.X_train["signal"].value_counts().idxmax()
    n_missing_train = int(X["signal"].isna().sum() * 0.7)
    assert (s.X_train["signal"] == med).sum() >= 0.5 * n_missing_train
    assert len(s.background) == 30 and len(s.rows) == 20 and s.rows_y.sum() == 10
    assert set(np.unique(s.y_train)) == {0, 1} and abs(s.y_train.mean() - s.y_test.mean()) < 0.02
    # background rows come from the training split, explained rows from the test split
    key = lambda F: set(map(tuple, F.astype(str).to_numpy()))  # noqa: E731
    assert key(s.background) <= key(s.X_train) and key(s.rows) <= key(s.X_test)
    s2 = rd.prepare_real_data("toy", X, y, "pos", max_features=2, n_background=30, n_explain=20, seed=1)
    pd.testing.assert_frame_equal(s.rows, s2.rows)
    assert len(rd.prepare_real_data("toy", X, y, "pos", max_features=10).selected) == 6
    with pytest.raises(ValueError, match="single class"):
        rd.prepare_real_data("toy", X, y, "other")
    with pytest.raises(ValueError, match="DataFrame"):
        rd.prepare_real_data("toy", X.to_numpy(), y, "pos")
    with pytest.raises(ValueError, match="rows"):
        rd.prepare_real_data("toy", X, y[:-1], "pos")


def test_real_data_typical_values_use_the_data_as_given():
    """The Adult case in miniature: the negatives' own mode is "clerical", but a fifth of
    the negatives have no value, and imputing them with the overall mode ("prof", the
    positives' value) before taking the mode would make "prof" typical."""
    rng = np.random.default_rng(0)
    n = 2000
    y = np.where(rng.random(n) < 0.4, "pos", "neg")
    neg = y == "neg"
    occ = np.where(neg, rng.choice(["clerical", "prof", "sales"], n, p=[0.40, 0.35, 0.25]), "prof")
    occ = np.where(neg & (rng.random(n) < 0.2), None, occ)
    X = pd.DataFrame({"occupation": pd.Categorical(occ, categories=["clerical", "prof", "sales"]),
                      "x": rng.standard_normal(n)})
    s = rd.prepare_real_data("toy", X, y, "pos", seed=0)
    assert s.fill["occupation"] == "prof"  # the overall training mode
    # the mode among the training negatives with a value, counted by hand
    train_occ = s.X_train_given["occupation"].to_numpy(dtype=object)
    counts = Counter(v for v, label in zip(train_occ, s.y_train) if label == 0 and v is not None and v == v)
    assert counts.most_common(1)[0][0] == "clerical"
    typ = s.typical_values()
    assert typ.values[0] == "clerical" and typ.kinds[0] == "categorical"
    assert 0.1 < typ.missing_share[0] < 0.3
    # imputing first would have made the positives' value typical: the case the method avoids
    assert tv.typical_values(s.X_train, s.y_train).values[0] == "prof"
    # X_train is X_train_given with the missing values filled
    pd.testing.assert_frame_equal(s.X_train, s.X_train_given.fillna(s.fill))


@settings(max_examples=25, deadline=None)
@given(missing=st.floats(0.55, 0.95), seed=st.integers(0, 2**16))
def test_real_data_missing_typical_value_gets_the_fill_value(missing, seed):
    """A feature missing for most negatives has the draft's "missing" typical value; the
    classifiers see imputed data, so the value plugged in is the training fill value."""
    rng = np.random.default_rng(seed)
    n = 400
    y = np.where(rng.random(n) < 0.3, "pos", "neg")
    X = pd.DataFrame({"a": rng.standard_normal(n) + (y == "pos"), "b": rng.standard_normal(n)})
    X.loc[(y == "neg") & (rng.random(n) < missing), "b"] = np.nan
    s = rd.prepare_real_data("toy", X, y, "pos", seed=0)
    share = float(np.isnan(s.X_train_given["b"].to_numpy()[s.y_train == 0]).mean())
    typ = s.typical_values()
    assert typ.missing_share[1] == pytest.approx(share)
    if share > 0.5:
        assert typ.kinds[1] == "missing" and typ.values[1] == s.fill["b"]
        assert s.fill["b"] == pytest.approx(float(np.nanmedian(s.X_train_given["b"])))
    else:
        assert typ.kinds[1] != "missing"
    assert typ.kinds[0] != "missing" and not np.isnan(float(typ.values[0]))


@pytest.mark.parametrize("kind", rd.MODEL_KINDS)
def test_real_data_models_fit_on_mixed_frames(kind):
    from sklearn.calibration import CalibratedClassifierCV
    from threadpoolctl import threadpool_limits

    X, y = _real_like(600)
    s = rd.prepare_real_data("toy", X, y, "pos", max_features=3, seed=0)
    for calibrated in (False, True):
        with threadpool_limits(limits=1):  # gradient boosting's OpenMP pool is slow on a shared machine
            m = rd.real_data_model(kind, calibrated, s.X_train).fit(s.X_train, s.y_train)
        assert isinstance(m, CalibratedClassifierCV) == calibrated
        p = m.predict_proba(s.X_test)[:, 1]
        assert np.all((p > 0) & (p < 1))
    with pytest.raises(ValueError, match="kind"):
        rd.real_data_model("forest", False, s.X_train)
