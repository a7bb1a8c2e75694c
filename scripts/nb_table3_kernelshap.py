"""Table 3 of Lemaire, Clérot & Boullé (§5.3): KernelSHAP against eq. 10, ten data sets.

The paper's protocol (compendium.experiments.nb_table3_kernelshap.table3_protocol): Khiops' selective naive
Bayes trained on 100 % of each data set; 1000 random explained rows (all rows when the
data set has fewer); N_k background rows as in the paper's Table 3; shap.KernelExplainer
with its default budget (nsamples = 2 d + 2048), l1_reg=False; global importance =
mean |value|; Pearson and Kendall (tau-b) between ours (eq. 10) and KernelSHAP's on
P(Y|X) (the paper's comparison) and on the log-odds (ours).

Resumable: one result per data set, data/derived/nb-table3/<dataset>.csv (global
importance per variable) and <dataset>.json (run summary); a data set whose files exist
is skipped unless --force. Then the gather step writes data/derived/nb-table3.csv
(paper | ours | difference, long form) and data/derived/nb-table3-log-odds.csv.

The seed (default 20230) draws the explained and background rows and seeds shap's
coalition sampling; every data set is seeded with it alone, so the data sets are
independent units (--n-jobs, --backend: compendium.parallel.run_units, serial by default).

Spread mode, --seeds S1 S2 ...: the same protocol once per seed and data set (other rows
drawn, other coalitions sampled; the model is the same), written under
data/derived/nb-table3/seed-<S>/<dataset>.{csv,json} (resumable per seed and data set),
then gathered with the stored run (seed 20230) into data/derived/nb-table3-spread.csv
(per data set and correlation: runs, mean, standard deviation, min, max).

    python scripts/nb_table3_kernelshap.py                 # the full protocol (~30 min on one core)
    python scripts/nb_table3_kernelshap.py --rows 200      # 200 explained rows per data set
    python scripts/nb_table3_kernelshap.py --gather-only   # rebuild the gathered CSVs
    python scripts/nb_table3_kernelshap.py --datasets adult --rows 300 --name-suffix=-300-rows --no-gather
    nice -n 10 python scripts/nb_table3_kernelshap.py --seeds 1 2 3 --datasets cervical crx
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from functools import partial
from pathlib import Path

# khiops.core warns that its sample data sets are not downloaded: we do not use them.
warnings.filterwarnings("ignore", message="Sample datasets location", category=UserWarning)
# shap imports tqdm.auto, which warns that ipywidgets is absent (a terminal needs none).
warnings.filterwarnings("ignore", message="IProgress not found")
from pandas.errors import Pandas4Warning  # noqa: E402

# khiops' scikit-learn wrapper uses pandas options that pandas 3 deprecates: not our code.
warnings.filterwarnings("ignore", category=Pandas4Warning, module=r"khiops\.sklearn\.dataset")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from tqdm import tqdm  # noqa: E402

import compendium.data  # noqa: E402
from lib import kernel_comparison as kc  # noqa: E402
from lib import khiops_nb as kn  # noqa: E402
from compendium.experiments.nb_table3_kernelshap import LOAD_KWARGS, PAPER, table3_protocol  # noqa: E402
from compendium.parallel import add_gather_arguments, add_parallel_arguments, parallel_engine, run_units  # noqa: E402

SEED = 20230
OUT_DIR = compendium.data.REPO_ROOT / "data" / "derived" / "nb-table3"
TABLE = compendium.data.REPO_ROOT / "data" / "derived" / "nb-table3.csv"
TABLE_LOG_ODDS = compendium.data.REPO_ROOT / "data" / "derived" / "nb-table3-log-odds.csv"
SPREAD = compendium.data.REPO_ROOT / "data" / "derived" / "nb-table3-spread.csv"
#: Every float written at ten significant digits: KernelSHAP's least squares go through
#: LAPACK/BLAS, whose last bits depend on the kernel the CPU picks (spambase's 57 variables
#: came out 5e-15 apart on two machines); ten digits keep the files the same on any machine.
FLOAT_FORMAT = "%.10g"
#: Smallest data sets first (the stored run's seconds), so that a spread run cut short has
#: finished whole data sets.
BY_COST = ["cervical", "tic-tac-toe", "breast-wisconsin", "german-numeric", "crx", "ionosphere",
           "telco", "twonorm", "adult", "spambase"]


def run_one(dataset: str, n_background: int, n_explain: int, seed: int, out_dir: Path, suffix: str = "",
            progress: bool = True) -> dict:
    """The protocol on one data set, seeded by ``seed`` alone; writes <dataset><suffix>.{csv,json}."""
    X, y = compendium.data.load(dataset, **LOAD_KWARGS.get(dataset, {}))
    _, model = kn.fit_khiops_snb(X, y)
    tables, parts = model.tables(), model.transform(X)
    t0 = time.perf_counter()
    run = table3_protocol(tables, parts, model.classes[1], n_explain=n_explain,
                          n_background=n_background, seed=seed, progress=progress)
    seconds = time.perf_counter() - t0
    summary = run.summary()
    summary.update({"dataset": dataset, "N": len(X), "positive class": str(model.classes[1]),
                    "seed": seed, "seconds": round(seconds, 1),
                    "seconds per explained row": round(seconds / len(run.explain), 4)})
    out_dir.mkdir(parents=True, exist_ok=True)
    run.global_table().to_csv(out_dir / f"{dataset}{suffix}.csv", float_format=FLOAT_FORMAT, lineterminator="\n")
    (out_dir / f"{dataset}{suffix}.json").write_text(json.dumps(rounded(summary), indent=1, default=str) + "\n")
    return summary


def rounded(summary: dict) -> dict:
    """The summary with its floats at :data:`FLOAT_FORMAT`'s ten significant digits."""
    return {k: float(FLOAT_FORMAT % v) if isinstance(v, float) else v for k, v in summary.items()}


def run_unit(unit: tuple[str, int, Path], *, n_explain: int, suffix: str, progress: bool) -> dict:
    """One unit, (data set, seed, output folder): the paper's N_k, seeded by the unit's own seed."""
    dataset, seed, out_dir = unit
    n_k = int(PAPER.set_index("dataset").loc[dataset, "N_k"])
    return run_one(dataset, n_k, n_explain, seed, out_dir, suffix, progress=progress)


def is_done(dataset: str, out_dir: Path, suffix: str = "") -> bool:
    stem = out_dir / f"{dataset}{suffix}"
    return Path(f"{stem}.json").exists() and Path(f"{stem}.csv").exists()


def seed_dir(out_dir: Path, seed: int) -> Path:
    return out_dir / f"seed-{seed}"


def gather_spread(out_dir: Path, main_seed: int = SEED) -> pd.DataFrame:
    """Pearson and Kendall (on P(Y|X)) over the stored run and every seed-<S> run present.

    One row per (data set, quantity) with at least one seed run: the number of runs, their
    seeds, mean, standard deviation (ddof=1), min and max.
    """
    rows = []
    for _, p in PAPER.iterrows():
        runs = {}
        for d in sorted(out_dir.glob("seed-*"), key=lambda q: int(q.name.removeprefix("seed-"))):
            if is_done(p["dataset"], d):
                runs[int(d.name.removeprefix("seed-"))] = d
        if not runs:
            continue
        if is_done(p["dataset"], out_dir) and main_seed not in runs:
            stored = json.loads((out_dir / f"{p['dataset']}.json").read_text())
            if stored["seed"] == main_seed:
                runs[main_seed] = out_dir
        values: dict[str, list[float]] = {"Pearson": [], "Kendall": []}
        for seed in sorted(runs):
            g = pd.read_csv(runs[seed] / f"{p['dataset']}.csv", index_col=0)
            c = kc.correlations(g["ours"], g["kernelshap P(Y|X)"])
            values["Pearson"].append(c["pearson"])
            values["Kendall"].append(c["kendall"])
        for q, v in values.items():
            x = pd.Series(v, dtype=float)
            rows.append({"data set": p["data set"], "quantity": q, "runs": len(x),
                         "seeds": " ".join(map(str, sorted(runs))), "mean": x.mean(),
                         "sd": x.std(ddof=1) if len(x) > 1 else float("nan"), "min": x.min(), "max": x.max()})
    return pd.DataFrame(rows, columns=["data set", "quantity", "runs", "seeds", "mean", "sd", "min", "max"])


def gather(out_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, rows_lo = [], []
    for _, p in PAPER.iterrows():
        path = out_dir / f"{p['dataset']}.json"
        if not path.exists():
            continue
        s = json.loads(path.read_text())
        # the correlations, from the stored global importances (one source of truth)
        g = pd.read_csv(out_dir / f"{p['dataset']}.csv", index_col=0)
        c_p = kc.correlations(g["ours"], g["kernelshap P(Y|X)"])
        c_lo = kc.correlations(g["ours"], g["kernelshap log-odds"])
        s.update({"pearson proba": c_p["pearson"], "kendall proba": c_p["kendall"],
                  "pearson log-odds": c_lo["pearson"], "kendall log-odds": c_lo["kendall"]})
        ours = {"N_k": s["n_background"], "explained rows": s["n_explain"],
                "#Var": s["d"], "Pearson": s["pearson proba"], "Kendall": s["kendall proba"]}
        paper = {"N_k": p["N_k"], "explained rows": min(1000, s["N"]), "#Var": p["n_var"],
                 "Pearson": p["pearson"], "Kendall": p["kendall"]}
        for q in ours:
            rows.append({"data set": p["data set"], "quantity": q, "paper": paper[q], "ours": ours[q],
                         "difference": ours[q] - float(paper[q])})
        for q, key in (("Pearson", "pearson log-odds"), ("Kendall", "kendall log-odds"),
                       ("max |KernelSHAP - eq. 10|", "log-odds vs eq10 max_abs"),
                       ("relative RMS error vs eq. 10", "log-odds vs eq10 relative_rms"),
                       ("max |KernelSHAP - eq. 10 (background expectation)|", "log-odds vs eq10 background max_abs"),
                       ("relative RMS error vs eq. 10 (background expectation)", "log-odds vs eq10 background relative_rms")):
            rows_lo.append({"data set": p["data set"], "quantity": q, "value": s[key]})
        rows_lo.append({"data set": p["data set"], "quantity": "all coalitions enumerated",
                        "value": float(s["exhaustive"])})
    table = pd.DataFrame(rows, columns=["data set", "quantity", "paper", "ours", "difference"])
    table_lo = pd.DataFrame(rows_lo, columns=["data set", "quantity", "value"])
    return table, table_lo


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1000,
                    help="explained rows per data set (the paper: 1000; all rows if fewer)")
    ap.add_argument("--datasets", nargs="*", default=list(PAPER["dataset"]),
                    help="subset of data sets (loader names)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--seeds", type=int, nargs="+", default=None,
                    help="spread mode: one run per seed and data set under <out-dir>/seed-<S>/, "
                         "gathered with the stored run into nb-table3-spread.csv")
    ap.add_argument("--out-dir", type=Path, default=OUT_DIR)
    ap.add_argument("--force", action="store_true", help="recompute data sets (or data set x seed) already done")
    add_gather_arguments(ap)
    ap.add_argument("--name-suffix", default="",
                    help="append this to the result file names (an extra run, e.g. -300-rows; "
                         "the gather step reads only the unsuffixed files)")
    add_parallel_arguments(ap, what="data sets (or data set x seed)")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.datasets) - set(PAPER["dataset"]))
    if unknown:
        ap.error(f"unknown data sets {unknown}; choose among {list(PAPER['dataset'])}")
    if args.seeds is not None and args.name_suffix:
        ap.error("--seeds writes under seed-<S>/: no --name-suffix")
    args.out_dir = args.out_dir.resolve()  # the workers (on a cluster, other processes) write there
    args.out_dir.mkdir(parents=True, exist_ok=True)
    if not args.gather_only:
        if args.seeds is None:
            units = [(d, args.seed, args.out_dir) for d in PAPER["dataset"] if d in args.datasets]
        else:  # smallest data sets first, every seed of a data set before the next data set
            units = [(d, s, seed_dir(args.out_dir, s)) for d in BY_COST if d in args.datasets for s in args.seeds]
        todo = [u for u in units if args.force or not is_done(u[0], u[2], args.name_suffix)]

        def report(unit: tuple[str, int, Path], s: dict) -> None:
            tqdm.write(f"{unit[0]} (seed {unit[1]}): {s['n_explain']} rows x {s['n_background']} background, "
                       f"d={s['d']}, {s['seconds']} s; Pearson {s['pearson proba']:.4f}, "
                       f"Kendall {s['kendall proba']:.4f}")

        fn = partial(run_unit, n_explain=args.rows, suffix=args.name_suffix, progress=args.n_jobs == 1)
        with parallel_engine(args):
            run_units(todo, fn, n_jobs=args.n_jobs, backend=args.backend, desc="Table 3", unit="run",
                      on_result=report)
    if not args.no_gather:
        table, table_lo = gather(args.out_dir)
        table.to_csv(TABLE, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
        table_lo.to_csv(TABLE_LOG_ODDS, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
        written = [TABLE, TABLE_LOG_ODDS]
        spread = gather_spread(args.out_dir)
        if len(spread):
            spread.to_csv(SPREAD, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
            written.append(SPREAD)
        print("wrote " + ", ".join(str(w.relative_to(compendium.data.REPO_ROOT)) for w in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
