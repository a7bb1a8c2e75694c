"""Chapter 2, notebook 06: error of the Shapley-composition estimators against the budget.

For an RBF SVM on iris (the set-up of notebooks 02-shapley-compositions/03 and 06), six
flowers explained against 50 background rows, every estimator of
``lib.compositions.ESTIMATORS`` (Algorithms 1 and 2 of the Shapley-composition paper's
Appendix D, with and without the efficiency adjustment of Appendix E, and shap's
SamplingExplainer and PermutationExplainer on the ILR coordinates) is run at budgets of
2**4 .. 2**14 samples per flower (2 model rows each) for each seed, and scored by the
mean Aitchison distance to the exact compositions (``lib.compositions.estimation_errors``).

Resumable: one CSV per seed under ``data/derived/comp-estimation/`` (skipped when present
unless ``--force``), gathered into ``data/derived/comp-estimation-error-vs-budget.csv``,
which the notebook displays.  Usage, from the repository root::

    nice -n 10 python scripts/comp_estimation.py --seeds 12
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from sklearn.svm import SVC
from tqdm import tqdm

import lib
from lib import compositions as cp

#: Budgets, in samples per explained row (each sample = 2 model rows).
BUDGETS = [2**k for k in range(4, 15)]
#: The explained flowers: two of each species (rows of ``load_iris``).
ROWS = [0, 25, 54, 75, 100, 130]
N_BACKGROUND = 50


def setup() -> tuple[SVC, np.ndarray, np.ndarray, cp.ShapleyCompositions]:
    """The model, explained rows, background and exact compositions (same code as notebook 06)."""
    X, y = lib.data.load_iris()
    Xa = X.to_numpy()
    model = SVC(kernel="rbf", probability=True, random_state=0).fit(Xa, y)
    background = Xa[np.random.default_rng(0).choice(len(Xa), N_BACKGROUND, replace=False)]
    explain = Xa[ROWS]
    exact = cp.exact_shapley_compositions(model.predict_proba, explain, background)
    return model, explain, background, exact


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="number of seeds (0 .. seeds-1)")
    parser.add_argument("--force", action="store_true", help="recompute seeds whose CSV exists")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message="IProgress not found")
    derived = lib.data.REPO_ROOT / "data" / "derived"
    parts = derived / "comp-estimation"
    parts.mkdir(parents=True, exist_ok=True)
    model, explain, background, exact = setup()
    todo = [s for s in range(args.seeds) if args.force or not (parts / f"iris-seed{s:02d}.csv").exists()]
    with tqdm(total=len(todo) * len(BUDGETS), desc="seed x budget") as bar:
        for seed in todo:
            frames = []
            for budget in BUDGETS:
                frames.append(cp.estimation_errors(model.predict_proba, explain, background, exact,
                                                   n_samples=budget, seed=seed))
                bar.update()
            pd.concat(frames, ignore_index=True).to_csv(parts / f"iris-seed{seed:02d}.csv", index=False)
    files = sorted(parts.glob("iris-seed*.csv"))
    table = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    table.insert(0, "setup", "iris-svm")
    table = table.sort_values(["estimator", "samples", "seed"], kind="stable")
    table.to_csv(derived / "comp-estimation-error-vs-budget.csv", index=False)
    print(f"{len(files)} seeds gathered into data/derived/comp-estimation-error-vs-budget.csv ({len(table)} rows)")


if __name__ == "__main__":
    main()
