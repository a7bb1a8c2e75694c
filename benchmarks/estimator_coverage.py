"""Benchmark: do the sampled values' 95 % intervals cover the exact values, on every estimator game?

Issue 47, item 2. Every sampled result carries standard errors (:attr:`lib.result.ShapleyResult.standard_errors`)
and their degrees of freedom; the nominal 95 % interval of a value is the result's own
(:meth:`lib.result.ShapleyResult.interval`: ``value ± t`` standard errors, ``t`` Student's 97.5 % quantile at
those degrees of freedom). On each game of the estimators
benchmark (``benchmarks/estimators.py``: :data:`compendium.experiments.estimator_games.GAMES`, built by
:func:`compendium.experiments.estimator_games.benchmark_games`, their exact values by the same routes:
enumeration for ``d <= 14``, tree paths or the closed form past it), the book's default estimator
(``book default``, :data:`lib.sampling.DEFAULT` through :func:`lib.sampling.sample_shapley`) and the
antithetic sampler (``book antithetic``) run at the budgets of :func:`budgets` (model rows per explained
row, all below the game's exact cost ``2^d m``: ``100 d`` and ``1,000 d``, and for ``d <= 14`` also
:data:`NEAR_TOP` of the exact cost), ``--seeds`` times each. Per (game, estimator, budget) the table
holds (:func:`compendium.experiments.estimator_games.interval_coverage`): the coverage of the intervals
over the values whose standard error is finite and above ``1e-9`` (and, beside it, that of ``± 1.96``
standard errors, with the median ``t`` the intervals used: their upper half-width over the standard
error), the number of those intervals and of those that are the bootstrap-t's (``bootstrap-t``:
:func:`lib.sampling.walk.bootstrap_t`, where the result keeps its quantiles), the
values whose standard error says they are exact (counted apart, with those that are not), the values
whose standard error is the rule of three's bound for draws that all agreed (``bounds``, counted apart
with how many of them cover: a bound, not a nominal 95 % interval), the share of
``nan`` standard errors, the mean ratio of the standard error to the values' spread across seeds, and
the route of the exact values. The page reads it against the band fixed before measuring,
:data:`compendium.experiments.estimator_games.COVERAGE_BAND`.

The games the book did not choose (:data:`compendium.experiments.estimator_games.UNSEEN_GAMES`: the MLP
and the third-party protocol's XGBoost games, against the data's mean) run the same way into
``benchmark-estimators-coverage-unseen.csv``; the protocol's exact values are only as precise as
XGBoost's float32 sums (:func:`compendium.experiments.estimator_games.exact_precision`), so an interval narrower than that is counted apart
(``below precision``), not judged.

To fit a short run, fewer explained rows than the estimators benchmark: ``--rows`` (default 1; svc-iris-ilr
always its three flowers, as there) against ``--background`` background rows (default 20, the
benchmark's; svc-iris-ilr: chapter 2's 50). Progress: a tqdm bar over (game, estimator, budget). The
stored run (about a quarter of an hour on one core)::

    nice -n 10 python benchmarks/estimator_coverage.py --out data/derived/benchmark-estimators-coverage.csv
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

from compendium.experiments import estimator_games as eg  # noqa: E402
from lib.sampling.walk import BOOTSTRAP_LEVELS, BOOTSTRAP_MIN_DRAWS  # noqa: E402

#: The 95 % level's place among the bootstrap-t's kept levels
BOOT_95 = BOOTSTRAP_LEVELS.index(0.95)

ROOT = Path(__file__).resolve().parents[1]
#: The estimators measured: the table's name -> the registry's (lib.sampling).
ESTIMATORS = {"book default": None, "book antithetic": "antithetic"}
#: Budgets in model rows per feature and per explained row (kept where below the exact cost).
PER_FEATURE = (100, eg.RULE_PER_FEATURE)
#: For d <= 14, one budget near the top: this share of the exact cost 2^d m.
NEAR_TOP = 0.8


def budgets(d: int, m: int) -> list[int]:
    """The budgets (model rows per explained row) of a game with ``d`` features and ``m`` background rows:
    ``100 d`` and ``1,000 d``, and for ``d <= 14`` :data:`NEAR_TOP` of the exact cost (rounded down to a
    multiple of ``d``), those below the exact cost ``2^d m``."""
    exact = 2**d * m
    out = {b * d for b in PER_FEATURE}
    if d <= 14:
        out.add(int(NEAR_TOP * exact) // d * d)
    return sorted(b for b in out if b < exact)


def run_cell(game: eg.BenchmarkGame, method: str, budget: int, seeds: int) -> dict:
    """Every seed of one estimator at one budget on one game: its coverage (interval_coverage)."""
    from lib import sampling

    values, ses, quantiles, bounds, resampled, lows, highs = [], [], [], [], [], [], []
    for s in range(seeds):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = sampling.sample_shapley(game.f, game.explain, game.background, max_rows=budget,
                                          rng=np.random.default_rng(s), method=method)
        values.append(res.values)
        ses.append(res.standard_errors)
        # inf degrees of freedom with a standard error above 0: the rule of three's bound, not a measured spread
        bounds.append(np.isinf(res.degrees_of_freedom) & (res.standard_errors > 0))
        low, high = res.interval(0.95)      # the result's own interval (Student's t, or the bootstrap-t)
        with np.errstate(divide="ignore", invalid="ignore"):
            quantiles.append(np.where(res.standard_errors > 0, (high - res.values) / res.standard_errors, eg.Z95))
        # the bootstrap-t's intervals, read from the result: where it kept quantiles at 0.95
        kept = (np.isfinite(res.bootstrap_quantiles[..., BOOT_95, :]).all(axis=-1)
                if res.bootstrap_quantiles is not None else np.zeros(res.values.shape, dtype=bool))
        resampled.append(kept)
        lows.append(low)
        highs.append(high)
    values, ses, quantiles, bounds = np.stack(values), np.stack(ses), np.stack(quantiles), np.stack(bounds)
    resampled, lows, highs = np.stack(resampled), np.stack(lows), np.stack(highs)
    # the interval as the result gives it: below the value by (value - low) / se, above by (high - value) / se
    with np.errstate(divide="ignore", invalid="ignore"):
        z_low = np.where(ses > 0, (values - lows) / ses, eg.Z95)
    cell = eg.interval_coverage(values, ses, game.exact, z=quantiles, z_low=z_low,
                                precision=eg.exact_precision(game.name), bounds=bounds)
    normal = eg.interval_coverage(values, ses, game.exact, z=eg.Z95, precision=eg.exact_precision(game.name), bounds=bounds)
    judged = np.isfinite(ses) & (ses > eg.EXACT_SE) & ~bounds
    return {**cell, "coverage at 1.96": normal["coverage"],
            "t quantile (median)": float(np.median(quantiles[judged])) if judged.any() else float("nan"),
            "bootstrap-t": int((resampled & judged).sum())}


def run(args) -> pd.DataFrame:
    from lib import sampling

    quiet_libraries()
    records = []
    # the column of intervals too narrow for the exact values' precision, where some game has one
    counted_apart = any(name in eg.PROTOCOL_GAMES for name in args.games)
    for game in eg.benchmark_games(args.games, args.rows, args.background, args.seed):
        d, m = game.explain.shape[1], len(game.background)
        cells = [(name, b) for b in budgets(d, m) for name in ESTIMATORS]
        for name, b in tqdm(cells, desc=f"{game.name} (d={d})", unit="cell", file=sys.stderr):
            t0 = time.perf_counter()
            method = ESTIMATORS[name] or sampling.DEFAULT
            cell = run_cell(game, method, b, args.seeds)
            if counted_apart:
                cell.setdefault("below precision", 0)
            records.append({"game": game.name, "d": d, "background": m, "rows explained": len(game.explain),
                            "outputs": int(np.prod(np.shape(game.exact)[2:], dtype=int)),
                            "exact values by": game.truth, "exact cost": 2**d * m, "estimator": name,
                            "method": method, "budget rows": b, "budget per feature": b // d, "seeds": args.seeds,
                            **cell})
            tqdm.write(f"  {game.name} / {name} at {b:,} rows: coverage {cell['coverage']:.3f} of "
                       f"{cell['intervals']} intervals, {cell['exact values']} exact "
                       f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return pd.DataFrame(records)


def readme_sentence(table: pd.DataFrame) -> str:
    """README's sentence on the default's intervals, from the stored table (``tests/test_readme_numbers.py``):
    the cells in the band at :data:`~compendium.experiments.estimator_games.RULE_PER_FEATURE` model rows per
    feature or more, and below it."""
    default = table[(table["estimator"] == "book default") & (table["intervals"] > 0)]
    lo, hi = eg.COVERAGE_BAND
    high = default["budget per feature"] >= eg.RULE_PER_FEATURE
    inside = eg.within_band(default)
    share = 100 * default["covered"] / default["intervals"]

    def count(mask) -> str:
        k, n = int((inside & mask).sum()), int(mask.sum())
        if n == 0:
            return "no"
        return (f"all {n}" if n > 1 else "the one") if k == n else f"{k} of {n}"

    cells = "cells" if int(high.sum()) != 1 else "cell"
    below = (f"{count(~high)} below it (there {share[~high].min():.1f}-{share[~high].max():.1f} %)"
             if (~high).any() else "none below it")
    mine = table[table["estimator"] == "book default"]
    n_bounds, n_held = int(mine["bounds"].sum()), int(mine["bounds covered"].sum())
    held = "all of which cover" if n_held == n_bounds else f"{n_held:,} of which cover"
    return (f"Over {int(table['seeds'].max())} seeds, its nominal 95 % intervals (`result.interval()`: Student's t "
            f"at the standard errors' degrees of freedom, or the bootstrap-t where every walked stratum has "
            f"{BOOTSTRAP_MIN_DRAWS} pairs) cover the exact values {100 * lo:.0f}-{100 * hi:.0f} % of "
            f"the time in {count(high)} (game, budget) {cells} at {eg.RULE_PER_FEATURE:,} × d model rows per "
            f"explained row or more, and in {below}; a value whose draws all agreed carries the rule of three's "
            f"bound instead ({n_bounds:,} such values, {held}).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(eg.GAMES), choices=eg.GAMES + eg.UNSEEN_GAMES)
    parser.add_argument("--seeds", type=int, default=100, help="sampled runs per (game, estimator, budget)")
    parser.add_argument("--rows", type=int, default=1, help="rows explained per game (svc-iris-ilr: always its three flowers)")
    parser.add_argument("--background", type=int, default=20, help="background rows (svc-iris-ilr: chapter 2's 50)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and models")
    parser.add_argument("--out", type=Path, help="write the table as CSV (data/derived/benchmark-estimators-coverage.csv)")
    args = parser.parse_args(argv)
    if args.out and args.out.resolve().parent != (ROOT / "data" / "derived").resolve():
        parser.error("--out must name a file of data/derived/ (it is written with compendium.stable.write_derived)")
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (the spread across seeds)")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # BLAS and OpenMP (HistGradientBoosting): one thread
        table = run(args)
    lo, hi = eg.COVERAGE_BAND
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_rows", 200):
        print(table[["game", "estimator", "budget rows", "coverage", "coverage at 1.96", "intervals", "bounds",
                     "bounds covered", "exact values", "exact but off", "se / spread"]].to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    has = table["intervals"] > 0
    print(f"\ncoverage within [{lo}, {hi}]: {int(eg.within_band(table).sum())} of {int(has.sum())} cells with "
          f"intervals; values claimed exact but off: {int(table['exact but off'].sum())}")
    print("for README.md:", readme_sentence(table))
    if args.out:
        from compendium.stable import write_derived

        print(f"wrote {write_derived(table, args.out.name, digits=4, root=ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
