"""Benchmark: Shapley-value estimators against exact values, error vs number of model rows.

Issue 22, items 1 and 3; issue 40. On games whose exact interventional Shapley values are known (the
same background rows for every estimator), each estimator runs at several budgets, seeds and explained
rows; the budget it actually spent is *counted* (:class:`lib.counting.CountingModel`: rows passed to the
model, per explained row), never read from its arguments.

Games (``--games``)
    ``d = 14``, exact by enumeration (:func:`lib.shapley.exact_shapley`), built as
    ``benchmarks/exact_engine.py`` builds them: ``gbt-twonorm`` (``GradientBoostingClassifier``, 50
    trees of depth 3, its log-odds on two-norm data; its values by tree paths too, as a check of that
    route), ``khiops-nb-adult-proba`` (chapter 1's Khiops selective naive Bayes on Adult's part
    matrix, the probability of the positive class), ``khiops-nb-adult`` (the same model's log-odds, an
    *additive* game: a check, not a contest), ``hgb-adult-many`` (chapter 5's many-attribute Adult,
    :mod:`compendium.experiments.coal_many`, with chapter 5's groupings as points), and ``svc-iris-ilr``
    (chapter 2's RBF SVM on iris in ILR coordinates, ``d = 4``, a two-output game scored by the
    Aitchison distance; its exact values cost ``2^4 * 50 = 800`` rows, so most of its budgets are above
    the exact cost: there the estimators that enumerate coalitions are exact, as they should be).
    Every game is built by :func:`compendium.experiments.estimator_games.benchmark_games`.
    Past enumeration: ``gbt-twonorm-30`` and
    ``gbt-twonorm-60`` (the same model class with ``d = 30, 60``; exact values by tree-path
    enumeration, shap's interventional ``TreeExplainer`` on the log-odds margin) and ``additive-60``
    (closed form). ``--rows`` explained rows per game (svc-iris-ilr: always its three flowers) against
    ``--background`` background rows.

    Games the book did not choose (issue 47, item 3; not in the default list, each set stored in its own
    table with ``--games ... --out ...``): ``mlp-twonorm`` (a multilayer perceptron's probability on the
    two-norm data, ``d = 14``, exact by enumeration), stored as ``benchmark-estimators-mlp.csv``::

        nice -n 5 python benchmarks/estimators.py --games mlp-twonorm --out data/derived/benchmark-estimators-mlp.csv

    and the third-party protocol (the Leverage SHAP and OddSHAP authors' benchmark,
    :func:`compendium.experiments.estimator_games.protocol_game`): an XGBoost regressor (100 trees of
    depth 4) on iris, diabetes, Adult, and shap's ``corrgroups60`` and ``independentlinear60``; the
    data's mean as the one background row (a coalition costs one model row, so budgets per feature
    are the protocol's ``4n`` to ``64n`` coalitions); ten runs, each its own explained row and seed
    (``--rows 10 --seeds 1``); exact values by enumeration (``d <= 14``, checked against the tree paths
    too) or tree paths (``d = 60``); no coalition cap (:func:`_caps`). The protocol scores the squared
    relative error and this table the relative error (its square root), the same order of the
    estimators::

        nice -n 5 python benchmarks/estimators.py --games xgb-iris xgb-diabetes xgb-adult xgb-corrgroups60 \\
            xgb-independentlinear60 --budgets 4 8 16 32 64 --seeds 1 --rows 10 \\
            --out data/derived/benchmark-estimators-protocol.csv

Estimators (``--estimators``; every one sees the same model, explained rows and background rows)
    The book's, every estimator of its registry (:mod:`lib.sampling`, through :func:`lib.sampling.run`
    on a :class:`lib.games.Game`): ``book default`` (:data:`lib.sampling.DEFAULT`, the default of
    :func:`lib.sampling.sample_shapley`), ``book antithetic``, ``book uniform``, ``book Algorithm 2`` and
    ``book Algorithm 2 (prior 4)`` (Štrumbelj & Kononenko's Algorithms 1-2 and the book's fix), and any
    other registered estimator as ``book <name>``;
    shap's ``PermutationExplainer`` (``Independent`` masker holding every background row),
    ``KernelExplainer`` (``l1_reg=False``) and ``SamplingExplainer``; and every Shapley-value
    approximator of shapiq 1.8 (``benchmarks/_shapiq_worker.py``), which runs in the shapiq side
    environment (:func:`compendium.side_env.shapiq_python`, built on first use: shapiq >= 1.5 needs Python
    3.12) on the interventional game :func:`lib.games.coalition_values`, which *this* process
    evaluates and counts (one coalition costs ``m`` model rows). Before any shapiq estimate counts, the
    side environment's exact values of each game (shapiq's ``ExactComputer``, ``d <= 14``) must equal
    the book's, and every game's exact values must add up to ``v(N) - v(∅)`` as the side environment
    evaluates it (``benchmark-estimators-checks.csv``).

Budgets
    ``--budgets`` in model rows *per feature* (default 10 to 10,000), i.e. ``budget * d`` model rows per
    explained row; each estimator's own parameter is set from it (``nsamples = rows // m`` for a method
    that pays ``m`` rows per coalition). An estimator that cannot run at a budget (too few coalitions
    for its regression) records nothing there; one that spends more than the budget is recorded with
    what it spent. Each estimator runs up to the first budget at or above the exact cost
    (:func:`budgets_run`). To fit the run on a shared 2-core machine: the games past enumeration run
    :data:`PAST_ENUMERATION_SEEDS` seeds and budgets up to :data:`PAST_ENUMERATION_MAX_BUDGET` rows per
    feature; PolySHAP, OddSHAP and kADD-SHAP get at most
    :data:`COALITION_CAPS` coalitions there, the book's Algorithm 2 at most :data:`BUDGET_CAPS` rows per
    feature anywhere; ProxySPEX is not run (:data:`NOT_RUN`). The stored run's calls took 1.9 hours of
    wall time in all on that machine, shared with other jobs. The games past enumeration run once more
    without those limits, into ``benchmark-estimators-past-exact.csv`` (issue 47: 3,000 rows per feature,
    5 seeds): ``--games gbt-twonorm-30 gbt-twonorm-60 --budgets 1000 3000 --seeds 5 --past-seeds 5
    --past-max-budget 3000 --uncapped --skip "book Algorithm 2" "book Algorithm 2 (prior 4)"``, every
    estimator but the book's Algorithm 2 (its draws are
    allocated in a Python loop, minutes per call there; never the best on these games in the stored
    run) and ProxySPEX (:data:`NOT_RUN`); the command is :mod:`compendium.regenerate`'s. The stored run
    predates the book's ``method="control"`` (:mod:`lib.sampling.control`): it is run with ``--skip "book
    control"``, and ``book control`` alone, at the stored run's settings, into
    ``benchmark-estimators-control.csv`` (``--estimators "book control"``).

Error
    Per explained row ``||phi_hat - phi||_2 / ||phi||_2``, averaged over the explained rows; per (game,
    estimator, budget) the median and quartiles over seeds of that average, and the median number of
    rows counted per explained row.

Resumable: each (game, estimator) unit writes its records to ``.bench-parts/estimators/`` and is
skipped on a rerun with the same settings unless ``--force`` (a rerun with every part present only
gathers the tables; ``--gather-only`` gathers whatever parts there are). Progress: a tqdm bar over the units. The stored run (at most about two hours on one core)::

    nice -n 10 python benchmarks/estimators.py --out data/derived/benchmark-estimators.csv
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core (before numpy loads)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from timing import quiet_libraries  # noqa: E402
from tqdm import tqdm  # noqa: E402

from compendium import side_env
from compendium.side_env import ShapiqError, ShapiqSide  # noqa: E402
from compendium.data import REPO_ROOT  # noqa: E402
from compendium.experiments import estimator_games as eg  # noqa: E402
from lib import counting, games  # noqa: E402

#: Budgets in model rows per feature and per explained row.
BUDGETS_PER_FEATURE = (10, 30, 100, 300, 1000, 3000, 10000)
GAMES = eg.GAMES
#: games the book did not choose, each set stored in its own table (not in the default list)
UNSEEN_GAMES = eg.UNSEEN_GAMES
#: chapter 5's groupings (compendium.experiments.coal_many), as points: every data-driven method at both alphas
GROUPING_METHODS = ("PCA", "VIF", "RevVIF", "Spearman", "RevSpearman")
PARTS = REPO_ROOT / ".bench-parts" / "estimators"
WORKER = Path(__file__).with_name("_shapiq_worker.py")
DERIVED = REPO_ROOT / "data" / "derived"
#: an estimate off by less than this (relative) is exact: the checks' tolerance for two exact routes
EXACT_AGREEMENT = 1e-9
#: shapiq approximators whose single call is too slow for the stored run on the games past enumeration
#: (d >= 30), with the most coalitions they get there: PolySHAP took 538 s for one call with 30,000
#: coalitions at d = 60 and OddSHAP more than 900 s (timed out), on this shared 2-core machine, and
#: kADD-SHAP fits the same pairwise regression as PolySHAP's second order; at d = 14 they run at every
#: budget. ProxySPEX (an interaction method, in shapiq's list of Shapley-value
#: approximators) is not run: one call at d = 60 with 3,000 coalitions ran past ten minutes.
COALITION_CAPS = {"shapiq PolySHAP": 1500, "shapiq OddSHAP": 1500, "shapiq kADDSHAP": 1500}
NOT_RUN = ("shapiq ProxySPEX",)
#: the book's Algorithm 2 (published and with the fix) allocates its draws in a Python loop of d draws a
#: time: at 10,000 rows per feature one run took about 15 minutes of the stored run's machine on
#: gbt-twonorm; they run up to this many rows per feature (they are not contenders: see the page)
BUDGET_CAPS = {"book Algorithm 2": 3000, "book Algorithm 2 (prior 4)": 3000}
#: the games past enumeration (d >= 30) run fewer seeds and budgets up to this many rows per feature: a
#: model row costs 3 to 4 times more there (d = 60), and the approximators' own work grows with d; the
#: stored run must fit on a shared 2-core machine (about two CPU-hours in all)
PAST_ENUMERATION_SEEDS = 2
PAST_ENUMERATION_MAX_BUDGET = 1000
#: not run on the games past enumeration (d >= 30): none (kept as the place to say so, with why)
NOT_PAST_ENUMERATION: tuple[str, ...] = ()


def exact_cost(d: int, m: int) -> float:
    """Model rows of the exact enumeration per explained row, ``2^d m`` (where x and the background
    rows differ everywhere)."""
    return float(2**d * m)


def budgets_run(budgets: list[int], d: int, m: int, name: str, caps: dict[str, int] | None = None) -> list[int]:
    """The budgets (per feature) an estimator runs at on a game: up to the first at or above the exact
    cost (above it the answer is :func:`lib.shapley.exact_shapley`, and one such budget shows the
    estimators that become exact there), for the capped approximators (:data:`COALITION_CAPS`) on
    a game past enumeration only those within their cap of coalitions, and for the book's Algorithm 2
    those up to :data:`BUDGET_CAPS`. ``caps``: the coalition caps (:func:`_caps`; default
    :data:`COALITION_CAPS`)."""
    caps = COALITION_CAPS if caps is None else caps
    out = []
    for b in sorted(budgets):
        if d >= 30 and name in caps and b * d // m > caps[name]:
            break
        if b > BUDGET_CAPS.get(name, b):
            break
        out.append(int(b))
        if b * d >= exact_cost(d, m):
            break
    return out


def _caps(args, game: str) -> dict[str, int]:
    """The coalition caps of a game: :data:`COALITION_CAPS`, none with ``--uncapped`` and none for the third-party protocol's games
    (:data:`compendium.experiments.estimator_games.PROTOCOL_GAMES`): their largest budget is ``64 d``
    coalitions (3,840 at ``d = 60``), where one call of PolySHAP took 15 s, OddSHAP 2 s and kADD-SHAP
    6 s on the stored run's machine, and the protocol's point is those budgets."""
    return {} if args.uncapped or game in eg.PROTOCOL_GAMES else COALITION_CAPS


# ----------------------------------------------------------------------------- games
def _games(names: list[str], rows: int, background: int, seed: int) -> Iterator[eg.BenchmarkGame]:
    """The benchmark's games, each with its exact values (and chapter 5's data for hgb-adult-many):
    :func:`compendium.experiments.estimator_games.benchmark_games`."""
    return eg.benchmark_games(names, rows, background, seed)


def _rel_error(est: np.ndarray, exact: np.ndarray) -> float:
    """``||est - exact|| / ||exact||`` over one row's values (all features and outputs: for an ILR game
    the Aitchison distance of the compositions, in quadrature over the features, relative to their
    Aitchison norm)."""
    est, exact = np.asarray(est, dtype=float).reshape(-1), np.asarray(exact, dtype=float).reshape(-1)
    return float(np.linalg.norm(est - exact) / np.linalg.norm(exact))


def _coalition_game(f, x: np.ndarray, bg: np.ndarray, output: int | None):
    """The interventional game of row ``x`` as shapiq sees it: boolean coalitions -> values (output
    ``output`` of a multi-output model)."""
    def game(coalitions: np.ndarray) -> np.ndarray:
        v = games.coalition_values(f, x, bg, np.atleast_2d(np.asarray(coalitions, dtype=bool)))[0]
        return v if output is None else v[:, output]
    return game


# ----------------------------------------------------------------------------- estimators
#: The benchmark's names of the book's estimators: registry name and options (None: the defaults). The
#: variance-driven Algorithm 2 allocates ``d`` draws at a time (variances frozen within a batch): one
#: model call per draw, as published, is too slow for this run.
BOOK_NAMES = {"book antithetic": ("antithetic", None), "book uniform": ("uniform", None),
              "book Algorithm 2": ("variance", {"batch_size": "d"}),
              "book Algorithm 2 (prior 4)": ("variance", {"batch_size": "d", "prior_samples": 4.0})}


def _book_estimators() -> dict[str, Callable]:
    """name -> function(f, x (1, d), bg, budget rows, seed) -> values (d,) or (d, k): every estimator of
    the book's registry (:mod:`lib.sampling`), called through :func:`lib.sampling.run` on a
    :class:`lib.games.Game`; ``book default`` is :data:`lib.sampling.DEFAULT` with its defaults."""
    from lib import sampling
    from lib.games import Game

    def via_registry(method: str, options: dict | None):
        def run(f, x, bg, budget, seed):
            game = Game(f, x, bg)
            opts = None
            if options is not None:
                opts = sampling.estimator(method).options(**{k: (game.d if v == "d" else v) for k, v in options.items()})
            return sampling.run(game, method, int(budget), np.random.default_rng(seed), opts).values[0]
        return run

    out = {"book default": via_registry(sampling.DEFAULT, None)}
    out.update({name: via_registry(method, options) for name, (method, options) in BOOK_NAMES.items()})
    for method in sampling.estimators():  # any other registered estimator, with its defaults
        if method != sampling.DEFAULT and method not in {m for m, _ in BOOK_NAMES.values()}:
            out[f"book {method}"] = via_registry(method, None)
    return out


def _shap_estimators() -> dict[str, Callable]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import shap

    def dk(values, d: int) -> np.ndarray:
        """shap's values for one row as (d,) or (d, k) (a list of k (1, d) arrays or (1, d[, k]))."""
        arr = np.asarray(values, dtype=float)
        if isinstance(values, list):
            return arr[:, 0, :].T
        return arr.reshape((d,) + arr.shape[2:]) if arr.shape[0] == 1 else arr

    def perm(f, x, bg, budget, seed):
        m = len(bg)
        explainer = shap.PermutationExplainer(f, shap.maskers.Independent(bg, max_samples=m), seed=seed)
        return explainer(x, max_evals=int(budget) // m, silent=True).values[0]

    def kernel(f, x, bg, budget, seed):
        np.random.seed(seed)
        explainer = shap.KernelExplainer(f, bg)
        return dk(explainer.shap_values(x, nsamples=int(budget) // len(bg), l1_reg=False, silent=True), x.shape[1])

    def sampling(f, x, bg, budget, seed):
        np.random.seed(seed)
        explainer = shap.SamplingExplainer(f, bg)
        # each sample evaluates two hybrid rows against one background row
        return dk(explainer.shap_values(x, nsamples=int(budget) // 2, silent=True), x.shape[1])

    return {"shap Permutation": perm, "shap Kernel": kernel, "shap Sampling": sampling}


def _shapiq_estimator(side: ShapiqSide, name: str) -> Callable:
    def run(f, x, bg, budget, seed):
        d, m = x.shape[1], len(bg)
        k = np.asarray(f(x)).reshape(1, -1).shape[1]  # outputs (shapiq's games are scalar): budget split evenly
        out = [side.run(name, d, int(budget) // (m * k), seed, _coalition_game(f, x, bg, None if k == 1 else j))
               for j in range(k)]
        return out[0] if k == 1 else np.stack(out, axis=1)
    return run


# ----------------------------------------------------------------------------- units
def _game_plan(args, d: int) -> tuple[list[int], int]:
    """The budgets (rows per feature) and seeds of a game with ``d`` features."""
    if d >= 30:
        return ([b for b in args.budgets if b <= args.past_max_budget], min(args.seeds, args.past_seeds))
    return list(args.budgets), args.seeds


def _settings(args, game: str) -> str:
    if game in ("gbt-twonorm-30", "gbt-twonorm-60", "additive-60"):
        budgets, seeds = _game_plan(args, int(game.rsplit("-", 1)[1]))
        plan = {"game": game, "budgets": budgets, "seeds": seeds, "rows": args.rows,
                "background": args.background, "seed": args.seed}
        if args.uncapped:
            plan["uncapped"] = True
        return json.dumps(plan, sort_keys=True)
    return json.dumps({"game": game, "budgets": list(args.budgets), "seeds": args.seeds, "rows": args.rows,
                       "background": args.background, "seed": args.seed}, sort_keys=True)


def _part(game: str, estimator: str, settings: str) -> Path:
    key = hashlib.sha256(settings.encode()).hexdigest()[:10]
    return PARTS / f"{game}__{estimator.replace(' ', '_').replace('(', '').replace(')', '')}__{key}.csv"


def _run_unit(game: eg.BenchmarkGame, name: str, est: Callable, budgets: list[int], n_seeds: int,
              max_seconds: float, caps: dict[str, int] | None = None) -> list[dict]:
    """Every budget, seed and explained row of one estimator on one game. Once a call takes more than
    ``max_seconds`` (wall time, which includes the side environment's), the larger budgets are not run:
    a record says so."""
    d = game.explain.shape[1]
    records = []
    slow = None
    for b in budgets_run(budgets, d, len(game.background), name, caps):
        budget = int(b) * d
        if slow is not None:
            records.append({"budget": int(b), "seed": -1, "row": -1, "rows counted": 0, "error": np.nan, "seconds": 0.0,
                            "failed": f"not run: a call at {slow[0]} rows per feature took {slow[1]:.0f} s "
                                      f"(more than {max_seconds:.0f} s)"})
            continue
        for s in range(n_seeds):
            for r in range(len(game.explain)):
                counted = counting.CountingModel(game.f)
                t0 = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        phi = est(counted, game.explain[r: r + 1], game.background, budget, 1000 * s + r)
                    err, failed = _rel_error(phi, game.exact[r]), ""
                except (ValueError, ShapiqError, ZeroDivisionError, np.linalg.LinAlgError) as error:
                    err, failed = np.nan, str(error).replace("\n", " ")[:200] or type(error).__name__
                seconds = time.perf_counter() - t0
                records.append({"budget": int(b), "seed": s, "row": r, "rows counted": counted.rows, "error": err,
                                "seconds": seconds, "failed": failed})
                if seconds > max_seconds and slow is None:
                    slow = (int(b), seconds)
    return records


def _grouping_points(game: eg.BenchmarkGame, seed: int) -> list[dict]:
    """Chapter 5's coalitional influence of each grouping (compendium.experiments.coal_many's set-up: every
    data-driven method at both alphas), as points: its cost in counted model rows per explained row (the
    coalitions Eq. F4 needs, each against every background row; no seed, it is deterministic) and its
    error against the complete influence (the exact values)."""
    from compendium.experiments import coal_many
    from lib import coalitional as co
    from lib import grouping as gr

    A, _, _, _ = coal_many.prepare("adult")
    records = []
    for method in GROUPING_METHODS:
        for alpha in coal_many.ALPHAS:
            groups = gr.find_groups(A, method, alpha)
            counted = counting.CountingModel(game.f)
            phi = co.coalitional_influence_interventional(counted, game.explain, game.background, groups,
                                                          overlap="size-factorial")
            err = np.mean([_rel_error(phi[r], game.exact[r]) for r in range(len(game.explain))])
            rows = counted.rows / len(game.explain)
            records.append({"estimator": f"coalitional {method} (alpha {alpha})", "budget": int(round(rows)),
                            "seed": 0, "rows counted": rows, "error": float(err)})
    return records


def _checks(game: eg.BenchmarkGame, side: ShapiqSide | None) -> list[dict]:
    """The game's exact values against the other routes: shapiq's ExactComputer on the side environment's
    game (``d <= 14``), the tree paths (``gbt-twonorm``, ``d = 14``: both routes run), and efficiency
    against ``v(N) - v(∅)`` as the side environment's game evaluates it (every game)."""
    out = []
    d = game.explain.shape[1]
    k = np.asarray(game.f(game.explain[:1])).reshape(1, -1).shape[1]
    for r in range(len(game.explain)):
        x = game.explain[r: r + 1]
        exact = np.asarray(game.exact[r], dtype=float).reshape(d, -1)
        scale = float(np.abs(exact).max())
        for j in range(k):
            g = _coalition_game(game.f, x, game.background, None if k == 1 else j)
            if side is not None:
                vals = g(np.array([np.zeros(d, bool), np.ones(d, bool)]))
                out.append({"game": game.name, "row": r, "output": j, "check": "efficiency: sum of exact values = v(N) - v(empty)",
                            "max abs difference": float(abs(exact[:, j].sum() - (vals[1] - vals[0]))), "scale": scale})
                if d <= 14:
                    theirs = side.exact(d, g)
                    out.append({"game": game.name, "row": r, "output": j, "check": "shapiq ExactComputer (side environment)",
                                "max abs difference": float(np.abs(theirs - exact[:, j]).max()), "scale": scale})
        if game.name == "gbt-twonorm" or (game.name in eg.PROTOCOL_GAMES and d <= 14):
            model = eg.twonorm_model(14, 0)[0] if game.name == "gbt-twonorm" else game.model
            tree = eg.tree_ground_truth(model, x, game.background)[0]
            out.append({"game": game.name, "row": r, "output": 0, "check": "tree paths (shap TreeExplainer, interventional, raw)",
                        "max abs difference": float(np.abs(tree - exact[:, 0]).max()), "scale": scale})
    return out


def run(args) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    quiet_libraries()
    estimators: dict[str, Callable] = {**_book_estimators(), **_shap_estimators()}
    wanted_shapiq = args.estimators is None or any(e.startswith("shapiq ") for e in args.estimators)
    wanted_shapiq = wanted_shapiq and not args.gather_only
    side = None
    if wanted_shapiq:
        side = ShapiqSide(side_env.shapiq_python(), WORKER, PARTS / "shapiq-worker.log")
        estimators.update({name: _shapiq_estimator(side, name) for name in side.names})
    if args.estimators:
        unknown = sorted(set(args.estimators) - set(estimators))
        if unknown:
            raise SystemExit(f"estimators.py: unknown estimators {unknown}; choose from {sorted(estimators)}")
        estimators = {k: estimators[k] for k in args.estimators}  # in the order given
    if args.skip:
        unknown = sorted(set(args.skip) - set(estimators))
        if unknown:
            raise SystemExit(f"estimators.py: unknown estimators to skip {unknown}; choose from {sorted(estimators)}")
        estimators = {k: v for k, v in estimators.items() if k not in args.skip}
    PARTS.mkdir(parents=True, exist_ok=True)
    checks, games_info = [], []
    try:
        for game in _games(args.games, args.rows, args.background, args.seed):
            settings = _settings(args, game.name)
            d = game.explain.shape[1]
            games_info.append({"game": game.name, "data": game.data, "d": d, "background": len(game.background),
                               "rows explained": len(game.explain), "exact values": game.truth,
                               "error measure": "relative Aitchison" if np.ndim(game.exact) == 3 else "relative L2"})
            check_part = _part(game.name, "checks", settings)
            if side is not None and not args.gather_only and (args.force or not check_part.exists()):
                pd.DataFrame(_checks(game, side)).to_csv(check_part, index=False)
            if check_part.exists():
                c = pd.read_csv(check_part)
                # the tree-path values carry float32 thresholds' rounding: TREE_AGREEMENT for every check of them;
                # XGBoost's predictions are float32 sums: FLOAT32_AGREEMENT (relative) for its tree-path checks
                tree = c["check"].str.startswith("tree") | game.truth.startswith("tree")
                relative = eg.exact_precision(game.name)
                tree_tol = relative * np.maximum(c["scale"], 1.0) if relative else eg.TREE_AGREEMENT
                bad = c[c["max abs difference"] > EXACT_AGREEMENT * np.maximum(c["scale"], 1.0)
                        + np.where(tree, tree_tol, 0.0)]
                if len(bad):
                    raise SystemExit(f"estimators.py: {game.name}: the routes to the exact values disagree:\n{bad}")
                checks.append(c)
            if game.name == "hgb-adult-many":
                gpart = _part(game.name, "groupings", settings)
                if args.force or not gpart.exists():
                    pd.DataFrame(_grouping_points(game, args.seed)).to_csv(gpart, index=False)
            todo = [n for n in estimators if n not in NOT_RUN and not (d >= 30 and n in NOT_PAST_ENUMERATION)
                    and (args.force or not _part(game.name, n, settings).exists())]
            if args.gather_only:
                todo = []
            for name in tqdm(todo, desc=f"{game.name} (d={d})", unit="estimator", file=sys.stderr):
                t0 = time.perf_counter()
                budgets, seeds = _game_plan(args, d)
                recs = _run_unit(game, name, estimators[name], budgets, seeds, args.max_seconds, _caps(args, game.name))
                pd.DataFrame(recs).assign(estimator=name, settings=settings).to_csv(_part(game.name, name, settings),
                                                                                     index=False)
                tqdm.write(f"  {game.name} / {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    finally:
        if side is not None:
            side.close()
    versions = _versions(side, with_xgboost=any(g in eg.PROTOCOL_GAMES for g in args.games))
    return _gather(args, pd.DataFrame(games_info)), (pd.concat(checks) if checks else pd.DataFrame()), versions


def _versions(side: ShapiqSide | None, with_xgboost: bool = False) -> pd.DataFrame:
    """The packages' versions of both environments (and XGBoost's, the protocol games' model)."""
    from importlib.metadata import version

    rows = [{"environment": "book", "package": "python", "version": platform.python_version()}]
    rows += [{"environment": "book", "package": p, "version": version(p)} for p in ("numpy", "scikit-learn", "shap")]
    if with_xgboost:
        import xgboost

        rows.append({"environment": "book", "package": "xgboost", "version": xgboost.__version__})
    if side is not None:
        rows += [{"environment": "shapiq side environment", "package": p, "version": v} for p, v in side.versions.items()]
    return pd.DataFrame(rows)


def _gather(args, info: pd.DataFrame) -> pd.DataFrame:
    """The summary table from the parts of the current settings: per (game, estimator, budget) the
    seeds, the median rows counted per explained row and the error's median, quartiles and range over
    seeds (each seed's error: the mean over the explained rows)."""
    frames = []
    for game in info["game"]:
        settings = _settings(args, game)
        key = hashlib.sha256(settings.encode()).hexdigest()[:10]
        for p in sorted(PARTS.glob(f"{game}__*__{key}.csv")):
            if p.name.split("__")[1] in ("checks",):
                continue
            df = pd.read_csv(p, keep_default_na=False, na_values=[""])
            if p.name.split("__")[1] == "groupings":
                df = df.assign(row=0)
            else:  # parts of an earlier run may hold more budgets than the current rule runs
                row = info.set_index("game").loc[game]
                df = df[df["budget"].isin(budgets_run(_game_plan(args, int(row["d"]))[0], int(row["d"]), int(row["background"]),
                                                      str(df["estimator"].iloc[0]), _caps(args, game)))]
            frames.append(df.assign(game=game))
    long = pd.concat(frames, ignore_index=True)
    long["failed"] = long.get("failed", "").fillna("") if "failed" in long else ""
    ok = long[long["error"].notna()]
    per_seed = ok.groupby(["game", "estimator", "budget", "seed"], sort=False).agg(
        **{"rows": ("rows counted", "mean"), "error": ("error", "mean"), "n": ("row", "count")}).reset_index()
    # a seed counts only when every explained row ran
    n_rows = info.set_index("game")["rows explained"]
    full = per_seed["n"] == per_seed["game"].map(n_rows).where(~per_seed["estimator"].str.startswith("coalitional "), 1)
    per_seed = per_seed[full]
    g = per_seed.groupby(["game", "estimator", "budget"], sort=False)
    summary = g.agg(**{
        "seeds": ("seed", "count"),
        "model rows (median)": ("rows", "median"),
        "error median": ("error", "median"),
        "error q25": ("error", lambda v: float(np.quantile(v, 0.25))),
        "error q75": ("error", lambda v: float(np.quantile(v, 0.75))),
        "error min": ("error", "min"),
        "error max": ("error", "max"),
    }).reset_index()
    summary = info.merge(summary, on="game")
    summary.insert(summary.columns.get_loc("budget") + 1, "budget rows", summary["budget"] * summary["d"])
    summary.loc[summary["estimator"].str.startswith("coalitional "), "budget rows"] = summary["budget"]
    return summary


def checks_lines(summary: pd.DataFrame) -> list[str]:
    """Every estimator's median error at its largest budget below that at its smallest (or at round-off
    throughout: an additive game)."""
    lines = []
    for (game, name), sub in summary.groupby(["game", "estimator"], sort=False):
        if name.startswith("coalitional ") or len(sub) < 2:
            continue
        sub = sub.sort_values("budget")
        lo, hi = sub["error median"].iloc[0], sub["error median"].iloc[-1]
        verdict = ("exact at every budget (round-off)" if max(lo, hi) < 1e-5
                   else "converges" if hi < lo else "DOES NOT shrink")
        lines.append(f"check {game} / {name}: median error {lo:.3g} at {sub['model rows (median)'].iloc[0]:.0f} rows "
                     f"-> {hi:.3g} at {sub['model rows (median)'].iloc[-1]:.0f} rows: {verdict}")
    return lines


def _changed_versions(new: pd.DataFrame, path: Path) -> list[str]:
    if not path.exists():
        return []
    old = pd.read_csv(path, dtype=str).set_index(["environment", "package"])["version"]
    now = new.astype(str).set_index(["environment", "package"])["version"]
    return [f"{env} / {pkg}: {old.get((env, pkg), 'absent')} -> {now.get((env, pkg), 'absent')}"
            for env, pkg in sorted(set(old.index) | set(now.index)) if old.get((env, pkg)) != now.get((env, pkg))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES + UNSEEN_GAMES,
                        help="default: the book's games; the others (games the book did not choose) each "
                             "into their own --out")
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS_PER_FEATURE),
                        help="target model rows per feature and explained row")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=3, help="rows explained per game (svc-iris-ilr: always its three flowers)")
    parser.add_argument("--background", type=int, default=20, help="background rows")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and models")
    parser.add_argument("--estimators", nargs="+", help="only these (names as in the table)")
    parser.add_argument("--skip", nargs="+", help="every estimator but these (names as in the table)")
    parser.add_argument("--force", action="store_true", help="rerun units whose parts exist")
    parser.add_argument("--gather-only", action="store_true", help="run nothing: the tables from the parts there are")
    parser.add_argument("--max-seconds", type=float, default=float("inf"),
                        help="an estimator whose call takes longer is not run at the game's larger budgets "
                             "(default: no limit; a limit makes the table depend on the machine's speed)")
    parser.add_argument("--past-seeds", type=int, default=PAST_ENUMERATION_SEEDS,
                        help="seeds on the games past enumeration (d >= 30; default %(default)s)")
    parser.add_argument("--past-max-budget", type=int, default=PAST_ENUMERATION_MAX_BUDGET,
                        help="the largest budget (rows per feature) on the games past enumeration (default %(default)s)")
    parser.add_argument("--uncapped", action="store_true",
                        help="no coalition caps (COALITION_CAPS) on the games past enumeration")
    parser.add_argument("--out", help="write the summary table as CSV here (and, beside it, -versions, and -checks where shapiq ran)")
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # BLAS and OpenMP (HistGradientBoosting): one thread
        summary, checks, versions = run(args)
    print(f"# estimators benchmark — python {platform.python_version()}, {os.cpu_count()} cores; "
          "relative L2 error against exact values, median over seeds")
    curves = summary[~summary["estimator"].str.startswith("coalitional ")]
    wide = curves.pivot_table(index=["game", "estimator"], columns="budget", values="error median", sort=False)
    with pd.option_context("display.width", 250, "display.max_columns", 50, "display.max_rows", 500,
                           "display.float_format", "{:.3g}".format):
        print(wide.to_string())
    for line in checks_lines(summary):
        print(line)
    if args.out:
        out = Path(args.out)
        stem = out.with_suffix("")
        vpath = Path(f"{stem}-versions.csv")
        for line in _changed_versions(versions, vpath):
            print("a peer's version changed since the stored run:", line)
        summary.to_csv(out, index=False, float_format="%.6g", lineterminator="\n")
        written = [out]
        if len(checks):  # no checks without shapiq's side environment (the book's estimators only)
            checks.to_csv(f"{stem}-checks.csv", index=False, float_format="%.3g", lineterminator="\n")
            written.append(f"{stem}-checks.csv")
        versions.to_csv(vpath, index=False, lineterminator="\n")
        print("written:", *written, vpath)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
