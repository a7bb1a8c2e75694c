"""The registry: every stored result of ``data/derived/``, put together from the declarations of those who write them.

Nothing is typed here. The results come from

* each :mod:`compendium.experiments` module that has a long-run script: its ``units()`` declares one
  :class:`~compendium.regenerate.result.Result` per unit of the script (a data set, a seed, a pair)
  and its gather step, from the experiment's own constants, with the notebook that shows them
  and whether CI's ``--check --cheap`` covers them;
* the benchmarks (:mod:`compendium.regenerate.benchmarks`);
* the notebooks' own sources (:mod:`compendium.regenerate.notebooks`): the files each writes with
  ``write_derived`` and the stored files it reads.

The experiments come in the order of their chapters (then of their module names), the
benchmarks next, the notebooks last, in the book's order. A result's ``after`` is filled in
here: the results that write its inputs. :func:`unregistered` lists a file that no result writes
(a test fails on it); :data:`NOT_RESULTS` names the few files that are not results.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib
import pkgutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType

from compendium import data
from compendium.regenerate import benchmarks
from compendium.regenerate.notebooks import notebook_results, owners
from compendium.regenerate.result import DERIVED, Result

__all__ = ["BY_NAME", "NOT_RESULTS", "REGISTRY", "check_registry", "declaring_experiments", "missing", "not_a_result",
           "ordered", "select", "stored", "unregistered"]

#: Files of data/derived/ that are not results: typed by hand, read by the tools.
NOT_RESULTS: Mapping[str, str] = {
    "README.md": "this folder's description",
    "reproduction.yaml": "the reproduction report's registry of papers (compendium.report)",
    "reproduction/*.yaml": "the reproduction report's registry of each chapter's comparisons (compendium.report)",
    "regenerate-record.json": "the record of the runs of compendium.regenerate the cost table is written from",
}


def _chapter(results: Sequence[Result]) -> int:
    shown = [s for r in results for s in r.shown_in]
    if not shown:
        raise ValueError(f"{results[0].name}: no notebook shows it (declare shown_in)")
    return min(int(Path(s).parent.name[:2]) for s in shown)


def declaring_experiments() -> list[ModuleType]:
    """The :mod:`compendium.experiments` modules that declare stored results (a function ``units()``),
    in the order of their chapters, then of their names."""
    import compendium.experiments

    found = []
    for info in sorted(pkgutil.iter_modules(compendium.experiments.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"compendium.experiments.{info.name}")
        if callable(getattr(module, "units", None)):
            found.append(module)
    return sorted(found, key=lambda m: (_chapter(m.units()), m.__name__))


def build(root: Path = data.REPO_ROOT) -> tuple[Result, ...]:
    """Every result: the experiments' units, the benchmarks', the notebooks'; each after those it reads."""
    declared = [res for module in declaring_experiments() for res in module.units()]
    declared += benchmarks.units()
    results = declared + notebook_results(root, declared)
    writer = owners(results)
    return tuple(dataclasses.replace(res, after=tuple(dict.fromkeys(
        writer[i] for i in res.inputs if i in writer and writer[i] != res.name))) for res in results)


REGISTRY: tuple[Result, ...] = build()
BY_NAME: Mapping[str, Result] = {res.name: res for res in REGISTRY}


def stored(root: Path) -> list[str]:
    """Every file of ``data/derived/`` under ``root``, as a path relative to it."""
    base = root / DERIVED
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file())


def not_a_result(path: str) -> bool:
    """Whether a file of ``data/derived/`` is one of :data:`NOT_RESULTS`."""
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in NOT_RESULTS)


def unregistered(root: Path = data.REPO_ROOT, registry: Sequence[Result] = REGISTRY) -> list[str]:
    """Files of ``data/derived/`` that no result writes and that are not in :data:`NOT_RESULTS`."""
    written = {o for res in registry for o in res.outputs}
    return [f for f in stored(root) if f not in written and not not_a_result(f)]


def missing(root: Path = data.REPO_ROOT, registry: Sequence[Result] = REGISTRY) -> list[str]:
    """Outputs the registry declares that are not stored."""
    present = set(stored(root))
    return [o for res in registry for o in res.outputs if o not in present]


def check_registry(registry: Sequence[Result]) -> None:
    """Refuse two results of one name, a file written by two results, an unknown name in ``after``."""
    names = [res.name for res in registry]
    if len(set(names)) != len(names):
        raise ValueError("two results share a name")
    writer: dict[str, str] = {}
    for res in registry:
        for o in res.outputs:
            if o in writer:
                raise ValueError(f"{o} is written by both {writer[o]} and {res.name}")
            writer[o] = res.name
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
            raise SystemExit(f"no result is called {pattern!r} or writes it; `python -m compendium.regenerate --list` "
                             "lists them")
        chosen.update((res.name, res) for res in hits)
    return ordered(chosen.values(), registry)

