"""The codes a tool that mixes rows itself is given (lib.games.Game.encoded / decode).

Where the values can stand for their own codes (``Game.values_are_codes``: numeric columns, none
missing, no two different values of a column within ``np.isclose``'s tolerance), shap's explainers
are given the values and the model the rows shap built, each column back in its dtype; elsewhere
dense codes, decoded by gathering the pooled rows. Both ways must give the model the same rows and
KernelSHAP the same numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib import games
from lib import kernel_comparison as kc


def _model(rows):
    Z = np.asarray(pd.DataFrame(rows).to_numpy(dtype=float))
    return np.tanh(Z @ np.arange(1.0, Z.shape[1] + 1) / 10 + Z[:, 0] * Z[:, -1] / 50)


def _tables(kind: str):
    rng = np.random.default_rng(3)
    if kind == "int16":
        return rng.integers(0, 5, (6, 4)).astype(np.int16), rng.integers(0, 5, (9, 4)).astype(np.int16)
    if kind == "float":
        return rng.normal(size=(6, 4)), rng.normal(size=(9, 4))
    X = pd.DataFrame({"a": rng.normal(size=6), "b": rng.integers(0, 3, 6), "c": rng.integers(0, 2, 6).astype(bool)})
    B = pd.DataFrame({"a": rng.normal(size=9), "b": rng.integers(0, 3, 9), "c": rng.integers(0, 2, 9).astype(bool)})
    return X, B


@pytest.mark.parametrize("kind", ["int16", "float", "frame"])
def test_values_stand_for_codes_and_decode_gives_the_gathered_rows(kind: str) -> None:
    X, B = _tables(kind)
    game = games.as_game(_model, X, B, "test")
    assert game.values_are_codes
    Xc, Bc = game.encoded()
    assert Xc.dtype == np.float64 and Bc.dtype == np.float64
    # rows mixed as shap mixes them: X's value where a mask is set, a background row's elsewhere
    rng = np.random.default_rng(0)
    rows, donors = rng.integers(0, len(Xc), 40), rng.integers(0, len(Bc), 40)
    masks = rng.integers(0, 2, (40, Xc.shape[1])).astype(bool)
    mixed = np.where(masks, Xc[rows], Bc[donors])
    got, want = game.decode(mixed), game.hybrid(rows, masks, donors)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)       # values and each column's dtype
    else:
        assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize(("X", "B", "why"), [
    (np.array([[1.0], [2.0]]), np.array([[1.0 + 1e-9], [3.0]]), "two values within isclose's tolerance"),
    (np.array([[1.0], [np.nan]]), np.array([[1.0], [3.0]]), "a missing value"),
    (np.array([[2.0**60], [1.0]]), np.array([[3.0], [4.0]]), None),
    (pd.DataFrame({"a": pd.Categorical(["x", "y"])}), pd.DataFrame({"a": pd.Categorical(["y", "x"])}), "a categorical column"),
])
def test_codes_where_values_cannot_stand_for_them(X, B, why) -> None:
    allow_nan = isinstance(X, np.ndarray) and bool(np.isnan(X).any())
    game = games.as_game(lambda r: np.zeros(len(r)), X, B, "test", allow_nan=allow_nan)
    # floats far apart stand for themselves, however large; the others are given dense codes
    assert game.values_are_codes is (why is None)
    if why is not None:
        Xc, Bc = game.encoded()
        assert set(np.unique(np.concatenate([Xc, Bc]))) <= set(range(len(X) + len(B)))


def test_large_integers_are_given_codes() -> None:
    X = np.array([[2**60], [1]], dtype=np.int64)
    game = games.as_game(lambda r: np.zeros(len(r)), X, np.array([[2**60 + 1], [5]], dtype=np.int64), "test")
    assert not game.values_are_codes      # 2**60 and 2**60 + 1 are one float64


@pytest.mark.parametrize("kind", ["int16", "float", "frame"])
def test_kernel_shap_gives_the_same_numbers_with_values_or_codes(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    X, B = _tables(kind)
    fast = kc.kernel_shap(_model, X, B, seed=1, nsamples=40)
    monkeypatch.setattr(games.Game, "values_are_codes", property(lambda self: False))
    coded = kc.kernel_shap(_model, X, B, seed=1, nsamples=40)
    assert np.array_equal(fast.values, coded.values)
    assert np.array_equal(fast.base_values, coded.base_values)
    assert fast.model_rows == coded.model_rows
