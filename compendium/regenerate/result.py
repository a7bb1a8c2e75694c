"""One stored result: a unit of work, the command that runs it and the files of ``data/derived/`` it writes.

The experiments declare theirs (``units()`` of each :mod:`compendium.experiments` module that has a
script), the benchmarks theirs (:mod:`compendium.regenerate.benchmarks`), and the notebooks' are read
from their sources (:mod:`compendium.regenerate.notebooks`); :mod:`compendium.regenerate.registry` puts them
together. This module imports nothing of the book, so that an experiment can import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["DERIVED", "Result", "Variable"]

#: Where the results are stored, relative to the repository's root.
DERIVED = Path("data") / "derived"

#: A column (or JSON key) pattern whose values may differ between runs, and by how much:
#: ``None``: any value (wall-clock and CPU times, which depend on the machine and its load);
#: a number: the largest absolute difference allowed.
Variable = Mapping[str, "float | None"]


@dataclass(frozen=True)
class Result:
    """One unit of work and the files of ``data/derived/`` it writes.

    ``command`` is run from the repository's root (a script or benchmark with its arguments, or
    ``jupyter execute <notebook>``); ``outputs`` are paths under ``data/derived/``; ``inputs``
    are data sets (names of :func:`compendium.data.load`) and files of ``data/derived/`` it reads;
    ``after`` (filled in by the registry: the results that write its inputs) must run first;
    ``shown_in`` the notebooks that show it; ``cheap`` whether CI's ``--check --cheap`` reruns
    it on every run.
    """

    name: str
    command: tuple[str, ...]
    outputs: tuple[str, ...]
    inputs: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    variable: Variable = field(default_factory=dict)
    engine: bool = False      # the script takes compendium.parallel's options
    side_env: str | None = None
    cheap: bool = False       # checked by .ci/run on every run (see compendium.regenerate.cli.CHEAP_BUDGET_MINUTES)
    note: str = ""
    shown_in: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "notebook" if self.command[0] == "jupyter" else "script"
