"""compendium.regenerate: every stored result has a registered unit of work, and --check tells identical from drifted.

The registry must name, for every file of data/derived/, the result that writes it (a file that
no result writes fails the test), and every file it declares must be stored. The registry is
declared by the experiments (``units()``), the benchmarks and the notebooks' own sources: every
script of ``scripts/`` must have its units declared (each data set and classifier it offers), and
every declared result must be shown by a notebook. ``--check`` reruns a cheap result (Table 1's
gathered cross-validation, from its stored parts) in a scratch copy and must find it identical;
against a stored copy with one cell altered, the same run must report the file as differing and
name the cell.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from compendium import regenerate as rg
from compendium.data import REPO_ROOT
from compendium.regenerate import notebooks, registry


def test_every_file_of_data_derived_is_written_by_a_registered_result() -> None:
    assert rg.unregistered() == [], "files of data/derived/ that no result of compendium.regenerate writes"
    assert rg.missing() == [], "results compendium.regenerate declares that are not stored"
    rg.check_registry(rg.REGISTRY)
    # every result's command names a file of the repository (a script, a benchmark, a notebook)
    for res in rg.REGISTRY:
        target = res.command[2] if res.kind == "notebook" else res.command[0]
        assert (REPO_ROOT / target).is_file(), f"{res.name}: {target} does not exist"


def test_an_unregistered_file_is_found(tmp_path: Path) -> None:
    derived = tmp_path / "data" / "derived"
    (derived / "reproduction").mkdir(parents=True)
    for name in ("README.md", "reproduction/00-foundations.yaml", "nb-table1-cv.csv", "stray.csv"):
        (derived / name).write_text("x\n")
    registry = [res for res in rg.REGISTRY if res.name == "nb-table1-cv"]
    assert rg.unregistered(tmp_path, registry) == ["stray.csv"]
    assert rg.missing(tmp_path, rg.REGISTRY[:1]) == list(rg.REGISTRY[0].outputs)


def test_dependencies_come_first_and_unknown_names_are_refused() -> None:
    chosen = rg.select(["notebook:01-naive-bayes/04-table1-figure1", "nb-table1-cv", "nb-table1-cv/crx"])
    names = [res.name for res in chosen]
    assert names.index("nb-table1-cv/crx") < names.index("nb-table1-cv") < names.index(
        "notebook:01-naive-bayes/04-table1-figure1")
    assert [res.name for res in rg.select(["data/derived/nb-table3-spread.csv"])] == ["nb-table3"]
    with pytest.raises(SystemExit, match="no result is called"):
        rg.select(["no-such-result"])
    # every dependency declared in the registry is ordered before its dependant
    position = {res.name: i for i, res in enumerate(rg.ordered(rg.REGISTRY))}
    for res in rg.REGISTRY:
        assert all(position[a] < position[res.name] for a in res.after), res.name


def test_compare_tells_declared_variable_columns_from_drift(tmp_path: Path) -> None:
    stored, new = tmp_path / "a.csv", tmp_path / "b.csv"
    stored.write_text("name,value,time ms\nx,0.5,12.0\ny,1.5,13.0\n")
    new.write_text("name,value,time ms\nx,0.5,99.0\ny,1.5,13.0\n")
    assert rg.compare(stored, stored).status == "identical"
    assert rg.compare(stored, new, {"time*": None}).status == "within tolerance"
    drift = rg.compare(stored, new)
    assert drift.status == "differs" and "row 0 'time ms': 12.0 -> 99.0" in drift.detail
    assert rg.compare(stored, new, {"time*": 1.0}).status == "differs"    # a declared bound holds
    assert rg.compare(stored, new, {"time*": 100.0}).status == "within tolerance"
    new.write_text("name,value,time ms\nx,0.25,12.0\ny,1.5,13.0\n")
    assert rg.compare(stored, new, {"time*": None}).status == "differs"   # not a declared column
    new.write_text("name,value,time ms\r\nx,0.5,12.0\r\ny,1.5,13.0\r\n")
    assert rg.compare(stored, new).status == "differs"                    # same cells, other bytes
    assert rg.compare(stored, tmp_path / "none.csv").status == "missing"
    js, jn = tmp_path / "a.json", tmp_path / "b.json"
    js.write_text(json.dumps({"pearson": 0.9, "seconds": 4.6}))
    jn.write_text(json.dumps({"pearson": 0.9, "seconds": 5.1}))
    assert rg.compare(js, jn, {"seconds": None}).status == "within tolerance"
    jn.write_text(json.dumps({"pearson": 0.8, "seconds": 4.6}))
    assert rg.compare(js, jn, {"seconds": None}).status == "differs"


def test_check_finds_a_cheap_result_identical_and_an_altered_copy_differing(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture) -> None:
    scratch = tmp_path / "scratch"
    assert rg.main(["--check", "nb-table1-cv", "--scratch", str(scratch)]) == 0
    out = capsys.readouterr().out
    assert "nb-table1-cv  " in out and "identical" in out
    state = json.loads((scratch / "state-check.json").read_text())
    assert state["nb-table1-cv"]["status"] == "identical"
    # the same run against a stored copy with one cell changed
    stored = tmp_path / "stored"
    (stored / "data" / "derived").mkdir(parents=True)
    text = (REPO_ROOT / "data" / "derived" / "nb-table1-cv.csv").read_text().splitlines()
    header, first = text[0].split(","), text[1].split(",")
    column = header.index("CV AUC")
    first[column] = "0.5"
    text[1] = ",".join(first)
    (stored / "data" / "derived" / "nb-table1-cv.csv").write_text("\n".join(text) + "\n")
    repo = rg.make_scratch(REPO_ROOT, scratch)
    args = argparse.Namespace(n_jobs=1, backend="loky", scheduler=None, local_cluster=None)
    outcome = rg.check_one(rg.BY_NAME["nb-table1-cv"], stored, repo, scratch / "altered.log", args)
    assert outcome["status"] == "differs"
    assert "1 cells" in outcome["detail"] and "row 0 'CV AUC': 0.5 ->" in outcome["detail"]
    shutil.rmtree(scratch)


def test_results_run_at_once_and_each_starts_after_the_results_it_reads(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """--at-once 2: two units of Table 1's cross-validation run together; their gathering step, which reads
    their files, starts only when both have ended; the table lists them in dependency order."""
    from compendium.regenerate import cli

    events: list[tuple[str, str]] = []
    guard = threading.Lock()

    def check(res: rg.Result, root: Path, repo: Path, log: Path, args: argparse.Namespace) -> dict[str, object]:
        with guard:
            events.append(("start", res.name))
        time.sleep(0.3)
        with guard:
            events.append(("end", res.name))
        return {"status": "identical", "detail": "", "cpu_seconds": 0.0, "wall_seconds": 0.3,
                "files": len(res.outputs)}

    monkeypatch.setattr(cli, "check_one", check)
    monkeypatch.setattr(cli, "make_scratch", lambda root, scratch: scratch / "repo")
    units = ["nb-table1-cv/tic-tac-toe", "nb-table1-cv/crx"]
    assert cli.main(["--check", "--at-once", "2", "nb-table1-cv", *units, "--scratch", str(tmp_path)]) == 0
    assert {e for e in events[:2]} == {("start", u) for u in units}, events  # together
    assert events[4:] == [("start", "nb-table1-cv"), ("end", "nb-table1-cv")], events  # after both
    state = json.loads((tmp_path / "state-check.json").read_text())
    assert set(state) == {"nb-table1-cv", *units}


def test_a_unit_writes_only_its_own_files_so_that_units_run_side_by_side() -> None:
    """Units of one script run side by side under --at-once; a unit that also gathered would read the part
    files of a unit being rerun beside it (deleted while it runs: FileNotFoundError in a --check) and write
    the gathered file twice at once. So every unit of a script with a gather step (``--gather-only``) runs
    with ``--no-gather``, and only the gather step, which runs after all of them, writes the gathered file."""
    gathers = [r for r in rg.REGISTRY if "--gather-only" in r.command]
    assert gathers, "no gather step found in the registry"
    gathering_units = [rg.BY_NAME[name] for g in gathers for name in g.after
                       if rg.BY_NAME[name].command[0] == g.command[0]]
    assert len(gathering_units) > len(gathers)
    assert [u.name for u in gathering_units if "--no-gather" not in u.command] == []
    for unit in gathering_units:
        gathered = {o for g in gathers if g.command[0] == unit.command[0] for o in g.outputs}
        assert not gathered & set(unit.outputs), unit.name


def test_makespan_and_the_cost_table_are_computed_from_the_recorded_states(tmp_path: Path) -> None:
    units = [5.0, 4.0, 3.0, 3.0, 3.0]
    assert rg.makespan(units, 1) == sum(units)
    assert rg.makespan(units, 10) == max(units)          # one unit per worker: the longest bounds it
    assert sum(units) / 2 <= rg.makespan(units, 2) <= sum(units) / 2 + max(units)
    check = {"nb-table1-cv/crx": {"status": "identical", "cpu_seconds": 30.0},
             "nb-table1-cv/adult": {"status": "differs", "cpu_seconds": 90.0}}
    table = rg.cost_table(check, {"nb-table1-cv/twonorm": {"status": "regenerated", "cpu_seconds": 60.0}})
    row = next(line for line in table.splitlines() if line.startswith("| `nb-table1-cv` |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:4] == ["11", "11", "2"]                 # ten data sets and the gather step; two in CI's set
    assert cells[5:8] == ["3", "180", "90"]                # three measured, their sum, the longest
    assert cells[8] == "1 differs, 1 identical"
    assert cells[9] == "2: crx, adult"                     # the units --check has run, and those it has not
    assert cells[10] == "9: every unit but the 2 checked"
    assert "Measured (" in table and ": 3 of" in table and "0.05 CPU-hours" in table
    # every registered result has its row, a result never run included, and says so
    for name in {rg.family(res) for res in rg.REGISTRY}:
        assert f"| `{name}` |" in table, name
    estimators = next(line for line in table.splitlines() if line.startswith("| `benchmark-estimators` |"))
    assert "never run by this tool" in estimators
    assert "`benchmark-estimators`" in table.splitlines()[-1]   # named among the units not in the sums
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{rg.COSTS_BEGIN}\nold\n{rg.COSTS_END}\nafter\n")
    rg.write_costs(readme, check)
    text = readme.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "old" not in text
    assert "| `nb-table1-cv` | 11 | 11 |" in text


def test_the_record_merges_sessions_and_keeps_no_machine_path(tmp_path: Path) -> None:
    logs = tmp_path / "logs"  # the scratch folder's logs: a machine path the record must not keep
    record = {"check": {"a": {"status": "identical", "cpu_seconds": 1.0, "finished": "2026-01-01T00:00:00Z"},
                        "b": {"status": "differs", "cpu_seconds": 2.0, "finished": "2026-01-02T00:00:00Z"}}}
    state = {"b": {"status": "failed", "detail": f"exit code 1; see {logs / 'b.log'}", "cpu_seconds": 3.0,
                   "finished": "2026-01-01T00:00:00Z"},            # older than the recorded run: ignored
             "c": {"status": "failed", "detail": f"exit code 2; see {logs / 'c.log'}", "cpu_seconds": 4.0,
                   "finished": "2026-01-03T00:00:00Z", "files": 1}}
    merged = rg.merge_record(record, state)
    assert merged["check"]["a"]["status"] == "identical"       # a result of an earlier session is kept
    assert merged["check"]["b"]["status"] == "differs"
    assert merged["check"]["c"] == {"status": "failed", "detail": "exit code 2", "cpu_seconds": 4.0,
                                    "finished": "2026-01-03T00:00:00Z"}
    assert merged["regenerate"] == {}


def test_every_ci_run_checks_at_least_60_percent_of_the_stored_files() -> None:
    cov = rg.coverage()
    stored = [f for f in rg.stored(REPO_ROOT) if not rg.not_a_result(f)]
    assert cov.files == len(stored)
    assert cov.notebooks == sum(len(r.outputs) for r in rg.REGISTRY if r.kind == "notebook")
    assert cov.fraction >= 0.60, str(cov)
    assert f"{cov.checked} of {cov.files} stored files" in str(cov)


SCRIPTS = sorted(p for p in (REPO_ROOT / "scripts").glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_has_its_units_declared(script: Path) -> None:
    # a script is rerun only through its declared units: each one it offers (--datasets,
    # --classifiers choices in its --help) is the command of a registered result
    path = script.relative_to(REPO_ROOT).as_posix()
    declared = [res for res in rg.REGISTRY if res.command[0] == path]
    assert declared, (f"{path}: no registered result runs it; declare its units in its compendium/experiments module "
                      "(a function units(), read by compendium.regenerate.registry)")
    done = subprocess.run([sys.executable, path, "--help"], cwd=REPO_ROOT, capture_output=True, text=True,
                          check=True, env={**__import__("os").environ, "COLUMNS": "10000"})
    for option in ("--datasets", "--classifiers"):
        offered = re.search(rf"{option} \[?\{{([^}}]*)\}}", done.stdout)
        if offered is None:
            continue
        for choice in offered[1].split(","):
            assert any(choice in res.command[res.command.index(option) + 1:] for res in declared
                       if option in res.command), f"{path}: no declared unit runs {option} {choice}"


def test_every_declared_result_is_shown_by_a_notebook_that_reads_it() -> None:
    homes = {res.name: module for module in registry.declaring_experiments() for res in module.units()}
    code = {p.relative_to(REPO_ROOT).with_suffix("").as_posix(): notebooks.notebook_code(p)
            for p in (REPO_ROOT / "notebooks").glob("*/*.ipynb")}
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for res in rg.REGISTRY:
        if res.kind == "notebook":
            continue
        if res.shown_in == ("README",):       # a result about the book itself (its pages' weight): README quotes it
            assert all(f"data/derived/{o}" in readme for o in res.outputs), f"{res.name}: README does not quote it"
            continue
        assert res.shown_in, f"{res.name}: no notebook shows it (declare shown_in)"
        family = {o for other in rg.REGISTRY if rg.family(other) == rg.family(res) for o in other.outputs}
        module = homes.get(res.name)
        for nb in res.shown_in:
            assert nb in code, f"{res.name}: shown_in names {nb}, which is not a notebook"
        def imports(source: str) -> bool:       # import compendium.experiments.x, or from compendium.experiments import x
            if module is None:
                return False
            short = module.__name__.rsplit(".", 1)[-1]
            return module.__name__ in source or bool(
                re.search(rf"^\s*from compendium\.experiments import [^\n]*\b{short}\b", source, re.M))

        assert any(family & notebooks.literal_strings(code[nb]) or imports(code[nb]) for nb in res.shown_in), (
            f"{res.name}: none of {res.shown_in} reads its files or imports its experiment")


def test_a_notebooks_files_are_read_from_its_code(tmp_path: Path) -> None:
    code = ('from compendium.stable import write_derived\nimport lib\n'
            'x = pd.read_csv(DERIVED / "nb-table3.csv")\n'
            'compendium.stable.write_derived(t, "b.csv", digits=3)\nwrite_derived(t, name="a.csv")\n'
            'print("written data/derived/b.csv")\n')
    assert notebooks.notebook_writes(code) == ["b.csv", "a.csv"]             # in the order of the calls
    assert {"nb-table3.csv", "b.csv"} <= notebooks.literal_strings(code)
    with pytest.raises(ValueError, match="line 2: write_derived.*literal"):
        notebooks.notebook_writes('name = "a.csv"\nwrite_derived(t, name)\n', "x.ipynb")
    # a notebook's inputs are the files of other results it names, and it comes after their writers
    nb = REPO_ROOT / "notebooks" / "05-coalitional-explanations" / "03-time-and-error.ipynb"
    res = rg.BY_NAME["notebook:05-coalitional-explanations/03-time-and-error"]
    assert "coal-grid.csv" in res.inputs and "coal-grid" in res.after
    assert set(res.outputs) == set(notebooks.notebook_writes(notebooks.notebook_code(nb)))
    assert not set(res.inputs) & set(res.outputs)
