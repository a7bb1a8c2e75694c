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
from collections.abc import Iterable, Sequence
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


#: The paper's hypotheses of cause (§5.2, §5.3), quoted exactly, with where they stand; :func:`cause_claims`
#: tests the observable consequence of each on the grid. A cause judged by an association is, at best,
#: consistent with it: the grid varies no cause alone.
CAUSES: dict[str, tuple[str, str]] = {
    "retraining": ("This makes each retraining faster to do, even if there are potentially twice more subgroups to "
                   "take into account.", "§5.2"),
    "VIF correlated": ("This can be explained by the fact that the attributes of the generated group are correlated to "
                       "one another, which mean that the information brought by these groups and subgroups is very "
                       "redundant.", "§5.2"),
    # two clauses, two claims (a count of groups, and what they carry), which can come out differently
    "VIF many": ("We can suppose a lot of groups are calculated", "§5.2"),
    "VIF same": ("but they often bring nearly the same information each", "§5.2"),
    "no transitivity": ("This can be explained by the group calculation method, which does not take into account the "
                        "possible correlation of two attributes which are both not correlated with the original "
                        "attribute of the group (no transitivity).", "§5.2"),
    # two clauses, two claims (on time, on error), which can come out differently
    "redundant": ("This lead, as for VIF and Spearman, to the calculation of redundant information, which increases "
                  "the computation time", "§5.2"),
    "not better": ("without improving much the performance", "§5.2"),
    "RevVIF diverse": ("Instead of focusing on the correlated groups, the RevVIF method relies on the least correlated, "
                       "thus a greater diversity of information is taken into account.", "§5.2"),
    "small groups": ("This can be explained by the generation of a lot of small groups (singletons or couples), rather "
                     "than a few large ones.", "§5.3"),
}


def format_groups(groups: Iterable[Sequence[int]]) -> str:
    """Groups as the book prints them: ``{0,2} {1}``, in the order given, repeats kept."""
    return " ".join("{" + ",".join(str(int(i)) for i in g) + "}" for g in groups)


def parse_groups(text: str) -> list[tuple[int, ...]]:
    """The inverse of :func:`format_groups`; a malformed text is an error naming it."""
    text = str(text).strip()
    if not text:
        return []
    out = []
    for token in text.split():
        if not (token.startswith("{") and token.endswith("}")):
            raise ValueError(f"cannot read groups {text!r}: {token!r} is not of the form {{0,1}}")
        inner = token[1:-1]
        try:
            out.append(tuple(int(i) for i in inner.split(",")) if inner else ())
        except ValueError:
            raise ValueError(f"cannot read groups {text!r}: {token!r} holds a non-integer") from None
    return out


def group_correlations(groups: list[tuple[int, ...]], corr: np.ndarray) -> dict[str, float]:
    """How correlated a grouping's attributes are, read from ``corr`` (absolute Spearman correlations):

    - ``within``: the mean of ``corr`` over the pairs of attributes that share a group (NaN when no group holds
      two attributes);
    - ``between``: the mean, over the pairs of distinct groups, of the largest ``corr`` between a member of one
      and a member of the other, 1 when they share an attribute (NaN for a single group): how much two groups
      carry the same information;
    - ``small share``: the share of the groups of one or two attributes.
    """
    pairs = {(a, b) for g in groups for i, a in enumerate(g) for b in g[i + 1:]}
    within = float(np.mean([corr[a, b] for a, b in pairs])) if pairs else float("nan")
    between = [1.0 if set(g) & set(h) else float(corr[np.ix_(g, h)].max())
               for i, g in enumerate(groups) for h in groups[i + 1:]]
    return {"within": within, "between": float(np.mean(between)) if between else float("nan"),
            "small share": float(np.mean([len(g) <= 2 for g in groups]))}


def cause_claims(grid: pd.DataFrame) -> list[Claim]:
    """The paper's hypotheses of cause (:data:`CAUSES`), each tested by its observable consequence on the grid.

    ``grid`` is the stored grid with, per cell, ``within``, ``between`` and ``small share``
    (:func:`group_correlations`). The readings, fixed before the numbers were computed (a cause judged by
    an association is at best consistent with it):

    - "each retraining faster" (fewer instances): the time of one retraining (a coalition's fit and the
      prediction of the explained rows: the complete influence's time over its ``2^n`` coalitions) grows with
      the number of rows: its rank correlation with the rows over the data sets is positive for every
      classifier (the grid cannot say whether the paper's nine-attribute sets were faster for it);
    - VIF's groups "are correlated to one another": VIF's pairs sharing a group are more correlated than the
      data set's pairs on average, over the cells where VIF groups two attributes; "very redundant" (the cause
      of VIF's poor error): over the (method, alpha) means, the within-group correlation rank-correlates
      positively with the error;
    - "a lot of groups are calculated": VIF's mean number of groups ranks at least ``t = 4`` of the six
      methods, fewest first (as "long" for time); "nearly the same information each": VIF's between-group
      correlation is at least the median of the five data-driven methods';
    - RevSpearman's "no transitivity": its groups hold correlated pairs, its within-group correlation above
      RevVIF's (the method that "relies on the least correlated");
    - "redundant information, which increases the computation time": over the (method, alpha) means of the
      five data-driven methods, the within-group correlation rank-correlates positively with time; "without
      improving much the performance": not negatively with error;
    - RevVIF "relies on the least correlated": its within-group correlation is below VIF's and Spearman's;
      "a greater diversity of information" (the cause of its precision): the positive rank correlation of
      within-group correlation with error, as above;
    - "a lot of small groups ... rather than a few large ones" (why many groups do not give a small error):
      over the (method, alpha) means, the number of groups rank-correlates negatively with the mean group
      size, and the share of groups of one or two attributes positively with the error.
    """
    from scipy.stats import spearmanr

    c = CAUSES
    driven = list(gr.GROUP_METHODS)
    pairs = grid.drop_duplicates(["data set", "classifier"]).assign(
        retraining=lambda f: f["time complete ms"] / f["2^n"])
    rho_rows = {k: float(spearmanr(f["rows"], f["retraining"]).statistic) for k, f in pairs.groupby("classifier")}
    means = grid.groupby(["method", "alpha"])[["within", "between", "small share", "n_groups", "mean_size",
                                               "time ms", "error euclidean"]].mean()
    data_means = means.loc[driven].dropna(subset=["within"])
    rho_err = float(spearmanr(data_means["within"], data_means["error euclidean"]).statistic)
    rho_time = float(spearmanr(data_means["within"], data_means["time ms"]).statistic)
    vif = grid[(grid["method"] == "VIF") & grid["within"].notna()]
    vif_excess = float((vif["within"] - vif["all pairs"]).mean())
    per_method = grid.groupby("method")[["within", "between", "n_groups"]].mean()
    groups_rank = per_method["n_groups"].rank()
    many = Threshold("VIF's rank in the number of groups (1 = fewest) >= t", 4, float(groups_rank["VIF"]), "at least")
    between_median = float(per_method.loc[driven, "between"].median())
    w = per_method["within"]
    rho_size = float(spearmanr(means["n_groups"], means["mean_size"]).statistic)
    rho_small = float(spearmanr(means["small share"], means["error euclidean"]).statistic)
    n_means = f"over {len(data_means)} (method, alpha) means"
    return [
        Claim("one retraining takes longer on more rows, for every classifier", *c["retraining"],
              "rank correlation of the time per coalition with the rows: "
              + ", ".join(f"{k} {v:.2f}" for k, v in rho_rows.items()), bool(min(rho_rows.values()) > 0)),
        Claim("VIF's grouped attributes are more correlated than the data set's pairs", *c["VIF correlated"],
              f"mean |Spearman| within VIF's groups minus over all pairs: {vif_excess:+.3f} "
              f"({len(vif)} cells with a group of two or more)", bool(vif_excess > 0)),
        Claim("more correlated groups go with larger errors", *c["VIF correlated"],
              f"rank correlation of within-group |Spearman| with error {rho_err:.2f} {n_means}", bool(rho_err > 0)),
        Claim("VIF computes many groups", *c["VIF many"],
              f"VIF's mean number of groups {per_method.loc['VIF', 'n_groups']:.2f}, rank {groups_rank['VIF']:.0f} "
              f"of {len(per_method)} (1 = fewest)", many.holds, (many,)),
        Claim("VIF's groups share more information than the median method's", *c["VIF same"],
              f"between-group |Spearman|: VIF {per_method.loc['VIF', 'between']:.3f}, median of the five "
              f"data-driven methods {between_median:.3f}", bool(per_method.loc["VIF", "between"] >= between_median)),
        Claim("RevSpearman's groups are more correlated within than RevVIF's", *c["no transitivity"],
              f"within-group |Spearman|: RevSpearman {w['RevSpearman']:.3f}, RevVIF {w['RevVIF']:.3f}",
              bool(w["RevSpearman"] > w["RevVIF"])),
        Claim("more correlated groups go with longer times", *c["redundant"],
              f"rank correlation of within-group |Spearman| with time {rho_time:.2f} {n_means}", bool(rho_time > 0)),
        Claim("more correlated groups do not go with smaller errors", *c["not better"],
              f"rank correlation of within-group |Spearman| with error {rho_err:.2f} {n_means}", bool(rho_err >= 0)),
        Claim("RevVIF's groups are less correlated within than VIF's and Spearman's", *c["RevVIF diverse"],
              f"within-group |Spearman|: RevVIF {w['RevVIF']:.3f}, VIF {w['VIF']:.3f}, Spearman {w['Spearman']:.3f}",
              bool(w["RevVIF"] < min(w["VIF"], w["Spearman"]))),
        Claim("less correlated groups go with smaller errors", *c["RevVIF diverse"],
              f"rank correlation of within-group |Spearman| with error {rho_err:.2f} {n_means}", bool(rho_err > 0)),
        Claim("more groups go with smaller groups", *c["small groups"],
              f"rank correlation of the number of groups with the mean size {rho_size:.2f} over {len(means)} "
              f"(method, alpha) means", bool(rho_size < 0)),
        Claim("a larger share of one- and two-attribute groups goes with larger errors", *c["small groups"],
              f"rank correlation of the share of groups of one or two attributes with error {rho_small:.2f} "
              f"over {len(means)} (method, alpha) means", bool(rho_small > 0)),
    ]


def with_correlations(grid: pd.DataFrame) -> pd.DataFrame:
    """``grid`` with, per cell, the correlations of its groups (:func:`group_correlations`: ``within``,
    ``between``, ``small share``) and ``all pairs``, the mean absolute Spearman correlation over every pair of
    the data set's attributes; each data set is loaded once (its attributes as the grouping methods see them)."""
    extra = {}
    for name in grid["data set"].unique():
        corr = gr.spearman_matrix(gr.numeric_matrix(compendium.data.load(f"keel-{name}")[0]))
        everyone = float(corr[np.triu_indices(len(corr), 1)].mean()) if len(corr) > 1 else float("nan")
        for groups in grid.loc[grid["data set"] == name, "groups"].unique():
            extra[name, groups] = {**group_correlations(parse_groups(groups), corr), "all pairs": everyone}
    added = pd.DataFrame([extra[k] for k in zip(grid["data set"], grid["groups"])], index=grid.index)
    return pd.concat([grid, added], axis=1)
