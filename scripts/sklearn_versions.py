"""Chapter 2: does scikit-learn 1.3, which the compositions authors ran, calibrate their SVCs
as the book's pinned scikit-learn does?

The published numbers of Noé et al. come from ``SVC(kernel="rbf", probability=True)`` fitted with
scikit-learn 1.3 (their stored outputs); the book pins a later release.  This script runs the
authors' three set-ups (iris, digits with four classes, digits with ten; the worker
``scripts/_sklearn_versions_worker.py``) under both: in the book's environment, and in a pinned
side environment (``.side-envs/sklearn-1.3/``, git-ignored, created from the interpreter running
this script with :data:`PINS`).  It stores every calibrated probability of every test row for
each calibration seed, and their difference between the two versions, in
``data/derived/comp-sklearn-versions.csv``.

The authors' ten-class set-up fits ``PCA(n_components=6)`` unseeded; scikit-learn 1.3 picks a
randomized solver for it, which draws from numpy's global generator. The worker keeps their call
and seeds that generator just before it (``np.random.seed(0)``), so that the file holds one draw
of their PCA that is the same on every run (it changed from run to run before); the book's
release picks an exact solver, which draws nothing.

    python scripts/sklearn_versions.py               # builds the side environment the first time
    python scripts/sklearn_versions.py --force       # recompute both sides
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from compendium import side_env
from compendium.data import REPO_ROOT
from compendium.experiments.sklearn_versions import OUT, PINS, SEEDS

WORKER = REPO_ROOT / "scripts" / "_sklearn_versions_worker.py"
PARTS = side_env.SIDE_ENVS / "sklearn-1.3" / "parts"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--force", action="store_true", help="recompute both sides")
    p.add_argument("--rebuild-env", action="store_true", help="rebuild the side environment")
    args = p.parse_args(argv)
    try:
        side = side_env.side_python("sklearn-1.3", sys.executable, PINS, rebuild=args.rebuild_env)
    except side_env.SideEnvError as error:
        sys.exit(f"sklearn_versions.py: {error}")
    PARTS.mkdir(parents=True, exist_ok=True)
    runs = {"side": (side, PARTS / "side.csv"), "book": (Path(sys.executable), PARTS / "book.csv")}
    for label, (python, out) in tqdm(runs.items(), desc="scikit-learn versions"):
        if out.exists() and not args.force:
            continue
        seeds = [str(s) for s in SEEDS]
        subprocess.run([str(python), str(WORKER), str(out), "--seeds", *seeds], check=True, cwd=REPO_ROOT)
    side_t, book_t = (pd.read_csv(runs[k][1]) for k in ("side", "book"))
    key = ["set-up", "seed", "test row", "class"]
    both = side_t.merge(book_t, on=key, suffixes=(" side", " book"), validate="one_to_one")
    if len(both) != len(side_t) or len(both) != len(book_t):
        sys.exit("sklearn_versions.py: the two sides did not produce the same rows")
    both["difference"] = both["probability book"] - both["probability side"]
    table = both.groupby(["set-up", "seed"], sort=False).agg(
        **{"scikit-learn side": ("scikit-learn side", "first"), "scikit-learn book": ("scikit-learn book", "first"),
           "test rows": ("test row", "nunique"), "max abs difference": ("difference", lambda d: float(np.abs(d).max()))}
    ).reset_index()
    table.to_csv(OUT, index=False, float_format="%.3g")
    print(table.groupby("set-up", sort=False)["max abs difference"].max().to_string())
    print(f"written {OUT.relative_to(REPO_ROOT).as_posix()}")


if __name__ == "__main__":
    main()
