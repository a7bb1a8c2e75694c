"""Benchmark: seconds per explained row at equal accuracy, beside the estimators benchmark's errors.

Issue 47, item 4. ``benchmarks/estimators.py`` stores each estimator's error at each budget (model rows
per explained row; ``data/derived/benchmark-estimators.csv``), and no time. This script times the
same estimators on the same games, at the same budgets, with the same explained rows and background
rows (``--rows``, ``--background``, ``--seed``: the stored benchmark's), and reads the errors from the
stored table: what an estimator costs in seconds to reach a given error.

Games (``--games``): ``gbt-twonorm`` (d = 14, continuous), ``khiops-nb-adult-proba`` (d = 14,
discrete), ``gbt-twonorm-30`` and ``gbt-twonorm-60`` by default, built by
:func:`compendium.experiments.estimator_games.benchmark_games`.

Estimators (:data:`ESTIMATORS`): the book's default (:func:`lib.sampling.sample_shapley`'s method,
:data:`lib.sampling.DEFAULT`, through :func:`lib.sampling.run`), the book's antithetic sampler, shap's
``PermutationExplainer`` (``Independent`` masker holding every background row), and shapiq 1.8's
``OddSHAP`` and ``RegressionMSR`` in the shapiq side environment
(:func:`compendium.side_env.shapiq_python`; ``benchmarks/_shapiq_worker.py``), called as the stored
benchmark calls them. Each runs at the budgets the stored table holds for it on the game.

Timing: every repeat (``--repeats``, at least 3) runs, game by game and budget by budget, every
estimator in turn on every explained row (so a burst of load from other jobs slows all alike), one
seed per repeat; a timing column is the median, over repeats and explained rows, of the seconds of
one call (one call explains one row):

``seconds per row``
    wall seconds (``time.perf_counter``) of the whole call as a user pays it: for shapiq, the side
    process's work, the messages between the processes and this process's model evaluations.
``model s``
    the part of ``seconds per row`` spent in this process evaluating the model (the same model
    wrapper for every estimator; for shapiq, the coalitions' values it asks for).

Outputs (``--out``, and beside it ``-budgets``):

``benchmark-estimators-speed-budgets.csv``
    per (game, estimator, budget): the stored error median and model rows, the two timing columns.
``benchmark-estimators-speed.csv``
    at equal accuracy: per game, a target error for each budget of the default below the exact cost
    (the default's stored error median there), and for each estimator the seconds per row it needs to
    reach that error (:func:`compendium.experiments.estimator_games.seconds_at_error`: interpolated
    log-log between its budgets; at its smallest budget already, that budget's seconds, an upper
    bound; empty where none of its budgets reaches the target), the model
    seconds read the same way, and ``ratio to default``, its seconds over the default's at the same
    target, both from this run. ``reached between`` names the budgets (rows per feature) it
    interpolates between (one budget: its smallest, the seconds an upper bound).

The timing columns depend on the machine and its load; everything else is read from the stored
errors and must regenerate identically. On one core under load (a shared 2-core machine) the stored
run took a few minutes::

    nice -n 5 python benchmarks/estimator_speed.py --repeats 5 --out data/derived/benchmark-estimators-speed.csv
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core (before numpy loads)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from timing import quiet_libraries  # noqa: E402
from tqdm import tqdm  # noqa: E402

from compendium import side_env  # noqa: E402
from compendium.side_env import ShapiqSide  # noqa: E402
from compendium.data import REPO_ROOT  # noqa: E402
from compendium.experiments import estimator_games as eg  # noqa: E402
from lib import games  # noqa: E402

STORED = REPO_ROOT / "data" / "derived" / "benchmark-estimators.csv"
WORKER = Path(__file__).with_name("_shapiq_worker.py")
LOG = REPO_ROOT / ".bench-parts" / "estimator-speed" / "shapiq-worker.log"
DEFAULT_GAMES = ("gbt-twonorm", "khiops-nb-adult-proba", "gbt-twonorm-30", "gbt-twonorm-60")
DEFAULT = "book default"
#: the estimators timed, by the stored benchmark's names
ESTIMATORS = (DEFAULT, "book antithetic", "shap Permutation", "shapiq OddSHAP", "shapiq RegressionMSR")
#: a stored error at or below this is an exact estimate (rounding): no target there
EXACT = 1e-9


class TimedModel:
    """The model, with the wall seconds and rows of its evaluations added up."""

    def __init__(self, f) -> None:
        self.f, self.seconds, self.rows = f, 0.0, 0

    def __call__(self, Z):
        t0 = time.perf_counter()
        out = self.f(Z)
        self.seconds += time.perf_counter() - t0
        self.rows += len(Z)
        return out


# ----------------------------------------------------------------------------- estimators
def estimators(side: ShapiqSide | None) -> dict:
    """name -> function(f, x (1, d), bg, budget rows, seed): called as ``benchmarks/estimators.py``
    calls them."""
    from lib import sampling
    from lib.games import Game

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import shap

    def book(method):
        def run(f, x, bg, budget, seed):
            return sampling.run(Game(f, x, bg), method, int(budget), np.random.default_rng(seed)).values[0]
        return run

    def perm(f, x, bg, budget, seed):
        m = len(bg)
        explainer = shap.PermutationExplainer(f, shap.maskers.Independent(bg, max_samples=m), seed=seed)
        return explainer(x, max_evals=int(budget) // m, silent=True).values[0]

    def shapiq(name):
        def run(f, x, bg, budget, seed):
            def game(coalitions):
                return games.coalition_values(f, x, bg, np.atleast_2d(np.asarray(coalitions, dtype=bool)))[0]
            return side.run(name, x.shape[1], int(budget) // len(bg), seed, game)
        return run

    out = {DEFAULT: book(sampling.DEFAULT), "book antithetic": book("antithetic"), "shap Permutation": perm}
    if side is not None:
        out.update({n: shapiq(n) for n in ESTIMATORS if n.startswith("shapiq ")})
    return out


# ----------------------------------------------------------------------------- timing
def time_budgets(game_names: list[str], stored: pd.DataFrame, repeats: int, rows: int, background: int,
                 seed: int, side: ShapiqSide | None) -> pd.DataFrame:
    """Median seconds per explained row of every estimator at every budget the stored table holds for it,
    repeats outermost, estimators interleaved within each budget."""
    quiet_libraries()
    ests = estimators(side)
    built = list(eg.benchmark_games(game_names, rows, background, seed))
    plan = []  # (game, budget, estimator)
    for g in built:
        for b in sorted(stored.loc[stored["game"] == g.name, "budget"].unique()):
            for name in ests:
                if ((stored["game"] == g.name) & (stored["estimator"] == name) & (stored["budget"] == b)).any():
                    plan.append((g, int(b), name))
    calls = repeats * len(plan) * rows
    times: dict[tuple[str, int, str], list[tuple[float, float]]] = {}
    with tqdm(total=calls, desc="timed calls", unit="call", file=sys.stderr) as bar:
        for rep in range(repeats):
            for g, b, name in plan:
                d = g.explain.shape[1]
                for r in range(len(g.explain)):
                    model = TimedModel(g.f)
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ests[name](model, g.explain[r: r + 1], g.background, b * d, 1000 * rep + r)
                    wall = time.perf_counter() - t0
                    times.setdefault((g.name, b, name), []).append((wall, model.seconds))
                    bar.update()
    out = []
    for (game, b, name), ts in times.items():
        s = stored[(stored["game"] == game) & (stored["estimator"] == name) & (stored["budget"] == b)].iloc[0]
        wall, model = np.array(ts).T
        out.append({"game": game, "d": int(s["d"]), "background": int(s["background"]),
                    "rows explained": rows, "estimator": name, "budget": b, "budget rows": int(s["budget rows"]),
                    "model rows (median)": s["model rows (median)"], "error median": s["error median"],
                    "repeats": repeats,
                    # each repeat times every explained row: the median over repeats and rows
                    "seconds per row": float(np.median(wall)), "model s": float(np.median(model))})
    return pd.DataFrame(out)


def equal_accuracy(budgets: pd.DataFrame) -> pd.DataFrame:
    """Per game and target error (the default's stored error at each of its budgets below the exact
    cost), each estimator's seconds per row to reach it and its ratio to the default's."""
    out = []
    for game, sub in budgets.groupby("game", sort=False):
        curves = {name: c.sort_values("budget") for name, c in sub.groupby("estimator", sort=False)}
        default = curves[DEFAULT]
        for _, target in default.iterrows():
            e = float(target["error median"])
            if e <= EXACT:
                continue
            at = {}
            for name, c in curves.items():
                s, i = eg.seconds_at_error(c["error median"], c["seconds per row"], e)
                ms, _ = eg.seconds_at_error(c["error median"], c["model s"], e)
                b = c["budget"].tolist()
                between = "" if i is None else (f"{b[0]}" if i == 0 else f"{b[i - 1]}-{b[i]}")
                at[name] = (s, ms, between)
            for name, (s, ms, between) in at.items():
                out.append({"game": game, "d": int(target["d"]), "target budget": int(target["budget"]),
                            "target error": e, "estimator": name, "reached": "yes" if between else "no",
                            "reached between": between, "seconds per row": s, "model s": ms,
                            "ratio to default": s / at[DEFAULT][0]})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(DEFAULT_GAMES), choices=eg.GAMES)
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (median; at least 3)")
    parser.add_argument("--rows", type=int, default=3, help="explained rows (the stored benchmark's)")
    parser.add_argument("--background", type=int, default=20, help="background rows (the stored benchmark's)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and models (the stored benchmark's)")
    parser.add_argument("--no-shapiq", action="store_true", help="time the in-process estimators only")
    parser.add_argument("--out", help="write the equal-accuracy table here (and, beside it, -budgets)")
    args = parser.parse_args(argv)
    if args.repeats < 3:
        parser.error("--repeats must be at least 3 (a median)")
    from threadpoolctl import threadpool_limits

    stored = pd.read_csv(STORED)
    stored = stored[stored["estimator"].isin(ESTIMATORS) & (stored["rows explained"] == args.rows)
                    & (stored["background"] == args.background)]
    side = None if args.no_shapiq else ShapiqSide(side_env.shapiq_python(), WORKER, LOG)
    t0 = time.perf_counter()
    try:
        with threadpool_limits(limits=1):
            budgets = time_budgets(args.games, stored, args.repeats, args.rows, args.background, args.seed, side)
    finally:
        if side is not None:
            side.close()
    speed = equal_accuracy(budgets)
    with pd.option_context("display.width", 200, "display.max_rows", 500, "display.float_format", "{:.3g}".format):
        print(speed.to_string(index=False))
    print(f"# {time.perf_counter() - t0:.0f} s in all")
    if args.out:
        out = Path(args.out)
        speed.to_csv(out, index=False, float_format="%.6g", lineterminator="\n")
        budgets.to_csv(f"{out.with_suffix('')}-budgets.csv", index=False, float_format="%.6g", lineterminator="\n")
        print("written:", out, f"{out.with_suffix('')}-budgets.csv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
