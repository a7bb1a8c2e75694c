"""Chapter 2, notebook 06: error of the Shapley-composition estimators against the budget.

For an RBF SVM on iris (the set-up of notebooks 02-shapley-compositions/03 and 06), six
flowers explained against 50 background rows, every estimator of
``compendium.experiments.comp_estimation.ESTIMATORS`` (Algorithms 1 and 2 of the Shapley-composition paper's
Appendix D, with and without the efficiency adjustment of Appendix E, and shap's
SamplingExplainer and PermutationExplainer on the ILR coordinates) is run at budgets of
2**4 .. 2**14 samples per flower (2 model rows each) for each seed, and scored by the
mean Aitchison distance to the exact compositions (``compendium.experiments.comp_estimation.estimation_errors``).

Resumable: one CSV per seed under ``data/derived/comp-estimation/`` (skipped when present
unless ``--force``), gathered into ``data/derived/comp-estimation-error-vs-budget.csv``,
which the notebook displays; a tqdm bar counts the seeds done.  The seeds are
independent units (every estimator of a seed is seeded with that seed alone), run serially
or in parallel through joblib (``--n-jobs``, ``--backend``; ``compendium.parallel.run_units``).  Usage, from the repository root::

    nice -n 10 python scripts/comp_estimation.py --seeds 12
    nice -n 10 python scripts/comp_estimation.py --seeds 20 --n-jobs 2
"""

from __future__ import annotations

import argparse
import warnings
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.svm import SVC

import compendium
from lib import compositions as cp
from compendium.experiments.comp_estimation import BUDGETS, N_SEEDS, estimation_errors, iris_setup, part_name
from compendium.parallel import add_gather_arguments, add_parallel_arguments, parallel_engine, run_units


def setup() -> tuple[SVC, np.ndarray, np.ndarray, cp.ShapleyCompositions]:
    """The model, explained rows, background (as notebook 06: ``iris_setup``) and exact compositions."""
    model, explain, background = iris_setup()
    exact = cp.exact_shapley_compositions(model.predict_proba, explain, background)
    return model, explain, background, exact


def run_seed(seed: int, *, model: SVC, explain: np.ndarray, background: np.ndarray,
             exact: cp.ShapleyCompositions, parts: Path) -> Path:
    """One unit: every estimator at every budget with ``seed``, written to iris-seed<seed>.csv."""
    warnings.filterwarnings("ignore", message="IProgress not found")
    frames = [estimation_errors(model.predict_proba, explain, background, exact, n_samples=budget, seed=seed)
              for budget in BUDGETS]
    out = parts / part_name(seed)
    pd.concat(frames, ignore_index=True).to_csv(out, index=False)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=N_SEEDS, help="number of seeds (0 .. seeds-1)")
    parser.add_argument("--only-seeds", type=int, nargs="+", default=None, metavar="S",
                        help="run only these of the seeds 0 .. seeds-1 (the others' CSVs are gathered as stored)")
    parser.add_argument("--force", action="store_true", help="recompute seeds whose CSV exists")
    add_gather_arguments(parser)
    add_parallel_arguments(parser, what="seeds")
    args = parser.parse_args(argv)
    if args.only_seeds is not None and not set(args.only_seeds) <= set(range(args.seeds)):
        parser.error(f"--only-seeds must be among 0 .. {args.seeds - 1}, got {args.only_seeds}")
    warnings.filterwarnings("ignore", message="IProgress not found")
    derived = compendium.data.REPO_ROOT / "data" / "derived"
    parts = derived / "comp-estimation"
    parts.mkdir(parents=True, exist_ok=True)
    seeds = range(args.seeds) if args.only_seeds is None else sorted(set(args.only_seeds))
    todo = [s for s in seeds if not args.gather_only and (args.force or not (parts / part_name(s)).exists())]
    if todo:
        model, explain, background, exact = setup()
        fn = partial(run_seed, model=model, explain=explain, background=background, exact=exact, parts=parts)
        with parallel_engine(args):
            run_units(todo, fn, n_jobs=args.n_jobs, backend=args.backend, desc="seeds", unit="seed")
    if args.no_gather:
        return
    files = sorted(parts.glob("iris-seed*.csv"))
    table = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    table.insert(0, "setup", "iris-svm")
    table = table.sort_values(["estimator", "samples", "seed"], kind="stable")
    table.to_csv(derived / "comp-estimation-error-vs-budget.csv", index=False)
    print(f"{len(files)} seeds gathered into data/derived/comp-estimation-error-vs-budget.csv ({len(table)} rows)")


if __name__ == "__main__":
    main()
