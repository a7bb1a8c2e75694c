"""The book's machinery: everything the compendium needs around the methods of ``lib``.

``lib`` is the methods a user installs to explain a model; this package is what the book itself
runs on: the papers' data sets, the reproduction report and its registries, what a notebook page
prints and pastes, the stored results and their regeneration, the experiments' protocols, the
long runs' parallel engine, the side environments of the papers' own tools, the figures' helpers
and the book's Sphinx extensions. It imports ``lib``; ``lib`` never imports it
(``compendium/tests/test_lib_map.py``).

The modules are listed once, in :data:`MODULES` below (CONTRIBUTING.md's map and the API pages are
checked against it).
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Every public module of ``compendium`` (a package ends its name in the map with ``/``) and what it
#: holds, in one place.
MODULES: dict[str, str] = {
    'data': 'Loaders for every data set the book uses, with sha256 verification.',
    'report': 'The reproduction report: every published number the book reproduces, classified.',
    'verdicts': "The verdicts' words and rules: the five classes of a number (``classify``), the five outcomes of a claim and their rule (re-exported by ``report``).",
    'claims': 'The claims-table records a notebook builds (re-exported by ``report``).',
    'registry': 'The reproduction registries, read and validated (re-exported by ``report``).',
    'reasons': "Why a claim could not be tested on the paper's set-up, and the checks of the facts that make each reason true (re-exported by ``registry``).",
    'rescience': "ReScience C's criteria, paper by paper, computed from the report: what was replicated, what was not, what could not be and why, how it reruns.",
    'stable': 'Same bytes on any machine: derived tables, orders that ties cannot flip, rounded glue.',
    'page': 'What a notebook page prints and pastes: checks that print their number, bound and verdict (asserted), and values glued into the prose without myst-nb.',
    'plotting': 'Figure helpers (take an ``ax``, return it, set no global style) and figures saved with the same bytes on any machine.',
    'regenerate': 'Every stored result of data/derived/, regenerated or checked by one command.',
    'experiments': 'One module per stored result of an experiment (constants, unit of work), shared by its notebook and its script.',
    'parallel': 'Independent units of the long-run scripts through joblib (or dask).',
    'side_env': "Pinned side environments for tools that cannot join the book's.",
    'sphinx': "The book's Sphinx extensions: the report, errata, figures and how-to-cite pages, pinned links, reading aids, accessibility.",
}

__all__ = sorted(MODULES)
__doc__ = (__doc__ or "") + "\nModules\n-------\n" + "".join(f"{name}\n    {what}\n" for name, what in MODULES.items())


def __getattr__(name: str) -> ModuleType:
    # Submodules load on first use (``compendium.data``), so ``python -m compendium.data`` runs
    # the module once, as __main__, without importing it a second time.
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
