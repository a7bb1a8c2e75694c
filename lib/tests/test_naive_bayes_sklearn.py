"""lib.naive_bayes_sklearn.from_sklearn: scikit-learn's four naive Bayes classifiers, Eq. (L10) generalised.

The closed form is checked against the exact engine on the classifier's *own* log-odds (two
classes, where the pooled-rest game is the classifier's), against the chapter's Eq. (L10) code on
the model's tables, and the per-feature terms against scikit-learn's joint log-likelihood.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB

from lib import naive_bayes as nb
from lib import naive_bayes_sklearn as nbs
from lib import shapley as sh


def _data(n_classes: int, kind: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, 300)
    if kind == "categorical":
        X = (rng.integers(0, 3, (300, 5)) + y[:, None] * np.array([1, 0, 1, 0, 0])) % 4
    elif kind in ("multinomial", "bernoulli"):
        X = rng.poisson(1.0 + y[:, None] * np.array([0.5, 0.0, 1.0, 0.2, 0.0]), (300, 5))
    else:
        X = rng.normal(size=(300, 5)) + y[:, None] * np.array([1.0, 0.0, -0.5, 0.3, 0.0])
    return X.astype(float), y


MODELS = {
    "categorical": lambda: CategoricalNB(alpha=1.0),
    "bernoulli": lambda: BernoulliNB(binarize=1.0),
    "gaussian": lambda: GaussianNB(),
    "multinomial": lambda: MultinomialNB(alpha=0.5),
}


@pytest.mark.parametrize("kind", list(MODELS))
def test_terms_are_scikit_learns_joint_log_likelihood(kind):
    X, y = _data(3, kind)
    model = MODELS[kind]().fit(X, y)
    adapter = nbs.from_sklearn(model)
    joint = adapter.log_prior + adapter.log_likelihood_terms(X).sum(axis=1)
    np.testing.assert_allclose(joint, model.predict_joint_log_proba(X), rtol=1e-12, atol=1e-9)
    p = model.predict_proba(X)
    np.testing.assert_allclose(adapter.posterior_log_odds(X), np.log(p) - np.log1p(-p), atol=1e-8)


@pytest.mark.parametrize("kind", list(MODELS))
def test_two_classes_closed_form_is_the_exact_value_of_the_classifiers_log_odds(kind):
    X, y = _data(2, kind, seed=1)
    model = MODELS[kind]().fit(X, y)
    explain, background = X[:7], X[100:140]
    ours = nbs.from_sklearn(model).shapley(explain, background)

    def own_log_odds(Z):
        lp = model.predict_log_proba(Z)
        return lp[:, 1] - lp[:, 0]

    exact = sh.exact_shapley(own_log_odds, explain, background)
    np.testing.assert_allclose(ours.values, exact.values, atol=1e-9)
    np.testing.assert_allclose(ours.base_values, exact.base_values, atol=1e-9)
    np.testing.assert_allclose(ours.outputs, own_log_odds(explain), atol=1e-9)
    assert ours.method == "naive-bayes-pooled-rest" and ours.output_names == ["1 vs pooled rest"]
    posterior = nbs.from_sklearn(model).shapley(explain, background, game="posterior")
    np.testing.assert_allclose(posterior.values, ours.values, atol=1e-9)  # two classes: one game


@pytest.mark.parametrize("kind", ["categorical", "bernoulli"])
def test_training_frequencies_are_eq_l10_on_the_models_tables(kind):
    X, y = _data(3, kind, seed=2)
    model = MODELS[kind]().fit(X, y)
    adapter = nbs.from_sklearn(model)
    ours = adapter.shapley(X[:9])
    parts = (X[:9] > 1.0).astype(np.int64) if kind == "bernoulli" else X[:9].astype(np.int64)
    for j, c in enumerate(model.classes_):
        values, base = nb.shapley_values(adapter.tables, parts, c)
        np.testing.assert_allclose(ours.values[:, :, j], values, atol=1e-12)
        np.testing.assert_allclose(ours.base_values[:, j], base, atol=1e-12)
    # the training rows as background give the same expectation as the stored frequencies
    np.testing.assert_allclose(adapter.shapley(X[:9], X).values, ours.values, atol=1e-10)


def test_more_classes_two_games_each_exact_and_different():
    X, y = _data(3, "gaussian", seed=3)
    model = GaussianNB().fit(X, y)
    adapter = nbs.from_sklearn(model)
    explain, background = X[:5], X[200:230]
    rest = adapter.shapley(explain, background)
    assert rest.values.shape == (5, 5, 3) and rest.output_names == [f"{c} vs pooled rest" for c in (0, 1, 2)]
    for j, c in enumerate(model.classes_):
        def pooled(Z, c=c):
            bias, lam = adapter.rest_log_ratios(Z, c)
            return bias + lam.sum(axis=1)
        exact = sh.exact_shapley(pooled, explain, background)
        np.testing.assert_allclose(rest.values[:, :, j], exact.values, atol=1e-9)
    own = adapter.shapley(explain, background, game="posterior")
    np.testing.assert_allclose(own.efficiency_gap(), 0.0, atol=1e-9)
    p = model.predict_proba(explain)
    np.testing.assert_allclose(own.outputs, np.log(p) - np.log1p(-p), atol=1e-8)
    assert np.abs(own.values - rest.values).max() > 1e-3     # not the same game with three classes
    assert own.method == "naive-bayes-posterior-exact"


def test_bad_models_and_rows_are_named():
    X, y = _data(2, "categorical")
    with pytest.raises(ValueError, match="ComplementNB"):
        nbs.from_sklearn(ComplementNB().fit(X, y))
    with pytest.raises(ValueError, match="not fitted"):
        nbs.from_sklearn(GaussianNB())
    with pytest.raises(ValueError, match="one class"):
        nbs.from_sklearn(GaussianNB().fit(X, np.zeros(len(X))))
    adapter = nbs.from_sklearn(CategoricalNB().fit(X, y))
    bad = X[:3].copy()
    bad[2, 1] = 9
    with pytest.raises(ValueError, match="row 2, column 1: 9 is not a category"):
        adapter.shapley(bad)
    with pytest.raises(ValueError, match="stores no distribution"):
        nbs.from_sklearn(GaussianNB().fit(X, y)).shapley(X[:2])
    with pytest.raises(ValueError, match="pass background"):
        nbs.from_sklearn(GaussianNB().fit(X, y)).shapley(X[:2], game="posterior")
    with pytest.raises(ValueError, match="game must be"):
        adapter.shapley(X[:2], game="own")


# ---------------------------------------------------------------------------
# Columns matched by name (issue 36, item 1): the adapter read DataFrames by position, so a
# reordered X or background gave wrong numbers with no error
# ---------------------------------------------------------------------------

NAMES = ["age", "dose", "weight", "score", "visits"]


def _fitted_on_frame(kind: str, n_classes: int = 2):
    import pandas as pd

    X, y = _data(n_classes, kind, seed=3)
    frame = pd.DataFrame(X, columns=NAMES)
    return MODELS[kind]().fit(frame, y), frame


@pytest.mark.parametrize("kind", list(MODELS))
def test_reordered_columns_are_matched_by_name(kind):
    model, frame = _fitted_on_frame(kind)
    adapter = nbs.from_sklearn(model)
    explain, background = frame.iloc[:6], frame.iloc[100:160]
    shuffled = NAMES[::-1]
    ours = adapter.shapley(explain, background)
    # X and the background both reordered, and the background alone
    for x_cols, b_cols in ((shuffled, shuffled), (NAMES, shuffled), (shuffled, NAMES)):
        moved = adapter.shapley(explain[x_cols], background[b_cols])
        np.testing.assert_array_equal(moved.values, ours.values)
        np.testing.assert_array_equal(moved.outputs, ours.outputs)
        assert moved.feature_names == NAMES
    # the outputs are the classifier's own log-odds, whatever the order given
    lp = model.predict_log_proba(explain)
    np.testing.assert_allclose(adapter.shapley(explain[shuffled], background).outputs, lp[:, 1] - lp[:, 0],
                               atol=1e-8)
    assert ours.feature_names == NAMES
    assert adapter.tables.feature_names == NAMES if kind in ("categorical", "bernoulli") else True


@pytest.mark.parametrize("kind", list(MODELS))
def test_renamed_missing_or_extra_columns_are_refused(kind):
    model, frame = _fitted_on_frame(kind)
    adapter = nbs.from_sklearn(model)
    explain, background = frame.iloc[:4], frame.iloc[100:140]
    renamed = explain.rename(columns={"dose": "Dose"})
    # one feature-name rule for every entry point (lib.validation.match_columns, issue 44)
    with pytest.raises(ValueError, match=r"fitted on \(not among them: \['Dose'\]; missing: \['dose'\]\).*"
                                         r"X.rename\(columns=\{'Dose': 'dose'\}\)"):
        adapter.shapley(renamed, background)
    with pytest.raises(ValueError, match=r"background's columns .*missing: \['weight'\]"):
        adapter.shapley(explain, background.drop(columns="weight"))
    with pytest.raises(ValueError, match=r"X's columns .*not among them: \['extra'\]"):
        adapter.shapley(explain.assign(extra=1.0), background)
    with pytest.raises(ValueError, match="any order: they are matched by name"):
        adapter.log_likelihood_terms(renamed)


def test_the_posterior_game_matches_columns_by_name_too():
    model, frame = _fitted_on_frame("gaussian", n_classes=3)
    adapter = nbs.from_sklearn(model)
    explain, background = frame.iloc[:3], frame.iloc[100:130]
    ours = adapter.shapley(explain, background, game="posterior")
    moved = adapter.shapley(explain[NAMES[::-1]], background[NAMES[1:] + NAMES[:1]], game="posterior")
    np.testing.assert_allclose(moved.values, ours.values, atol=1e-12)
    assert moved.feature_names == NAMES


def test_a_model_fitted_on_an_array_matches_the_backgrounds_columns_to_xs():
    import pandas as pd

    X, y = _data(2, "gaussian", seed=4)
    model = GaussianNB().fit(X, y)                       # no feature_names_in_: X is read by position
    adapter = nbs.from_sklearn(model)
    explain, background = pd.DataFrame(X[:4], columns=NAMES), pd.DataFrame(X[50:90], columns=NAMES)
    ours = adapter.shapley(explain, background)
    np.testing.assert_array_equal(adapter.shapley(explain, background[NAMES[::-1]]).values, ours.values)
    assert ours.feature_names == NAMES
    with pytest.raises(ValueError, match=r"background's columns do not match the ones X has"):
        adapter.shapley(explain, background.rename(columns={"age": "Age"}))
