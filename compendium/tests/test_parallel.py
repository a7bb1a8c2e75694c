"""Tests of compendium.parallel: the long-run scripts' units give the same results in parallel.

``run_units`` must return results in the order of the units whatever the order in which
they finish, and a real script's unit (Table 3's KernelSHAP protocol on KRFCC, a few rows)
run by two loky workers must write the same bytes as the serial run. Khiops is required
(as in test_khiops_nb): without it the script test fails with a message.
"""

from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path
from types import ModuleType

import pytest

from lib import khiops_nb as kn
from compendium.data import REPO_ROOT
from compendium.parallel import run_units


def _slow_square(x: int) -> int:
    # the first units sleep longest: with several workers they finish last
    time.sleep(0.05 * (4 - x))
    return x * x


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_run_units_returns_results_in_the_order_of_the_units(backend: str) -> None:
    finished: list[int] = []
    out = run_units(list(range(5)), _slow_square, n_jobs=3, backend=backend, progress=False,
                    on_result=lambda u, r: finished.append(u))
    assert out == [0, 1, 4, 9, 16]
    assert sorted(finished) == [0, 1, 2, 3, 4]
    assert run_units([3, 1], _slow_square, progress=False) == [9, 1]
    assert run_units([], _slow_square, n_jobs=2, progress=False) == []


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_table3_units_are_the_same_in_parallel_and_in_series(tmp_path: Path) -> None:
    if not kn.khiops_available():
        pytest.fail("khiops is not installed: `pip install khiops` (the CI installs it)", pytrace=False)
    t3 = _script("nb_table3_kernelshap")
    fn = t3.partial(t3.run_unit, n_explain=40, suffix="", progress=False)
    serial = [("cervical", s, tmp_path / "serial" / f"seed-{s}") for s in (1, 2)]
    # in parallel, and in the other order: each unit is seeded by its own seed alone
    parallel = [("cervical", s, tmp_path / "loky" / f"seed-{s}") for s in (2, 1)]
    out_serial = run_units(serial, fn, n_jobs=1, progress=False)
    out_parallel = run_units(parallel, fn, n_jobs=2, backend="loky", progress=False)
    assert [r["seed"] for r in out_serial] == [1, 2] and [r["seed"] for r in out_parallel] == [2, 1]
    for s in (1, 2):
        a, b = tmp_path / "serial" / f"seed-{s}", tmp_path / "loky" / f"seed-{s}"
        assert (a / "cervical.csv").read_bytes() == (b / "cervical.csv").read_bytes()
        sa, sb = (json.loads((d / "cervical.json").read_text()) for d in (a, b))
        for timing in ("seconds", "seconds per explained row"):
            sa.pop(timing), sb.pop(timing)
        assert sa == sb
    # the seed matters (other rows drawn): the test would see two units sharing one draw
    one, two = ((tmp_path / "serial" / f"seed-{s}" / "cervical.csv").read_bytes() for s in (1, 2))
    assert one != two
    # and the spread gathered from the two seed folders
    spread = t3.gather_spread(tmp_path / "serial").set_index("quantity")
    assert list(spread["runs"]) == [2, 2] and list(spread["seeds"]) == ["1 2", "1 2"]
    pearson = [r["pearson proba"] for r in out_serial]
    assert spread.loc["Pearson", "min"] == pytest.approx(min(pearson), abs=1e-12)
    assert spread.loc["Pearson", "max"] == pytest.approx(max(pearson), abs=1e-12)


def test_unit_csvs_are_written_whole_and_gathered_in_file_order(tmp_path):
    import pandas as pd

    from compendium.parallel import gather_unit_csvs, write_unit_csv

    write_unit_csv(pd.DataFrame({"unit": ["b"], "x": [1 / 3]}), tmp_path / "b.csv")
    write_unit_csv(pd.DataFrame({"unit": ["a"], "x": [2.0]}), tmp_path / "a.csv")
    assert not list(tmp_path.glob("*.tmp"))
    out = tmp_path / "all" / "gathered.csv"
    out.parent.mkdir()
    table = gather_unit_csvs(tmp_path, out)
    assert table["unit"].tolist() == ["a", "b"]
    assert out.read_text().splitlines() == ["unit,x", "a,2", "b,0.333333"]
    with pytest.raises(SystemExit, match="no results"):
        gather_unit_csvs(out.parent / "none", out)


def test_gather_only_and_no_gather_are_refused_together() -> None:
    """--gather-only (gather, run nothing) and --no-gather (run, gather nothing) ask for opposite things:
    a script given both would silently do nothing, so its parser refuses them."""
    import argparse

    from compendium.parallel import add_gather_arguments

    parser = argparse.ArgumentParser()
    add_gather_arguments(parser)
    assert vars(parser.parse_args(["--no-gather"])) == {"gather_only": False, "no_gather": True}
    assert vars(parser.parse_args(["--gather-only"])) == {"gather_only": True, "no_gather": False}
    with pytest.raises(SystemExit):
        parser.parse_args(["--gather-only", "--no-gather"])
