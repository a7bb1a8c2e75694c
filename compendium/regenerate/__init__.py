"""Every stored result of ``data/derived/``, regenerated or checked with one command.

``python -m compendium.regenerate [NAME ...|--all|--cheap] [--check] [--n-jobs N] [--scheduler ADDRESS|--local-cluster N]``

The registry (:data:`REGISTRY`, :mod:`compendium.regenerate.registry`) knows, for every file of
``data/derived/``, the *result* that writes it: a unit of work (one data set of a script, one
seed, one notebook, one benchmark), the command that runs it, the files it writes, what it reads
(data sets, other derived files) and which results must come first. :func:`unregistered` lists a
file that no result writes (a test fails on it); :data:`NOT_RESULTS` names the few files that are
not results (this folder's README, the reproduction report's registries, typed by hand).

Nothing of it is typed in this package: each experiment with a long-run script declares its
units in its own module of :mod:`compendium.experiments` (``units()``), the benchmarks theirs in
:mod:`compendium.regenerate.benchmarks`, and which notebook writes and reads which file is read from the
notebooks' sources (:mod:`compendium.regenerate.notebooks`).

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

A figure of ``book/figures`` is named ``figure:NAME`` (``python -m compendium.regenerate --check
figure:nb-figure3-twonorm``): the notebook that saves it is rerun (in the scratch copy with
``--check``, its PNG and SVG then compared byte for byte with the stored ones; in place without),
apart from the registry of ``data/derived/`` (``compendium.regenerate.figures``).

A table is printed at the end: result, status, CPU-seconds (this process's children: the
command and everything it waited for), wall seconds. The state of every result (status, CPU
seconds, commit) is kept in ``<scratch>/state-check.json`` (or ``state-regenerate.json``): a run
stopped half way resumes where it stopped. ``--write-costs`` merges those states into
``data/derived/regenerate-record.json`` (committed, so that the checks of several sessions and
machines add up) and writes from it the cost table of ``data/derived/README.md``: every result,
its units checked and not checked, the CPU seconds measured, and :func:`coverage`, the share of
the stored files that every CI run checks (``--list`` and ``--check --cheap`` print it too). ``--n-jobs``/``--backend``/``--scheduler``/``--local-cluster`` are passed on to the
scripts whose units run in parallel (``compendium.parallel``). A result that needs a side environment
(ACV, scikit-learn 1.3) builds it the way its script does, under ``.side-envs/`` of the
repository (the scratch copy links to it).

The package, one concept per module:

``result``
    :class:`Result`, one unit of work and its files (what the experiments declare).
``notebooks``
    The notebooks' results, read from their sources.
``benchmarks``
    The benchmarks' results.
``registry``
    Every result put together (:data:`REGISTRY`), in dependency order (:func:`ordered`), chosen
    by name or file (:func:`select`); the stored files no result writes (:func:`unregistered`).
``comparison``
    A regenerated file against the stored one (:func:`compare`).
``figures``
    The figures of ``book/figures``, one by one (``figure:NAME``): which notebook saves each, read from
    the notebooks' sources (:func:`figure_notebooks`), and the check that reruns it in a scratch copy
    and compares the PNG and SVG byte for byte (:func:`check_figures`); :func:`command` is the line the
    Figures page prints under every figure.
``runner``
    Running a result in place, or in a scratch copy and comparing (:func:`check_one`).
``costs``
    The record of the runs and the cost table (:func:`cost_table`, :func:`coverage`).
``cli``
    The command line (:func:`main`).

Its names are loaded on first use (``compendium.regenerate.REGISTRY`` imports the registry, which imports
every experiment), so that an experiment can import :mod:`compendium.regenerate.result` without loading
the registry that imports it.
"""

from __future__ import annotations

import importlib
from typing import Any

#: name -> the module of this package that defines it
_HOMES = {
    "Result": "result", "Variable": "result", "DERIVED": "result",
    "REGISTRY": "registry", "BY_NAME": "registry", "NOT_RESULTS": "registry", "check_registry": "registry",
    "missing": "registry", "not_a_result": "registry", "ordered": "registry", "select": "registry",
    "stored": "registry", "unregistered": "registry",
    "Comparison": "comparison", "compare": "comparison",
    "COPIED": "runner", "check_one": "runner", "environment": "runner", "make_scratch": "runner", "run_one": "runner",
    "FIGURES": "figures", "FORMATS": "figures", "PREFIX": "figures", "check_figures": "figures", "command": "figures",
    "figure_notebooks": "figures", "notebook_figures": "figures", "select_figures": "figures",
    "stored_figures": "figures",
    "COSTS_BEGIN": "costs", "COSTS_END": "costs", "RECORD": "costs", "Coverage": "costs", "cost_table": "costs",
    "coverage": "costs", "family": "costs", "makespan": "costs", "merge_record": "costs", "write_costs": "costs",
    "CHEAP_BUDGET_MINUTES": "cli", "main": "cli",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"compendium.regenerate.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'compendium.regenerate' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
