"""Tests of lib.validation: the input checks every explainer applies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib import validation as va


def test_as_rows_takes_one_row_as_a_table_and_refuses_three_axes():
    assert va.as_rows(np.arange(3)).shape == (1, 3)
    row = pd.Series({"a": 1.0, "b": 2.0})
    assert list(va.as_rows(row).columns) == ["a", "b"]
    with pytest.raises(ValueError, match="2-D"):
        va.as_rows(np.zeros((2, 2, 2)), "background")


def test_as_frame_names_array_columns_and_refuses_one_row():
    frame, was_frame = va.as_frame(np.array([[1, 2], [3, 4]]))
    assert not was_frame and list(frame.columns) == ["x0", "x1"] and frame.dtypes.iloc[0].kind == "i"
    df = pd.DataFrame({"a": [1.0]})
    assert va.as_frame(df) == (df, True)
    with pytest.raises(ValueError, match="2-D"):
        va.as_frame(np.arange(3))


def test_check_inputs_accepts_matching_tables():
    X, B = va.check_inputs(np.ones(3), np.zeros((5, 3)))
    assert X.shape == (1, 3) and B.shape == (5, 3)
    df = pd.DataFrame({"c": pd.Categorical(["a", "b"]), "x": [1.0, np.nan]})
    with pytest.raises(ValueError, match=r"X has a missing value \(NaN\) at row 1, column 'x': impute it, or pass allow_nan=True"):
        va.check_inputs(df, df)
    assert va.check_inputs(df, df, allow_nan=True)[0] is df


@pytest.mark.parametrize(
    "X, B, message",
    [
        (np.zeros((0, 2)), np.zeros((3, 2)), "X has no rows"),
        (np.zeros((1, 2)), np.zeros((0, 2)), "background has no rows"),
        (np.zeros((1, 2)), np.zeros((3, 3)), "X has 2 features but background has 3"),
        (np.array([[np.nan, 1.0]]), np.zeros((3, 2)), r"X has a missing value \(NaN\) at row 0, column 0"),
        (pd.DataFrame({"a": [1.0]}), np.zeros((1, 1)), "both be DataFrames"),
        (pd.DataFrame({"a": [1.0], "b": [1.0]}), pd.DataFrame({"B": [1.0], "a": [1.0]}),
         r"background's columns do not match the ones X has \(not among them: \['B'\]; missing: \['b'\]\)"),
        (pd.DataFrame({"c": pd.Categorical(["a"], categories=["a", "b"])}),
         pd.DataFrame({"c": pd.Categorical(["a"], categories=["b", "a"])}), "one categorical dtype"),
    ],
)
def test_check_inputs_names_what_is_wrong(X, B, message):
    with pytest.raises(ValueError, match=message):
        va.check_inputs(X, B)


def test_infinity_is_refused_in_floats_too():
    # issue 36: inf was checked in object arrays only; with a pipeline the user got scikit-learn's
    # error naming no row or column, with HistGradientBoostingClassifier numbers came back
    X, B = np.array([[1.0, 2.0], [np.inf, 1.0]]), np.zeros((2, 2))
    with pytest.raises(ValueError, match=r"X has an infinite value \(inf or -inf\) at row 1, column 0: replace it"):
        va.check_inputs(X, B)
    with pytest.raises(ValueError, match="infinite"):
        va.check_inputs(X, B, allow_nan=True)  # allow_nan lets NaN through, never inf
    with pytest.raises(ValueError, match=r"background has an infinite value .* row 1, column 1"):
        va.check_inputs(B, np.array([[0.0, 1.0], [2.0, -np.inf]]))
    frame = pd.DataFrame({"age": [30.0, 41.0], "income": [1.0, np.inf]}, index=[10, 11])
    with pytest.raises(ValueError, match=r"row 1 \(index 11\), column 'income'"):
        va.check_inputs(frame, frame.iloc[:1])
    ints = pd.DataFrame({"n": pd.array([1, None], dtype="Int64")})
    with pytest.raises(ValueError, match=r"missing value \(NaN\) at row 1, column 'n'"):
        va.check_inputs(ints, ints.iloc[:1])
    with pytest.raises(ValueError, match="infinite"):
        va.check_finite_inputs(X, B)
    Xa, Ba = va.check_finite_inputs([[1, 2]], [[0, 0]])
    assert Xa.dtype == float and Ba.dtype == float


def test_check_rows_counts_rows_features_and_missing_values():
    frame, was_frame = va.check_rows(np.ones((2, 3)), 3)
    assert frame.shape == (2, 3) and not was_frame
    with pytest.raises(ValueError, match="rows has no rows"):
        va.check_rows(np.ones((0, 3)), name="rows")
    with pytest.raises(ValueError, match="X has no features"):
        va.check_rows(np.ones((2, 0)))
    with pytest.raises(ValueError, match="background has 3 features, expected 4"):
        va.check_rows(np.ones((2, 3)), 4, name="background")
    with pytest.raises(ValueError, match=r"missing value \(NaN\) at row 0, column 'x1'"):
        va.check_rows(np.array([[1.0, np.nan]]))
    assert va.check_rows(np.array([[1.0, np.nan]]), allow_nan=True)[0].shape == (1, 2)


def test_kind_and_column_checks():
    a = pd.DataFrame({"a": [1.0]})
    va.check_same_kind(a, a)
    va.check_same_kind(np.zeros(1), [0.0])
    with pytest.raises(ValueError, match="got DataFrame and ndarray"):
        va.check_same_kind(a, np.zeros((1, 1)))
    with pytest.raises(ValueError, match="different columns"):
        va.check_same_columns(a, a.rename(columns={"a": "b"}))


@pytest.mark.parametrize(
    "value, number",
    [(1, True), (0.5, True), (np.int64(3), True), (np.float32(0.1), True),
     (True, False), (np.bool_(True), False), ("0.5", False), (None, False), ([1], False)],
)
def test_is_number(value, number):
    assert va.is_number(value) is number


@pytest.mark.parametrize(
    "series, categorical",
    [(pd.Series(["a", "b"]), True), (pd.Series(pd.Categorical([1, 2])), True), (pd.Series([True, False]), True),
     (pd.Series([1, 2]), False), (pd.Series([1.0, np.nan]), False)],
)
def test_is_categorical(series, categorical):
    assert va.is_categorical(series) is categorical


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, None])
def test_nan_or_inf_in_an_object_array_is_named_not_let_through(bad):
    # issue 32: an object-dtype array (mixed numbers and labels) hid NaN and inf from the checks
    X = np.array([[1.0, "a"], [bad, "b"]], dtype=object)
    B = np.array([[0.0, "a"], [2.0, "b"]], dtype=object)
    with pytest.raises(ValueError, match=r"X has an? (missing|infinite) value .* at row 1, column 0"):
        va.check_inputs(X, B)
    with pytest.raises(ValueError, match=r"background has an? (missing|infinite) value .* at row 1, column 0"):
        va.check_inputs(B, X)


def test_columns_are_matched_by_name_to_the_model_and_to_x():
    X = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    Xm, Bm = va.check_inputs(X, X[["b", "a"]], columns=["b", "a"])
    assert list(Xm.columns) == ["b", "a"] and list(Bm.columns) == ["b", "a"]
    np.testing.assert_array_equal(Xm.to_numpy(), X[["b", "a"]].to_numpy())
    with pytest.raises(ValueError, match=r"X's columns do not match the ones the model was fitted on \(not among them: \['c'\]; missing: \['b'\]\)"):
        va.check_inputs(X.rename(columns={"b": "c"}), X, columns=["a", "b"])
    with pytest.raises(ValueError, match="more than once"):
        va.check_inputs(pd.concat([X, X["a"]], axis=1), X, columns=["a", "b"])
