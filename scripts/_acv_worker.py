"""Chapter 3, notebook 06: the ACV side of ``scripts/acv_lucas.py`` (run in the side environment).

Do not run this file with the book's Python: ``scripts/acv_lucas.py`` creates the pinned side
environment (Python 3.9, ``acv-exp==1.2.3``) under ``.side-envs/acv/`` and runs this worker
with that environment's interpreter.  What it does, following the set-up of the authors'
notebook ``notebooks/demo_acv_explainer/demo_swings_sdp.ipynb`` of ``salimamoukou/acv00``
(facts taken from it: LUCAS0 split by ``train_test_split(test_size=0.2, random_state=21)``, a
``DecisionTreeClassifier(min_samples_leaf=20, random_state=212)`` fitted on the training part,
``ACVTree(model, X_train)``, SDPs estimated from ``X_train``):

1. fits that tree and writes its probability and decision (ACV's decision: the class of largest
   probability) on the ``2**11`` binary LUCAS states (``decisions.csv``), the training rows
   (``train-rows.csv``) and the versions of the side environment (``versions.csv``);
2. for every explained row (``--rows``): ACV's SDP of all ``2**11`` coalitions
   (``ACVTree.compute_sdp_clf``) and its sufficient coalition at ``--pi``
   (``ACVTree.importance_sdp_clf``), timed, one CSV per row (``sdp-row<id>.csv``,
   ``sufficient-row<id>.csv``);
3. for the rows of ``--swing-rows``: ACV's Swing Shapley values at ``--pi``
   (``ACVTree.swing_sv_clf``), timed (``swing-row<id>.csv``).

Resumable: a row whose CSV exists is skipped unless ``--force``.  The float columns are
written with ``%.12g``; times go to their own column.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

SEED_SPLIT = 21      # the authors' train_test_split seed
SEED_TREE = 212      # the authors' tree seed
MIN_SAMPLES_LEAF = 20
FMT = "%.12g"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="LUCAS0 CSV (12 binary columns, target Lung_cancer)")
    parser.add_argument("--rows", help="CSV of the rows to explain: row_id and the 11 features")
    parser.add_argument("--out", help="folder for the per-row CSVs")
    parser.add_argument("--pi", type=float, default=0.9, help="probability level pi (default 0.9)")
    parser.add_argument("--swing-rows", type=int, nargs="*", default=[], help="row ids for swing values")
    parser.add_argument("--threads", type=int, default=2, help="num_threads for swing_sv_clf")
    parser.add_argument("--force", action="store_true", help="recompute rows whose CSV exists")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if not (args.data and args.rows and args.out):
        sys.exit("--data, --rows and --out are required (run scripts/acv_lucas.py, not this worker)")
    import warnings

    warnings.filterwarnings("ignore")
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier
    from tqdm import tqdm

    from acv_explainers import ACVTree

    try:  # ACV's compiled module prints a progress bar for every call: silence it (results unchanged)
        import cyext_acv

        cyext_acv.tqdm = lambda iterable, *args, **kwargs: iterable
    except (ImportError, AttributeError):
        pass

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    raw = pd.read_csv(args.data)
    y = raw.pop("Lung_cancer").to_numpy()
    features = list(raw.columns)
    d = len(features)
    X_train, _, y_train, _ = train_test_split(raw, y, test_size=0.2, random_state=SEED_SPLIT)
    tree = DecisionTreeClassifier(min_samples_leaf=MIN_SAMPLES_LEAF, random_state=SEED_TREE)
    tree.fit(X_train, y_train)
    data = np.array(X_train.to_numpy(), dtype=np.double)

    s = np.arange(2**d)
    states = ((s[:, None] >> np.arange(d)) & 1).astype(np.double)
    proba = tree.predict_proba(pd.DataFrame(states, columns=features))[:, 1]
    decision = np.argmax(tree.predict_proba(pd.DataFrame(states, columns=features)), axis=1)
    pd.DataFrame({"state": s, "proba": proba, "decision": decision}).to_csv(
        out / "decisions.csv", index=False, float_format=FMT, lineterminator="\n")
    pd.DataFrame({"lucas0_row": X_train.index.to_numpy()}).to_csv(
        out / "train-rows.csv", index=False, lineterminator="\n")
    import importlib.metadata as md

    versions = {"python": ".".join(map(str, sys.version_info[:3]))}
    for pkg in ("acv-exp", "numpy", "scikit-learn", "pandas", "scipy", "lightgbm", "xgboost"):
        versions[pkg] = md.version(pkg)
    pd.DataFrame({"package": list(versions), "version": list(versions.values())}).to_csv(
        out / "versions.csv", index=False, lineterminator="\n")

    acv = ACVTree(tree, data)
    rows = pd.read_csv(args.rows)
    masks = [np.array([i for i in range(d) if (S >> i) & 1], dtype=np.int64) for S in range(2**d)]
    todo = [r for r in rows.itertuples(index=False)
            if args.force or not (out / f"sdp-row{r.row_id}.csv").exists()]
    for r in tqdm(todo, desc="ACV SDP, all coalitions, per row"):
        x = np.array([[getattr(r, f) for f in features]], dtype=np.double)
        start = time.perf_counter()
        sdp = np.array([acv.compute_sdp_clf(x, S=masks[S], data=data)[0] for S in range(2**d)])
        seconds = time.perf_counter() - start
        pd.DataFrame({"row_id": r.row_id, "coalition": s, "acv_sdp": sdp}).to_csv(
            out / f"sdp-row{r.row_id}.csv", index=False, float_format=FMT, lineterminator="\n")
        start = time.perf_counter()
        _, index, size, value = acv.importance_sdp_clf(x, data, C=[[]], pi_level=args.pi)
        seconds_sufficient = time.perf_counter() - start
        members = sorted(int(i) for i in index[0, : int(size[0])])
        pd.DataFrame([{
            "row_id": r.row_id, "pi": args.pi, "acv_coalition": sum(1 << i for i in members),
            "acv_size": int(size[0]), "acv_sdp_of_coalition": float(value[0]),
            "seconds_all_coalitions": seconds, "seconds_sufficient": seconds_sufficient,
        }]).to_csv(out / f"sufficient-row{r.row_id}.csv", index=False, float_format=FMT, lineterminator="\n")

    swing = [r for r in rows.itertuples(index=False) if r.row_id in set(args.swing_rows)
             and (args.force or not (out / f"swing-row{r.row_id}.csv").exists())]
    for r in tqdm(swing, desc=f"ACV swing_sv_clf at pi = {args.pi:g}, per row"):
        x = np.array([[getattr(r, f) for f in features]], dtype=np.double)
        start = time.perf_counter()
        values, weighted, counts = acv.swing_sv_clf(x, data, C=[[]], thresholds=args.pi,
                                                    num_threads=args.threads)
        seconds = time.perf_counter() - start
        pd.DataFrame({
            "row_id": r.row_id, "pi": args.pi, "feature": features,
            "acv_swing_sv": np.asarray(values)[0],
            "acv_swings": np.asarray(weighted)[0, :, 0], "acv_reverse_swings": -np.asarray(weighted)[0, :, 1],
            "acv_n_swings": np.asarray(counts)[0, :, 0], "acv_n_reverse_swings": np.asarray(counts)[0, :, 1],
            "acv_n_null": np.asarray(counts)[0, :, 2], "seconds": seconds,
        }).to_csv(out / f"swing-row{r.row_id}.csv", index=False, float_format=FMT, lineterminator="\n")


if __name__ == "__main__":
    main()
