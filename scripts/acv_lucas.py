"""Chapter 3, notebook 06: the authors' ACV library beside the book's exact SDPs on LUCAS.

ACV (``acv-exp==1.2.3``, Amoukou & Brunel's *Active Coalition of Variables*) cannot be installed
beside the book's pins (its build needs numpy < 1.22, which has no Python 3.11 wheel).  This
script therefore

1. creates a pinned side environment under ``.side-envs/acv/`` (git-ignored) from a Python 3.9
   interpreter it finds (``python3.9`` on PATH, else pyenv's ``versions/3.9*``), with
   :data:`PINS`; nothing is installed in the book's environment;
2. runs ``scripts/_acv_worker.py`` with that environment's Python: the authors' decision tree on
   LUCAS0 (their split and seeds), ACV's estimated SDP of all ``2**11`` coalitions and its
   sufficient coalition for each row of :func:`explained_rows`, and ACV's Swing Shapley values for
   the rows of :data:`SWING_ROWS`, timed, one CSV per row under ``.side-envs/acv/parts/``
   (resumable: finished rows are skipped unless ``--force``);
3. in the book's environment, computes the *exact* SDPs, minimal sufficient coalitions and Swing
   Shapley values of the same decision function (the tree's decision on the ``2**11`` states,
   crossing environments as a table) under the LUCAS network (``lib.sdp``), and stores both
   side by side in ``data/derived/sdp-acv-*.csv``.

Usage, from the repository root::

    nice -n 10 python scripts/acv_lucas.py

Deterministic outputs: everything but ``sdp-acv-runtime.csv`` (wall-clock times) is byte-identical
on a rerun.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

import compendium
import lib
from compendium import side_env
from compendium.experiments.acv_lucas import AUTHORS_ROW, N_DRAWN, PI, PINS, SWING_ROWS
from lib import bayesnet as bn
from lib import sdp

SIDE = side_env.SIDE_ENVS / "acv"
DERIVED = compendium.data.REPO_ROOT / "data" / "derived"
WORKER = compendium.data.REPO_ROOT / "scripts" / "_acv_worker.py"


def _is_python39(exe: str) -> bool:
    try:
        done = subprocess.run([exe, "-c", "import sys; print(sys.version_info[:2] == (3, 9))"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == "True"


def find_python39() -> str | None:
    """A working Python 3.9: ``python3.9`` on PATH, else pyenv's ``versions/3.9*`` (newest first)."""
    candidates = [shutil.which("python3.9")]
    roots = []
    if shutil.which("pyenv"):
        done = subprocess.run(["pyenv", "root"], capture_output=True, text=True)
        if done.returncode == 0:
            roots.append(done.stdout.strip())
    roots += [os.environ.get("PYENV_ROOT", ""), str(Path.home() / ".pyenv")]
    for root in filter(None, roots):
        found = glob.glob(os.path.join(root, "versions", "3.9*", "bin", "python3.9"))
        candidates += sorted(found, key=lambda p: [int(t) if t.isdigit() else 0 for t in
                                                   Path(p).parents[1].name.split(".")], reverse=True)
    return next((c for c in candidates if c and _is_python39(c)), None)


def side_python(rebuild: bool) -> Path:
    """The side environment's interpreter, created with :data:`PINS` if missing or out of date."""
    try:
        return side_env.side_python("acv", find_python39(), PINS, rebuild=rebuild)
    except side_env.SideEnvError as error:
        sys.exit(f"acv_lucas.py: {error}. ACV (acv-exp 1.2.3) needs Python 3.9 (tried python3.9 on PATH "
                 "and pyenv's versions/3.9*); install one, e.g. `pyenv install 3.9`.")


def explained_rows(net: bn.BinaryBayesNet, features: list[str]) -> pd.DataFrame:
    """Row 0: the Figure 1 instance of notebooks 03-04 (Smoking = Genetics = Coughing = 1, the
    other features at their most probable values); row 1: the authors' demo observation
    (``X_test[160]`` of their split, filled in by the worker's split and checked here); rows 2..:
    the first :data:`N_DRAWN` draws from the network with seed 7 (notebook 04's instances)."""
    p = net.marginal_table(features)
    Z = bn.states(len(features))
    given = ["Smoking", "Genetics", "Coughing"]
    match = np.all(Z[:, [features.index(v) for v in given]] == 1, axis=1)
    x_fig = Z[int(np.flatnonzero(match)[np.argmax(p[match])])]
    from sklearn.model_selection import train_test_split

    X0, y0 = compendium.data.load_lucas0()
    _, X_test, _, _ = train_test_split(X0[features], y0, test_size=0.2, random_state=21)
    x_demo = X_test.to_numpy()[AUTHORS_ROW]
    drawn = net.sample(9, np.random.default_rng(7))[features].to_numpy()[:N_DRAWN]
    rows = pd.DataFrame(np.vstack([x_fig, x_demo, drawn]).astype(int), columns=features)
    rows.insert(0, "source", ["Figure 1 instance", f"authors' demo row X_test[{AUTHORS_ROW}]"]
                + [f"network draw {k} (seed 7)" for k in range(N_DRAWN)])
    rows.insert(0, "row_id", range(len(rows)))
    return rows


def exact_tables(rows: pd.DataFrame, parts: Path, features: list[str]) -> None:
    """Gather ACV's per-row CSVs and write them beside the exact values (``data/derived/sdp-acv-*``)."""
    net = bn.lucas()
    d = len(features)
    p = net.marginal_table(features)
    decisions = pd.read_csv(parts / "decisions.csv")
    assert (decisions["state"].to_numpy() == np.arange(2**d)).all()
    g = decisions["decision"].to_numpy().astype(float)
    X = rows[features].to_numpy()
    size = lib.formula.coalition_masks(d).sum(axis=1)
    sdp_frames, sufficient, swing, runtime = [], [], [], []
    for k, r in enumerate(tqdm(list(rows.itertuples(index=False)), desc="exact SDP, coalitions, swing values")):
        start = time.perf_counter()
        exact = sdp.same_decision_probability(g, p, X[k], 0.5)[0]   # decision 1 iff table value 1
        seconds_all = time.perf_counter() - start
        acv = pd.read_csv(parts / f"sdp-row{r.row_id}.csv")
        sdp_frames.append(pd.DataFrame({"row_id": r.row_id, "coalition": np.arange(2**d), "size": size,
                                        "acv_sdp": acv["acv_sdp"].to_numpy(), "exact_sdp": exact}))
        start = time.perf_counter()
        minimal = sdp.minimal_sufficient_coalitions(exact, PI)
        seconds_min = time.perf_counter() - start
        suff = pd.read_csv(parts / f"sufficient-row{r.row_id}.csv").iloc[0]
        mask = int(suff["acv_coalition"])
        smallest = int(size[minimal].min()) if len(minimal) else -1
        sufficient.append({
            "row_id": r.row_id, "pi": PI, "decision": int(g[bn.state_index(X[k])]),
            "acv_coalition": "+".join(sdp.coalition_names(features, mask)) or "(empty)",
            "acv_size": int(suff["acv_size"]), "acv_sdp_of_coalition": float(suff["acv_sdp_of_coalition"]),
            "exact_sdp_of_acv_coalition": float(exact[mask]),
            "acv_coalition_sufficient": bool(exact[mask] >= PI),
            "acv_coalition_minimal": bool(mask in set(minimal.tolist())),
            "exact_smallest_size": smallest,
            "exact_minimal_coalitions": "; ".join("+".join(sdp.coalition_names(features, int(m))) or "(empty)"
                                                  for m in minimal if size[m] == smallest),
            "exact_n_minimal": int(len(minimal)),
        })
        runtime += [
            {"row_id": r.row_id, "task": "SDP of all 2048 coalitions", "tool": "ACV",
             "seconds": float(suff["seconds_all_coalitions"])},
            {"row_id": r.row_id, "task": "SDP of all 2048 coalitions", "tool": "exact (lib.sdp)", "seconds": seconds_all},
            {"row_id": r.row_id, "task": f"sufficient coalition at pi = {PI:g}", "tool": "ACV",
             "seconds": float(suff["seconds_sufficient"])},
            {"row_id": r.row_id, "task": f"sufficient coalition at pi = {PI:g}", "tool": "exact (lib.sdp)",
             "seconds": seconds_all + seconds_min},
        ]
        if r.row_id in SWING_ROWS:
            start = time.perf_counter()
            exact_sdp = sdp.same_decision_probability(g, p, X[k], 0.5)[0]
            split = sdp.swing_decomposition(sdp.swing_game(exact_sdp, PI))
            seconds_swing = time.perf_counter() - start
            theirs = pd.read_csv(parts / f"swing-row{r.row_id}.csv")
            assert list(theirs["feature"]) == features
            frame = theirs.drop(columns=["seconds"]).assign(
                exact_swing_sv=split.values[0] if split.values.ndim == 2 else split.values,
                exact_swings=np.ravel(split.swings), exact_reverse_swings=np.ravel(split.reverse_swings),
                exact_n_swings=np.ravel(split.n_swings), exact_n_reverse_swings=np.ravel(split.n_reverse_swings),
                exact_n_null=np.ravel(split.n_null))
            swing.append(frame)
            runtime += [
                {"row_id": r.row_id, "task": f"Swing Shapley values at pi = {PI:g}", "tool": "ACV",
                 "seconds": float(theirs["seconds"].iloc[0])},
                {"row_id": r.row_id, "task": f"Swing Shapley values at pi = {PI:g}", "tool": "exact (lib.sdp)",
                 "seconds": seconds_swing},
            ]
    versions = pd.read_csv(parts / "versions.csv")
    train = pd.read_csv(parts / "train-rows.csv")
    from sklearn.model_selection import train_test_split

    X0, y0 = compendium.data.load_lucas0()
    ours, _, _, _ = train_test_split(X0, y0, test_size=0.2, random_state=21)
    assert (ours.index.to_numpy() == train["lucas0_row"].to_numpy()).all(), "the two environments split LUCAS0 differently"
    write = compendium.stable.write_derived
    write(decisions.assign(**{f: bn.states(d)[:, i] for i, f in enumerate(features)})[
        ["state", *features, "proba", "decision"]], "sdp-acv-decisions.csv", digits=12)
    write(train, "sdp-acv-train-rows.csv")
    write(rows, "sdp-acv-rows.csv")
    write(versions, "sdp-acv-versions.csv")
    write(pd.concat(sdp_frames, ignore_index=True), "sdp-acv-sdp.csv", digits=12)
    write(pd.DataFrame(sufficient), "sdp-acv-sufficient.csv", digits=12)
    write(pd.concat(swing, ignore_index=True), "sdp-acv-swing.csv", digits=12)
    stamp = ", ".join(f"{a} {b}" for a, b in zip(versions["package"], versions["version"]))
    write(pd.DataFrame(runtime).assign(side_env=stamp), "sdp-acv-runtime.csv", digits=6)
    print("wrote data/derived/sdp-acv-{decisions,train-rows,rows,versions,sdp,sufficient,swing,runtime}.csv")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--force", action="store_true", help="rerun ACV on rows whose part CSV exists")
    parser.add_argument("--rebuild-env", action="store_true", help="recreate the side environment")
    parser.add_argument("--threads", type=int, default=2, help="num_threads of ACV's swing_sv_clf (default 2)")
    parser.add_argument("--gather-only", action="store_true", help="skip ACV; rebuild the CSVs from the parts")
    args = parser.parse_args(argv)
    features = list(bn.LUCAS_FEATURES)
    rows = explained_rows(bn.lucas(), features)
    parts = SIDE / "parts"
    if not args.gather_only:
        python = side_python(args.rebuild_env)
        parts.mkdir(parents=True, exist_ok=True)
        rows.drop(columns="source").to_csv(parts / "rows.csv", index=False)
        compendium.data.verify("lucas0")
        cmd = [str(python), str(WORKER), "--data", str(compendium.data.file_path("lucas0")), "--rows",
               str(parts / "rows.csv"), "--out", str(parts), "--pi", str(PI), "--threads", str(args.threads),
               "--swing-rows", *map(str, SWING_ROWS)] + (["--force"] if args.force else [])
        subprocess.run(cmd, check=True)
    exact_tables(rows, parts, features)


if __name__ == "__main__":
    main()
