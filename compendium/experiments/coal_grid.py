"""The grid behind the coalitional paper's Figures 1-2: time and error of the six grouping methods.

Its home: the constants of the experiment (:data:`CLASSIFIERS`, :data:`ALPHAS`), its unit of
work (:func:`run_pair`, one data set x classifier; :func:`run_and_write` stores it), where
its results go, and the paper's words about Figures 1-2 (:data:`FIGURES_1_2`) with the tests of
them (:func:`figure_claims`), and its other sentences on what its experiments show (:data:`CONCLUSIONS`,
:func:`conclusion_claims`). ``scripts/coal_grid.py`` runs the grid from the command line (its docstring
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

import compendium.data
from lib import coalitional as co
from lib import grouping as gr
from compendium.claims import Claim, Threshold
from compendium.data import REPO_ROOT
from compendium.parallel import gather_unit_csvs, write_unit_csv
from compendium.regenerate.result import Result

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
#: The paper's words about its Figures 1-2 (§5.2), quoted exactly: a sentence, or the clause tested.
FIGURES_1_2 = {
    "VIF": "As we can see, in an overall analysis, the VIF method seems to be the worst, with a poor performance "
           "and a long computational time.",
    "Spearman": "Spearman has a far better computation time than VIF, but still has a poor performance overall",
    "PCA": "As an example, PCA has a better performance but a computation time very similar to Spearman.",
    "RevSpearman": "RevSpearman has an overall better performance than part of other methods, but this performance is "
                   "paid by the longest computation time, without reaching the best performance.",
    "RevVIF": "The RevVIF is clearly more precise than the other two, but at a cost of greatly increased computation time.",
    "slopes": "the evolution of computation time against the number of attributes being far less steep than for RevVIF",
}
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
    X, y = compendium.data.load(name)
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
                groups = gr.find_groups(A, method, alpha, predict=model.predict, seed=seed, fidelity_rows=fidelity_rows,
                                        progress=False)  # the script shows its own progress
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
    """The stored results of ``scripts/coal_grid.py``, then the gather step: on each KEEL data set, one unit
    for the pairs CI reruns (:data:`CHEAP_CLASSIFIERS`, and RF and SVM where cheap), run by one process (the
    script's start-up, 3 CPU s of imports, once per data set rather than once per pair), and one per other pair."""
    script = "scripts/coal_grid.py"
    base = OUT_CSV.parent
    found = []
    for name in compendium.data.names("keel"):
        d = name.removeprefix("keel-")
        cheap = [c for c in CLASSIFIERS if c in CHEAP_CLASSIFIERS or d in CHEAP_RF_SVM or (c == "SVM" and d in CHEAP_SVM)]
        found.append(Result(f"coal-grid/{d}", (script, "--datasets", name, "--classifiers", *cheap, "--force", "--no-gather"),
                            tuple(pair_file(name, c).relative_to(base).as_posix() for c in cheap), (name,),
                            variable=VARIABLE, engine=True, cheap=True, shown_in=SHOWN_IN))
        for c in CLASSIFIERS:
            if c not in cheap:
                found.append(Result(f"coal-grid/{d}__{c}", (script, "--datasets", name, "--classifiers", c, "--force",
                                                            "--no-gather"),
                                    (pair_file(name, c).relative_to(base).as_posix(),), (name,), variable=VARIABLE,
                                    engine=True, cheap=False, shown_in=SHOWN_IN))
    gather_step = Result("coal-grid", (script, "--gather-only"), (OUT_CSV.relative_to(base).as_posix(),),
                         tuple(o for r in found for o in r.outputs), variable=VARIABLE, cheap=True, shown_in=SHOWN_IN)
    return [*found, gather_step]


def figure_claims(summary: pd.DataFrame, slope: dict[str, float]) -> list[Claim]:
    """The paper's statements about Figures 1-2 (:data:`FIGURES_1_2`), tested on the grid's means.

    ``summary`` has one row per method with ``time_ms``, ``error_euclidean`` and their ranks
    (``time rank``, ``error rank``: 1 = fastest, most precise); ``slope`` is each method's
    log10-time slope per attribute. "Long", "poor", "very similar" and "greatly increased" are given
    no number by the paper: each is decided by a :class:`~compendium.claims.Threshold` of ours, with the
    range over which the verdict stands.
    """
    t, e = summary["time_ms"], summary["error_euclidean"]
    rank_e, rank_t = summary["error rank"], summary["time rank"]
    n = len(summary)
    long = Threshold("VIF's time rank (1 = fastest) >= t", 4, float(rank_t["VIF"]), "at least")
    ratio = float(t["PCA"] / t["Spearman"])
    similar = Threshold("PCA's time / Spearman's, or its inverse, <= t", 2, round(max(ratio, 1 / ratio), 6))
    slower = Threshold("RevVIF's time / the slower of PCA and Model >= t", 2,
                       round(float(t["RevVIF"] / max(t["PCA"], t["Model"])), 6), "at least")
    poor = Threshold("Spearman's error rank (1 = most precise) >= t", 4, float(rank_e["Spearman"]), "at least")
    return [
        Claim("VIF is the least precise method", FIGURES_1_2["VIF"], "§5.2",
              f"VIF error rank {rank_e['VIF']} of {n}", bool(rank_e["VIF"] == n)),
        Claim("VIF has a long computation time", FIGURES_1_2["VIF"], "§5.2", f"VIF time rank {rank_t['VIF']} of {n}",
              long.holds, (long,)),
        Claim("Spearman is faster than VIF", FIGURES_1_2["Spearman"], "§5.2",
              f"time Spearman / VIF = {t['Spearman'] / t['VIF']:.2f}", bool(t["Spearman"] < t["VIF"])),
        Claim("Spearman's performance is poor overall", FIGURES_1_2["Spearman"], "§5.2",
              f"Spearman error rank {rank_e['Spearman']} of {n}", poor.holds, (poor,)),
        Claim("PCA is more precise than Spearman", FIGURES_1_2["PCA"], "§5.2",
              f"error PCA / Spearman = {e['PCA'] / e['Spearman']:.2f}", bool(e["PCA"] < e["Spearman"])),
        Claim("PCA and Spearman take similar time", FIGURES_1_2["PCA"], "§5.2", f"time PCA / Spearman = {ratio:.2f}",
              similar.holds, (similar,)),
        Claim("RevSpearman is the slowest method", FIGURES_1_2["RevSpearman"], "§5.2",
              f"RevSpearman time rank {rank_t['RevSpearman']} of {n}", bool(rank_t["RevSpearman"] == n)),
        Claim("RevSpearman is not the most precise", FIGURES_1_2["RevSpearman"], "§5.2",
              f"RevSpearman error rank {rank_e['RevSpearman']} of {n}", bool(rank_e["RevSpearman"] > 1)),
        Claim("RevVIF is more precise than PCA and Model", FIGURES_1_2["RevVIF"], "§5.2",
              f"error RevVIF / PCA = {e['RevVIF'] / e['PCA']:.2f}, / Model = {e['RevVIF'] / e['Model']:.2f}",
              bool(e["RevVIF"] < min(e["PCA"], e["Model"]))),
        Claim("RevVIF is much slower than PCA and Model", FIGURES_1_2["RevVIF"], "§5.2",
              f"time RevVIF / PCA = {t['RevVIF'] / t['PCA']:.1f}, / Model = {t['RevVIF'] / t['Model']:.1f}",
              slower.holds, (slower,)),
        Claim("PCA and Model time grow less steeply with n than RevVIF", FIGURES_1_2["slopes"], "§5.2",
              f"log10-time slope per attribute: RevVIF {slope['RevVIF']:.2f}, PCA {slope['PCA']:.2f}, "
              f"Model {slope['Model']:.2f}", bool(max(slope["PCA"], slope["Model"]) < slope["RevVIF"])),
    ]


#: The paper's other sentences on what its experiments show (§5.3, §6, the abstract), quoted exactly, with
#: where they stand; :func:`conclusion_claims` tests those the grid decides.
CONCLUSIONS: dict[str, tuple[str, str]] = {
    "few": ("RevVIF is preferable for datasets with few attributes", "§6"),
    "many": ("PCA and Model should fare better for a large set of attributes", "§6"),
    "interest": ("Our tests, conducted with 324 real datasets, show that RevVIF, PCA and Model methods are all of "
                 "interest.", "§6"),
    "long": ("but at a cost of a long computation time", "abstract"),
    "minimize": ("This phenomenon can explain why these methods minimize best the error scores as discussed in "
                 "Section 5.2.", "§5.3"),
    "larger": ("Indeed, the larger the groups are, the more exhaustive they are in terms of coalition influence that "
               "can correctly explain an instance with respect to a predictive model.", "§5.3"),
    "number": ("More surprisingly, the high average number of groups seem not to induce a good error score.", "§5.3"),
    "single group": ("After all, the complete influence is the equivalent of the coalitional influence using a single "
                     "group containing all the attributes.", "§5.3"),
    "monitor": ("Thus, it is impossible to monitor the performance of our different methods with this baseline.", "§6"),
    "impossible": ("The main problem here is it becomes impossible to compute the Complete influence for large datasets.",
                   "§6"),
}


def pareto_front(summary: pd.DataFrame, time: str = "time_ms", error: str = "error_euclidean") -> list[str]:
    """The methods no other method beats on both time and error (faster *and* more precise): the front of the
    trade-off, in ``summary``'s order."""
    t, e = summary[time], summary[error]
    return [m for m in summary.index if not ((t < t[m]) & (e < e[m])).any()]


def conclusion_claims(grid: pd.DataFrame, summary: pd.DataFrame, *, single_group_gap: float) -> list[Claim]:
    """The paper's sentences on what its experiments show (:data:`CONCLUSIONS`), tested on the grid.

    ``grid`` is the stored grid (one row per data set, classifier, method and alpha, with ``time ms``,
    ``time complete ms``, ``error euclidean``, ``n_groups``, ``mean_size``); ``summary`` its means per method
    (``time_ms``, ``error_euclidean``); ``single_group_gap`` the largest difference, measured elsewhere,
    between the coalitional influence of the one group of all attributes and the complete influence.
    The readings, fixed before the grid was read:

    - "RevVIF is preferable for datasets with few attributes": every grouping is affordable on at most nine
      attributes, so the preferable one is the more precise; RevVIF is more precise than both PCA and Model
      (the other two the conclusion names) in most cells of the grid (a share above ``t = 1/2``, ours);
    - "RevVIF, PCA and Model methods are all of interest": none of the three is beaten by another method on both
      mean time and mean error (each is on the front of the trade-off);
    - the abstract's "at a cost of a long computation time" (of the complete influence the methods approximate):
      the complete influence's mean time exceeds every method's;
    - §5.3's "these methods minimize best the error scores" (RevVIF, RevSpearman and VIF, the methods of the
      largest groups in the paper's Figures 3-4): they are the three most precise methods;
    - "the larger the groups are, the more exhaustive": over the (method, alpha) means, the rank correlation of
      mean group size with error is negative; "the high average number of groups seem not to induce a good
      error score": that of the number of groups with error is not;
    - "the complete influence is the equivalent of the coalitional influence using a single group": a theorem
      of the definitions, checked by computing both (``single_group_gap`` below ``1e-12``).
    """
    from scipy.stats import spearmanr

    cells = grid.pivot_table(index=["data set", "classifier", "alpha"], columns="method", values="error euclidean")
    better = cells["RevVIF"] < cells[["PCA", "Model"]].min(axis=1)
    most = Threshold("share of the grid's cells where RevVIF is more precise than PCA and Model >= t", 0.5,
                     round(float(better.mean()), 6), "at least")
    front = pareto_front(summary)
    named = ["RevVIF", "PCA", "Model"]
    complete = float(grid.drop_duplicates(["data set", "classifier"])["time complete ms"].mean())
    slowest = summary["time_ms"].idxmax()
    three = sorted(summary["error_euclidean"].nsmallest(3).index)
    means = grid.groupby(["method", "alpha"])[["n_groups", "mean_size", "error euclidean"]].mean()
    rho_size = float(spearmanr(means["mean_size"], means["error euclidean"]).statistic)
    rho_number = float(spearmanr(means["n_groups"], means["error euclidean"]).statistic)
    c = CONCLUSIONS
    return [
        Claim("RevVIF is more precise than PCA and Model in most cells (few attributes)", *c["few"],
              f"RevVIF more precise than both in {int(better.sum())} of {len(better)} cells ({better.mean():.0%})",
              most.holds, (most,)),
        Claim("RevVIF, PCA and Model are each on the front of mean time against mean error", *c["interest"],
              f"on the front: {', '.join(front)}", bool(set(named) <= set(front))),
        Claim("the complete influence takes longer than every grouping method, on average", *c["long"],
              f"complete influence {complete:.0f} ms per pair; slowest method {slowest} "
              f"{summary['time_ms'].max():.0f} ms", bool(complete > summary["time_ms"].max())),
        Claim("RevVIF, RevSpearman and VIF are the three most precise methods", *c["minimize"],
              f"three most precise: {', '.join(three)}", bool(three == sorted(["RevVIF", "RevSpearman", "VIF"]))),
        Claim("larger mean groups go with smaller errors (method and alpha means)", *c["larger"],
              f"Spearman correlation of mean group size with error {rho_size:.2f} over {len(means)} means",
              bool(rho_size < 0)),
        Claim("more groups do not go with smaller errors (method and alpha means)", *c["number"],
              f"Spearman correlation of the number of groups with error {rho_number:.2f} over {len(means)} means",
              bool(rho_number >= 0)),
        Claim("the coalitional influence of the single group of all attributes equals the complete influence",
              *c["single group"], f"largest difference {single_group_gap:.1e}", bool(single_group_gap < 1e-12)),
    ]
