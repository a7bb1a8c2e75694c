"""The conformance suite's cases: every entry point of ``lib`` through the same inputs (issue 44).

The entry points come from ``lib.entry_points.entry_points()`` (declared where they are defined),
never from a list typed here. Each case changes the clean call of an entry point (three features
``a, b, c``: two rows to explain, four background rows) in one way — columns permuted, dtypes mixed
between ``X`` and the background, a NaN or an infinity in one cell, a column repeated, missing, extra
or renamed, no rows, one row, a budget or a seed of another kind, a model that returns NaN or the wrong
shape — and the contract is one of two outcomes:

* ``same``: the same numbers as the clean call on the same rows (to 1e-12, and the same model rows);
* ``refused``: an error that names what is wrong, where (the row, the column by name) and the remedy,
  and the remedy, followed (the suite does what the message says), gives a result: the clean call's
  numbers, or, for ``allow_nan=True``, finite numbers.

``n/a`` marks a case that does not apply (no background, no budget, no randomness, a model the entry
point never calls). ``python -m lib.tests.conformance`` writes the table of outcomes of the canonical
example of every case (:data:`TABLE`), which the API page shows; ``lib/tests/test_conformance.py``
checks that the stored table is a fresh run, and runs every case with hypothesis on more examples.
"""

from __future__ import annotations

import copy
import csv
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib.entry_points import CONFORMANCE_TABLE, EntryPoint, entry_points

NAMES = ["a", "b", "c"]
ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / CONFORMANCE_TABLE

SAME, REFUSED, NA = "same", "refused", "n/a"


# ---------------------------------------------------------------------------
# The models and the clean inputs
# ---------------------------------------------------------------------------


class Logistic:
    """A fitted binary classifier (``predict_proba``, ``predict``, ``classes_``, ``feature_names_in_``)
    that reads its columns by name and takes a missing value as 0 (so ``allow_nan=True`` can be followed)."""

    classes_ = np.array([0, 1])
    feature_names_in_ = np.array(NAMES, dtype=object)
    weights = np.array([0.8, -0.6, 0.4])

    def _score(self, Z: Any) -> np.ndarray:
        if isinstance(Z, pd.DataFrame):
            Z = Z[list(self.feature_names_in_)]
        A = np.asarray(Z, dtype=float)
        return np.nan_to_num(A, nan=0.0) @ self.weights - 0.2

    def predict_proba(self, Z: Any) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-self._score(Z)))
        return np.column_stack([1.0 - p, p])

    def predict(self, Z: Any) -> np.ndarray:
        return (self._score(Z) > 0).astype(int)


class NaNModel(Logistic):
    """Returns NaN (a probability, a label) on the rows whose ``a`` is 1."""

    def _bad(self, Z: Any) -> np.ndarray:
        A = Z[["a"]].to_numpy(dtype=float)[:, 0] if isinstance(Z, pd.DataFrame) else np.asarray(Z, float)[:, 0]
        return A == 1.0

    def predict_proba(self, Z: Any) -> np.ndarray:
        return np.where(self._bad(Z)[:, None], np.nan, super().predict_proba(Z))

    def predict(self, Z: Any) -> np.ndarray:
        return np.where(self._bad(Z), np.nan, super().predict(Z).astype(float))


class ShortModel(Logistic):
    """Returns one row fewer than it is given."""

    def predict_proba(self, Z: Any) -> np.ndarray:
        return super().predict_proba(Z)[:-1]

    def predict(self, Z: Any) -> np.ndarray:
        return super().predict(Z)[:-1]


def _naive_bayes() -> Any:
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(0)
    train = pd.DataFrame(rng.normal(1.0, 1.0, (40, 3)), columns=NAMES)
    return GaussianNB().fit(train, (train.to_numpy() @ Logistic.weights > 0.5).astype(int))


@dataclass
class Inputs:
    """One call of an entry point: the model, the rows, the other keywords; ``arrays``: rows given as arrays."""

    model: Any
    X: Any
    background: Any
    kwargs: dict[str, Any] = field(default_factory=dict)


def clean(entry: EntryPoint, arrays: bool = False) -> Inputs:
    """The clean call of ``entry``: three features, two rows to explain, four background rows (all eight
    0/1 states for the SDP; one typical row), float64 DataFrames, the model :class:`Logistic` (a
    GaussianNB for the naive Bayes adapter), its budget and seed."""
    if entry.domain == "binary":
        X = pd.DataFrame({"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]})
        B = pd.DataFrame([[(s >> j) & 1 for j in range(3)] for s in range(8)], columns=NAMES, dtype=float)
    else:
        X = pd.DataFrame({"a": [1.0, 0.0], "b": [0.0, 2.0], "c": [2.0, 1.0]})
        B = pd.DataFrame({"a": [0.5, 1.0, 2.0, 0.0], "b": [1.5, 0.5, 0.0, 2.5], "c": [0.0, 2.5, 1.5, 0.5]})
    if len(entry.rows) == 2 and entry.rows[1] == "typical":
        B = B.iloc[:1]
    model = _naive_bayes() if entry.kind == "naive-bayes" else Logistic()
    kwargs: dict[str, Any] = dict(entry.example)
    if entry.budget:
        kwargs[entry.budget[0]] = entry.budget[1]
    if entry.seed == "rng":
        kwargs["rng"] = np.random.default_rng(0)
    elif entry.seed:
        kwargs[entry.seed] = 0
    inputs = Inputs(model, X, B if len(entry.rows) == 2 else None, kwargs)
    return as_arrays(inputs) if arrays else inputs


def as_arrays(inputs: Inputs) -> Inputs:
    """The same call with the rows as float arrays (read by position)."""
    return replace(inputs, X=inputs.X.to_numpy(dtype=float),
                   background=None if inputs.background is None else inputs.background.to_numpy(dtype=float))


def _kwargs(entry: EntryPoint, inputs: Inputs) -> dict[str, Any]:
    kwargs = dict(inputs.kwargs)
    if isinstance(inputs.X, (pd.DataFrame, pd.Series)):
        for name in entry.features:  # feature lists by name for a DataFrame (its columns may move)
            if name in kwargs:
                kwargs[name] = [[NAMES[i] if isinstance(i, (int, np.integer)) else i for i in g] for g in kwargs[name]]
    kwargs[entry.rows[0]] = inputs.X
    if len(entry.rows) == 2:
        kwargs[entry.rows[1]] = inputs.background
    return kwargs


def call(entry: EntryPoint, inputs: Inputs) -> dict[str, Any]:
    """Call the entry point and read its numbers (:func:`numbers`); errors propagate.  A generator is
    copied first, so that every call draws the same numbers."""
    kwargs = {k: copy.deepcopy(v) if isinstance(v, np.random.Generator) else v
              for k, v in _kwargs(entry, inputs).items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if entry.model == "self":
            target = getattr(entry.maker()(inputs.model), entry.function.__name__)
            result = target(**kwargs)
        else:
            result = entry.function(**{entry.model: inputs.model}, **kwargs)
        return numbers(result)


def numbers(result: Any) -> dict[str, Any]:
    """What a result says, comparable between calls: values by feature name, base values, outputs and
    model rows; a game's coalition values; groups by feature name; arrays and numbers as they are."""
    from lib.compositions import ShapleyCompositions
    from lib.games import Game
    from lib.grouping import FoundGroups
    from lib.result import ShapleyResult

    if isinstance(result, (ShapleyResult, ShapleyCompositions)):
        values = np.asarray(result.values, dtype=float)
        names = result.feature_names or [f"x{j}" for j in range(values.shape[1])]
        order = np.argsort(names, kind="stable")
        return {"values": values[:, order], "base_values": np.asarray(result.base_values, dtype=float),
                "outputs": np.asarray(result.outputs, dtype=float), "model_rows": getattr(result, "model_rows", None)}
    if isinstance(result, Game):
        return {"coalitions": result.values(np.arange(2**result.d))}
    if isinstance(result, FoundGroups):
        return {"groups": sorted(tuple(sorted(g)) for g in result.named()), "model_rows": result.model_rows}
    if isinstance(result, tuple):
        return {f"{k}": numbers(item)[next(iter(numbers(item)))] for k, item in enumerate(result)}
    if isinstance(result, (float, np.floating, int, np.integer)):
        return {"value": float(result)}
    return {"array": np.asarray(result, dtype=float)}


def first_row(found: dict[str, Any]) -> dict[str, Any]:
    """The numbers of the first explained row (rows are explained independently)."""
    return {k: (v[:1] if isinstance(v, np.ndarray) and v.ndim >= 1 and k != "0" else v) for k, v in found.items()
            if k != "model_rows"}


def same(a: dict[str, Any], b: dict[str, Any], what: str) -> None:
    """``a`` and ``b`` hold the same numbers (to 1e-12), groups and model rows, else AssertionError."""
    assert a.keys() == b.keys(), f"{what}: {sorted(a)} vs {sorted(b)}"
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
            assert x.shape == y.shape, f"{what}: {k} of shape {x.shape} vs {y.shape}"
            assert np.allclose(x, y, rtol=0.0, atol=1e-12, equal_nan=True), \
                f"{what}: {k} differs by {np.nanmax(np.abs(x - y)) if x.size else 0:.3g}"
        else:
            assert x == y, f"{what}: {k} {x!r} vs {y!r}"


# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What a case found: ``same``, ``refused`` (with the message) or ``n/a`` (with the reason)."""

    kind: str
    message: str = ""


Draw = Callable[[Any], Any]


@dataclass(frozen=True)
class Case:
    """One way of changing the clean call.

    ``applies(entry)`` says why it does not apply (a reason) or ``None``; ``run(entry, draw)`` returns
    the :class:`Outcome` and asserts the contract; ``canonical`` is the draw of the stored table's
    example (a function of the strategies' ``draw`` that returns fixed choices when given ``None``).
    """

    name: str
    run: Callable[[EntryPoint, Draw | None], Outcome]
    applies: Callable[[EntryPoint], str | None] = lambda entry: None
    random: bool = True


def _pick(draw: Draw | None, options: list[Any], canonical: int = 0) -> Any:
    """A choice among ``options``: the canonical one without ``draw``, else one drawn by hypothesis."""
    if draw is None:
        return options[canonical]
    from hypothesis import strategies as st

    return draw(st.sampled_from(options))


def _expect_same(entry: EntryPoint, changed: Inputs, reference: Inputs, *, first: bool = False) -> Outcome:
    try:
        found = call(entry, changed)
    except (ValueError, TypeError) as err:
        return _follow_refusal(entry, changed, reference, str(err))
    ref = call(entry, reference)
    same(first_row(found) if first else found, first_row(ref) if first else ref, entry.name)
    return Outcome(SAME)


#: How a refusal's remedy is followed: the call that does what the message says, from (entry, the
#: changed call, the clean call, the message).
Follow = Callable[[EntryPoint, Inputs, Inputs, str], Inputs]


def _follow_refusal(entry: EntryPoint, changed: Inputs, reference: Inputs, message: str) -> Outcome:
    """A refusal of a case that may also be refused (a one-row table where two are needed): its remedy
    must be one the suite knows how to follow, and following it must work."""
    for pattern, follow in _REMEDIES:
        if re.search(pattern, message):
            fixed = follow(entry, changed, reference, message)
            if fixed is not None:
                call(entry, fixed)  # the remedy, followed, gives a result
                return Outcome(REFUSED, message)
    raise AssertionError(f"{entry.name}: refused with a remedy the suite cannot follow: {message}")


def _refused(entry: EntryPoint, changed: Inputs, reference: Inputs, must: list[str],
             follow: Callable[[str], Any], check: str = "same") -> Outcome:
    """The changed call must be refused with a message containing every pattern of ``must`` (what, where,
    remedy); ``follow(message)`` is the call that does what it says, which must give ``reference``'s
    numbers (``check="same"``) or finite ones (``check="finite"``)."""
    try:
        call(entry, changed)
    except (ValueError, TypeError) as err:
        message = str(err)
    else:
        raise AssertionError(f"{entry.name}: not refused")
    for pattern in must:
        assert re.search(pattern, message), f"{entry.name}: the message lacks {pattern!r}: {message}"
    fixed = follow(message)
    assert fixed is not None, f"{entry.name}: no remedy to follow in: {message}"
    if isinstance(fixed, tuple):  # the remedy and what it gives: the clean numbers, or finite ones
        fixed, check = fixed
    found = call(entry, fixed)
    if check == "same":
        same(found, call(entry, reference), f"{entry.name}, remedy followed ({message[:60]}...)")
    else:
        assert all(np.all(np.isfinite(np.asarray(v, dtype=float))) for k, v in found.items()
                   if isinstance(v, np.ndarray)), f"{entry.name}: not finite after the remedy"
    return Outcome(REFUSED, message)


def _columns_of(table: Any) -> list[str]:
    return list(table.columns) if isinstance(table, pd.DataFrame) else list(table.index)


# -- remedies that a refusal of another case may name (one row where two are needed) --------

_REMEDIES: list[tuple[str, Follow]] = [
    (r"give at least (2|one) rows?", lambda e, c, r, m: clean(e)),       # a table of one row where two are needed
    (r"Remedy: more rows of data", lambda e, c, r, m: clean(e)),         # the SDP of one data row: undefined
]


# -- the cases ---------------------------------------------------------------------------------

def _background_needed(entry: EntryPoint) -> str | None:
    return None if len(entry.rows) == 2 else "no background"


def _permuted(entry: EntryPoint, draw: Draw | None) -> Outcome:
    ref = clean(entry)
    orders = [list(p) for p in (("c", "a", "b"), ("b", "c", "a"), ("a", "c", "b"), ("c", "b", "a"))]
    x_order = _pick(draw, orders, 0)
    b_order = _pick(draw, orders, 1)
    changed = replace(ref, X=ref.X[x_order],
                      background=None if ref.background is None else ref.background[b_order])
    return _expect_same(entry, changed, ref)


def _series_row(entry: EntryPoint, draw: Draw | None) -> Outcome:
    ref = clean(entry)
    i = _pick(draw, [0, 1], 0)
    order = _pick(draw, [["b", "c", "a"], ["c", "b", "a"]], 0)
    changed = replace(ref, X=ref.X.iloc[i][order])
    return _expect_same(entry, changed, replace(ref, X=ref.X.iloc[[i]]))


def _one_d_row(entry: EntryPoint, draw: Draw | None) -> Outcome:
    ref = clean(entry, arrays=True)
    i = _pick(draw, [0, 1], 0)
    return _expect_same(entry, replace(ref, X=ref.X[i]), replace(ref, X=ref.X[i:i + 1]))


def _one_row_x(entry: EntryPoint, draw: Draw | None) -> Outcome:
    ref = clean(entry)
    one = replace(ref, X=ref.X.iloc[:1])
    if entry.seed is None:  # rows are explained one by one: the first row of the clean call
        return _expect_same(entry, one, ref, first=True)
    return _expect_same(entry, one, one)


def _one_row_background(entry: EntryPoint, draw: Draw | None) -> Outcome:
    ref = clean(entry)
    i = _pick(draw, list(range(len(ref.background))), 0)
    one = replace(ref, background=ref.background.iloc[[i]])
    return _expect_same(entry, one, one)


#: dtypes a column of X (whole numbers) and of the background (halves) can take and keep every value
_X_DTYPES = ["int64", "Int64", "float32", "uint8", "object"]
_B_DTYPES = ["float64", "float32", "Float64", "object"]


def _dtypes(entry: EntryPoint, draw: Draw | None) -> Outcome:
    ref = clean(entry)
    X, B = ref.X.copy(), None if ref.background is None else ref.background.copy()
    for k, c in enumerate(NAMES):
        x_dtype = _pick(draw, _X_DTYPES + (["bool"] if set(X[c]) <= {0.0, 1.0} else []) + ["category"], k % 3)
        if x_dtype == "category":
            values = sorted(set(X[c]) | (set(B[c]) if B is not None else set()))
            dtype = pd.CategoricalDtype(values)
            X[c] = X[c].astype(dtype)
            if B is not None:
                B[c] = B[c].astype(dtype)
            continue
        X[c] = X[c].astype(x_dtype)
        if B is not None:
            b_dtypes = _B_DTYPES + (["int64", "Int64"] if np.all(B[c] == np.round(B[c])) else [])
            B[c] = B[c].astype(_pick(draw, b_dtypes, (k + 1) % 4))
    return _expect_same(entry, replace(ref, X=X, background=B), ref)


def _category_mismatch(entry: EntryPoint, draw: Draw | None) -> Outcome:
    ref = clean(entry)
    c = _pick(draw, NAMES, 1)
    X = ref.X.copy()
    X[c] = X[c].astype(pd.CategoricalDtype(sorted(set(X[c]) | set(ref.background[c]))))
    changed = replace(ref, X=X)

    def follow(message: str) -> Inputs:
        assert "astype" in message
        B = ref.background.copy()
        B[c] = B[c].astype(X[c].dtype)
        return replace(changed, background=B)
    return _refused(entry, changed, ref, [rf"column '{c}'", "categorical dtype", "astype"], follow)


def _bad_cell(value: Any, table: str) -> Callable[[EntryPoint, Draw | None], Outcome]:
    def run(entry: EntryPoint, draw: Draw | None) -> Outcome:
        ref = clean(entry)
        name = entry.rows[0] if table == "X" else entry.rows[1]
        source = ref.X if table == "X" else ref.background
        r = _pick(draw, list(range(len(source))), len(source) - 1)
        c = _pick(draw, NAMES, 1)
        bad = source.copy()
        if isinstance(value, str):
            bad[c] = bad[c].astype(object)
        bad.loc[bad.index[r], c] = value
        changed = replace(ref, **{("X" if table == "X" else "background"): bad})
        what = "infinite" if (isinstance(value, str) or np.isinf(value)) else "missing"

        def follow(message: str) -> Any:
            if what == "missing" and "allow_nan=True" in message:  # the model takes missing values (as 0)
                if "lib.games.Game(" in message:  # the game that lets them through, given as the model
                    from lib.games import Game

                    game = Game(changed.model, changed.X, changed.background, allow_nan=True)
                    return Inputs(game, None, None, changed.kwargs), "finite"
                if entry.allow_nan:
                    return replace(changed, kwargs={**changed.kwargs, "allow_nan": True}), "finite"
                return None
            assert ("impute it" if what == "missing" else "replace it by a finite number") in message
            fixed = bad.copy()
            fixed.loc[fixed.index[r], c] = source.loc[source.index[r], c]
            return replace(changed, **{("X" if table == "X" else "background"): fixed.astype({c: source[c].dtype})})

        return _refused(entry, changed, ref, [rf"{name} has an? {what} value", rf"row {r}\b", rf"column '{c}'"],
                        follow)
    return run


def _column_case(kind: str, table: str) -> Callable[[EntryPoint, Draw | None], Outcome]:
    def run(entry: EntryPoint, draw: Draw | None) -> Outcome:
        ref = clean(entry)
        attr = "X" if table == "X" else "background"
        name = entry.rows[0] if table == "X" else entry.rows[1]
        source = getattr(ref, attr)
        c = _pick(draw, NAMES, 1)
        if kind == "repeated":
            bad = pd.concat([source, source[[c]]], axis=1)
            must = [rf"{name} has the columns \['{c}'\] more than once", "give each feature once"]
        elif kind == "missing":
            bad = source.drop(columns=c)
            must = [rf"{name}'s columns do not match", rf"missing: \['{c}'\]", f"Give {name} the columns"]
        elif kind == "extra":
            bad = source.assign(e=1.0)
            must = [rf"{name}'s columns do not match", r"not among them: \['e'\]", f"Give {name} the columns"]
        else:
            bad = source.rename(columns={c: c.upper()})
            must = [rf"not among them: \['{c.upper()}'\]", rf"missing: \['{c}'\]",
                    rf"{name}.rename\(columns=\{{'{c.upper()}': '{c}'\}}\)"]
        changed = replace(ref, **{attr: bad})

        def follow(message: str) -> Inputs:
            if kind == "repeated":
                fixed = bad.loc[:, ~bad.columns.duplicated()]
            elif kind == "renamed":
                fixed = bad.rename(columns={c.upper(): c})
            else:
                wanted = re.search(rf"Give {name} the columns (\[[^\]]*\])", message)
                columns = eval(wanted.group(1))  # the list the message names  # noqa: S307
                fixed = bad.assign(**{c: source[c]})[columns] if kind == "missing" else bad[columns]
            return replace(changed, **{attr: fixed})
        return _refused(entry, changed, ref, must, follow)
    return run


def _empty(table: str) -> Callable[[EntryPoint, Draw | None], Outcome]:
    def run(entry: EntryPoint, draw: Draw | None) -> Outcome:
        ref = clean(entry)
        attr = "X" if table == "X" else "background"
        name = entry.rows[0] if table == "X" else entry.rows[1]
        changed = replace(ref, **{attr: getattr(ref, attr).iloc[:0]})
        return _refused(entry, changed, ref, [rf"{name} has no rows", "give at least one row"],
                        lambda message: ref)
    return run


def _budget(value: Any) -> Callable[[EntryPoint, Draw | None], Outcome]:
    def run(entry: EntryPoint, draw: Draw | None) -> Outcome:
        ref = clean(entry)
        assert entry.budget is not None
        name = entry.budget[0]
        given = value(entry.budget[1])
        changed = replace(ref, kwargs={**ref.kwargs, name: given})

        def follow(message: str) -> Inputs | None:
            found = re.search(rf"give {name}\s*(?:>=|=)\s*(\d+)", message)
            return None if found is None else replace(ref, kwargs={**ref.kwargs, name: int(found.group(1))})

        must = [rf"{name}", rf"give {name}\s*(>=|=)\s*\d+"]
        if isinstance(given, float) and given == given and given >= 1:  # the integer it names is the clean budget
            return _refused(entry, changed, ref, must, follow)
        return _refused(entry, changed, ref, must, follow, check="finite")
    return run


def _seed(kind: str) -> Callable[[EntryPoint, Draw | None], Outcome]:
    def run(entry: EntryPoint, draw: Draw | None) -> Outcome:
        ref = clean(entry)
        s = _pick(draw, [0, 7, 2**31 + 5], 0)
        if entry.seed == "rng":  # an int seed is numpy.random.default_rng(seed)
            changed = replace(ref, kwargs={**ref.kwargs, "rng": s if kind == "int" else np.random.default_rng(s)})
            reference = replace(ref, kwargs={**ref.kwargs, "rng": np.random.default_rng(s)})
        else:  # a Generator gives the seed g.integers(2**32)
            changed = replace(ref, kwargs={**ref.kwargs, entry.seed: s if kind == "int" else np.random.default_rng(s)})
            reference = replace(ref, kwargs={**ref.kwargs,
                                             entry.seed: s if kind == "int" else int(np.random.default_rng(s).integers(2**32))})
        return _expect_same(entry, changed, reference)
    return run


def _bad_model(model: type, must: list[str]) -> Callable[[EntryPoint, Draw | None], Outcome]:
    def run(entry: EntryPoint, draw: Draw | None) -> Outcome:
        ref = clean(entry)
        changed = replace(ref, model=model())
        return _refused(entry, changed, ref, must, lambda message: ref)
    return run


def _needs(attr: str) -> Callable[[EntryPoint], str | None]:
    def applies(entry: EntryPoint) -> str | None:
        if attr == "background":
            return _background_needed(entry)
        if attr == "budget":
            return None if entry.budget else "no budget"
        if attr == "seed":
            return None if entry.seed else "no randomness"
        if attr == "called":
            return None if entry.kind != "naive-bayes" else "the model is read, not called"
        return None
    return applies


def _typical_nan(entry: EntryPoint) -> str | None:
    return "a missing typical value is the draft's 'missing'" if entry.rows[-1] == "typical" else None


def _and(*checks: Callable[[EntryPoint], str | None]) -> Callable[[EntryPoint], str | None]:
    return lambda entry: next((r for r in (c(entry) for c in checks) if r is not None), None)


CASES: list[Case] = [
    Case("permuted columns", _permuted),
    Case("Series row", _series_row),
    Case("1-D array row", _one_d_row),
    Case("mixed dtypes", _dtypes),
    Case("categorical vs not", _category_mismatch, _needs("background")),
    Case("NaN in X", _bad_cell(np.nan, "X")),
    Case("inf in X", _bad_cell(np.inf, "X")),
    Case("-inf in background", _bad_cell(-np.inf, "background"), _needs("background")),
    Case("NaN in background", _bad_cell(np.nan, "background"), _and(_needs("background"), _typical_nan)),
    Case("'inf' text in X", _bad_cell("inf", "X")),
    Case("repeated column", _column_case("repeated", "X")),
    Case("missing column", _column_case("missing", "X")),
    Case("extra column", _column_case("extra", "X")),
    Case("renamed column", _column_case("renamed", "X")),
    Case("background missing a column", _column_case("missing", "background"), _needs("background")),
    Case("empty X", _empty("X"), random=False),
    Case("empty background", _empty("background"), _needs("background"), random=False),
    Case("one-row X", _one_row_x, random=False),
    Case("one-row background", _one_row_background, _needs("background")),
    Case("budget 0", _budget(lambda b: 0), _needs("budget"), random=False),
    Case("budget negative", _budget(lambda b: -b), _needs("budget"), random=False),
    Case("budget float", _budget(lambda b: b + 0.5), _needs("budget"), random=False),
    Case("int seed", _seed("int"), _needs("seed")),
    Case("Generator seed", _seed("generator"), _needs("seed")),
    Case("model returns NaN", _bad_model(NaNModel, ["NaN", r"row \{", r"(explain|give) a"]), _needs("called"),
         random=False),
    Case("model returns wrong shape", _bad_model(ShortModel, [r"\(1, ?\d?\)|shape|one label per row",
                                                              r"(give a model|pass the model)"]),
         _needs("called"), random=False),
]


def outcome(entry: EntryPoint, case: Case, draw: Draw | None = None) -> Outcome:
    """The outcome of ``case`` on ``entry`` (the canonical example without ``draw``); a broken contract
    raises AssertionError."""
    reason = case.applies(entry)
    if reason is not None:
        return Outcome(NA, reason)
    return case.run(entry, draw)


def table() -> pd.DataFrame:
    """The outcome of every case's canonical example on every entry point: one row per entry point."""
    rows = {}
    for name, entry in entry_points().items():
        rows[name] = {case.name: outcome(entry, case).kind for case in CASES}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "entry point"
    return frame


def write(path: Path = TABLE) -> pd.DataFrame:
    """Run the cases and store their table (what ``python -m lib.tests.conformance`` does)."""
    frame = table()
    frame.to_csv(path, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    return frame


def stored(path: Path = TABLE) -> pd.DataFrame:
    """The stored table."""
    return pd.read_csv(path, index_col=0, dtype=str, keep_default_na=False)


if __name__ == "__main__":
    out = write()
    print(f"{TABLE.relative_to(ROOT)}: {len(out)} entry points x {len(CASES)} cases", file=sys.stderr)
