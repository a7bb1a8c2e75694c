"""Figures 1-2 of the coalitional paper: time and error of the six grouping methods.

Ferrettini, Aligon & Soulé-Dupuy (ADBIS 2020), §5: for every data set x classifier,
the *complete* influence (eq. 1-3) of a sample of explained rows is computed once, then
for each grouping method of §4 (``lib.coalitional.ALL_METHODS``) and each threshold
alpha, the groups are found and the *coalitional* influence (eq. 4) is computed; we
record the time (groups + model fits and predictions on the coalitions the groups need
+ eq. 4) and the error against the complete influence (eq. 6 as printed, and its
Euclidean reading).

Value function: the authors' retrained game (``lib.coalitional.RetrainedGame``: one
clone of the classifier fitted per attribute subset, ``f(∅)`` = class prior, the class
explained = the one the full model predicts).  Every coalition's model is fitted once per
(data set, classifier) and its CPU time (fit + prediction of the explained rows) measured
once; a method's evaluation time is the sum of the measured times of the coalitions its
groups need (the cost it would pay alone, without the cache shared here).  Times are CPU
seconds of this process (``time.process_time``), single-threaded BLAS, because the
machine is shared and wall time would measure the neighbours.

Resumable: one CSV per (data set, classifier) under ``data/derived/coal-grid/``, skipped
when present unless ``--force``; all present files are then gathered into
``data/derived/coal-grid.csv``.  The pairs are independent units, each seeded from its own
identity (explained rows: ``default_rng([seed, d, n])``), run serially or in parallel through
joblib (``--n-jobs``, ``--backend``; ``lib.parallel.run_units``): every unit is timed in its
own worker process (do not use the ``threading`` backend, whose process time would count
the other threads).

    python scripts/coal_grid.py                              # the full grid
    python scripts/coal_grid.py --n-jobs 2                   # two pairs at a time
    python scripts/coal_grid.py --classifiers NB kNN tree    # a subset
    python scripts/coal_grid.py --gather-only                # rebuild coal-grid.csv
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # CPU time = one core's time (before numpy loads)

import argparse  # noqa: E402
import time  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.svm import SVC  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402
from tqdm import tqdm  # noqa: E402

import lib.data  # noqa: E402
from lib import coalitional as co  # noqa: E402
from lib.data import REPO_ROOT  # noqa: E402
from lib.parallel import add_parallel_arguments, gather_unit_csvs, parallel_engine, run_units, write_unit_csv  # noqa: E402

#: The paper's six classifiers (§5.1), as scikit-learn stand-ins for its Weka/OpenML flows.
CLASSIFIERS = {
    "NB": lambda: GaussianNB(),
    "kNN": lambda: KNeighborsClassifier(),
    "tree": lambda: DecisionTreeClassifier(random_state=0),
    "BagNB": lambda: BaggingClassifier(GaussianNB(), n_estimators=10, random_state=0),
    "RF": lambda: RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1),
    "SVM": lambda: SVC(probability=True, random_state=0),
}
#: alpha in ]0, 0.5[, five values; the text names the two ends, 0.01 and 0.4 (§5.3).
ALPHAS = (0.01, 0.1, 0.2, 0.3, 0.4)
OUT_DIR = REPO_ROOT / "data" / "derived" / "coal-grid"
OUT_CSV = REPO_ROOT / "data" / "derived" / "coal-grid.csv"


def labels_of(y: pd.Series) -> np.ndarray:
    return y.cat.codes.to_numpy() if isinstance(y.dtype, pd.CategoricalDtype) else y.to_numpy()


def run_pair(name: str, clf: str, *, alphas, methods, n_explain: int, fidelity_rows: int, seed: int) -> pd.DataFrame:
    """Every method x alpha on one data set and classifier (the paper's Figures 1-2 cells)."""
    X, y = lib.data.load(name)
    A = co.numeric_matrix(X)          # category codes for nominal attributes
    Y = labels_of(y)
    n, d = A.shape
    rng = np.random.default_rng([seed, d, n])
    explain = np.sort(rng.choice(n, size=min(n, n_explain), replace=False))
    model = CLASSIFIERS[clf]().fit(A, Y)
    game_of = co.RetrainedGame(CLASSIFIERS[clf](), A, Y, fitted=model)
    classes = game_of.predicted_class(A[explain])
    # every coalition once: its model's fit + prediction of the explained rows, timed
    cost = np.zeros(2**d)
    game = np.empty((len(explain), 2**d))
    for S in range(2**d):
        t0 = time.process_time()
        game[:, S] = game_of.game(A[explain], [S], classes=classes)[:, S]
        cost[S] = time.process_time() - t0
    t0 = time.process_time()
    complete = co.complete_influence(game)
    t_complete = cost.sum() + time.process_time() - t0
    rows = []
    for method in methods:
        for alpha in alphas:
            t0 = time.process_time()
            if method == "Model":
                groups = co.find_groups(A, method, alpha, predict=model.predict, seed=seed, max_rows=fidelity_rows)
            else:
                groups = co.find_groups(A, method, alpha)
            t_groups = time.process_time() - t0
            needed = co.coalitions_needed(groups, d)
            partial = np.full_like(game, np.nan)
            partial[:, needed] = game[:, needed]   # eq. 4 may read only these
            t0 = time.process_time()
            phi = co.coalitional_influence(partial, groups, overlap="size-factorial")
            t_inf = time.process_time() - t0
            t_eval = float(cost[needed].sum())
            rows.append({
                "data set": name.removeprefix("keel-"), "n attributes": d, "rows": n, "classifier": clf,
                "method": method, "alpha": alpha, **co.group_summary(groups, d), "2^n": 2**d,
                "explained": len(explain),
                "time groups ms": 1e3 * t_groups, "time coalitions ms": 1e3 * t_eval,
                "time eq4 ms": 1e3 * t_inf, "time ms": 1e3 * (t_groups + t_eval + t_inf),
                "time complete ms": 1e3 * t_complete,
                "error printed": float(co.error_printed(phi, complete).mean()),
                "error euclidean": float(co.error_euclidean(phi, complete).mean()),
                "groups": " ".join("{" + ",".join(map(str, g)) + "}" for g in groups),
            })
    return pd.DataFrame(rows)


def pair_file(name: str, clf: str, out_dir: Path = OUT_DIR) -> Path:
    return out_dir / f"{name.removeprefix('keel-')}__{clf}.csv"


def run_and_write(unit: tuple[str, str], *, deadline: float | None, out_dir: Path = OUT_DIR, **kwargs) -> bool:
    """One unit (classifier, data set): run_pair, written to its CSV; False if started after ``deadline``."""
    clf, name = unit
    if deadline is not None and time.time() > deadline:
        return False
    table = run_pair(name, clf, **kwargs)
    out = pair_file(name, clf, out_dir)
    write_unit_csv(table, out)
    return True


def gather(out_dir: Path = OUT_DIR, out_csv: Path = OUT_CSV) -> pd.DataFrame:
    return gather_unit_csvs(out_dir, out_csv)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="*", default=lib.data.names("keel"))
    p.add_argument("--classifiers", nargs="*", default=list(CLASSIFIERS), choices=list(CLASSIFIERS))
    p.add_argument("--methods", nargs="*", default=list(co.ALL_METHODS), choices=list(co.ALL_METHODS))
    p.add_argument("--alphas", nargs="*", type=float, default=list(ALPHAS))
    p.add_argument("--explain", type=int, default=100, help="explained rows per data set (seeded sample)")
    p.add_argument("--fidelity-rows", type=int, default=1000, help="rows for the model-based fidelity")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget-minutes", type=float, default=None, help="start no new pair after this wall time")
    p.add_argument("--force", action="store_true")
    p.add_argument("--gather-only", action="store_true")
    add_parallel_arguments(p, what="(data set, classifier) pairs")
    args = p.parse_args(argv)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    if not args.gather_only:
        pairs = [(c, n) for c in args.classifiers for n in args.datasets]
        todo = [u for u in pairs if args.force or not pair_file(u[1], u[0]).exists()]
        deadline = None if args.budget_minutes is None else time.time() + 60 * args.budget_minutes
        fn = partial(run_and_write, deadline=deadline, alphas=args.alphas, methods=args.methods,
                     n_explain=args.explain, fidelity_rows=args.fidelity_rows, seed=args.seed)
        with parallel_engine(args):
            done = run_units(todo, fn, n_jobs=args.n_jobs, backend=args.backend, desc="data set x classifier",
                             unit="pair")
        skipped = [f"{n} x {c}" for (c, n), ok in zip(todo, done) if not ok]
        if skipped:
            tqdm.write(f"budget reached: {len(skipped)} pairs not started ({', '.join(skipped)})")
    table = gather()
    print(f"gathered {len(table)} rows from {table.groupby(['data set', 'classifier']).ngroups} "
          f"(data set, classifier) pairs into {OUT_CSV.relative_to(REPO_ROOT).as_posix()}")


if __name__ == "__main__":
    main()
