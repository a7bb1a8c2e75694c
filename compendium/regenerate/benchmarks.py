"""The benchmarks' stored results: speed measured against a peer in one run (``benchmarks/``).

A benchmark is not an experiment of a paper (it has no home in :mod:`compendium.experiments`): its
command line, the table it writes and the notebook that shows it are declared here, once. Its
timing columns are declared variable (they depend on the machine and its load), and so are the
columns of rounding noise named below; everything else must regenerate identically.
"""

from __future__ import annotations

from compendium.regenerate.result import Result

__all__ = ["units"]

#: The timing columns of every benchmark table, and the agreement columns of exact_engine (ours
#: against shap, shapiq, ours without dedup): rounding noise, 1e-16 to 1e-14, whose digits depend
#: on the BLAS kernel; the benchmark itself refuses more than 1e-8 (1e-12 without dedup). Not
#: tv_speed's KernelSHAP error.
BENCH = {"* s": None, "* s (*)": None, "ratio *": None, "seconds per row": None, "ratio to typical value": None,
         "max |ours - *|": 1e-12}


def units() -> tuple[Result, ...]:
    """The benchmarks' results, in the order of the book's chapters."""
    return (
        Result("benchmark-exact-engine", ("benchmarks/exact_engine.py", "--repeats", "7", "--out",
                                          "data/derived/benchmark-exact-engine.csv"),
               ("benchmark-exact-engine.csv",), variable=BENCH,
               note="the shapiq columns need requirements-bench.txt",
               shown_in=("notebooks/00-foundations/01-shapley-values",)),
        # the stored run predates method="control" (lib.sampling.control): skipped there, run alone below
        Result("benchmark-estimators", ("benchmarks/estimators.py", "--skip", "book control",
                                        "--out", "data/derived/benchmark-estimators.csv"),
               ("benchmark-estimators.csv", "benchmark-estimators-checks.csv", "benchmark-estimators-versions.csv"),
               ("twonorm", "adult", "iris"),
               # an estimator exact on a game (the additive games, every budget that pays for the
               # enumeration) is off by rounding noise, 1e-16 to 1e-14 relative, whose digits depend on
               # the order of the exact values' sums; the sampled errors the notebook reads are 1e-4 and
               # above, and it counts < 1e-9 as exact. The checks' differences between the exact routes are
               # rounding noise too (1e-16 to 1e-8, tree paths: float32 thresholds), refused above 1e-7.
               # The versions table names the peers' versions: a change shows there, and the script
               # prints it ("a peer's version changed since the stored run").
               variable={"error *": 1e-12, "max abs difference": 1e-7},
               side_env="shapiq",
               note="about two CPU-hours; shapiq 1.8 in its side environment (compendium.side_env.shapiq_python, "
                    "Python 3.12, built on first use)",
               shown_in=("notebooks/00-foundations/03-estimators",)),
        # games the book did not choose (issue 47, item 3), each set in its own table beside the stored run
        # (whose default --games list stays the book's): the same script, variable columns and side
        # environment as benchmark-estimators. mlp-twonorm: a multilayer perceptron on two-norm data,
        # d = 14, the book's default budgets, seeds and rows.
        Result("benchmark-estimators-mlp", ("benchmarks/estimators.py", "--games", "mlp-twonorm", "--out",
                                            "data/derived/benchmark-estimators-mlp.csv"),
               ("benchmark-estimators-mlp.csv", "benchmark-estimators-mlp-checks.csv",
                "benchmark-estimators-mlp-versions.csv"),
               ("twonorm",),
               variable={"error *": 1e-12, "max abs difference": 1e-7},
               side_env="shapiq",
               note="4 minutes 16 s of wall time on the 2-core machine of the stored run (shared); shapiq 1.8 in "
                    "its side environment",
               shown_in=("notebooks/00-foundations/03-estimators",)),
        # the third-party protocol (the Leverage SHAP and OddSHAP authors' benchmark): XGBoost, the data's
        # mean as the one background row, budgets 4n to 64n coalitions, 10 runs (explained rows, one seed
        # each), on the data sets available offline. XGBoost (requirements-bench.txt) sums in float32:
        # the checks' differences between the exact routes are refused above FLOAT32_AGREEMENT relative.
        Result("benchmark-estimators-protocol",
               ("benchmarks/estimators.py", "--games", "xgb-iris", "xgb-diabetes", "xgb-adult", "xgb-corrgroups60",
                "xgb-independentlinear60", "--budgets", "4", "8", "16", "32", "64", "--seeds", "1", "--rows", "10",
                "--out", "data/derived/benchmark-estimators-protocol.csv"),
               ("benchmark-estimators-protocol.csv", "benchmark-estimators-protocol-checks.csv",
                "benchmark-estimators-protocol-versions.csv"),
               ("adult",),
               variable={"error *": 1e-12, "max abs difference": 1e-7},
               side_env="shapiq",
               note="22 minutes 41 s of wall time on the 2-core machine of the stored run (shared, load about 4); shapiq 1.8 "
                    "in its side environment; xgboost from requirements-bench.txt",
               shown_in=("notebooks/00-foundations/03-estimators",)),
        # the book's control-variate estimator (issue 47, item 1) at the stored run's settings, alone: the
        # book's estimators need no side environment, so no -checks (the exact routes are checked above)
        Result("benchmark-estimators-control", ("benchmarks/estimators.py", "--estimators", "book control",
                                                "--out", "data/derived/benchmark-estimators-control.csv"),
               ("benchmark-estimators-control.csv", "benchmark-estimators-control-versions.csv"),
               ("twonorm", "adult", "iris"),
               variable={"error *": 1e-12},
               cheap=True,  # about two minutes on one core, no side environment: checked by every CI run
               note="about two minutes on one core; the Khiops games need Khiops",
               shown_in=("notebooks/00-foundations/03-estimators",)),
        # the games past enumeration (d >= 30) once more without the stored run's limits (issue 47): 3,000
        # model rows per feature, 5 seeds, no coalition caps; every estimator but the book's Algorithm 2
        # (minutes per call there, never the best on these games) and ProxySPEX. The same tolerances.
        Result("benchmark-estimators-past-exact",
               ("benchmarks/estimators.py", "--games", "gbt-twonorm-30", "gbt-twonorm-60", "--budgets", "1000", "3000",
                "--seeds", "5", "--past-seeds", "5", "--past-max-budget", "3000", "--uncapped",
                "--skip", "book Algorithm 2", "book Algorithm 2 (prior 4)",
                "--out", "data/derived/benchmark-estimators-past-exact.csv"),
               ("benchmark-estimators-past-exact.csv", "benchmark-estimators-past-exact-checks.csv",
                "benchmark-estimators-past-exact-versions.csv"),
               ("twonorm",),
               variable={"error *": 1e-12, "max abs difference": 1e-7},
               side_env="shapiq",
               note="about half an hour on one core; shapiq 1.8 in its side environment",
               shown_in=("notebooks/00-foundations/03-estimators",)),
        # the 95 % intervals of the default and the antithetic sampler against the same games' exact values
        # (issue 47): counts of covered intervals, and the standard errors' ratio to the spread across seeds
        # stored to 4 decimals, whose last digit a different rounding of the sums could move. Not cheap: about
        # a quarter of an hour on one core (CI's --cheap budget is spent).
        Result("benchmark-estimators-coverage", ("benchmarks/estimator_coverage.py", "--out",
                                                 "data/derived/benchmark-estimators-coverage.csv"),
               ("benchmark-estimators-coverage.csv",), ("twonorm", "adult", "iris"),
               variable={"se / spread": 1e-4, "t quantile (median)": 1e-4},
               note="about a quarter of an hour on one core; the Khiops games need Khiops",
               shown_in=("notebooks/00-foundations/03-estimators",)),
        # the same intervals on the games the book did not choose (issue 47): the MLP and the third-party
        # protocol's XGBoost games; the protocol's exact values are only as precise as XGBoost's float32 sums,
        # and an interval narrower than that is counted apart (compendium.experiments.estimator_games.exact_precision)
        Result("benchmark-estimators-coverage-unseen",
               ("benchmarks/estimator_coverage.py", "--games", "mlp-twonorm", "xgb-diabetes", "xgb-adult",
                "xgb-corrgroups60", "xgb-independentlinear60",
                "--out", "data/derived/benchmark-estimators-coverage-unseen.csv"),
               ("benchmark-estimators-coverage-unseen.csv",), ("twonorm", "adult"),
               variable={"se / spread": 1e-4, "t quantile (median)": 1e-4},
               note="about five minutes on one core; xgboost from requirements-bench.txt",
               shown_in=("notebooks/00-foundations/03-estimators",)),
        # seconds per explained row at equal accuracy (issue 47, item 4): the same estimators, games and budgets
        # as benchmark-estimators, timed in one run; the errors, targets and budgets are read from the stored
        # benchmark-estimators.csv (identical on a rerun), the timing columns ("seconds per row", "model s",
        # "ratio to default") are the variable ones. Not cheap: a few minutes on one core, with shapiq's side
        # environment and Khiops.
        Result("benchmark-estimators-speed", ("benchmarks/estimator_speed.py", "--repeats", "5", "--out",
                                              "data/derived/benchmark-estimators-speed.csv"),
               ("benchmark-estimators-speed.csv", "benchmark-estimators-speed-budgets.csv"),
               ("twonorm", "adult", "benchmark-estimators.csv"), variable=BENCH,
               side_env="shapiq",
               note="a few minutes on one core; shapiq 1.8 in its side environment; the Khiops game needs Khiops",
               shown_in=("notebooks/00-foundations/03-estimators",)),
        Result("benchmark-nb-speed", ("benchmarks/nb_speed.py", "--repeats", "50", "--kernel-rows", "3",
                                      "--khiops-repeats", "3", "--out", "data/derived/benchmark-nb-speed.csv"),
               ("benchmark-nb-speed.csv",), ("adult",),
               # KernelSHAP on the additive log-odds is exact up to rounding, and shap samples its coalitions
               # from numpy's unseeded generator: the rounding (about 1e-14) changes from run to run
               variable={**BENCH, "kernel vs eq10 same background max abs diff": 1e-12},
               shown_in=("notebooks/01-naive-bayes/05-speed",)),
        # KernelSHAP on the classifier's output, called as the paper calls it (§5.3): its seconds, on each of
        # the ten data sets, extrapolated to the paper's "entire dataset"; shap samples from numpy's global
        # generator, which the benchmark seeds
        Result("benchmark-nb-kernel-cost", ("benchmarks/nb_kernel_cost.py", "--out",
                                            "data/derived/benchmark-nb-kernel-cost.csv"),
               ("benchmark-nb-kernel-cost.csv",),
               ("twonorm", "crx", "ionosphere", "spambase", "tic-tac-toe", "german-numeric", "telco", "adult",
                "cervical", "breast-wisconsin"), variable={**BENCH, "cpu": None},
               shown_in=("notebooks/01-naive-bayes/05-speed",)),
        Result("benchmark-tv-speed", ("benchmarks/tv_speed.py", "--rows", "20", "--repeats", "3", "--out",
                                      "data/derived/benchmark-tv-speed.csv"),
               ("benchmark-tv-speed.csv",),
               # at these d KernelSHAP enumerates every coalition: its distance to the exact values
               # is rounding noise (2e-15 to 4e-15), whose digits follow the exact values' last bits
               variable={**BENCH, "max |KernelSHAP - exact|": 1e-12},
               shown_in=("notebooks/04-typical-value-contributions/03-real-data",
                         "notebooks/04-typical-value-contributions/04-verdict")),
        # at d = 12 shap samples coalitions from numpy's global generator, which the benchmark
        # seeds just before, so that the KernelSHAP error is the same on every run
        Result("benchmark-tv-speed-d12", ("benchmarks/tv_speed.py", "--max-features", "12", "--rows", "5",
                                          "--repeats", "1", "--out", "data/derived/benchmark-tv-speed-d12.csv"),
               ("benchmark-tv-speed-d12.csv",), variable=BENCH,
               shown_in=("notebooks/04-typical-value-contributions/03-real-data",
                         "notebooks/04-typical-value-contributions/04-verdict")),
        Result("benchmark-page-weight", ("benchmarks/page_weight.py", "--out",
                                         "data/derived/benchmark-page-weight.csv"),
               ("benchmark-page-weight.csv",),
               # bytes are the built site's (the same for one build); times are a throttled phone's
               variable={"load s": None, "first paint s": None},
               note="measures the built book (_build/html, jupyter-book build first) in Debian's chromium",
               shown_in=("README",)),
    )
