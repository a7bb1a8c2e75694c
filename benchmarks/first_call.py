"""Benchmark: the first call of ``exact_shapley`` in a new process, numba's cache cold and warm.

On discretised data ``lib.shapley.exact_shapley`` takes its fast path, whose loops numba
compiles; every new process (a notebook's kernel, a Binder session) needs them.  Compiling
takes seconds; with ``cache=True`` numba writes the compiled code to disk and the next process
loads it.  This script starts fresh Python processes, each timing ``import lib.shapley`` and
then the first and the second call of ``exact_shapley`` on a discretised problem (an integer
matrix of part indices and a naive-Bayes-like model that adds one table entry per feature:
``--rows`` explained rows, ``--background`` background rows, ``--d`` features), with
``NUMBA_CACHE_DIR`` set to a new empty folder: the first process finds the cache cold
(compiles, and writes the cache), the next ``--runs`` find it warm.  The first call includes
importing numba (the fast path imports it on first use).

Target (issue 32, item 6): the first call in a new process at most 1 s once the cache is warm.
Timings on a shared machine vary with its load (printed, with the first call's CPU time: on a
busy machine the wall time also counts the waits for a core).

    python benchmarks/first_call.py
    python benchmarks/first_call.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

#: issue 32, item 6: the first call in a new process, cache warm
TARGET_FIRST_CALL_SECONDS = 1.0

_CHILD = """
import json, time
t0 = time.perf_counter()
import numpy as np
from lib import shapley
t1 = time.perf_counter()
rng = np.random.default_rng(0)
rows, background, d = {rows}, {background}, {d}
X = rng.integers(0, 4, (rows, d))
bg = rng.integers(0, 4, (background, d))
table = rng.normal(size=(d, 4))
def f(Z):
    return table[np.arange(d), Z].sum(axis=1)
t2, c2 = time.perf_counter(), time.process_time()
shapley.exact_shapley(f, X, bg)
t3, c3 = time.perf_counter(), time.process_time()
shapley.exact_shapley(f, X, bg)
t4 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t3 - t2, "first cpu": c3 - c2, "second": t4 - t3}}))
"""


def one_process(cache: Path, rows: int, background: int, d: int) -> dict[str, float]:
    """The timings of one fresh process with ``NUMBA_CACHE_DIR=cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", _CHILD.format(rows=rows, background=background, d=d)],
                          env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the timed process failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="processes with the cache warm")
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--background", type=int, default=50)
    parser.add_argument("--d", type=int, default=8)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="first-call-numba-") as folder:
        cache = Path(folder)
        timings = [("cold", one_process(cache, args.rows, args.background, args.d))]
        timings += [("warm", one_process(cache, args.rows, args.background, args.d)) for _ in range(args.runs)]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# first call of exact_shapley in a new process — {os.cpu_count()} cores, load average {load:.1f}; "
          f"{args.rows} rows, {args.background} background rows, d = {args.d}, integer data (the fast path)")
    print(f"{'cache':>6} {'import lib.shapley s':>21} {'first call s':>13} {'(its CPU s)':>12} {'second call s':>14}")
    for kind, t in timings:
        print(f"{kind:>6} {t['import']:>21.3f} {t['first']:>13.3f} {t['first cpu']:>12.3f} {t['second']:>14.4f}")
    warm = max(t["first"] for kind, t in timings if kind == "warm")
    verdict = "met" if warm <= TARGET_FIRST_CALL_SECONDS else "NOT met"
    print(f"target: first call in a new process <= {TARGET_FIRST_CALL_SECONDS} s with a warm cache: {verdict} "
          f"(slowest warm first call {warm:.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
