"""Chapter 5, notebook 05: the authors' side of ``scripts/coal_authors.py`` (run in the side environment).

Do not run this file with the book's Python: ``scripts/coal_authors.py`` creates the pinned side
environment (``.side-envs/coal-authors/``: numpy 1.26, pandas 1.5, scikit-learn 1.3) and runs this
worker there, once per KEEL data set. The worker imports the authors' modules from the unmodified
snapshot given by ``--code`` (``utils``, ``complete_method``, ``coalitional_methods``,
``model_based_method`` of ``kaduceo/coalitional_explanation_methods``) and calls them; it copies
none of their code.

The estimator it hands them, :class:`BookModel`, is a proxy: its ``fit``, ``predict`` and
``predict_proba`` send the arrays to the book's process (which started this worker, on this
worker's standard input and output) and return what the book's classifier answers there. So the
authors' code runs on the book's models. The protocol: one frame per request and per answer, an
8-byte little-endian length, a JSON header whose "arrays" lists the dtype and shape of the arrays
whose bytes follow (``compendium.experiments.coal_authors.encode_frame`` on the other side). Anything the
authors' code prints goes to the standard error, never into the protocol.

The job (``--job``, JSON written by the book's side) names the data (``A.npy``, ``Y.npy``, the
column names), the explained rows, the classifiers, the thresholds and the part to run
(``compendium.experiments.coal_authors`` says what each computes):

* ``groups``: the five data-driven groupings (``pca_grouping``, ``vif_grouping``,
  ``spearman_grouping``) at every threshold, the directions of the PCA their ``pca_grouping`` fits,
  and per classifier the complete influence (``utils.train_models`` on every subset,
  ``complete_method.compute_influences`` on the explained rows, whose index is reset to 0..m-1;
  once more on the rows with their labels in the data set, and once with the class labels as the
  data set has them when they are not 0..k-1, to record what those do);
* ``influence``: the same groupings, and per classifier the coalitional influence of each
  (``utils.train_models`` on ``compute_subgroups_correlation(groups) + [[]]``, as their
  ``coalitional_method`` does, then ``coalitional_methods.compute_influences``);
* ``model``: per classifier, threshold and seed, the steps of their
  ``model_based_method.modelbased_method`` on the explained rows, with ``random.seed(seed)`` just
  before (their fidelity draws from Python's ``random``), and on small data sets
  ``modelbased_method`` itself once, for comparison.

The results go to ``--out`` (JSON, floats written exactly), with the process CPU seconds of each
call (the fits and predictions the proxy asks for run in the book's process and are not in them).
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import time
from pathlib import Path

import numpy as np

_LENGTH = struct.Struct("<Q")
_PROTOCOL: dict[str, object] = {}


def encode_frame(header: dict, arrays=()) -> bytes:
    arrays = [np.ascontiguousarray(a) for a in arrays]
    head = dict(header, arrays=[[a.dtype.str, list(a.shape)] for a in arrays])
    text = json.dumps(head, sort_keys=True).encode()
    return _LENGTH.pack(len(text)) + text + b"".join(a.tobytes() for a in arrays)


def _read_exact(stream, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError("the book's process closed the bridge")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(stream):
    (size,) = _LENGTH.unpack(_read_exact(stream, _LENGTH.size))
    header = json.loads(_read_exact(stream, size))
    arrays = []
    for dtype, shape in header.pop("arrays"):
        dt = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        arrays.append(np.frombuffer(_read_exact(stream, count * dt.itemsize), dtype=dt).reshape(shape).copy())
    return header, arrays


def ask(header: dict, arrays=()):
    """Send one request to the book's process and wait for its answer."""
    out, inp = _PROTOCOL["out"], _PROTOCOL["in"]
    out.write(encode_frame(header, arrays))
    out.flush()
    return read_frame(inp)


class BookModel:
    """A scikit-learn-style classifier whose work is done by the book's classifier ``classifier``.

    ``get_params``/``set_params`` make it clonable (``sklearn.base.clone``, which the authors'
    ``train_models`` calls); a clone is unfitted until ``fit`` sends its training arrays. Pickled,
    it keeps its handle (the authors' code stores its models pickled).
    """

    def __init__(self, classifier: str = "NB"):
        self.classifier = classifier

    def get_params(self, deep: bool = True) -> dict:
        return {"classifier": self.classifier}

    def set_params(self, **params) -> "BookModel":
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def _answer(self, header: dict) -> "BookModel":
        self.handle_ = int(header["handle"])
        self.classes_ = np.asarray(header["classes"])
        return self

    @classmethod
    def explained(cls, classifier: str) -> "BookModel":
        """The model the book explains: its classifier fitted on the whole data set."""
        return cls(classifier)._answer(ask({"op": "full", "classifier": classifier})[0])

    def fit(self, X, y) -> "BookModel":
        header, _ = ask({"op": "fit", "classifier": self.classifier},
                        [np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64).ravel()])
        return self._answer(header)

    def predict(self, X):
        return ask({"op": "predict", "handle": self.handle_}, [np.asarray(X, dtype=np.float64)])[1][0]

    def predict_proba(self, X):
        return ask({"op": "predict_proba", "handle": self.handle_}, [np.asarray(X, dtype=np.float64)])[1][0]


def _failure(error: Exception) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0]


def _rows(frame, labels) -> list:
    return frame.loc[list(labels)].to_numpy(dtype=float).tolist()


def _groupings(job: dict, X, coalitional_methods) -> list[dict]:
    """Their five data-driven groupings at every threshold (their ``coalitional_method`` with
    ``complexity=False`` calls the function with the threshold as it is)."""
    cells = []
    for method, (function, reverse) in job["methods"].items():
        for alpha in job["alphas"]:
            start = time.process_time()
            try:
                groups = getattr(coalitional_methods, function)(X, alpha, reverse)
                failure = ""
            except Exception as error:  # their code failing is a result
                groups, failure = [], _failure(error)
            cells.append({"method": method, "alpha": alpha, "groups": [[int(i) for i in g] for g in groups],
                          "failure": failure, "seconds": time.process_time() - start})
    return cells


def run_groups(job: dict, X, y, Xe, labelled, utils, complete_method, coalitional_methods) -> dict:
    """Part "groups": their groupings, the directions of their PCA, and their complete influence."""
    import pandas as pd
    from sklearn.decomposition import PCA

    d = X.shape[1]
    result: dict = {"groups": _groupings(job, X, coalitional_methods),
                    "pca components": PCA().fit(X).components_.tolist(),   # the call of their pca_grouping
                    "classifiers": {}}
    for clf in job["classifiers"]:
        model = BookModel.explained(clf)
        start = time.process_time()
        pretrained = utils.train_models(model, X, y, utils.generate_groups_wo_label(d), "Classification", None,
                                        progression_bar=False)
        complete = complete_method.compute_influences(Xe, pretrained, "Classification", progression_bar=False)
        seconds = time.process_time() - start
        try:
            again = complete_method.compute_influences(labelled, pretrained, "Classification", progression_bar=False)
            gap = float(np.abs(again.to_numpy(dtype=float) - complete.to_numpy(dtype=float)).max())
            as_labelled = f"ran; largest difference from the rows numbered 0..m-1: {gap:.3g}"
        except Exception as error:
            as_labelled = _failure(error)
        if job.get("Y_raw"):  # their code with the labels as the data set has them (not 0..k-1)
            y_raw = np.load(Path(job["folder"]) / job["Y_raw"])
            try:
                full_raw = BookModel(clf).fit(X.to_numpy(), y_raw)
                trained = utils.train_models(full_raw, X, pd.Series(y_raw), utils.generate_groups_wo_label(d),
                                             "Classification", None, progression_bar=False)
                again = complete_method.compute_influences(Xe, trained, "Classification", progression_bar=False)
                gap = float(np.abs(again.to_numpy(dtype=float) - complete.to_numpy(dtype=float)).max())
                raw_labels = f"ran; largest difference from the labels recoded 0..k-1: {gap:.3g}"
            except Exception as error:
                raw_labels = _failure(error)
        else:
            raw_labels = "the same run (the labels are 0..k-1)"
        result["classifiers"][clf] = {"complete": _rows(complete, Xe.index), "complete seconds": seconds,
                                      "labelled rows": as_labelled, "raw labels": raw_labels}
    return result


def run_influence(job: dict, X, y, Xe, utils, coalitional_methods) -> dict:
    """Part "influence": their coalitional influence on each of their groupings, as their
    ``coalitional_method`` computes it (models on every subset of every group), on the explained rows."""
    groupings = _groupings(job, X, coalitional_methods)
    result: dict = {"classifiers": {}}
    for clf in job["classifiers"]:
        model = BookModel.explained(clf)
        cells = []
        for cell in groupings:
            entry = {"method": cell["method"], "alpha": cell["alpha"], "groups": cell["groups"],
                     "effective": cell["groups"], "failure": cell["failure"] and "their grouping failed"}
            start = time.process_time()
            if not entry["failure"]:
                try:
                    groups = [list(g) for g in cell["groups"]]
                    subgroups = utils.compute_subgroups_correlation(groups) + [[]]
                    trained = utils.train_models(model, X, y, subgroups, "Classification", None, progression_bar=False)
                    influence = coalitional_methods.compute_influences(Xe, trained, "Classification", groups,
                                                                       progression_bar=False)
                    entry["influence"] = _rows(influence, Xe.index)
                except Exception as error:
                    entry["failure"] = _failure(error)
            entry["seconds"] = time.process_time() - start
            cells.append(entry)
        result["classifiers"][clf] = {"cells": cells}
    return result


def run_model(job: dict, X, y, Xe, explain, utils, model_based_method) -> dict:
    """Part "model": per classifier, threshold and seed, the steps of their ``modelbased_method``
    (``model_grouping``; ``compute_subgroups_correlation(groups) + [[]]``, which it passes on as the
    groups; ``train_models``; ``compute_influences``) on the explained rows; on small data sets, once,
    ``modelbased_method`` itself (it explains every row) for comparison."""
    import random

    result: dict = {"model": {}}
    witness = X.shape[0] <= job["witness_rows"]
    for c, clf in enumerate(job["classifiers"]):
        model = BookModel.explained(clf)
        cells = []
        for a, alpha in enumerate(job["alphas"]):
            for s, seed in enumerate(job["seeds"]):
                entry = {"alpha": alpha, "seed": seed, "failure": ""}
                random.seed(seed)
                start = time.process_time()
                try:
                    groups = model_based_method.model_grouping(X, model, alpha)
                    effective = utils.compute_subgroups_correlation(groups) + [[]]
                    trained = utils.train_models(model, X, y, effective, "Classification", None, progression_bar=False)
                    influence = model_based_method.compute_influences(Xe, trained, "Classification", effective,
                                                                      progression_bar=False)
                    entry.update(groups=[[int(i) for i in g] for g in groups],
                                 effective=[[int(i) for i in g] for g in effective],
                                 influence=_rows(influence, Xe.index))
                except Exception as error:
                    entry["failure"] = _failure(error)
                entry["seconds"] = time.process_time() - start
                if witness and c == a == s == 0 and not entry["failure"]:
                    random.seed(seed)
                    try:
                        itself, _, returned = model_based_method.modelbased_method(
                            X, y, model, alpha, "Classification", progression_bar=False)
                        gap = float(np.abs(np.asarray(_rows(itself, explain)) - np.asarray(entry["influence"])).max())
                        same = [[int(i) for i in g] for g in returned] == entry["effective"]
                        entry["witness"] = (f"ran; the same groups passed on: {same}; largest difference on the "
                                            f"explained rows: {gap:.3g}")
                    except Exception as error:
                        entry["witness"] = _failure(error)
                cells.append(entry)
        result["model"][clf] = cells
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", required=True, help="folder of the authors' unmodified code")
    parser.add_argument("--job", required=True, help="the job (JSON) written by scripts/coal_authors.py")
    parser.add_argument("--out", required=True, help="where to write the results (JSON)")
    args = parser.parse_args(argv)
    # the protocol keeps the real standard output; whatever else prints goes to the standard error
    _PROTOCOL["out"] = os.fdopen(os.dup(1), "wb")
    _PROTOCOL["in"] = sys.stdin.buffer
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import warnings

    warnings.filterwarnings("ignore")  # their pandas appends and scikit-learn's feature-name notes
    import pandas as pd

    sys.path.insert(0, str(Path(args.code).resolve()))
    import coalitional_methods
    import complete_method
    import model_based_method
    import utils

    job = json.loads(Path(args.job).read_text())
    folder = Path(args.job).parent
    job["folder"] = str(folder)
    A, Y = np.load(folder / job["A"]), np.load(folder / job["Y"])
    X = pd.DataFrame(A, columns=job["columns"])
    y = pd.Series(Y)
    explain = job["explain"]
    labelled = X.iloc[explain]
    Xe = labelled.reset_index(drop=True)
    if job["part"] == "groups":
        result = run_groups(job, X, y, Xe, labelled, utils, complete_method, coalitional_methods)
    elif job["part"] == "influence":
        result = run_influence(job, X, y, Xe, utils, coalitional_methods)
    elif job["part"] == "model":
        result = run_model(job, X, y, Xe, explain, utils, model_based_method)
    else:
        sys.exit(f"unknown part {job['part']!r} in {args.job}")
    result["dataset"] = job["dataset"]
    out = Path(args.out)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result))
    tmp.replace(out)


if __name__ == "__main__":
    main()
