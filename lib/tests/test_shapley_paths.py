"""The exact engine's two paths give the same Shapley values (CONTRIBUTING.md, "The exact engine").

The reference path is the book's derivation as code: the interventional game's ``2**d`` values
(``lib.games.interventional_game``: every hybrid row, each coalition's value numpy's mean over
the background), then the formula (``lib.formula.shapley_from_game``).  The fast path
(``lib._shapley_fast.shapley_values``, private to ``lib.shapley``) evaluates each distinct
hybrid row once and sums the values background row by background row.  ``exact_shapley``
takes the fast path for DataFrames and arrays of integers or booleans; here both paths run on
every variant of input the engine meets, and must agree to 1e-12.  Each path on its own is
deterministic: the fast path's values do not depend on how its work is cut (chunks of pairs,
model calls), nor on the CPU the loops are compiled for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lib import _shapley_fast, formula, games, validation
from lib import shapley as sh
from lib.counting import CountingModel

REPO_ROOT = Path(__file__).resolve().parents[2]  # the repository's root (lib never imports the book's machinery)

TOL = 1e-12


def _nonlinear(Z) -> np.ndarray:
    # no BLAS: each row's output is the same whatever rows it is evaluated with
    Z = np.asarray(Z, dtype=float)
    return np.sin((Z * np.arange(1.0, Z.shape[1] + 1)).sum(axis=1)) + Z[:, 0] * Z[:, -1] ** 2


def _three(Z) -> np.ndarray:
    z = np.asarray(Z, dtype=float)
    return np.column_stack([_nonlinear(z), np.cos(z.sum(axis=1)), -_nonlinear(z) ** 2])


class _Recording:
    """The model, remembering every row it is given (to find repeats)."""

    def __init__(self, f):
        self.f, self.seen = f, []

    def __call__(self, Z):
        rows = Z.astype(object).to_numpy() if isinstance(Z, pd.DataFrame) else np.asarray(Z)
        self.seen.extend(map(tuple, rows.tolist()))
        return self.f(Z)


def _discrete(n: int, m: int, d: int, levels: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X, bg = rng.integers(0, levels, (n, d)), rng.integers(0, levels, (m, d))
    X[1] = bg[3]       # a row equal to a background row: a pair with no free feature
    bg[7] = bg[2]      # a repeated background row
    X[2] = X[0]        # a repeated explained row
    return X, bg


def _frame(n: int, seed: int, missing: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    colours = pd.CategoricalDtype(["red", "green", "blue"])
    frame = pd.DataFrame({
        "colour": pd.Categorical.from_codes(rng.integers(0, 3, n), dtype=colours),
        "count": rng.integers(0, 3, n),
        "flag": rng.integers(0, 2, n).astype(bool),
        "label": rng.choice(["a", "b"], n).astype(object),
        "level": rng.integers(0, 3, n) * 0.5,
    })
    if missing:
        frame.loc[rng.random(n) < 0.3, "level"] = np.nan
    return frame


def _frame_model(df: pd.DataFrame) -> np.ndarray:
    c = df["colour"].cat.codes.to_numpy().astype(float)
    k = df["count"].to_numpy().astype(float)
    level = df["level"].fillna(-1.0).to_numpy()
    return np.sin(c * (1.0 + k)) + k * df["flag"].to_numpy() - 0.5 * (df["label"] == "b").to_numpy() * level


def _case(name: str):
    """``(model, X, background, allow_nan)`` of one variant."""
    X, bg = _discrete(n=5, m=30, d=6, levels=3, seed=len(name))
    model, allow_nan = _nonlinear, False
    if name == "int32":
        X, bg = X.astype(np.int32), bg.astype(np.int32)
    elif name == "int8 negative":
        X, bg = (X - 7).astype(np.int8), (bg - 7).astype(np.int8)
    elif name == "bool":
        X, bg = X.astype(bool), bg.astype(bool)
    elif name == "float discrete":
        X, bg = X * 0.25 - 2.0, bg * 0.25 - 2.0
    elif name == "float continuous":
        rng = np.random.default_rng(5)
        X, bg = rng.normal(size=(3, 5)), rng.normal(size=(12, 5))
    elif name == "float16":
        X, bg = (X * 0.5).astype(np.float16), (bg * 0.5).astype(np.float16)
    elif name == "sparse keys":   # values 300 apart: keys spread over 601**6, a hash table's work
        X, bg = X * 300 + 7, bg * 300 + 7
        model = lambda Z: _nonlinear((np.asarray(Z) - 7) // 300)  # noqa: E731
    elif name == "no exact key":  # ranges whose product passes 2**62: every position its own row
        X, bg = X.copy(), bg.copy()
        X[:, :2] *= 2**40
        bg[:, :2] *= 2**40
        model = lambda Z: _nonlinear(np.asarray(Z) % 2**40 + np.asarray(Z) // 2**40)  # noqa: E731
    elif name == "three outputs":
        model = _three
    elif name == "one column of outputs":
        model = lambda Z: _nonlinear(Z)[:, None]  # noqa: E731
    elif name == "d = 1":
        X, bg = X[:, :1], bg[:, :1]
    elif name == "d = 0":
        X, bg = X[:, :0], bg[:, :0]
        model = lambda Z: np.full(len(Z), 0.25)  # noqa: E731
    elif name == "frame":
        X, bg, model = _frame(4, 1), _frame(40, 2), _frame_model
    elif name == "frame with missing values":
        X, bg, model, allow_nan = _frame(4, 3, missing=True), _frame(40, 4, missing=True), _frame_model, True
    return model, X, bg, allow_nan


CASES = ["int64", "int32", "int8 negative", "bool", "float discrete", "float continuous", "float16",
         "sparse keys", "no exact key", "three outputs", "one column of outputs", "d = 1", "d = 0",
         "frame", "frame with missing values"]


def _reference(model, X, bg, allow_nan):
    """The reference path, from public functions: the game, then the formula."""
    game = games.interventional_game(model, X, bg, allow_nan=allow_nan)
    values = formula.shapley_from_game(np.moveaxis(game, 1, -1) if game.ndim == 3 else game)
    return (np.moveaxis(values, -1, 1) if game.ndim == 3 else values), game[:, 0], game[:, -1]


def _fast(model, X, bg, allow_nan, max_rows_per_call=2**16):
    return _shapley_fast.shapley_values(games.Game(model, X, bg, allow_nan=allow_nan, max_rows_per_call=max_rows_per_call))


@pytest.mark.parametrize("case", CASES)
def test_the_two_paths_agree(case):
    model, X, bg, allow_nan = _case(case)
    ref_values, ref_base, ref_outputs = _reference(model, X, bg, allow_nan)
    values, base, outputs = _fast(model, X, bg, allow_nan)
    assert values.shape == ref_values.shape and base.shape == ref_base.shape == outputs.shape
    np.testing.assert_allclose(values, ref_values, rtol=0, atol=TOL)
    np.testing.assert_allclose(base, ref_base, rtol=0, atol=TOL)
    np.testing.assert_allclose(outputs, ref_outputs, rtol=0, atol=TOL)
    np.testing.assert_allclose(values.sum(axis=1), outputs - base, rtol=0, atol=TOL)  # efficiency
    # exact_shapley takes the path the input's type says, and gives that path's numbers
    res = sh.exact_shapley(model, X, bg, allow_nan=allow_nan)
    taken = (values, base, outputs) if sh.exact_path(X, bg) == "fast" else (ref_values, ref_base, ref_outputs)
    for got, expected in zip((res.values, res.base_values, res.outputs), taken):
        np.testing.assert_array_equal(got, expected)


def test_the_path_is_chosen_by_type():
    X, bg = _discrete(n=3, m=10, d=3, levels=2, seed=0)
    assert sh.exact_path(X, bg) == sh.exact_path(X.astype(bool), bg.astype(bool)) == "fast"
    assert sh.exact_path(_frame(2, 0), _frame(5, 1)) == "fast"
    assert sh.exact_path(X.astype(float), bg.astype(float)) == "reference"
    assert sh.exact_path(X, bg.astype(float)) == "reference"


@pytest.mark.parametrize("case", ["int64", "bool", "frame", "float discrete", "no exact key"])
def test_fast_path_asks_for_each_distinct_row_once(case):
    model, X, bg, allow_nan = _case(case)
    seen = _Recording(model)
    _fast(seen, X, bg, allow_nan)
    n, d = X.shape
    if isinstance(X, pd.DataFrame):
        Xo, Bo = X.astype(object).to_numpy(), bg.astype(object).to_numpy()
    else:
        Xo, Bo = X, bg
    everything = {tuple(Xo[i, j] if (S >> j) & 1 else b[j] for j in range(d))
                  for i in range(n) for S in range(2**d) for b in Bo}
    if case == "no exact key":  # no key to compare rows by: each pair's rows, once per pair
        free = (X[:, None, :] != bg[None, :, :]).sum(axis=2)
        assert len(seen.seen) == int((2**free).sum())
    else:
        assert len(seen.seen) == len(set(seen.seen))
    assert set(seen.seen) == everything
    assert len(everything) < n * 2**d * len(bg) // 2


@pytest.mark.parametrize("case", ["int64", "three outputs", "frame", "sparse keys"])
def test_cutting_the_work_changes_no_bit(monkeypatch, case):
    # chunks of pairs (the memory bound) and pieces of model calls change which rows are
    # asked twice, never a sum
    model, X, bg, allow_nan = _case(case)
    whole = _fast(model, X, bg, allow_nan)
    monkeypatch.setattr(_shapley_fast, "MAX_POSITIONS", 50)  # a few pairs a chunk
    counted = CountingModel(model)
    cut = _fast(counted, X, bg, allow_nan, max_rows_per_call=7)
    assert counted.calls > 10
    for a, b in zip(whole, cut):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", ["int64", "float continuous", "frame"])
def test_a_rows_values_do_not_depend_on_the_rows_explained_with_it(case):
    model, X, bg, allow_nan = _case(case)
    together = sh.exact_shapley(model, X, bg, allow_nan=allow_nan)
    for i in range(len(X)):
        row = X.iloc[[i]] if isinstance(X, pd.DataFrame) else X[[i]]
        alone = sh.exact_shapley(model, row, bg, allow_nan=allow_nan)
        np.testing.assert_array_equal(alone.values[0], together.values[i])
        np.testing.assert_array_equal(alone.base_values[0], together.base_values[i])


def test_fast_path_builds_rows_in_their_own_dtype():
    X, bg = _discrete(n=3, m=10, d=3, levels=2, seed=1)
    dtypes = []

    def model(Z):
        dtypes.append(np.asarray(Z).dtype)
        return _nonlinear(Z)

    sh.exact_shapley(model, X.astype(np.int16), bg.astype(np.int16))
    sh.exact_shapley(model, X.astype(np.int16), bg.astype(np.int32))
    assert dtypes == [np.dtype(np.int16), np.dtype(np.int32)]


def test_frames_reach_the_model_with_their_dtypes():
    X, bg = _frame(3, 5), _frame(20, 6)

    def model(df):
        assert list(df.dtypes) == list(X.dtypes)
        return _frame_model(df)

    assert np.isfinite(sh.exact_shapley(model, X, bg).values).all()


@pytest.mark.parametrize("public", ["exact_shapley", "interventional_game", "coalition_values"])
@pytest.mark.parametrize("case", ["int64", "float continuous", "frame"])
def test_inputs_are_checked_once_per_public_call(monkeypatch, public, case):
    model, X, bg, allow_nan = _case(case)
    calls = []
    original = validation.check_inputs

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    for module in (validation, games):
        monkeypatch.setattr(module, "check_inputs", counted)
    if public == "coalition_values":
        games.coalition_values(model, X, bg, [0, 3, 5], allow_nan=allow_nan)
    else:
        (sh.exact_shapley if public == "exact_shapley" else games.interventional_game)(model, X, bg, allow_nan=allow_nan)
    assert len(calls) == 1


def test_the_plan_is_made_once(monkeypatch):
    model, X, bg, _ = _case("int64")
    plans = []
    original = _shapley_fast._plan

    def counted(*args):
        plans.append(1)
        return original(*args)

    monkeypatch.setattr(_shapley_fast, "_plan", counted)
    sh.exact_shapley(model, X, bg)
    assert len(plans) == 1


def test_fast_path_is_the_same_on_another_cpu(tmp_path):
    # the compiled loops sum in a fixed order without fast-math: compiled for a generic x86-64
    # CPU (no AVX, no FMA) in a fresh process, they give the same bits as here
    model, X, bg, _ = _case("three outputs")
    here = _fast(model, X, bg, False)
    script = (
        "import json, sys, numpy as np\n"
        "from lib.tests.test_shapley_paths import _case, _fast\n"
        "model, X, bg, _ = _case('three outputs')\n"
        "json.dump([a.tobytes().hex() for a in _fast(model, X, bg, False)], sys.stdout)\n"
    )
    env = {**os.environ, "NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [a.tobytes().hex() for a in here]
