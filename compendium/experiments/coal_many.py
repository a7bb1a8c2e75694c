"""Coalitional explanations on many attributes: the grid behind 04-many-attributes.

Its home: the constants of the experiment (:data:`DATASETS`, :data:`CLASSIFIERS`,
:data:`ALPHAS`, :data:`BUDGET`, :data:`REFERENCE_SAMPLES`, :data:`EXACT_UP_TO`), the data and
model set-up (:func:`prepare`, :func:`make_model`), its unit of work (:func:`run_pair`, one
data set x classifier; :func:`run_and_write` stores it) and where its results go.
``scripts/coal_many.py`` runs the grid from the command line (its docstring states the
protocol); ``notebooks/05-coalitional-explanations/04-many-attributes`` imports this module for
the constants, a live rerun of one pair and the stored grid.

Set-up choices (ours, stated in the notebook): numeric attributes as given; cervical
(KRFCC) without its two attributes missing in over 90 % of rows and with the other gaps
filled by the column median; adult's missing categories as a category of their own;
nominal attributes enter the groupings as category codes and the models one-hot
(logistic) or as native categories (gradient boosting); constant attributes dropped.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import compendium.data
from compendium.claims import Claim, Threshold
from compendium.data import REPO_ROOT
from compendium.experiments.coal_grid import CONCLUSIONS, FIGURES_1_2
from compendium.parallel import gather_unit_csvs, write_unit_csv
from compendium.regenerate.result import Result
from lib import coalitional as co
from lib import games, sampling
from lib import grouping as gr
from lib import shapley as sh
from lib.counting import CountingModel
from lib.sampling.strumbelj_kononenko import sampling_rows

#: The data sets of the issue: the book's cached sets with many attributes.
DATASETS = ("ionosphere", "cervical", "spambase", "german-numeric", "adult")
#: The positive class explained on each data set.
POSITIVE = {"ionosphere": "g", "cervical": 1, "spambase": 1, "german-numeric": 2, "adult": ">50K"}
CLASSIFIERS = ("logistic", "gradient-boosting")
ALPHAS = (0.01, 0.4)
#: Fixed before running: a grouping is computed only if Eq. (F4) needs at most this many coalitions.
BUDGET = 20_000
#: Permutation samples per attribute and explained row for the reference.
REFERENCE_SAMPLES = 10_000
#: Up to this many attributes the reference is exact (2^n enumeration), beyond it sampled.
EXACT_UP_TO = 16
OUT_DIR = REPO_ROOT / "data" / "derived" / "coal-many"
OUT_CSV = REPO_ROOT / "data" / "derived" / "coal-many.csv"
#: CPU seconds vary from run to run.
VARIABLE = {"cpu * s": None}
SHOWN_IN = ("notebooks/05-coalitional-explanations/04-many-attributes",)


def prepare(name: str) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """The attribute matrix (codes for nominal attributes), the 0/1 target, the
    attribute names and a mask of the nominal attributes, as the docstring states."""
    X, y = compendium.data.load(name)
    X = X.copy()
    if name == "cervical":
        mostly_missing = [c for c in X if X[c].isna().mean() > 0.9]
        X = X.drop(columns=mostly_missing)
    for c in X:
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            if X[c].isna().any():
                X[c] = X[c].cat.add_categories(["(missing)"]).fillna("(missing)")
        elif X[c].isna().any():
            X[c] = X[c].fillna(X[c].median())
    nominal = np.array([isinstance(X[c].dtype, pd.CategoricalDtype) for c in X])
    A = gr.numeric_matrix(X)
    keep = A.std(axis=0) > 0
    Y = (y.astype(str).to_numpy() == str(POSITIVE[name])).astype(int)
    if Y.min() == Y.max():
        raise ValueError(f"{name}: the positive class {POSITIVE[name]!r} leaves a single class")
    return A[:, keep], Y, [c for c, k in zip(X.columns, keep) if k], nominal[keep]


def make_model(kind: str, nominal: np.ndarray, n_categories: np.ndarray):
    """The two classifiers of the grid (deterministic fits)."""
    if kind == "logistic":
        numeric = np.flatnonzero(~nominal)
        cats = np.flatnonzero(nominal)
        parts = [("num", StandardScaler(), numeric)]
        if len(cats):
            categories = [np.arange(int(n_categories[j])) for j in cats]
            parts.append(("cat", OneHotEncoder(categories=categories, handle_unknown="ignore"), cats))
        return make_pipeline(ColumnTransformer(parts), LogisticRegression(max_iter=5000))
    if kind == "gradient-boosting":
        return HistGradientBoostingClassifier(
            categorical_features=nominal if nominal.any() else None, early_stopping=False, random_state=0
        )
    raise ValueError(f"unknown classifier {kind!r}; known: {CLASSIFIERS}")


def run_pair(name: str, kind: str, *, n_explain: int, n_background: int, fidelity_rows: int,
             seed: int) -> pd.DataFrame:
    """Every grouping x alpha on one data set and classifier."""
    A, Y, names, nominal = prepare(name)
    n, d = A.shape
    n_categories = np.where(nominal, A.max(axis=0) + 1, 0)
    model = make_model(kind, nominal, n_categories).fit(A, Y)

    def f(rows: np.ndarray) -> np.ndarray:
        return model.predict_proba(rows)[:, 1]

    rng = np.random.default_rng([seed, d, n])
    background = A[np.sort(rng.choice(n, size=n_background, replace=False))]
    explained = A[np.sort(rng.choice(n, size=n_explain, replace=False))]
    t0 = time.process_time()
    runs = [sampling.sample_shapley(f, explained[[r]], background, method="uniform",
                              max_rows=sampling_rows(REFERENCE_SAMPLES * d, m=len(background)),
                              rng=np.random.default_rng([seed, d, n, r]))
            for r in range(n_explain)]
    t_reference = time.process_time() - t0
    sampled = np.vstack([run.values for run in runs])
    se = np.sqrt(np.vstack([run.variances for run in runs]))
    sampled_floor = float(np.mean(np.sqrt((se**2).sum(axis=1)) / (2 * np.sqrt(d))))
    if d <= EXACT_UP_TO:
        # enumerable: the exact complete influence is the reference, and the sampled one is
        # scored against it (a check of the noise floor the other pairs rely on)
        t0 = time.process_time()
        reference = sh.exact_shapley(f, explained, background).values
        t_reference = time.process_time() - t0
        kind_of_reference, noise_floor = "exact", 0.0
        sampled_error = float(co.error_euclidean(sampled, reference).mean())
    else:
        reference, kind_of_reference, noise_floor, sampled_error = sampled, "sampled", sampled_floor, None

    variants: list[tuple[str, str, bool]] = [(m, m, False) for m in gr.ALL_METHODS]
    variants.insert(1, ("PCA (scaled)", "PCA", True))
    rows = []
    for label, method, scaled in variants:
        for alpha in ALPHAS:
            t0 = time.process_time()
            if method == "Model":
                groups = gr.find_groups(A, method, alpha, predict=model.predict, seed=seed, fidelity_rows=fidelity_rows,
                                        progress=False)  # the script shows its own progress
            elif scaled:
                groups = gr.pca_groups(A, alpha, scale=True)
            else:
                groups = gr.find_groups(A, method, alpha)
            t_groups = time.process_time() - t0
            largest = max(len(g) for g in groups)
            n_coal = len(co.coalitions_needed(groups, d)) if largest <= games.MAX_EXACT_FEATURES else None
            computed = n_coal is not None and n_coal <= BUDGET
            record = {
                "data set": name, "classifier": kind, "n attributes": d, "rows": n,
                "explained": n_explain, "background": n_background,
                "grouping": label, "alpha": alpha, "groups": len(groups), "largest group": largest,
                "coalitions": n_coal, "computed": computed,
                "model rows": n_explain * n_background * n_coal if n_coal is not None else None,
                "error mean": None, "error max": None,
                "reference": kind_of_reference, "noise floor": noise_floor,
                "sampled samples per row": REFERENCE_SAMPLES * d, "sampled noise floor": sampled_floor,
                "sampled error": sampled_error,
                "cpu groups s": t_groups, "cpu influence s": None, "cpu reference s": t_reference,
                "group list": " ".join("{" + ",".join(map(str, g)) + "}" for g in groups),
            }
            if computed:
                counter = CountingModel(f)
                t0 = time.process_time()
                phi = co.coalitional_influence_interventional(counter, explained, background, groups,
                                                              overlap="size-factorial")
                record["cpu influence s"] = time.process_time() - t0
                if counter.rows != record["model rows"]:
                    raise AssertionError(f"{name}/{kind}/{label}/{alpha}: {counter.rows} model rows, "
                                         f"expected {record['model rows']}")
                err = co.error_euclidean(phi, reference)
                record["error mean"], record["error max"] = float(err.mean()), float(err.max())
            rows.append(record)
    return pd.DataFrame(rows)


def run_and_write(unit: tuple[str, str], **kwargs) -> None:
    """One unit (data set, classifier): run_pair, written to its CSV (in the worker)."""
    name, kind = unit
    table = run_pair(name, kind, **kwargs)
    write_unit_csv(table, pair_file(name, kind))


def pair_file(name: str, kind: str, out_dir: Path = OUT_DIR) -> Path:
    """The file of one (data set, classifier) pair."""
    return out_dir / f"{name}__{kind}.csv"


def gather(out_dir: Path = OUT_DIR, out_csv: Path = OUT_CSV) -> pd.DataFrame:
    return gather_unit_csvs(out_dir, out_csv)


def units() -> list[Result]:
    """The stored results of ``scripts/coal_many.py``: one per data set and classifier, then the gather step.
    None is in CI's cheap set (a pair takes minutes); the gather step is."""
    script = "scripts/coal_many.py"
    base = OUT_CSV.parent
    pairs = [Result(f"coal-many/{d}__{c}", (script, "--datasets", d, "--classifiers", c, "--force", "--no-gather"),
                    (pair_file(d, c).relative_to(base).as_posix(),), (d,), variable=VARIABLE, engine=True,
                    shown_in=SHOWN_IN) for d in DATASETS for c in CLASSIFIERS]
    gather_step = Result("coal-many", (script, "--gather-only"), (OUT_CSV.relative_to(base).as_posix(),),
                         tuple(p.outputs[0] for p in pairs), variable=VARIABLE, cheap=True, shown_in=SHOWN_IN)
    return [*pairs, gather_step]


def pair_claims(grid: pd.DataFrame) -> tuple[list[Claim], int, int]:
    """The paper's RevVIF sentence (:data:`~compendium.experiments.coal_grid.FIGURES_1_2`) tested pair by pair
    on the stored grid (``coal-many.csv``): ``(claims, undecided, untestable)``.

    Precision: RevVIF against PCA and Model wherever both were computed at the same alpha; a gap
    within RevVIF's reference noise floor decides nothing (``undecided``), an uncomputed grouping
    makes the comparison ``untestable``. Cost: the coalitions Eq. (F4) needs, an uncomputable grouping
    counting as more than any computed one (a count: the registry files it as a derivation check).
    """
    cells = grid.set_index(["data set", "classifier", "grouping", "alpha"])
    records: list[Claim] = []
    undecided = untestable = 0

    def shown(cost: float, row: pd.Series) -> str:
        return f"{cost:,.0f}" if np.isfinite(cost) else f"over 2^{games.MAX_EXACT_FEATURES} (a group of {row['largest group']})"

    for dataset, kind in grid.drop_duplicates(["data set", "classifier"])[["data set", "classifier"]].itertuples(index=False):
        for alpha in ALPHAS:
            rev = cells.loc[(dataset, kind, "RevVIF", alpha)]
            for other in ("PCA", "Model"):
                oth = cells.loc[(dataset, kind, other, alpha)]
                if not (rev["computed"] and oth["computed"]):
                    untestable += 1
                elif abs(oth["error mean"] - rev["error mean"]) <= rev["noise floor"]:
                    undecided += 1
                else:
                    records.append(Claim(f"RevVIF is more precise than {other} ({dataset}, {kind}, alpha = {alpha})",
                                         FIGURES_1_2["RevVIF"], "§5.2",
                                         f"error RevVIF {rev['error mean']:.4f}, {other} {oth['error mean']:.4f}",
                                         bool(oth["error mean"] > rev["error mean"])))
            pca = cells.loc[(dataset, kind, "PCA", alpha)]
            cost_rev = rev["coalitions"] if pd.notna(rev["coalitions"]) else np.inf
            cost_pca = pca["coalitions"] if pd.notna(pca["coalitions"]) else np.inf
            if np.isfinite(cost_rev) or np.isfinite(cost_pca):
                records.append(Claim(f"RevVIF costs more than PCA ({dataset}, {kind}, alpha = {alpha})",
                                     FIGURES_1_2["RevVIF"], "§5.2",
                                     f"coalitions RevVIF {shown(cost_rev, rev)}, PCA {shown(cost_pca, pca)}",
                                     bool(cost_rev > cost_pca)))
    return records, undecided, untestable


def _need(row: pd.Series) -> float:
    """The coalitions a grouping's Eq. (F4) needs: counted where it was computed or counted, else at least 2 to
    the size of its largest group."""
    return float(row["coalitions"]) if pd.notna(row["coalitions"]) else float(2 ** int(row["largest group"]))


def conclusion_claims(grid: pd.DataFrame, *, budget: int = BUDGET, monitor: float = 0.2) -> list[Claim]:
    """The conclusion's sentences on many attributes (:data:`~compendium.experiments.coal_grid.CONCLUSIONS`), tested on
    the stored grid (``coal-many.csv``). The readings, fixed before the grid was read:

    - "PCA and Model should fare better for a large set of attributes": in a cell (data set, classifier,
      alpha) a grouping fares better than RevVIF when it gives an explanation within the ``budget`` of
      coalitions and RevVIF does not, or both do and its error is below RevVIF's by more than the reference's
      noise floor. It holds when each of PCA and Model fares better in most cells (a share above ``t = 1/2``,
      ours), and carries the largest budget at which that stays true (a larger budget lets RevVIF run in more
      cells; where it was not run its error is unknown, and PCA or Model is then not counted as better);
    - "it is impossible to monitor the performance of our different methods with this baseline" (the
      complete influence, which cannot be enumerated on many attributes): a permutation-sampling estimate of
      it monitors them when its noise floor stays below ``monitor`` (ours) of the smallest error it ranks, in
      every pair; the claim holds where it does not;
    - "it becomes impossible to compute the Complete influence for large datasets": the ``2^n`` coalitions of
      the exact complete influence, a count (a derivation check, never evidence).
    """
    cells = grid.set_index(["data set", "classifier", "grouping", "alpha"])
    keys = grid.drop_duplicates(["data set", "classifier", "alpha"])[["data set", "classifier", "alpha"]]

    def better(other: str, b: float) -> list[bool]:
        out = []
        for dataset, kind, alpha in keys.itertuples(index=False):
            rev, oth = cells.loc[(dataset, kind, "RevVIF", alpha)], cells.loc[(dataset, kind, other, alpha)]
            rev_fits, oth_fits = _need(rev) <= b, _need(oth) <= b
            if not oth_fits or not oth["computed"]:
                out.append(False)
            elif not rev_fits:
                out.append(True)
            else:
                known = bool(rev["computed"])      # beyond the stored budget RevVIF's error is not known
                out.append(known and oth["error mean"] < rev["error mean"] - rev["noise floor"])
        return out

    def share(b: float) -> float:
        return min(float(np.mean(better(o, b))) for o in ("PCA", "Model"))

    at_budget = {o: better(o, budget) for o in ("PCA", "Model")}
    needs = sorted({_need(cells.loc[(d, k, "RevVIF", a)]) for d, k, a in keys.itertuples(index=False)}
                   | {float(budget)})
    holding = [b for b in needs if share(b) > 0.5] + [b - 1 for b in needs if share(b - 1) > 0.5]
    largest = max(holding) if holding else 0.0
    most = Threshold("smaller share of the cells where PCA, or Model, fares better than RevVIF > t", 0.5,
                     round(share(budget), 6), "at least")
    room = Threshold("largest budget (coalitions per row) at which most cells still favour PCA and Model >= t",
                     float(budget), largest, "at least")
    rev_over = int(sum(_need(cells.loc[(d, k, "RevVIF", a)]) > budget for d, k, a in keys.itertuples(index=False)))
    sampled = grid[grid["computed"] & (grid["reference"] == "sampled")]
    ratio = sampled.groupby(["data set", "classifier"]).apply(
        lambda g: float(g["noise floor"].iloc[0] / g["error mean"].min()), include_groups=False)
    blind = Threshold("largest noise floor of the sampled baseline / smallest error it ranks >= t", monitor,
                      round(float(ratio.max()), 6), "at least")
    widest = grid.drop_duplicates("data set").set_index("data set")["n attributes"]
    c = CONCLUSIONS
    return [
        Claim("PCA and Model fare better than RevVIF in most cells of many attributes", *c["many"],
              f"PCA better in {sum(at_budget['PCA'])}, Model in {sum(at_budget['Model'])} of {len(keys)} cells "
              f"(RevVIF over the budget of {budget:,} coalitions in {rev_over}); the same for budgets up to "
              f"{largest:,.0f}", bool(most.holds and room.holds), (most, room)),
        Claim("the permutation-sampled baseline cannot rank the methods (noise floor too large)", *c["monitor"],
              f"noise floor at most {ratio.max():.3f} of the smallest error ranked, over {len(ratio)} pairs",
              blind.holds, (blind,)),
        Claim("the exact complete influence needs 2^n coalitions per row", *c["impossible"],
              f"2^{int(widest.max())} on {widest.idxmax()}, 2^{int(widest.min())} on {widest.idxmin()}",
              bool(widest.max() > 30)),
    ]
