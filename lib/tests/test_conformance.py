"""The conformance suite (issue 44): every public entry point of lib that takes a model and rows, from
lib's own list (lib.entry_points), through the same cases (lib/tests/conformance.py).

* Every (entry point, case) that applies is a test: its canonical example, then, for the cases with
  choices (which columns, which cell, which dtypes, which seed), more examples drawn by hypothesis
  with a fixed, derandomized profile. The contract: the clean call's numbers, or an error naming what,
  where and the remedy, whose remedy, followed, works.
* The stored table of outcomes (lib.entry_points.CONFORMANCE_TABLE, shown on the API page) is the
  outcome of a fresh run of the canonical examples; ``python -m lib.tests.conformance`` rewrites it.
* No public function of lib that takes a model and rows is left out of the list.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lib
from lib.entry_points import NOT_ENTRY_POINTS, entry_points
from lib.tests import conformance as cf

ENTRIES = entry_points()
PAIRS = [(name, case) for name, entry in ENTRIES.items() for case in cf.CASES if case.applies(entry) is None]
_OUTCOMES: dict[tuple[str, str], str] = {}

#: a fixed, derandomized profile: the same examples on every run, nothing stored
PROFILE = settings(max_examples=3, derandomize=True, database=None, deadline=None, print_blob=False,
                   suppress_health_check=list(HealthCheck))


def _canonical(name: str, case: cf.Case) -> str:
    key = (name, case.name)
    if key not in _OUTCOMES:
        _OUTCOMES[key] = cf.outcome(ENTRIES[name], case).kind
    return _OUTCOMES[key]


def test_the_suite_covers_all_24_entry_points_in_26_cases():
    # every public entry point of lib that takes a model and rows (the test below finds any undeclared
    # one): 24 of them, each a row of the stored table; a new one changes these numbers and the table
    stored = cf.stored()
    assert list(stored.index) == list(ENTRIES), (
        f"the stored table lists {len(stored)} entry points, lib declares {len(ENTRIES)}: "
        "run python -m lib.tests.conformance")
    assert list(stored.columns) == [case.name for case in cf.CASES]
    assert (len(ENTRIES), len(cf.CASES), len(PAIRS)) == (24, 26, 495)


@pytest.mark.parametrize("name, case", PAIRS, ids=[f"{n.removeprefix('lib.')}-{c.name}" for n, c in PAIRS])
def test_conformance(name, case):
    assert _canonical(name, case) in (cf.SAME, cf.REFUSED)
    if not case.random:
        return
    entry = ENTRIES[name]

    @PROFILE
    @given(st.data())
    def examples(data):
        assert cf.outcome(entry, case, data.draw).kind in (cf.SAME, cf.REFUSED)

    examples()


def test_the_stored_table_is_a_fresh_run():
    fresh = {name: {case.name: (_canonical(name, case) if case.applies(entry) is None else cf.NA)
                    for case in cf.CASES} for name, entry in ENTRIES.items()}
    stored = cf.stored()
    differ = [(name, case, stored.loc[name, case] if name in stored.index and case in stored.columns else None, kind)
              for name, row in fresh.items() for case, kind in row.items()
              if name not in stored.index or case not in stored.columns or stored.loc[name, case] != kind]
    assert not differ, f"the stored table differs from a fresh run {differ[:5]}: run python -m lib.tests.conformance"


MODEL_PARAMETERS = {"model", "f", "predict", "estimator", "classifier", "clf", "forest", "tree"}
ROW_PARAMETERS = {"X", "x", "rows", "background", "data", "Z", "parts"}


def _public_callables():
    skip = ("lib.tests", "lib.experiments", "lib.regenerate", "lib.data", "lib.entry_points")
    for info in pkgutil.walk_packages(lib.__path__, "lib."):
        name = info.name
        if any(p.startswith("_") for p in name.split(".")) or name.startswith(skip):
            continue
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield f"{name}.{attr}", obj
            if inspect.isclass(obj):
                for method, f in vars(obj).items():
                    if inspect.isfunction(f) and not method.startswith("_"):
                        yield f"{name}.{attr}.{method}", f


def test_every_public_function_that_takes_a_model_and_rows_is_an_entry_point():
    # a function whose parameters name a model and rows is declared (lib.entry_points.entry_point), so that
    # the suite runs it, or named in NOT_ENTRY_POINTS with the reason it is not one
    undeclared = []
    for qual, obj in _public_callables():
        try:
            params = set(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            continue
        if params & MODEL_PARAMETERS and params & ROW_PARAMETERS and qual not in ENTRIES and qual not in NOT_ENTRY_POINTS:
            undeclared.append(qual)
    assert not undeclared, f"take a model and rows but are not declared entry points: {undeclared}"
    assert not [q for q in NOT_ENTRY_POINTS if q in ENTRIES], "an entry point is also listed as not one"
