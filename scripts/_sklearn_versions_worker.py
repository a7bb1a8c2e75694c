"""Worker of scripts/sklearn_versions.py: the compositions authors' three SVC set-ups, fitted
with whatever scikit-learn runs this file, their calibrated probabilities on every test row
written as CSV (one row per set-up, seed, test row and class).

It imports only numpy and scikit-learn (and their data loaders), so it runs unchanged in the
book's environment and in the pinned side environment with scikit-learn 1.3 (a few seconds);
the calling script decides what to recompute and shows the progress.

    python scripts/_sklearn_versions_worker.py OUT.csv --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import csv
import sys

import numpy as np
import sklearn
from sklearn.datasets import load_digits, load_iris
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import scale
from sklearn.svm import SVC


def setups() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Training rows, their labels and test rows of the authors' set-ups (notebooks 03-05 of chapter 2)."""
    out = {}
    iris = load_iris()
    X_tr, X_te, y_tr, _ = train_test_split(iris.data, iris.target, test_size=0.2, random_state=0)
    out["iris"] = (X_tr, y_tr, X_te)
    digits = load_digits()
    keep = digits.target < 4
    X4 = scale(digits.data[keep].astype(float))
    X_tr, X_te, y_tr, _ = train_test_split(X4, digits.target[keep], test_size=0.2, random_state=0)
    pca = PCA(n_components=6, random_state=0).fit(X_tr)
    out["digits-4"] = (pca.transform(X_tr), y_tr, pca.transform(X_te))
    X10 = scale(digits.data.astype(float))
    X_tr, X_te, y_tr, _ = train_test_split(X10, digits.target, test_size=0.2, random_state=0)
    # The authors' call, unseeded: scikit-learn 1.3's "auto" solver is then randomized and draws
    # from numpy's global generator, so their digits-10 projection changed from run to run. The
    # global generator is seeded here (the call stays theirs) so that this file comes out the same
    # on every run; scikit-learn 1.5 and later pick an exact solver, which draws nothing.
    np.random.seed(0)
    pca = PCA(n_components=6).fit(X_tr)
    out["digits-10"] = (pca.transform(X_tr), y_tr, pca.transform(X_te))
    # the same with PCA's solver fixed: scikit-learn 1.3's "auto" picks a randomized, unseeded
    # solver for this shape, 1.5 and later an exact one (this row tests whether that is the cause)
    pca = PCA(n_components=6, svd_solver="full").fit(X_tr)
    out["digits-10, PCA full"] = (pca.transform(X_tr), y_tr, pca.transform(X_te))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--seeds", nargs="+", type=int, required=True)
    args = p.parse_args(argv)
    with open(args.out, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["scikit-learn", "set-up", "seed", "test row", "class", "probability"])
        for name, (X_tr, y_tr, X_te) in setups().items():
            for seed in args.seeds:
                proba = SVC(kernel="rbf", probability=True, random_state=seed).fit(X_tr, y_tr).predict_proba(X_te)
                for row, values in enumerate(proba):
                    for k, value in enumerate(values):
                        writer.writerow([sklearn.__version__, name, seed, row, k, repr(float(value))])
    print(f"scikit-learn {sklearn.__version__} (Python {sys.version.split()[0]}): {args.out}")


if __name__ == "__main__":
    main()
