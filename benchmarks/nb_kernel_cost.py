"""Benchmark: what KernelSHAP costs on Lemaire et al.'s classifier, called as the paper calls it (§5.3).

The paper hands KernelShap its classifier: "when providing the classifier to the library, the value
function used is the output of the classifier", with a "knowledge table" of N_k rows (all 690 rows of
CRX for its 12.13 s per row). Here the classifier is the pinned Khiops 11's selective naive Bayes
(``lib.khiops_nb.fit_khiops_snb``, trained on all the rows as in the paper), and KernelSHAP is given its
output, ``predict_proba`` (Eq. (L1) and Khiops' output correction, both classes), over all the data set's
inputs (15 on CRX, as the paper says). Each input is encoded once as a number (a selected variable by
its part index, an unselected one by a category code: ``nb_speed._encode``); KernelSHAP only swaps
whole values between the explained row and knowledge rows, so the game is the one on the raw values,
and the model's discretisation is not timed. ``shap.KernelExplainer`` with its defaults
(``nsamples="auto"`` = 2 d + 2048, ``l1_reg`` default), as a user calls it.

Per data set: the seconds per explained row at two knowledge-table sizes, N_k = 50 and 200 (or all
the rows when fewer), the median over ``--rows`` explained rows; a line a + b N_k through them (the
table KernelSHAP builds has nsamples x N_k rows, the linear growth of the paper's Figure 2), and the
cost of the paper's "entire dataset": every row explained with every row as knowledge table,
n (a + b n) seconds, extrapolated. On CRX, also the paper's own setting timed directly: all 690 rows
as knowledge table. The table records the machine's CPU (``cpu``). Timings are measured here and
stored, never asserted in tests; the notebook (``notebooks/01-naive-bayes/05-speed``) reads them.

    python benchmarks/nb_kernel_cost.py --out data/derived/benchmark-nb-kernel-cost.csv
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd
from tqdm import tqdm

from compendium import data
from lib import khiops_nb as kn
from compendium.experiments.nb_table3_kernelshap import DATASETS, LOAD_KWARGS
from nb_speed import _encode
from timing import cpu_name, quiet_libraries

#: the two knowledge-table sizes the line a + b N_k is fitted through
SIZES = (50, 200)


def per_row_seconds(f, Z: np.ndarray, n_k: int, rows: int, rng: np.random.Generator, seed: int) -> tuple[float, int]:
    """Median seconds of KernelSHAP per explained row with ``n_k`` knowledge rows, and its nsamples."""
    import shap

    n = len(Z)
    background = Z[np.sort(rng.choice(n, min(n_k, n), replace=False))]
    explained = rng.choice(n, rows, replace=False)
    explainer = shap.KernelExplainer(f, background)
    np.random.seed(seed)  # shap samples its coalitions from numpy's global generator
    times = []
    for r in explained:
        t0 = time.perf_counter()
        explainer.shap_values(Z[r:r + 1], silent=True)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), int(explainer.nsamples)


def run_dataset(name: str, label: str, rows: int, seed: int, paper_rows: int | None) -> dict[str, object]:
    X, y = data.load(name, **LOAD_KWARGS.get(name, {}))
    _, model = kn.fit_khiops_snb(X, y)
    parts = model.transform(X)
    Z = _encode(X, model, parts)
    sel = np.array([list(X.columns).index(c) for c in model.feature_names], dtype=np.int64)

    def proba(Zb: np.ndarray) -> np.ndarray:   # the classifier's output, as the paper hands it over
        return model.predict_proba(parts=Zb[:, sel].astype(np.int64))

    rng = np.random.default_rng(seed)
    n = len(Z)
    sizes = sorted({min(s, n) for s in SIZES})
    timed = {s: per_row_seconds(proba, Z, s, rows, rng, seed) for s in sizes}
    (n1, (t1, nsamples)), (n2, (t2, _)) = list(timed.items())[0], list(timed.items())[-1]
    slope = (t2 - t1) / (n2 - n1) if n2 > n1 else t2 / n2
    fixed = max(t1 - slope * n1, 0.0)
    record: dict[str, object] = {
        "data set": label, "rows": n, "inputs": X.shape[1], "selected variables": len(sel),
        "kernel output": f"predict_proba ({', '.join(map(str, model.classes))})", "kernel nsamples": nsamples,
        "rows timed": rows, "N_k small": n1, "per row at N_k small s": t1, "N_k large": n2, "per row at N_k large s": t2,
        "per row per knowledge row s": slope, "per row fixed s": fixed,
        "per row, whole data set as knowledge table s": fixed + slope * n,
        "all rows, whole data set as knowledge table s": n * (fixed + slope * n),
        "per row, the paper's setting measured s": float("nan"), "paper's setting N_k": 0,
    }
    if paper_rows is not None:   # the paper's own setting, timed directly
        t, _ = per_row_seconds(proba, Z, paper_rows, rows, rng, seed)
        record["per row, the paper's setting measured s"] = t
        record["paper's setting N_k"] = paper_rows
    record["cpu"] = cpu_name()
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3, help="explained rows timed per size (median kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="also write the table as CSV here")
    args = parser.parse_args(argv)
    quiet_libraries()
    kn.require_khiops()
    records = []
    for label, name in tqdm(list(DATASETS.items()), desc="data sets", file=sys.stderr):
        records.append(run_dataset(name, label, args.rows, args.seed, 690 if name == "crx" else None))
    table = pd.DataFrame.from_records(records)
    print(f"# KernelSHAP on Khiops 11's classifier (predict_proba, every input), shap defaults; cpu: {cpu_name()}")
    with pd.option_context("display.width", 250, "display.max_columns", 50, "display.float_format", "{:.4g}".format):
        print(table.drop(columns=["cpu", "kernel output"]).to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)
        print("written:", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
