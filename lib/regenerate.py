"""Every stored result of ``data/derived/``, regenerated or checked with one command.

``python -m lib.regenerate [NAME ...|--all|--cheap] [--check] [--n-jobs N] [--scheduler ADDRESS|--local-cluster N]``

The registry (:data:`REGISTRY`) knows, for every file of ``data/derived/``, the *result* that
writes it: a unit of work (one data set of a script, one seed, one notebook, one benchmark),
the command that runs it, the files it writes, what it reads (data sets, other derived files)
and which results must come first. :func:`unregistered` lists a file that no result writes
(a test fails on it); :data:`NOT_RESULTS` names the few files that are not results (this
folder's README, the reproduction report's registries, typed by hand).

Without ``--check`` the results asked for are rerun in place, in dependency order (units
before the gather steps that concatenate them, those before the notebooks that read them;
a notebook is re-executed in place by ``.ci/refresh-notebooks``), with a progress bar; a
result already done at the same commit is skipped (resumable) unless ``--force``. With
``--check`` each result runs in a *scratch copy* of the repository (its
code, notebooks and ``data/``, under ``--scratch``, by default ``_build/regenerate/``):
its stored outputs are deleted there, its command writes them again, and each is compared
with the stored file: **identical** (same bytes), **within tolerance** (the only differences
are in columns the registry declares variable, wall-clock times, each within what is declared
for it), or **differs** (which cells), **missing** or **failed**. Every result is checked
against the stored files of the others (the scratch copy gets the stored outputs back after
each check), so one drifted result does not make the rest differ. The scripts need no option
for this: they write under the repository root of the ``lib`` they import, and the scratch
copy's ``lib`` is the one imported there (``PYTHONPATH``).

A table is printed at the end: result, status, CPU-seconds (this process's children: the
command and everything it waited for), wall seconds. The state of every result (status, CPU
seconds, commit) is kept in ``<scratch>/state-check.json`` (or ``state-regenerate.json``): a run
stopped half way resumes where it stopped. ``--write-costs`` merges those states into
``data/derived/regenerate-record.json`` (committed, so that the checks of several sessions and
machines add up) and writes from it the cost table of ``data/derived/README.md``: every result,
its units checked and not checked, the CPU seconds measured, and :func:`coverage`, the share of
the stored files that every CI run checks (``--list`` and ``--check --cheap`` print it too). ``--n-jobs``/``--backend``/``--scheduler``/``--local-cluster`` are passed on to the
scripts whose units run in parallel (``lib.parallel``). A result that needs a side environment
(ACV, scikit-learn 1.3) builds it the way its script does, under ``.side-envs/`` of the
repository (the scratch copy links to it).
"""

from __future__ import annotations

import argparse
import fcntl
import fnmatch
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from lib import data
from lib.parallel import add_parallel_arguments

__all__ = [
    "NOT_RESULTS",
    "REGISTRY",
    "Comparison",
    "Coverage",
    "Result",
    "compare",
    "cost_table",
    "coverage",
    "main",
    "makespan",
    "merge_record",
    "missing",
    "ordered",
    "select",
    "unregistered",
]

DERIVED = Path("data") / "derived"

#: Files of data/derived/ that are not results: typed by hand, read by the tools.
NOT_RESULTS: Mapping[str, str] = {
    "README.md": "this folder's description",
    "reproduction.yaml": "the reproduction report's registry of papers (lib.report)",
    "reproduction/*.yaml": "the reproduction report's registry of each chapter's comparisons (lib.report)",
    "regenerate-record.json": "the record of the runs of lib.regenerate the cost table is written from",
}

#: A column (or JSON key) pattern whose values may differ between runs, and by how much:
#: ``None``: any value (wall-clock and CPU times, which depend on the machine and its load);
#: a number: the largest absolute difference allowed.
Variable = Mapping[str, "float | None"]


@dataclass(frozen=True)
class Result:
    """One unit of work and the files of ``data/derived/`` it writes."""

    name: str
    command: tuple[str, ...]
    outputs: tuple[str, ...]
    inputs: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    variable: Variable = field(default_factory=dict)
    engine: bool = False      # the script takes lib.parallel's options
    side_env: str | None = None
    cheap: bool = False       # checked by .ci/run on every run (see CHEAP_BUDGET)
    note: str = ""

    @property
    def kind(self) -> str:
        return "notebook" if self.command[0] == "jupyter" else "script"


# ----------------------------------------------------------------------------- the registry
#: data sets of Lemaire et al.'s Tables 1 and 3 (scripts nb_table1_cv, nb_table3_kernelshap)
NB_DATASETS = ("twonorm", "crx", "ionosphere", "spambase", "tic-tac-toe", "german-numeric", "telco", "adult",
               "cervical", "breast-wisconsin")
#: Table 3's other seeds: 1-3 on every data set, 4-7 on the four whose rows are drawn
NB_TABLE3_SEEDS = {1: NB_DATASETS, 2: NB_DATASETS, 3: NB_DATASETS,
                   **{s: ("telco", "twonorm", "adult", "spambase") for s in (4, 5, 6, 7)}}
COAL_GRID_CLASSIFIERS = ("NB", "kNN", "tree", "BagNB", "RF", "SVM")
COAL_GRID_CHEAP = ("NB", "kNN", "tree", "BagNB")   # 1-10 CPU s a pair; RF and SVM up to a minute
#: the data sets on which CI also checks the RF and SVM pairs (at most 6 attributes: an RF pair under 10 CPU s;
#: with 7 to 9 attributes one takes 15 to 45 CPU s), and those on which it checks the SVM pair only (5 CPU s)
COAL_GRID_CHEAP_RF_SVM = ("iris", "tae", "hayes-roth", "haberman", "bupa", "monk-2", "mammographic", "new-thyroid1")
COAL_GRID_CHEAP_SVM = ("ecoli1", "glass1", "led7digit", "breast")
#: Table 3's data sets whose units (every seed) CI checks: about 10 CPU s a unit; the others 10 s to 10 min
NB_TABLE3_CHEAP = ("tic-tac-toe", "cervical", "crx", "ionosphere", "breast-wisconsin", "german-numeric")
#: comp-estimation's seeds that CI checks (about 12 CPU s a seed)
COMP_ESTIMATION_CHEAP = (0, 1, 2)
COAL_MANY_DATASETS = ("ionosphere", "german-numeric", "cervical", "spambase", "adult")
COAL_MANY_CLASSIFIERS = ("logistic", "gradient-boosting")
TV_REAL_DATASETS = ("keel-haberman", "cervical", "keel-yeast1", "keel-abalone9-18", "adult")
COMP_ESTIMATION_SEEDS = 20

#: results that .ci/run checks on every run: measured on 2 cores (see data/derived/README.md)
CHEAP_BUDGET_MINUTES = 15

_TIMES = {"time*": None}                      # coal-grid: milliseconds of this process
_CPU = {"cpu * s": None}                      # coal-many: CPU seconds
_SECONDS = {"seconds": None, "seconds per explained row": None}   # nb-table3's JSON summaries
#: nb-table3's JSON summaries, also: KernelSHAP's distance to eq. 10 where it enumerates every
#: coalition (and to eq. 10's background expectation) is rounding noise, 1e-15 to 1e-13, whose
#: digits depend on the BLAS kernel (spambase: 2.48e-15 on one machine, 2.43e-15 on another);
#: allowed to move by 1e-12, far below the sampled distances (1e-3 to 1e-1) the chapter reads
_TABLE3 = {**_SECONDS, "log-odds vs eq10 *": 1e-12}
_BENCH = {"* s": None, "* s (*)": None, "ratio *": None, "seconds per row": None,
          "ratio to typical value": None,
          # exact_engine's agreement columns (ours against shap, shapiq, ours without dedup):
          # rounding noise, 1e-16 to 1e-14, whose digits depend on the BLAS kernel; the benchmark
          # itself refuses more than 1e-8 (1e-12 without dedup). Not tv_speed's KernelSHAP error.
          "max |ours - *|": 1e-12}


def _nb(path: str, outputs: Iterable[str], inputs: Iterable[str] = (), *, after: Iterable[str] = (),
        cheap: bool = False) -> Result:
    name = "notebook:" + path.removeprefix("notebooks/").removesuffix(".ipynb")
    return Result(name, ("jupyter", "execute", path), tuple(outputs), tuple(inputs), tuple(after),
                  cheap=cheap, note="also re-run by nbval in every test run")


def _registry() -> tuple[Result, ...]:
    r: list[Result] = []
    cheap_nb = set(NB_TABLE3_CHEAP)
    # ---- chapter 1: Table 1's cross-validation, Table 3's KernelSHAP protocol
    for d in NB_DATASETS:
        r.append(Result(f"nb-table1-cv/{d}", ("scripts/nb_table1_cv.py", "--datasets", d, "--force"),
                        (f"nb-table1-cv/{d}.csv",), (d,), engine=True, cheap=d == "tic-tac-toe"))
    r.append(Result("nb-table1-cv", ("scripts/nb_table1_cv.py", "--gather-only"), ("nb-table1-cv.csv",),
                    tuple(f"nb-table1-cv/{d}.csv" for d in NB_DATASETS),
                    tuple(f"nb-table1-cv/{d}" for d in NB_DATASETS), cheap=True))
    t3 = "scripts/nb_table3_kernelshap.py"
    for d in NB_DATASETS:
        r.append(Result(f"nb-table3/{d}", (t3, "--datasets", d, "--force", "--no-gather"),
                        (f"nb-table3/{d}.csv", f"nb-table3/{d}.json"), (d,), variable=_TABLE3, engine=True,
                        cheap=d in cheap_nb))
    r.append(Result("nb-table3/adult-300-rows", (t3, "--datasets", "adult", "--rows", "300",
                                                 "--name-suffix=-300-rows", "--no-gather", "--force"),
                    ("nb-table3/adult-300-rows.csv", "nb-table3/adult-300-rows.json"), ("adult",),
                    variable=_TABLE3))
    spread_parts = []
    for s, names in NB_TABLE3_SEEDS.items():
        for d in names:
            out = (f"nb-table3/seed-{s}/{d}.csv", f"nb-table3/seed-{s}/{d}.json")
            spread_parts.append(f"nb-table3/seed-{s}/{d}")
            r.append(Result(f"nb-table3/seed-{s}/{d}", (t3, "--seeds", str(s), "--datasets", d, "--force",
                                                        "--no-gather"), out, (d,), variable=_TABLE3,
                            engine=True, cheap=d in cheap_nb))
    t3_parts = [f"nb-table3/{d}" for d in NB_DATASETS]
    r.append(Result("nb-table3", (t3, "--gather-only"), ("nb-table3.csv", "nb-table3-log-odds.csv",
                                                       "nb-table3-spread.csv"),
                    tuple(f"{p}.json" for p in t3_parts + spread_parts), tuple(t3_parts + spread_parts), cheap=True))
    # ---- chapter 2: the estimators' error against the budget, scikit-learn 1.3 in a side environment
    for s in range(COMP_ESTIMATION_SEEDS):
        r.append(Result(f"comp-estimation/seed-{s:02d}",
                        ("scripts/comp_estimation.py", "--seeds", str(COMP_ESTIMATION_SEEDS), "--only-seeds", str(s),
                         "--force"), (f"comp-estimation/iris-seed{s:02d}.csv",), ("iris",), engine=True,
                        cheap=s in COMP_ESTIMATION_CHEAP))
    r.append(Result("comp-estimation", ("scripts/comp_estimation.py", "--gather-only"),
                    ("comp-estimation-error-vs-budget.csv",),
                    tuple(f"comp-estimation/iris-seed{s:02d}.csv" for s in range(COMP_ESTIMATION_SEEDS)),
                    tuple(f"comp-estimation/seed-{s:02d}" for s in range(COMP_ESTIMATION_SEEDS)), cheap=True))
    r.append(Result("comp-sklearn-versions", ("scripts/sklearn_versions.py", "--force"), ("comp-sklearn-versions.csv",),
                    ("iris",), side_env="sklearn-1.3",
                    note="scikit-learn 1.3.2 fits the digits-10 PCA with its randomized solver, unseeded in the "
                         "authors' set-up, which the worker seeds through numpy's global generator"))
    # ---- chapter 3: ACV in its side environment
    acv = ("decisions", "train-rows", "rows", "versions", "sdp", "sufficient", "swing", "runtime")
    r.append(Result("sdp-acv", ("scripts/acv_lucas.py", "--force"), tuple(f"sdp-acv-{a}.csv" for a in acv),
                    ("lucas0",), variable={"seconds": None}, side_env="acv"))
    # ---- chapter 4: typical values on real data
    for d in TV_REAL_DATASETS:
        r.append(Result(f"tv-real/{d}", ("scripts/tv_real_data.py", "--datasets", d, "--force"),
                        (f"tv-real/{d}.csv", f"tv-real/{d}-models.csv"), (d,), engine=True,
                        cheap=d in ("keel-haberman", "cervical")))
    r.append(Result("tv-real", ("scripts/tv_real_data.py", "--gather-only"),
                    ("tv-real-vs-shapley.csv", "tv-real-models.csv", "tv-real-datasets.csv"),
                    tuple(f"tv-real/{d}.csv" for d in TV_REAL_DATASETS) + TV_REAL_DATASETS,
                    tuple(f"tv-real/{d}" for d in TV_REAL_DATASETS), cheap=True))
    # ---- chapter 5: the coalitional grid and many attributes
    keel = [n.removeprefix("keel-") for n in data.names("keel")]
    for c in COAL_GRID_CLASSIFIERS:
        for d in keel:
            r.append(Result(f"coal-grid/{d}__{c}", ("scripts/coal_grid.py", "--datasets", f"keel-{d}",
                                                    "--classifiers", c, "--force"),
                            (f"coal-grid/{d}__{c}.csv",), (f"keel-{d}",), variable=_TIMES, engine=True,
                            cheap=c in COAL_GRID_CHEAP or d in COAL_GRID_CHEAP_RF_SVM
                            or (c == "SVM" and d in COAL_GRID_CHEAP_SVM)))
    r.append(Result("coal-grid", ("scripts/coal_grid.py", "--gather-only"), ("coal-grid.csv",),
                    tuple(f"coal-grid/{d}__{c}.csv" for c in COAL_GRID_CLASSIFIERS for d in keel),
                    tuple(f"coal-grid/{d}__{c}" for c in COAL_GRID_CLASSIFIERS for d in keel),
                    variable=_TIMES, cheap=True))
    for d in COAL_MANY_DATASETS:
        for c in COAL_MANY_CLASSIFIERS:
            r.append(Result(f"coal-many/{d}__{c}", ("scripts/coal_many.py", "--datasets", d, "--classifiers", c,
                                                    "--force"),
                            (f"coal-many/{d}__{c}.csv",), (d,), variable=_CPU, engine=True))
    r.append(Result("coal-many", ("scripts/coal_many.py", "--gather-only"), ("coal-many.csv",),
                    tuple(f"coal-many/{d}__{c}.csv" for d in COAL_MANY_DATASETS for c in COAL_MANY_CLASSIFIERS),
                    tuple(f"coal-many/{d}__{c}" for d in COAL_MANY_DATASETS for c in COAL_MANY_CLASSIFIERS),
                    variable=_CPU, cheap=True))
    # ---- chapter 5: the authors' coalitional code in its side environment, on the book's models
    keel_sets = tuple(data.names("keel"))
    authors = {"groups": ("versions", "complete", "groups"), "influence": ("influence",), "model": ("model",)}
    for part, files in authors.items():
        r.append(Result("coal-authors" + ("" if part == "groups" else f"-{part}"),
                        ("scripts/coal_authors.py", "--part", part, "--force"),
                        tuple(f"coal-authors-{f}.csv" for f in files), keel_sets, variable={"* CPU s": None},
                        engine=True, side_env="coal-authors", cheap=part == "groups",
                        note="" if part != "model" else "the authors' fidelity rebuilds a 2500-row table one row at "
                                                        "a time: about half an hour of CPU"))
    # ---- benchmarks: speed, measured (their times are the variable columns)
    r.append(Result("benchmark-exact-engine", ("benchmarks/exact_engine.py", "--repeats", "7", "--out",
                                               "data/derived/benchmark-exact-engine.csv"),
                    ("benchmark-exact-engine.csv",), variable=_BENCH,
                    note="the shapiq columns need requirements-bench.txt"))
    r.append(Result("benchmark-estimators", ("benchmarks/estimators.py", "--rows", "1", "--seeds", "10", "--out",
                                              "data/derived/benchmark-estimators.csv"),
                    ("benchmark-estimators.csv",), ("twonorm", "adult", "iris"),
                    # an estimator exact on a game (KernelSHAP, paired and permutation sampling on the
                    # additive naive-Bayes log-odds) is off by rounding noise, 1e-16 to 1e-14 relative,
                    # whose digits depend on the order of the exact values' sums (BLAS kernel, engine
                    # path: 1.1e-15 -> 1.3e-16 when the engine took its values from the pairs); the
                    # sampled errors the notebook reads are 1e-4 and above, and it counts < 1e-9 as exact
                    variable={"error *": 1e-12},
                    note="errors of seeded estimators (no timing column); shapiq from requirements-bench.txt"))
    r.append(Result("benchmark-nb-speed", ("benchmarks/nb_speed.py", "--repeats", "50", "--kernel-rows", "3",
                                           "--khiops-repeats", "3", "--out", "data/derived/benchmark-nb-speed.csv"),
                    ("benchmark-nb-speed.csv",), ("adult",),
                    # KernelSHAP on the additive log-odds is exact up to rounding, and shap samples its coalitions
                    # from numpy's unseeded generator: the rounding (about 1e-14) changes from run to run
                    variable={**_BENCH, "kernel vs eq10 same background max abs diff": 1e-12}))
    r.append(Result("benchmark-tv-speed", ("benchmarks/tv_speed.py", "--rows", "20", "--repeats", "3", "--out",
                                           "data/derived/benchmark-tv-speed.csv"),
                    ("benchmark-tv-speed.csv",),
                    # at these d KernelSHAP enumerates every coalition: its distance to the exact values
                    # is rounding noise (2e-15 to 4e-15), whose digits follow the exact values' last bits
                    variable={**_BENCH, "max |KernelSHAP - exact|": 1e-12}))
    r.append(Result("benchmark-tv-speed-d12", ("benchmarks/tv_speed.py", "--max-features", "12", "--rows", "5",
                                               "--repeats", "1", "--out", "data/derived/benchmark-tv-speed-d12.csv"),
                    ("benchmark-tv-speed-d12.csv",), variable=_BENCH,
                    # at d = 12 shap samples coalitions from numpy's global generator, which the benchmark
                    # seeds just before, so that the KernelSHAP error is the same on every run
                    ))
    # ---- notebooks (in the book's order) that write comparison tables
    nbk = "notebooks/"
    r += [
        _nb(nbk + "00-foundations/02-data.ipynb", ["found-nb-table1-data.csv", "found-nb-table1-errata.csv"]),
        _nb(nbk + "00-foundations/03-estimators.ipynb", ["found-estimators-claims.csv", "found-estimators-coal-claims.csv"],
            ["benchmark-estimators.csv"], after=["benchmark-estimators"]),
        _nb(nbk + "01-naive-bayes/02-woe-vs-shapley.ipynb", ["nb-table2.csv", "nb-table2-top5.csv"]),
        _nb(nbk + "01-naive-bayes/03-kernelshap.ipynb", ["nb-table3-tolerance.csv"],
            ["nb-table3.csv", "nb-table3-log-odds.csv", "nb-table3-spread.csv"], after=["nb-table3"]),
        _nb(nbk + "01-naive-bayes/04-table1-figure1.ipynb", ["nb-table1.csv", "nb-table1-cv-claim.csv"],
            ["nb-table1-cv.csv"], after=["nb-table1-cv"]),
        _nb(nbk + "01-naive-bayes/05-speed.ipynb", ["nb-speed-claims.csv"], ["benchmark-nb-speed.csv"],
            after=["benchmark-nb-speed"]),
        _nb(nbk + "01-naive-bayes/06-multiclass.ipynb", ["nb-multiclass-composition.csv",
                                                          "nb-multiclass-claims.csv"]),
        _nb(nbk + "02-shapley-compositions/03-iris.ipynb", ["comp-iris-table1.csv", "comp-iris-table1-spread.csv"],
            ["comp-sklearn-versions.csv"], after=["comp-sklearn-versions"]),
        _nb(nbk + "02-shapley-compositions/04-digits.ipynb", ["comp-digits4-claims.csv"]),
        _nb(nbk + "02-shapley-compositions/05-digits-ten-classes.ipynb",
            ["comp-digits-spread.csv", "comp-digits-table2.csv", "comp-digits-table3.csv",
             "comp-digits-table3-cause.csv", "comp-digits-claims.csv"]),
        _nb(nbk + "02-shapley-compositions/06-estimation.ipynb", ["comp-estimation-claims.csv"],
            ["comp-estimation-error-vs-budget.csv"], after=["comp-estimation"]),
        _nb(nbk + "02-shapley-compositions/07-naive-bayes-composition.ipynb", ["comp-nb-closed-form-checks.csv"]),
        _nb(nbk + "03-same-decision-probability/01-lucas-network.ipynb", ["sdp-lucas0-goodness-of-fit.csv"]),
        _nb(nbk + "03-same-decision-probability/03-swing-shapley-figure-1.ipynb",
            ["sdp-figure1-swing-sv.csv", "sdp-figure1-decomposition.csv", "sdp-figure1-claims.csv"]),
        _nb(nbk + "03-same-decision-probability/04-estimated-sdp.ipynb",
            ["sdp-estimated-errors.csv", "sdp-estimated-errors-by-size.csv", "sdp-estimated-figure1-swing-sv.csv",
             "sdp-estimated-claims.csv"]),
        _nb(nbk + "03-same-decision-probability/05-ordinary-shapley-values.ipynb",
            ["sdp-ordinary-values.csv", "sdp-ordinary-claims.csv", "sdp-ordinary-pyagrum.csv"]),
        _nb(nbk + "03-same-decision-probability/06-acv.ipynb", ["sdp-acv-claims.csv"],
            [f"sdp-acv-{a}.csv" for a in acv], after=["sdp-acv"]),
        _nb(nbk + "04-typical-value-contributions/01-derivation.ipynb",
            [f"tv-derivation-{a}.csv" for a in ("imbalance", "vs-shapley", "checks", "typical-woe", "calibration",
                                                 "vs-target")]),
        _nb(nbk + "04-typical-value-contributions/02-simulated-evaluation.ipynb", ["tv-simulated-vs-shapley.csv"]),
        _nb(nbk + "04-typical-value-contributions/04-verdict.ipynb",
            ["tv-real-verdict.csv", "tv-verdict-shapley-agreement.csv"],
            ["tv-real-vs-shapley.csv", "benchmark-tv-speed.csv", "tv-derivation-vs-shapley.csv"],
            after=["tv-real", "benchmark-tv-speed", "notebook:04-typical-value-contributions/01-derivation"]),
        _nb(nbk + "05-coalitional-explanations/01-definitions.ipynb", ["coal-cost-pima.csv"]),
        _nb(nbk + "05-coalitional-explanations/02-groups.ipynb", ["coal-groups-keel.csv", "coal-group-claims.csv"]),
        _nb(nbk + "05-coalitional-explanations/03-time-and-error.ipynb", ["coal-grid-claims.csv"],
            ["coal-grid.csv"], after=["coal-grid"]),
        _nb(nbk + "05-coalitional-explanations/04-many-attributes.ipynb",
            ["coal-many-claims.csv", "coal-many-grid-claims.csv"], ["coal-many.csv", "coal-grid.csv"],
            after=["coal-many", "coal-grid"]),
        _nb(nbk + "05-coalitional-explanations/05-authors-code.ipynb", ["coal-authors-differences.csv"],
            [f"coal-authors-{f}.csv" for files in authors.values() for f in files] + ["coal-grid.csv"],
            after=["coal-authors", "coal-authors-influence", "coal-authors-model", "coal-grid"]),
    ]
    return tuple(r)


REGISTRY: tuple[Result, ...] = _registry()
BY_NAME: Mapping[str, Result] = {res.name: res for res in REGISTRY}


# ----------------------------------------------------------------------------- coverage and order
def _stored(root: Path) -> list[str]:
    base = root / DERIVED
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file())


def _not_result(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in NOT_RESULTS)


def unregistered(root: Path = data.REPO_ROOT, registry: Sequence[Result] = REGISTRY) -> list[str]:
    """Files of ``data/derived/`` that no result writes and that are not in :data:`NOT_RESULTS`."""
    written = {o for res in registry for o in res.outputs}
    return [f for f in _stored(root) if f not in written and not _not_result(f)]


def missing(root: Path = data.REPO_ROOT, registry: Sequence[Result] = REGISTRY) -> list[str]:
    """Outputs the registry declares that are not stored."""
    stored = set(_stored(root))
    return [o for res in registry for o in res.outputs if o not in stored]


def _check_registry(registry: Sequence[Result]) -> None:
    names = [res.name for res in registry]
    if len(set(names)) != len(names):
        raise ValueError("two results share a name")
    owners: dict[str, str] = {}
    for res in registry:
        for o in res.outputs:
            if o in owners:
                raise ValueError(f"{o} is written by both {owners[o]} and {res.name}")
            owners[o] = res.name
        for a in res.after:
            if a not in names:
                raise ValueError(f"{res.name}: unknown result {a!r} in after")


def ordered(results: Iterable[Result], registry: Sequence[Result] = REGISTRY) -> list[Result]:
    """``results`` in dependency order: a result after those it names in ``after`` (when also asked)."""
    wanted = {res.name: res for res in results}
    position = {res.name: i for i, res in enumerate(registry)}
    done: list[Result] = []
    seen: set[str] = set()

    def visit(res: Result, stack: tuple[str, ...]) -> None:
        if res.name in seen:
            return
        if res.name in stack:
            raise ValueError(f"dependency cycle: {' -> '.join(stack + (res.name,))}")
        for a in sorted(res.after, key=lambda n: position.get(n, 0)):
            if a in wanted:
                visit(wanted[a], stack + (res.name,))
        seen.add(res.name)
        done.append(res)

    for res in sorted(wanted.values(), key=lambda r: position.get(r.name, 0)):
        visit(res, ())
    return done


def select(patterns: Sequence[str], registry: Sequence[Result] = REGISTRY) -> list[Result]:
    """Results whose name, or one of whose outputs, matches a pattern (``fnmatch``); an unknown name is an error."""
    chosen: dict[str, Result] = {}
    for pattern in patterns:
        hits = [res for res in registry
                if fnmatch.fnmatchcase(res.name, pattern)
                or any(fnmatch.fnmatchcase(o, pattern.removeprefix("data/derived/")) for o in res.outputs)]
        if not hits:
            raise SystemExit(f"no result is called {pattern!r} or writes it; `python -m lib.regenerate --list` "
                             "lists them")
        chosen.update((res.name, res) for res in hits)
    return ordered(chosen.values(), registry)


# ----------------------------------------------------------------------------- comparison
@dataclass(frozen=True)
class Comparison:
    """How a regenerated file compares with the stored one."""

    status: str            # identical | within tolerance | differs | missing
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("identical", "within tolerance")


def _tolerance(column: str, variable: Variable) -> tuple[bool, float | None]:
    for pattern, tol in variable.items():
        if fnmatch.fnmatchcase(column, pattern):
            return True, tol
    return False, None


def _within(a: str, b: str, tol: float | None) -> bool:
    if tol is None or a == b:
        return True
    try:
        return abs(float(a) - float(b)) <= tol
    except ValueError:
        return False


def _cells(stored: Mapping[str, list[str]], new: Mapping[str, list[str]], variable: Variable,
           label: str) -> Comparison:
    if list(stored) != list(new):
        return Comparison("differs", f"{label}: columns {list(stored)} -> {list(new)}")
    diffs, varied = [], set()
    for column in stored:
        a, b = stored[column], new[column]
        if len(a) != len(b):
            return Comparison("differs", f"{label}: {len(a)} rows -> {len(b)}")
        declared, tol = _tolerance(column, variable)
        for i, (x, y) in enumerate(zip(a, b)):
            if x == y:
                continue
            if declared and _within(x, y, tol):
                varied.add(column)
            else:
                diffs.append(f"row {i} {column!r}: {x} -> {y}")
    if diffs:
        more = f" (and {len(diffs) - 3} more)" if len(diffs) > 3 else ""
        return Comparison("differs", f"{label}: {len(diffs)} cells: " + "; ".join(diffs[:3]) + more)
    if not varied:
        return Comparison("differs", f"{label}: the same cells in other bytes (quoting, number format, line ends)")
    return Comparison("within tolerance", f"{label}: only {', '.join(sorted(varied))} (declared variable)")


def compare(stored: Path, new: Path, variable: Variable = {}) -> Comparison:  # noqa: B006 - read only
    """Compare a regenerated file with the stored one (CSV cells and JSON keys by the declared ``variable``)."""
    label = stored.name
    if not new.is_file():
        return Comparison("missing", f"{label} was not written")
    a, b = stored.read_bytes(), new.read_bytes()
    if a == b:
        return Comparison("identical")
    if stored.suffix == ".csv":
        try:
            x = pd.read_csv(stored, dtype=str, keep_default_na=False)
            y = pd.read_csv(new, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, UnicodeDecodeError) as err:
            return Comparison("differs", f"{label}: not a readable CSV ({err})")
        return _cells({c: x[c].tolist() for c in x.columns}, {c: y[c].tolist() for c in y.columns}, variable, label)
    if stored.suffix == ".json":
        try:
            x, y = json.loads(a), json.loads(b)
        except json.JSONDecodeError as err:
            return Comparison("differs", f"{label}: not readable JSON ({err})")
        if isinstance(x, dict) and isinstance(y, dict):
            return _cells({k: [json.dumps(v)] for k, v in x.items()}, {k: [json.dumps(v)] for k, v in y.items()},
                          variable, label)
    return Comparison("differs", f"{label}: other bytes")


# ----------------------------------------------------------------------------- running
def _commit(root: Path) -> str:
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


COPIED = ("lib", "scripts", "benchmarks", "notebooks", "data", "book/figures")


def make_scratch(root: Path, scratch: Path) -> Path:
    """A copy of the repository's code, notebooks and ``data/`` (stored results included) at ``scratch/repo``."""
    repo = scratch / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    for part in COPIED:
        if (root / part).exists():
            shutil.copytree(root / part, repo / part, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "*.pyc"))
    side = root / ".side-envs"
    side.mkdir(exist_ok=True)
    (repo / ".side-envs").symlink_to(side.resolve(), target_is_directory=True)
    return repo


def _environment(where: Path, scratch: bool) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    env[data.ENV_VAR] = str(data.data_dir().resolve())
    if scratch:
        env["PYTHONPATH"] = os.pathsep.join([str(where), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _engine_options(res: Result, args: argparse.Namespace) -> list[str]:
    if not res.engine:
        return []
    opts = []
    if args.n_jobs != 1:
        opts += ["--n-jobs", str(args.n_jobs)]
    if args.backend != "loky":
        opts += ["--backend", args.backend]
    if args.scheduler:
        opts += ["--scheduler", args.scheduler]
    if args.local_cluster:
        opts += ["--local-cluster", str(args.local_cluster)]
    return opts


def _argv(res: Result, args: argparse.Namespace, *, scratch: bool) -> list[str]:
    if res.kind == "notebook":
        if scratch:  # run, store nothing but the files it writes
            return [sys.executable, "-m", "jupyter", *res.command[1:]]
        return ["bash", ".ci/refresh-notebooks", res.command[-1]]  # the notebook's stored outputs too
    return [sys.executable, *res.command, *_engine_options(res, args)]


def run_one(res: Result, where: Path, log: Path, args: argparse.Namespace, *,
            scratch: bool) -> tuple[int, float, float]:
    """Run a result's command in ``where``; its exit code, CPU-seconds and wall seconds."""
    log.parent.mkdir(parents=True, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with log.open("w") as out:
        done = subprocess.run(_argv(res, args, scratch=scratch), cwd=where, env=_environment(where, scratch),
                              stdout=out, stderr=subprocess.STDOUT, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.returncode, cpu, time.perf_counter() - start


def check_one(res: Result, root: Path, repo: Path, log: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Regenerate ``res`` in the scratch copy ``repo`` and compare its outputs with the stored ones in ``root``."""
    for o in res.outputs:
        (repo / DERIVED / o).unlink(missing_ok=True)
    code, cpu, wall = run_one(res, repo, log, args, scratch=True)
    comparisons = {o: compare(root / DERIVED / o, repo / DERIVED / o, res.variable) for o in res.outputs}
    for o in res.outputs:  # the others are checked against the stored files, not against this run
        target = repo / DERIVED / o
        target.parent.mkdir(parents=True, exist_ok=True)
        if (root / DERIVED / o).is_file():
            shutil.copy2(root / DERIVED / o, target)
    if code != 0:
        status, detail = "failed", f"exit code {code}; see {log}"
    else:
        worst = next((c for c in comparisons.values() if not c.ok), None)
        if worst is not None:
            status = worst.status
            detail = "; ".join(c.detail for c in comparisons.values() if not c.ok)
        elif any(c.status == "within tolerance" for c in comparisons.values()):
            status = "within tolerance"
            detail = "; ".join(c.detail for c in comparisons.values() if c.status == "within tolerance")
        else:
            status, detail = "identical", ""
    return {"status": status, "detail": detail, "cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1),
            "files": len(res.outputs)}


def _load_state(path: Path) -> dict[str, Any]:
    if path.is_file():
        return json.loads(path.read_text())
    return {}


def _save_state(path: Path, state: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def _table(rows: Sequence[tuple[str, str, float, float, str]]) -> str:
    width = max([len("result")] + [len(r[0]) for r in rows])
    lines = [f"{'result':<{width}}  {'status':<16}  {'CPU s':>8}  {'wall s':>8}  detail"]
    for name, status, cpu, wall, detail in rows:
        lines.append(f"{name:<{width}}  {status:<16}  {cpu:>8.1f}  {wall:>8.1f}  {detail}")
    return "\n".join(lines)


COSTS_BEGIN = "<!-- cost table: written by `python -m lib.regenerate --write-costs`; do not edit -->"
COSTS_END = "<!-- end of the cost table -->"


def family(res: Result) -> str:
    """The group a result belongs to in the cost table: its script's folder, or the notebook."""
    return res.name.split("/")[0] if res.kind == "script" else res.name


def makespan(seconds: Sequence[float], workers: int) -> float:
    """Wall time of independent units on ``workers`` workers, longest first to the least loaded (LPT)."""
    loads = [0.0] * workers
    for s in sorted(seconds, reverse=True):
        loads[loads.index(min(loads))] += s
    return max(loads, default=0.0)


@dataclass(frozen=True)
class Coverage:
    """How many of the registered files every CI run checks."""

    files: int          # files the registry declares (every file of data/derived/ but NOT_RESULTS)
    notebooks: int      # written by notebooks: nbval reruns them and CI fails if one changed
    cheap: int          # written by the --cheap results, which .ci/run checks with --check

    @property
    def checked(self) -> int:
        return self.notebooks + self.cheap

    @property
    def fraction(self) -> float:
        return self.checked / self.files if self.files else 0.0

    def __str__(self) -> str:
        return (f"{self.checked} of {self.files} stored files ({100 * self.fraction:.0f} %) are checked on every CI "
                f"run: {self.notebooks} written by notebooks (nbval reruns them, git status compares them) and "
                f"{self.cheap} by the --cheap results (`python -m lib.regenerate --check --cheap`)")


def coverage(registry: Sequence[Result] = REGISTRY) -> Coverage:
    """The files of the registry that every CI run checks (notebooks' and the cheap set's)."""
    files = sum(len(r.outputs) for r in registry)
    notebooks = sum(len(r.outputs) for r in registry if r.kind == "notebook")
    cheap = sum(len(r.outputs) for r in registry if r.cheap and r.kind != "notebook")
    return Coverage(files, notebooks, cheap)


#: The record of every run the cost table is written from, kept with the results (committed), so
#: that the checks of earlier sessions and other machines add up: ``--write-costs`` merges the
#: states of the scratch folder into it (the later run of a result wins) and writes the table.
RECORD = "regenerate-record.json"
_RECORDED = ("status", "detail", "cpu_seconds", "wall_seconds", "commit", "finished")


def _clean(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """An outcome as recorded: no log path (a machine path), only the fields the table reads."""
    kept = {k: outcome[k] for k in _RECORDED if k in outcome}
    kept["detail"] = str(kept.get("detail", "")).split("; see ")[0]
    return kept


def merge_record(record: Mapping[str, Any], check: Mapping[str, Any],
                 runs: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The record with the states of a scratch folder added: per mode and result, the later run wins."""
    merged: dict[str, dict[str, Any]] = {"check": dict(record.get("check", {})),
                                         "regenerate": dict(record.get("regenerate", {}))}
    for mode, states in (("check", check), ("regenerate", runs or {})):
        for name, outcome in states.items():
            old = merged[mode].get(name)
            if old is None or str(outcome.get("finished", "")) >= str(old.get("finished", "")):
                merged[mode][name] = _clean(outcome)
    return {mode: dict(sorted(v.items())) for mode, v in merged.items()}


def _units(names: Sequence[str], others: int, other: str) -> str:
    """``names`` listed when they are the shorter side (or at most 7), else counted against the ``other`` side."""
    if not names:
        return "-"
    if not others:
        return f"{len(names)}: all"
    if len(names) <= max(others, 7):
        return f"{len(names)}: " + ", ".join(names)
    return f"{len(names)}: every unit but the {others} {other}"


def _cheap_cost(registry: Sequence[Result], check: Mapping[str, Any], runs: Mapping[str, Any]) -> str:
    cheap = [r for r in registry if r.cheap]
    cpu = [float((check.get(r.name) or runs.get(r.name))["cpu_seconds"]) for r in cheap
           if check.get(r.name) or runs.get(r.name)]
    return (f"The --cheap set: {len(cheap)} results, {len(cpu)} of them measured, {sum(cpu) / 60:.0f} CPU minutes "
            f"measured (its units run one after the other).")


def cost_table(check: Mapping[str, Any], runs: Mapping[str, Any] | None = None,
               registry: Sequence[Result] = REGISTRY) -> str:
    """The cost table of data/derived/README.md, from the recorded states of --check runs (and of plain runs).

    One row per script (its units: data sets, seeds, pairs), benchmark or notebook, every registered
    result included (one never run says so); per row the units checked by ``--check`` and those not.
    """
    runs = runs or {}
    groups: dict[str, list[Result]] = {}
    for res in registry:
        groups.setdefault(family(res), []).append(res)
    lines = [
        ("| result | units | files | units in CI's --cheap | command (one unit) | units measured | CPU s measured "
         "| longest unit CPU s | last --check | units checked | units not checked |"),
        "|---|---:|---:|---:|---|---:|---:|---:|---|---|---|",
    ]
    measured: list[float] = []
    n_checked = n_units = 0
    never: list[str] = []
    for name, members in groups.items():
        seen = {r.name: check.get(r.name) or runs.get(r.name) for r in members}
        cpu = [float(v["cpu_seconds"]) for v in seen.values() if v]
        measured += cpu
        checked = {r.name: check[r.name]["status"] for r in members if r.name in check}
        counts: dict[str, int] = {}
        for status in checked.values():
            counts[status] = counts.get(status, 0) + 1
        notebook = members[0].kind == "notebook"
        if counts:
            verdict = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        elif notebook:
            verdict = "not run by this tool; nbval reruns it on every test run"
        else:
            verdict = "never run by this tool"
            never.append(name)
        details = [f"{r.name.split('/', 1)[-1]}: {check[r.name]['detail']}" for r in members
                   if r.name in check and check[r.name].get("detail")
                   and check[r.name]["status"] not in ("identical", "within tolerance")]
        notes = [r.note for r in members if r.note and r.name in check
                 and check[r.name]["status"] not in ("identical", "within tolerance")]
        if details or notes:
            verdict += " (" + "; ".join(details[:3] + notes) + ")"
        short = [r.name.split("/", 1)[-1] if "/" in r.name and not notebook
                 else "gather" if len(members) > 1 else "the notebook" if notebook else "the run" for r in members]
        done = [u for u, r in zip(short, members) if r.name in check]
        left = [u for u, r in zip(short, members) if r.name not in check]
        not_done = _units(left, len(done), "checked")
        if notebook and not done:
            not_done = "- (nbval reruns it on every test run)"
        n_checked += len(checked)
        n_units += len(members)
        command = " ".join(members[0].command).replace("|", "\\|")
        verdict = verdict.replace("|", "\\|")
        lines.append(f"| `{name}` | {len(members)} | {sum(len(r.outputs) for r in members)} "
                     f"| {sum(r.cheap for r in members)} | `{command}` "
                     f"| {len(cpu)} | {sum(cpu):.0f} | {max(cpu, default=0):.0f} | {verdict} "
                     f"| {_units(done, len(left), 'not checked')} | {not_done} |")
    total = sum(measured)
    unmeasured = n_units - len(measured)
    lines += [
        "",
        f"{coverage(registry)}.",
        "",
        _cheap_cost(registry, check, runs),
        "",
        (f"Measured (CPU seconds of the units this tool has run, by `--check` or in place): {len(measured)} of "
         f"{n_units} units ({n_checked} checked by `--check`), {total / 3600:.2f} CPU-hours. Their wall time, "
         f"longest unit first to the least-loaded worker: {makespan(measured, 2) / 3600:.2f} h on 2 cores, "
         f"{makespan(measured, 32) / 3600:.2f} h projected on 32 workers (the longest unit, "
         f"{max(measured, default=0) / 60:.1f} min, bounds it). Not measured: the other {unmeasured} units"
         + (f" (never run by this tool: {', '.join(f'`{n}`' for n in never)})" if never else "")
         + "; they are not in these sums, so the whole compendium from raw data costs more than this."),
    ]
    names = {r.name for r in registry}
    stamps = [v for k, v in check.items() if k in names]
    commits = sorted({str(v.get("commit", "unknown"))[:7] for v in stamps})
    finished = sorted(str(v["finished"]) for v in stamps if v.get("finished"))
    if finished:
        lines += ["", f"The checks recorded here ran from {finished[0][:10]} to {finished[-1][:10]}, at commit"
                      f"{'s' if len(commits) > 1 else ''} {', '.join(commits)} (the state of each result is in `{RECORD}`)."]
    return "\n".join(lines)


def write_costs(readme: Path, check: Mapping[str, Any], runs: Mapping[str, Any] | None = None) -> None:
    """Replace the cost table between :data:`COSTS_BEGIN` and :data:`COSTS_END` in ``readme``."""
    text = readme.read_text(encoding="utf-8")
    if COSTS_BEGIN not in text or COSTS_END not in text:
        raise SystemExit(f"{readme} has no cost-table markers ({COSTS_BEGIN} ... {COSTS_END})")
    head, rest = text.split(COSTS_BEGIN, 1)
    _, tail = rest.split(COSTS_END, 1)
    readme.write_text(head + COSTS_BEGIN + "\n" + cost_table(check, runs) + "\n" + COSTS_END + tail,
                      encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib.regenerate", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="results to run (names, or files of data/derived/; shell-style patterns allowed)")
    parser.add_argument("--all", action="store_true", help="every result, in dependency order")
    parser.add_argument("--cheap", action="store_true",
                        help=f"the results checked by CI on every run (about {CHEAP_BUDGET_MINUTES} min on 2 cores)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate in a scratch copy and compare with the stored files (nothing stored changes)")
    parser.add_argument("--list", action="store_true", help="list the results, their commands and files, and stop")
    parser.add_argument("--scratch", type=Path, default=data.REPO_ROOT / "_build" / "regenerate",
                        help="folder for the scratch copy, the logs and the resumable state "
                             "(default _build/regenerate)")
    parser.add_argument("--force", action="store_true", help="rerun results already done at this commit")
    parser.add_argument("--write-costs", action="store_true",
                        help="write the cost table of data/derived/README.md from the recorded states, and stop")
    add_parallel_arguments(parser, what="units of the scripts that take them")
    args = parser.parse_args(argv)
    _check_registry(REGISTRY)
    if args.list:
        for res in REGISTRY:
            flags = ", ".join(f for f, on in (("cheap", res.cheap), (f"side env {res.side_env}", res.side_env),
                                              ("parallel", res.engine)) if on)
            print(f"{res.name}: {' '.join(res.command)}" + (f"  [{flags}]" if flags else ""))
            print("    writes " + ", ".join(res.outputs))
        print(coverage())
        return 0
    if args.write_costs:
        scratch = args.scratch.resolve()
        record_path = data.REPO_ROOT / DERIVED / RECORD
        record = merge_record(_load_state(record_path), _load_state(scratch / "state-check.json"),
                              _load_state(scratch / "state-regenerate.json"))
        record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        write_costs(data.REPO_ROOT / DERIVED / "README.md", record["check"], record["regenerate"])
        print(f"merged the states of {scratch} into {DERIVED / RECORD}; wrote the cost table of "
              f"{DERIVED / 'README.md'}")
        print(coverage())
        return 0
    patterns = list(args.names)
    if args.all:
        chosen = list(REGISTRY)
    elif args.cheap:
        chosen = [res for res in REGISTRY if res.cheap] + (select(patterns) if patterns else [])
    elif patterns:
        chosen = select(patterns)
    else:
        parser.error("name the results to run (NAME ...), or --all, or --cheap; --list lists them")
    chosen = ordered(chosen)
    root = data.REPO_ROOT
    scratch = args.scratch.resolve()
    mode = "check" if args.check else "regenerate"
    state_path = scratch / f"state-{mode}.json"
    state = _load_state(state_path)
    commit = _commit(root)
    scratch.mkdir(parents=True, exist_ok=True)
    lock = (scratch / "lock").open("w")
    try:  # two runs on one scratch folder would delete each other's copy and state
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(f"another `python -m lib.regenerate` is using {scratch}; wait for it, or pass "
                         "another --scratch") from None
    repo = make_scratch(root, scratch) if args.check else root
    rows = []
    bar = tqdm(chosen, desc=mode, unit="result", file=sys.stderr)
    for res in bar:
        bar.set_postfix_str(res.name)
        previous = state.get(res.name)
        if previous and previous.get("commit") == commit and not args.force and previous["status"] != "failed":
            rows.append((res.name, previous["status"] + " (earlier)", previous["cpu_seconds"],
                         previous["wall_seconds"], previous.get("detail", "")))
            continue
        log = scratch / "logs" / (res.name.replace("/", "__").replace(":", "_") + ".log")
        if args.check:
            outcome = check_one(res, root, repo, log, args)
        else:
            code, cpu, wall = run_one(res, root, log, args, scratch=False)
            gone = [o for o in res.outputs if not (root / DERIVED / o).is_file()]
            status = "failed" if code else ("missing" if gone else "regenerated")
            detail = f"exit code {code}; see {log}" if code else ", ".join(gone)
            outcome = {"status": status, "detail": detail, "cpu_seconds": round(cpu, 1),
                       "wall_seconds": round(wall, 1), "files": len(res.outputs)}
        outcome.update(commit=commit, finished=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        state[res.name] = outcome
        _save_state(state_path, state)
        rows.append((res.name, outcome["status"], outcome["cpu_seconds"], outcome["wall_seconds"],
                     outcome["detail"]))
        tqdm.write(f"{res.name}: {outcome['status']} ({outcome['cpu_seconds']:.1f} CPU s)", file=sys.stderr)
    print(_table(rows))
    bad = [r for r in rows if r[1].split(" (")[0] not in ("identical", "within tolerance", "regenerated")]
    files = sum(len(BY_NAME[r[0]].outputs) for r in rows)
    print(f"{len(rows)} results, {files} files; {len(rows) - len(bad)} {'as stored' if args.check else 'done'}, "
          f"{len(bad)} not; {sum(r[2] for r in rows) / 60:.1f} CPU minutes")
    if args.cheap:
        print(coverage())
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
