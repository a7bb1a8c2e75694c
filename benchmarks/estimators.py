"""Benchmark: Shapley-value estimators against exact values, error vs number of model rows.

Issue 22, items 1 and 3.  On games of the book where the exact interventional
Shapley values exist (:func:`lib.shapley.exact_shapley`, the same background), each
estimator is run at several budgets and seeds; the budget it actually spent is *counted*
(:class:`lib.counting.CountingModel`: rows passed to the model, per explained row), never
read from its arguments.

Games (built as ``benchmarks/exact_engine.py`` builds them)
    ``gbt-twonorm``: ``GradientBoostingClassifier(50 trees, depth 3)`` log-odds on
    two-norm data, ``d = 14``;  ``khiops-nb-adult``: chapter 1's Khiops selective naive
    Bayes, its log-odds on Adult's part matrix, ``d = 14`` — an *additive* game (the
    log-odds is a sum of one term per variable), on which every permutation or regression
    estimator is exact at any budget: a check, not a contest;
    ``khiops-nb-adult-proba``: the same model's probability of the positive class (the
    sigmoid of the log-odds: not additive);
    ``hgb-adult-many``: chapter 5's many-attribute Adult (:mod:`lib.experiments.coal_many`:
    ``HistGradientBoostingClassifier`` with native categories on the 14 attributes' codes,
    ``P(>50K)``), with chapter 5's coalitional groupings as points (every data-driven method at
    both alphas: cost in counted model rows, error against the exact complete influence);
    ``svc-iris-ilr``: chapter 2's RBF SVM on iris (:func:`lib.experiments.comp_estimation.iris_setup`),
    every other of its flowers (one of each species) against its 50 background rows, seen in ILR coordinates (a 2-output
    game; the book's samplers there are ``sample_shapley_compositions``, which *is*
    ``sample_shapley`` on ``ilr ∘ f``; error: Aitchison distance).  With ``d = 4`` the exact
    values cost ``2^4 * 50 = 800`` rows: above that budget an estimator that enumerates the
    coalitions (shap Kernel, shapiq's regressions) is exact, as it should be.
    The last two run ``--new-game-seeds`` seeds (5 by default) to keep the run near 30 minutes.

Estimators (every one sees the same model, explained rows and background rows)
    ``book antithetic``: :func:`lib.permutation_sampling.antithetic_shapley`, the book's
    default past exact (antithetic permutations, Mitchell et al. 2022), given the budget as
    ``max_rows``;
    ``book uniform`` / ``book Algorithm 2`` / ``book Algorithm 2 (prior 4)``:
    :func:`lib.shapley.sample_shapley` (Štrumbelj & Kononenko's Algorithms 1 and 2; the
    book's ``prior_samples`` fix), two model rows per sample;
    ``shap Permutation`` (``PermutationExplainer``, ``Independent`` masker with all the
    background rows), ``shap Kernel`` (``KernelExplainer``, ``l1_reg=False``),
    ``shap Sampling`` (``SamplingExplainer``);
    ``shapiq KernelSHAP``, ``shapiq unbiased KernelSHAP``, ``shapiq SVARM``,
    ``shapiq permutation``, ``shapiq stratified`` (shapiq 1.4.1's approximators of plain
    Shapley values, ``pip install -r requirements-bench.txt``), on the interventional game
    :func:`lib.shapley.coalition_values` (one coalition costs ``m`` model rows).

Error
    Per explained row, ``||phi_hat - phi||_2 / ||phi||_2``; averaged over the explained
    rows; per (game, estimator, budget) the median and quartiles over seeds, and the median
    number of rows counted per explained row.  Budgets are targets in model rows per
    explained row; each estimator's own parameter is set from it (e.g. ``nsamples =
    budget // m`` for a method that pays ``m`` rows per coalition).

    pip install -r requirements-bench.txt   # shapiq
    nice -n 10 python benchmarks/estimators.py --rows 1 --seeds 10 --out data/derived/benchmark-estimators.csv
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np
import pandas as pd

from lib import counting, permutation_sampling, shapley
from timing import quiet_libraries

BUDGETS = (500, 1500, 5000, 15000, 50000)
#: the games of the first version; the two added later run fewer seeds (--new-game-seeds) to keep
#: the whole run near 30 min on one core
OLD_GAMES = ("gbt-twonorm", "khiops-nb-adult-proba", "khiops-nb-adult")
#: chapter 5's groupings (lib.experiments.coal_many), as points: every data-driven method at both alphas
GROUPING_METHODS = ("PCA", "VIF", "RevVIF", "Spearman", "RevSpearman")


def _games(names: list[str], rows: int, background: int, seed: int):
    """(name, data set, model, explained rows, background rows, extra) per game; ``extra`` holds
    what a game needs beyond the model (the data matrix of chapter 5's groupings)."""
    from exact_engine import _cases  # the same models and data as the exact-engine benchmark

    for name in names:
        if name == "hgb-adult-many":
            # chapter 5's many-attribute Adult (lib.experiments.coal_many): gradient boosting
            # (HistGradientBoostingClassifier, native categories) on the attribute codes, P(>50K)
            from lib.experiments import coal_many

            A, Y, _, nominal = coal_many.prepare("adult")
            n_categories = np.where(nominal, A.max(axis=0) + 1, 0)
            model = coal_many.make_model("gradient-boosting", nominal, n_categories).fit(A, Y)
            rng = np.random.default_rng([seed, A.shape[1], len(A)])
            bg = A[np.sort(rng.choice(len(A), size=background, replace=False))]
            explain = A[np.sort(rng.choice(len(A), size=rows, replace=False))]

            def f(Z: np.ndarray, model=model) -> np.ndarray:
                return model.predict_proba(Z)[:, 1]
            yield name, "adult", f, explain, bg, {"A": A, "model": model}
            continue
        if name == "svc-iris-ilr":
            # chapter 2's RBF SVM on iris (lib.experiments.comp_estimation's set-up), seen in ILR
            # coordinates: a 2-output game; error = Aitchison distance (the Euclidean distance of
            # ILR vectors); every other of its flowers: one of each species
            from lib import compositions
            from lib.experiments import comp_estimation

            model, flowers, bg = comp_estimation.iris_setup()
            yield name, "iris", compositions.ilr_model(model.predict_proba), flowers[::2], bg, {}
            continue
        case = {"gbt-twonorm": "gradient-boosting", "khiops-nb-adult": "khiops-nb-adult",
                "khiops-nb-adult-proba": "khiops-nb-adult"}[name]
        for _, dataset, f, explain, bg in _cases([case], [14], rows, background, seed):
            if name.endswith("-proba"):
                def f(Z: np.ndarray, log_odds=f) -> np.ndarray:  # P(positive) = sigmoid(log-odds)
                    return 1.0 / (1.0 + np.exp(-log_odds(Z)))
            yield name, dataset, f, np.asarray(explain), np.asarray(bg), {}


def _rel_error(est: np.ndarray, exact: np.ndarray) -> float:
    """``||est - exact|| / ||exact||`` over one row's values (all features and outputs: for an
    ILR game the Aitchison distance of the compositions, in quadrature over the features,
    relative to their Aitchison norm)."""
    est, exact = np.asarray(est, dtype=float).reshape(-1), np.asarray(exact, dtype=float).reshape(-1)
    return float(np.linalg.norm(est - exact) / np.linalg.norm(exact))


def _estimators(shap, shapiq):
    """name -> function(f, x (1, d), bg, budget rows, seed) -> (d,) values."""

    def book(allocation, prior):
        def run(f, x, bg, budget, seed):
            m = len(bg)
            samples = max(x.shape[1] * 2, (budget - m - 1) // 2)
            # Algorithm 2 allocates d samples at a time (variances frozen within a batch):
            # one model call per sample, as published, is too slow for this run
            options = {"prior_samples": prior, "batch_size": x.shape[1]} if allocation == "variance" else {}
            return shapley.sample_shapley(f, x, bg, max_rows=shapley.sampling_rows(samples, m=m),
                                          rng=np.random.default_rng(seed), method=allocation,
                                          **options).values[0]
        return run

    def dk(values, d: int) -> np.ndarray:
        """shap's values for one row as (d,) or (d, k) (a list of k (1, d) arrays or (1, d[, k]))."""
        arr = np.asarray(values, dtype=float)
        if isinstance(values, list):
            return arr[:, 0, :].T
        return arr.reshape((d,) + arr.shape[2:]) if arr.shape[0] == 1 else arr

    def shap_perm(f, x, bg, budget, seed):
        d, m = x.shape[1], len(bg)
        explainer = shap.PermutationExplainer(f, shap.maskers.Independent(bg, max_samples=m), seed=seed)
        return explainer(x, max_evals=max(2 * d + 2, budget // m), silent=True).values[0]

    def shap_kernel(f, x, bg, budget, seed):
        np.random.seed(seed)
        explainer = shap.KernelExplainer(f, bg)
        return dk(explainer.shap_values(x, nsamples=max(x.shape[1] + 2, budget // len(bg)),
                                        l1_reg=False, silent=True), x.shape[1])

    def shap_sampling(f, x, bg, budget, seed):
        np.random.seed(seed)
        explainer = shap.SamplingExplainer(f, bg)
        # each sample evaluates two hybrid rows against one background row
        return dk(explainer.shap_values(x, nsamples=max(2 * x.shape[1], budget // 2), silent=True),
                  x.shape[1])

    def antithetic(f, x, bg, budget, seed):
        # the budget itself: pairs are taken while their rows fit (rows a walk leaves unchanged,
        # where x and the background row agree, cost nothing)
        return permutation_sampling.antithetic_shapley(f, x, bg, max_rows=budget,
                                                       rng=np.random.default_rng(seed)).values[0]

    out = {
        "book antithetic": antithetic,
        "book uniform": book("uniform", 0.0),
        "book Algorithm 2": book("variance", 0.0),
        "book Algorithm 2 (prior 4)": book("variance", 4.0),
        "shap Permutation": shap_perm,
        "shap Kernel": shap_kernel,
        "shap Sampling": shap_sampling,
    }
    if shapiq is not None:
        classes = {"shapiq KernelSHAP": shapiq.KernelSHAP, "shapiq unbiased KernelSHAP": shapiq.UnbiasedKernelSHAP,
                   "shapiq SVARM": shapiq.SVARM, "shapiq permutation": shapiq.PermutationSamplingSV,
                   "shapiq stratified": shapiq.StratifiedSamplingSV}

        def via_shapiq(cls):
            def run(f, x, bg, budget, seed):
                d, m = x.shape[1], len(bg)
                k = np.asarray(f(x)).reshape(1, -1).shape[1]  # outputs (shapiq's games are scalar)
                out = []
                for j in range(k):  # a k-output game: one run per output, budget split evenly

                    def game(coalitions: np.ndarray, j=j) -> np.ndarray:
                        masks = np.atleast_2d(np.asarray(coalitions, dtype=bool))
                        v = shapley.coalition_values(f, x, bg, masks)[0]
                        return v if v.ndim == 1 else v[:, j]

                    approx = cls(n=d, random_state=seed)
                    out.append(np.asarray(approx.approximate(max(d + 2, (budget - 1) // (m * k)), game)
                                          .get_n_order_values(1)))
                return out[0] if k == 1 else np.stack(out, axis=1)
            return run

        out.update({name: via_shapiq(cls) for name, cls in classes.items()})
    return out


def _grouping_points(game, dataset, f, explain, bg, exact, extra, seed) -> list[dict]:
    """Chapter 5's coalitional influence of each grouping (lib.experiments.coal_many's set-up:
    every data-driven method at both alphas), as points: its cost in counted model rows per
    explained row (the coalitions Eq. F4 needs, each against every background row; no seed,
    it is deterministic) and its error against the complete influence (the exact values)."""
    from lib import coalitional as co
    from lib import grouping as gr
    from lib.experiments import coal_many

    records = []
    d = explain.shape[1]
    for method in GROUPING_METHODS:
        for alpha in coal_many.ALPHAS:
            groups = gr.find_groups(extra["A"], method, alpha)
            counted = counting.CountingModel(f)
            phi = co.coalitional_influence_interventional(counted, explain, bg, groups, overlap="size-factorial")
            err = np.mean([_rel_error(phi[r], exact[r]) for r in range(len(explain))])
            records.append({"game": game, "data": dataset, "d": d, "background": len(bg),
                            "rows explained": len(explain), "error measure": "relative L2",
                            "estimator": f"coalitional {method} (alpha {alpha})",
                            "budget": int(round(counted.rows / len(explain))), "seed": 0,
                            "model rows per explained row": counted.rows / len(explain),
                            "relative L2 error": float(err)})
    return records


def run(games: list[str], budgets: list[int], n_seeds: int, rows: int, background: int, seed: int,
        only: list[str] | None, new_game_seeds: int = 5) -> tuple[pd.DataFrame, pd.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import shap
    try:
        import shapiq
    except ImportError:
        print("shapiq is not installed: its estimators are left out (pip install -r requirements-bench.txt)",
              file=sys.stderr)
        shapiq = None
    estimators = _estimators(shap, shapiq)
    if only:
        estimators = {k: v for k, v in estimators.items() if k in only}
    records = []
    for game, dataset, f, explain, bg, extra in _games(games, rows, background, seed):
        exact = shapley.exact_shapley(f, explain, bg).values
        d = explain.shape[1]
        measure = "relative Aitchison" if exact.ndim == 3 else "relative L2"
        if "A" in extra:
            records += _grouping_points(game, dataset, f, explain, bg, exact, extra, seed)
        print(f"{game}: d={d}, {len(explain)} explained rows, {len(bg)} background rows", file=sys.stderr)
        for name, est in estimators.items():
            t0 = time.perf_counter()
            for budget in budgets:
                for s in range(n_seeds if game in OLD_GAMES else min(n_seeds, new_game_seeds)):
                    errs, spent = [], []
                    for r in range(len(explain)):
                        counted = counting.CountingModel(f)
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            phi = est(counted, explain[r : r + 1], bg, budget, 1000 * s + r)
                        errs.append(_rel_error(phi, exact[r]))
                        spent.append(counted.rows)
                    records.append({"game": game, "data": dataset, "d": d, "background": len(bg),
                                    "rows explained": len(explain), "error measure": measure,
                                    "estimator": name, "budget": budget,
                                    "seed": s, "model rows per explained row": float(np.mean(spent)),
                                    "relative L2 error": float(np.mean(errs))})
            print(f"  {name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    long = pd.DataFrame.from_records(records)
    g = long.groupby(["game", "d", "background", "rows explained", "error measure", "estimator", "budget"],
                     sort=False)
    summary = g.agg(**{
        "seeds": ("seed", "count"),
        "model rows (median)": ("model rows per explained row", "median"),
        "error median": ("relative L2 error", "median"),
        "error q25": ("relative L2 error", lambda v: float(np.quantile(v, 0.25))),
        "error q75": ("relative L2 error", lambda v: float(np.quantile(v, 0.75))),
        "error min": ("relative L2 error", "min"),
        "error max": ("relative L2 error", "max"),
    }).reset_index()
    return long, summary


def checks(summary: pd.DataFrame) -> list[str]:
    """Every estimator's median error at its largest budget below that at its smallest
    (or at round-off throughout: an additive game)."""
    lines = []
    for (game, name), sub in summary.groupby(["game", "estimator"], sort=False):
        if name.startswith("coalitional "):
            continue  # a grouping is one point (its own cost), not a curve
        sub = sub.sort_values("budget")
        lo, hi = sub["error median"].iloc[0], sub["error median"].iloc[-1]
        verdict = ("exact at every budget (round-off)" if max(lo, hi) < 1e-5
                   else "converges" if hi < lo else "DOES NOT shrink")
        lines.append(f"check {game} / {name}: median error {lo:.3g} at {sub['model rows (median)'].iloc[0]:.0f} rows "
                     f"-> {hi:.3g} at {sub['model rows (median)'].iloc[-1]:.0f} rows: {verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    games = ["gbt-twonorm", "khiops-nb-adult-proba", "khiops-nb-adult", "hgb-adult-many", "svc-iris-ilr"]
    parser.add_argument("--games", nargs="+", default=games, choices=games)
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS),
                        help="target model rows per explained row")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--new-game-seeds", type=int, default=5,
                        help="seeds for hgb-adult-many and svc-iris-ilr (at most --seeds)")
    parser.add_argument("--rows", type=int, default=1,
                        help="rows explained per game (svc-iris-ilr: always its three flowers)")
    parser.add_argument("--background", type=int, default=20, help="background rows")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and models")
    parser.add_argument("--estimators", nargs="+", help="only these (names as in the table)")
    parser.add_argument("--out", help="write the summary table as CSV here")
    args = parser.parse_args(argv)
    quiet_libraries()
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # BLAS and OpenMP (HistGradientBoosting): one thread
        _, summary = run(args.games, args.budgets, args.seeds, args.rows, args.background, args.seed,
                         args.estimators, args.new_game_seeds)
    print(f"# estimators benchmark — python {platform.python_version()}, {os.cpu_count()} cores; "
          "relative L2 error against exact values, median over seeds")
    curves = summary[~summary["estimator"].str.startswith("coalitional ")]
    wide = curves.pivot_table(index=["game", "estimator"], columns="budget", values="error median", sort=False)
    with pd.option_context("display.width", 250, "display.max_columns", 50, "display.float_format", "{:.3g}".format):
        print(wide.to_string())
    for line in checks(summary):
        print(line)
    if args.out:
        summary.to_csv(args.out, index=False, float_format="%.6g", lineterminator="\n")
        print("written:", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
