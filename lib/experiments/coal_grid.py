"""The grid behind the coalitional paper's Figures 1-2: time and error of the six grouping methods.

Its home: the constants of the experiment (:data:`CLASSIFIERS`, :data:`ALPHAS`), its unit of
work (:func:`run_pair`, one data set x classifier; :func:`run_and_write` stores it) and where
its results go. ``scripts/coal_grid.py`` runs the grid from the command line (its docstring
states the protocol); ``notebooks/05-coalitional-explanations/03-time-and-error`` imports this
module to run one pair live and to read the stored grid.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

import lib.data
from lib import coalitional as co
from lib import grouping as gr
from lib.data import REPO_ROOT
from lib.parallel import gather_unit_csvs, write_unit_csv
from lib.regenerate.result import Result

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
#: The pairs CI reruns on every run (``--check --cheap``): every pair of the four cheap classifiers
#: (1-10 CPU s a pair; RF and SVM up to a minute), the RF and SVM pairs on the data sets of at
#: most 6 attributes (an RF pair under 10 CPU s; with 7 to 9 attributes one takes 15 to 45 CPU s),
#: and the SVM pair alone (5 CPU s) on a few more.
CHEAP_CLASSIFIERS = ("NB", "kNN", "tree", "BagNB")
CHEAP_RF_SVM = ("iris", "tae", "hayes-roth", "haberman", "bupa", "monk-2", "mammographic", "new-thyroid1")
CHEAP_SVM = ("ecoli1", "glass1", "led7digit", "breast")
#: Times are this process's milliseconds: they vary from run to run. The errors against the
#: complete influence that are zero in exact arithmetic (a grouping that is the complete one)
#: are rounding noise, 1e-18 to 5e-17, whose digits depend on the CPU's kernels (measured: the
#: stored hayes-roth, saheart and tic-tac-toe pairs, at main's d359491 on an AVX-512 machine and
#: under OPENBLAS_CORETYPE=Prescott, three different values each); allowed to move by 1e-12, far
#: below the errors the chapter reads (1e-3 and above).
VARIABLE = {"time*": None, "error *": 1e-12}
SHOWN_IN = ("notebooks/05-coalitional-explanations/03-time-and-error",)


def labels_of(y: pd.Series) -> np.ndarray:
    return y.cat.codes.to_numpy() if isinstance(y.dtype, pd.CategoricalDtype) else y.to_numpy()


def run_pair(name: str, clf: str, *, alphas, methods, n_explain: int, fidelity_rows: int, seed: int) -> pd.DataFrame:
    """Every method x alpha on one data set and classifier (the paper's Figures 1-2 cells)."""
    X, y = lib.data.load(name)
    A = gr.numeric_matrix(X)          # category codes for nominal attributes
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
                groups = gr.find_groups(A, method, alpha, predict=model.predict, seed=seed, max_rows=fidelity_rows)
            else:
                groups = gr.find_groups(A, method, alpha)
            t_groups = time.process_time() - t0
            needed = co.coalitions_needed(groups, d)
            partial = np.full_like(game, np.nan)
            partial[:, needed] = game[:, needed]   # Eq. (F4) may read only these
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


def units() -> list[Result]:
    """The stored results of ``scripts/coal_grid.py``: one per classifier and KEEL data set, then the gather step."""
    script = "scripts/coal_grid.py"
    base = OUT_CSV.parent
    pairs = []
    for c in CLASSIFIERS:
        for name in lib.data.names("keel"):
            d = name.removeprefix("keel-")
            cheap = c in CHEAP_CLASSIFIERS or d in CHEAP_RF_SVM or (c == "SVM" and d in CHEAP_SVM)
            pairs.append(Result(f"coal-grid/{d}__{c}", (script, "--datasets", name, "--classifiers", c, "--force"),
                                (pair_file(name, c).relative_to(base).as_posix(),), (name,), variable=VARIABLE,
                                engine=True, cheap=cheap, shown_in=SHOWN_IN))
    gather_step = Result("coal-grid", (script, "--gather-only"), (OUT_CSV.relative_to(base).as_posix(),),
                         tuple(p.outputs[0] for p in pairs), variable=VARIABLE, cheap=True, shown_in=SHOWN_IN)
    return [*pairs, gather_step]
