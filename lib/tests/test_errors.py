"""Errors that say what to do (issue 32, item 5): every case a new user met, with the user's row
and column and the remedy in the message, and nothing silent.

Each test was written before its fix and failed on the old behaviour (the message it matches was
not there, or no error was raised at all).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from lib import coalitional as co
from lib import compositions as cp
from lib import games, sampling, sdp
from lib import sdp_estimation as se
from lib import shapley as sh
from lib.games import Game


def _three_classes(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3))
    y = np.argmax(X @ rng.normal(size=(3, 3)) + rng.normal(scale=0.3, size=(60, 3)), axis=1)
    return X, y


# --- coalitional influence ----------------------------------------------------------------


def test_overlapping_groups_advise_an_overlap_option_that_exists():
    game = np.arange(8.0)
    with pytest.raises(ValueError, match="overlap='size-factorial'") as err:
        co.coalitional_influence(game, [(0, 1), (1, 2)])
    assert "overlap=True" not in str(err.value)
    # the advice works
    co.coalitional_influence(game, [(0, 1), (1, 2)], overlap="size-factorial")


def test_coalitional_influence_takes_the_feature_names_check_groups_accepts():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(4, 3)), columns=["a", "b", "c"])
    bg = pd.DataFrame(rng.normal(size=(5, 3)), columns=["a", "b", "c"])

    def f(Z):
        return np.asarray(Z, dtype=float) @ np.array([1.0, -2.0, 0.5]) + np.asarray(Z)[:, 0] * np.asarray(Z)[:, 1]

    by_index = co.coalitional_influence_interventional(f, X, bg, [(0, 1), (2,)])
    by_name = co.coalitional_influence_interventional(f, X, bg, [("a", "b"), ("c",)])
    np.testing.assert_array_equal(by_name, by_index)
    game = games.interventional_game(f, X, bg)
    np.testing.assert_array_equal(
        co.coalitional_influence(game, [("a", "b"), ("c",)], feature_names=["a", "b", "c"]),
        co.coalitional_influence(game, [(0, 1), (2,)]),
    )


# --- models ---------------------------------------------------------------------------------


def test_an_estimator_passed_for_predict_proba_is_used_through_predict_proba():
    X, y = _three_classes()
    model = LogisticRegression(max_iter=1000).fit(X, y)
    by_model = cp.exact_shapley_compositions(model, X[:2], X[:10])
    by_function = cp.exact_shapley_compositions(model.predict_proba, X[:2], X[:10])
    np.testing.assert_array_equal(by_model.ilr_values, by_function.ilr_values)
    assert by_model.class_names == ["0", "1", "2"]


def test_an_object_without_predict_proba_is_refused_naming_predict_proba():
    X, y = _three_classes()
    with pytest.raises(ValueError, match="predict_proba"):
        cp.exact_shapley_compositions(LinearRegression().fit(X, y), X[:2], X[:10])
    with pytest.raises(ValueError, match="predict_proba"):
        sh.exact_shapley(LinearRegression().fit(X, y), X[:2], X[:10])
    with pytest.raises(ValueError, match="predict_proba"):
        sh.exact_shapley("not a model", X[:2], X[:10])


def test_a_one_class_model_is_refused_instead_of_zeros():
    X = np.random.default_rng(2).normal(size=(20, 3))
    model = DecisionTreeClassifier().fit(X, np.zeros(20, dtype=int))
    with pytest.raises(ValueError, match="one class"):
        sh.exact_shapley(model, X[:2], X[:5])
    with pytest.raises(ValueError, match="one class"):
        sh.exact_shapley(model.predict_proba, X[:2], X[:5])


def test_a_predict_proba_with_a_class_dropped_is_refused():
    X, y = _three_classes()
    model = LogisticRegression(max_iter=1000).fit(X, y)
    with pytest.raises(ValueError, match="sum to 1"):
        cp.exact_shapley_compositions(lambda Z: model.predict_proba(Z)[:, :2], X[:2], X[:10])

    class Dropping:
        classes_ = np.array([0, 1, 2])

        def predict_proba(self, Z):
            return model.predict_proba(Z)[:, :2]

    with pytest.raises(ValueError, match="2 columns for 3 classes"):
        sh.exact_shapley(Dropping(), X[:2], X[:10])


def test_zero_probabilities_are_counted_in_the_users_rows_with_the_remedy():
    X, y = _three_classes()
    model = LogisticRegression(max_iter=1000).fit(X, y)

    def hard(Z):
        P = model.predict_proba(Z)
        return np.where(P < 0.05, 0.0, P) / np.where(P < 0.05, 0.0, P).sum(axis=1, keepdims=True)

    P = hard(X[:6])
    rows = np.flatnonzero((P == 0).any(axis=1))
    assert rows.size  # the example has zeros in the user's rows
    with pytest.raises(ValueError) as err:
        cp.exact_shapley_compositions(hard, X[:6], X[:10])
    message = str(err.value)
    assert f"rows {rows.tolist()} of X" in message or f"row {rows[0]} of X" in message
    assert "clip" in message and "smooth" in message
    # the remedy works
    cp.exact_shapley_compositions(hard, X[:6], X[:10], clip=1e-6)


# --- output names -----------------------------------------------------------------------------


def test_output_names_of_the_wrong_length_are_refused():
    X, y = _three_classes()
    model = LogisticRegression(max_iter=1000).fit(X, y)
    with pytest.raises(ValueError, match="3 outputs"):
        sh.exact_shapley(model.predict_proba, X[:2], X[:5], output_names=["a", "b"])
    with pytest.raises(ValueError, match="3 outputs"):
        sampling.sample_shapley(Game(model.predict_proba, X[:2], X[:5], output_names=["a"]), max_rows=200,
                          rng=np.random.default_rng(0))


# --- same-decision probability ----------------------------------------------------------------


def test_sdp_on_a_state_never_seen_names_the_row_and_the_remedy():
    d = 3
    p = np.full(2**d, 1 / (2**d - 1))
    p[0b101] = 0.0                                  # the state x0 = 1, x1 = 0, x2 = 1 never occurs
    f = np.linspace(0.1, 0.9, 2**d)
    x = np.array([[0, 0, 0], [1, 0, 1]])
    with pytest.raises(ValueError, match=r"row 1 of x") as err:
        sdp.same_decision_probability(f, p, x, 0.5)
    assert "smooth p" in str(err.value).lower()


def test_an_undefined_empirical_sdp_reaching_swing_shapley_names_the_row_and_the_remedy():
    data = np.array([[0, 0], [0, 1], [1, 0], [0, 0]])
    decisions = np.array([0, 1, 1, 0])
    x = np.array([[0, 0], [1, 1]])                  # (1, 1) matches no row on {x0, x1}
    est = se.empirical_sdp(data, decisions, x, np.array([0, 1]))
    with pytest.raises(ValueError, match=r"row 1") as err:
        sdp.swing_shapley(est.sdp, 0.9)
    assert "undefined" in str(err.value)
    assert "forest_sdp" in str(err.value) and "more rows" in str(err.value)


# --- typical-value contributions --------------------------------------------------------------


class _ZeroAtPositiveX0:
    """A classifier whose positive-class probability is 0 where x0 > 0."""

    classes_ = np.array([0, 1])

    def predict_proba(self, Z):
        p = np.where(np.asarray(Z, dtype=float)[:, 0] > 0, 0.0, 0.3)
        return np.column_stack([1 - p, p])


def test_typical_value_zero_probabilities_are_named_in_the_users_rows():
    from lib import typical_value as tv

    X = np.array([[-1.0, 0.0], [1.0, 0.0], [-2.0, 1.0]])
    negatives = tv.typical_values(np.array([[2.0, 0.0], [3.0, 0.0]]), [0, 0])   # typical x0 = 2: p = 0
    with pytest.raises(ValueError, match=r"at row 1 of X"):
        tv.typical_value_contributions(_ZeroAtPositiveX0(), X, negatives)
    with pytest.raises(ValueError, match=r"at row 0 with 'x0' set to its typical value, row 1 with 'x0'"):
        tv.typical_value_contributions(_ZeroAtPositiveX0(), X[[0, 2]], negatives)
    with pytest.raises(ValueError, match=r"clip=eps"):
        tv.typical_value_contributions(_ZeroAtPositiveX0(), X[[0, 2]], negatives)


def test_typical_value_takes_a_callable_as_every_explainer_does():
    from lib import typical_value as tv

    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    typical = tv.typical_values(X, y)
    by_model = tv.typical_value_contributions(model, X[:5], typical)
    by_column = tv.typical_value_contributions(lambda Z: model.predict_proba(Z)[:, 1], X[:5], typical)
    by_function = tv.typical_value_contributions(model.predict_proba, X[:5], typical)
    np.testing.assert_array_equal(by_column.values, by_model.values)
    np.testing.assert_array_equal(by_function.values, by_model.values)


def test_a_dropped_class_is_named_in_the_users_rows_not_the_evaluated_ones():
    X, y = _three_classes()
    model = LogisticRegression(max_iter=1000).fit(X, y)
    with pytest.raises(ValueError, match=r"rows \[0, 1\] of X and rows \[0, 1, 2, 3, 4, 5, 6, 7, 8, 9\] of background"):
        cp.exact_shapley_compositions(lambda Z: model.predict_proba(Z)[:, :2], X[:2], X[:10])


def test_groups_named_by_column_say_which_columns_are_in_no_group():
    X = pd.DataFrame(np.zeros((2, 3)), columns=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"attributes \['c'\] are in no group"):
        co.coalitional_influence_interventional(lambda Z: np.zeros(len(Z)), X, X, [("a", "b")])


def test_too_many_features_for_enumeration_recommends_the_default_sampler():
    X = np.zeros((1, 21))
    with pytest.raises(ValueError, match=r"sample_shapley, which runs the default estimator, lib\.sampling\.DEFAULT"):
        sh.exact_shapley(lambda Z: np.zeros(len(Z)), X, X)
