"""Chapter 5, notebook 05: the authors' coalitional code run beside the book's, on the book's models.

Ferrettini et al.'s code (``kaduceo/coalitional_explanation_methods``, GPL-3) needs numpy < 2 and
pandas < 2, so it cannot join the book's environment. This script

1. creates a pinned side environment under ``.side-envs/coal-authors/`` (git-ignored) from the
   interpreter running it, with ``compendium.experiments.coal_authors.PINS``; nothing is installed in the
   book's environment;
2. for each KEEL data set (one unit; units run in parallel with ``--n-jobs``), runs
   ``scripts/_coal_authors_worker.py`` in it: the worker imports the authors' modules from the
   unmodified snapshot (``--code``, by default ``../shared/third-party/coalitional_explanation_methods``
   relative to the repository's root) and runs their code, while this process fits and predicts for
   it with the book's classifiers (the models are identical on both sides; see
   ``compendium.experiments.coal_authors``);
3. sets beside each of their results the book's (``lib.coalitional``, ``lib.grouping``, the exact
   Shapley value by enumeration of the orderings) and gathers them into ``data/derived/``.

It runs in three parts (``--part``; all three in turn by default):

* ``groups``: their data-driven groupings and complete influence, ``coal-authors-groups.csv``,
  ``coal-authors-complete.csv`` and ``coal-authors-versions.csv`` (the side environment's
  versions, the snapshot's commit and sha256 digests); a few CPU minutes;
* ``influence``: their coalitional influence on each grouping, ``coal-authors-influence.csv``;
  about ten CPU minutes;
* ``model``: their model-based method, ``coal-authors-model.csv``, on the data sets of at most six
  attributes; their fidelity rebuilds a 2500-row table one row at a time, so this part takes about
  half an hour of CPU.

Progress: a tqdm bar per part (``compendium.parallel.run_units``). Resumable: a data set whose part files exist under ``.side-envs/coal-authors/parts/`` is skipped
unless ``--force``. Deterministic: a rerun writes the same bytes except in the columns of CPU
seconds.

    python scripts/coal_authors.py                       # every part
    python scripts/coal_authors.py --part groups         # one part
    python scripts/coal_authors.py --part model --n-jobs 2
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # CPU time = one core's time (before numpy loads)

import argparse  # noqa: E402
import sys  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

from compendium import side_env  # noqa: E402
from compendium.experiments import coal_authors as ca  # noqa: E402
from compendium.parallel import add_parallel_arguments, parallel_engine, run_units  # noqa: E402


def _unit(name: str, *, part: str, **kwargs) -> str:
    ca.PARTS_OF_A_RUN[part][0](name, **kwargs)
    return name


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", default=None,
                        help=f"folder of the authors' code (default: {ca.DEFAULT_CODE.as_posix()} relative to the "
                             "repository's root)")
    parser.add_argument("--part", choices=list(ca.PARTS_OF_A_RUN), action="append",
                        help="the part to run (repeatable; default: all of them, in order)")
    parser.add_argument("--datasets", nargs="*", default=None, help="KEEL data sets (default: all of the chapter's)")
    parser.add_argument("--force", action="store_true", help="rerun data sets whose part files exist")
    parser.add_argument("--rebuild-env", action="store_true", help="recreate the side environment")
    parser.add_argument("--gather-only", action="store_true", help="rebuild the CSVs of data/derived from the parts")
    add_parallel_arguments(parser, what="data sets")
    args = parser.parse_args(argv)
    try:
        code = ca.code_dir(args.code)
    except FileNotFoundError as error:
        sys.exit(f"coal_authors.py: {error}")
    names = args.datasets or ca.datasets()
    unknown = sorted(set(names) - set(ca.datasets()))
    if unknown:
        sys.exit(f"coal_authors.py: not a KEEL data set of the chapter: {', '.join(unknown)}")
    try:
        python = Path(side_env.side_python(ca.SIDE_NAME, sys.executable, ca.PINS, rebuild=args.rebuild_env))
    except side_env.SideEnvError as error:
        sys.exit(f"coal_authors.py: {error}")
    for part in args.part or list(ca.PARTS_OF_A_RUN):
        if not args.gather_only:
            todo = [n for n in names if n in ca.datasets(part) and (args.force or not ca.part_done(n, part))]
            with parallel_engine(args):
                run_units(todo, partial(_unit, part=part, python=python, code=code), n_jobs=args.n_jobs,
                          backend=args.backend, desc=f"the authors' code, part {part}", unit="data set")
        missing = [n for n in ca.datasets(part) if not ca.part_done(n, part)]
        if missing:
            sys.exit(f"coal_authors.py: part {part} not gathered, {len(missing)} data sets have no results yet: "
                     f"{', '.join(missing)}")
        versions = ca.versions_table(python, code) if part == "groups" else None
        for path in ca.gather(ca.datasets(part), part, versions=versions):
            print("wrote", path)


if __name__ == "__main__":
    main()
