"""The authors' coalitional code run beside the book's: chapter 5, ``05-authors-code``.

Ferrettini, Aligon & Soulé-Dupuy published their methods as ``kaduceo/coalitional_explanation_methods``
(GPL-3). The book never copies it: ``scripts/coal_authors.py`` runs an unmodified snapshot of it,
found at :data:`DEFAULT_CODE` beside the repository (or ``--code PATH``), in a pinned side
environment (:data:`PINS`: it needs numpy < 2 and pandas < 2), through the worker
``scripts/_coal_authors_worker.py``. This module holds what the script and the notebook share:
the set-up (the data sets, classifiers, explained rows and thresholds of the book's grid,
:mod:`compendium.experiments.coal_grid`), the bridge that lets the authors' code use the book's models,
the units of work (one KEEL data set per part, below) and the reading and matching of the stored
results.

**The models are the book's.** The authors' API takes any scikit-learn-like estimator and
retrains clones of it (``utils.train_models``); the worker hands it a proxy estimator whose
``fit``, ``predict`` and ``predict_proba`` are carried out here, in the book's environment, by the
book's classifier (:func:`serve`): the data their code fits on and the rows it predicts cross the
bridge as arrays. So every model their code uses is the one ``lib.coalitional.RetrainedGame``
fits (same class, same parameters, same data, same scikit-learn), and the comparison isolates
their code from any difference of models or library versions.

**What runs**, in three parts (``--part``), each one unit of work per KEEL data set:

* ``groups`` (:func:`run_groups`): their five data-driven groupings (``pca_grouping``,
  ``vif_grouping`` and ``spearman_grouping``, each with ``reverse`` where it has one) at every
  threshold of :data:`ALPHAS`, the directions of their PCA, and, per classifier of
  :data:`CLASSIFIERS`, their complete influence (``utils.train_models`` on every subset, then
  ``complete_method.compute_influences`` on the explained rows);
* ``influence`` (:func:`run_influence`): their coalitional influence on each of those groupings
  (``utils.train_models`` on the groups' subsets, then ``coalitional_methods.compute_influences``);
* ``model`` (:func:`run_model`): their model-based method, the steps of their ``modelbased_method``
  at :data:`MODEL_ALPHAS`, with Python's ``random`` seeded with each of :data:`MODEL_SEEDS` just
  before (their code draws from it unseeded), and ``modelbased_method`` itself once on the small
  data sets.

Their ``complete_method``, ``coalitional_method`` and ``modelbased_method`` explain the rows they
are trained on; the book's grid explains a sample of them, so the worker chains the same calls and
explains that sample with their ``compute_influences`` functions, which exist for that purpose.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import os
import platform
import struct
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

import compendium.data
from lib import coalitional as co
from lib import grouping as gr
from compendium import side_env, stable
from lib.coalitional import Groups
from compendium.data import REPO_ROOT
from compendium.experiments.coal_grid import ALPHAS
from compendium.experiments.coal_grid import CLASSIFIERS as GRID_CLASSIFIERS
from compendium.experiments.coal_grid import format_groups, labels_of, parse_groups  # noqa: F401 (ca.parse_groups)
from compendium.regenerate.result import Result

# ----------------------------------------------------------------------------- set-up
#: The snapshot's folder name, and where the script looks for it by default: beside the
#: repository, as ``../shared/data`` for the data (relative to the repository's root).
CODE_FOLDER = "coalitional_explanation_methods"
DEFAULT_CODE = Path("..") / "shared" / "third-party" / CODE_FOLDER
#: The snapshot's commit (github.com/kaduceo/coalitional_explanation_methods) and the files run.
CODE_COMMIT = "d57e4b64a0f261d5c753a33e6e5e505831c29ded"
CODE_FILES = ("utils.py", "complete_method.py", "coalitional_methods.py", "model_based_method.py")
#: The side environment: the authors' code calls ``np.math`` and ``DataFrame.append`` (numpy < 2,
#: pandas < 2); exact pins of everything installed, for Python 3.11 (cp311 wheels of the local index).
PINS = ["numpy==1.26.4", "pandas==1.5.3", "scikit-learn==1.3.2", "scipy==1.11.4", "statsmodels==0.14.1",
        "patsy==1.0.3", "joblib==1.6.0", "threadpoolctl==3.8.0", "packaging==26.4", "python-dateutil==4.0.0",
        "pytz==2026.6", "tzdata==2026.6", "cloudpickle==3.1.3", "tqdm==4.70.1"]
SIDE_NAME = "coal-authors"
PARTS = side_env.SIDE_ENVS / SIDE_NAME / "parts"
WORKER = REPO_ROOT / "scripts" / "_coal_authors_worker.py"
STORED_IN = REPO_ROOT / "data" / "derived"

#: The book's grid set-up (``scripts/coal_grid.py``'s defaults): explained rows per data set, the
#: seed of their draw and of the model-based fidelity, and the rows of the book's fidelity.
N_EXPLAIN = 100
SEED = 0
FIDELITY_ROWS = 1000
#: The classifiers of the grid the comparison runs (``coal_grid.CLASSIFIERS``): the two cheapest to
#: refit. What is compared is code on identical models, so more classifiers add cost, not coverage.
CLASSIFIERS = ("NB", "tree")
#: The data-driven methods by the names of the paper's figures: the authors' function and ``reverse``.
DATA_METHODS: Mapping[str, tuple[str, bool]] = {
    "PCA": ("pca_grouping", False), "VIF": ("vif_grouping", False), "RevVIF": ("vif_grouping", True),
    "Spearman": ("spearman_grouping", False), "RevSpearman": ("spearman_grouping", True),
}
#: The thresholds at which the authors' model-based method runs: the two the paper names (§5.3).
MODEL_ALPHAS = (0.01, 0.4)
#: The classifier it runs with, and the data sets: their fidelity costs about a CPU second per call
#: whatever the model (it rebuilds a 2500-row table one row at a time) and Algorithm 1 asks for about
#: ``n**2`` of them, so the part runs with one classifier on the data sets of at most
#: :data:`MODEL_MAX_ATTRIBUTES` attributes (the comparison is of code).
MODEL_CLASSIFIERS = ("NB",)
MODEL_MAX_ATTRIBUTES = 6
#: Seeds of Python's ``random`` for the model-based method (their code draws from it unseeded): the
#: first is the run compared with the book; the others measure how much their groups move.
MODEL_SEEDS = (0, 1)

#: The command that regenerates everything (``--part groups|influence|model`` one part of it).
COMMAND = "python scripts/coal_authors.py"


def datasets(part: str = "groups") -> list[str]:
    """The KEEL data sets of the chapter (the book's grid runs on all of them); for the ``model`` part,
    those with at most :data:`MODEL_MAX_ATTRIBUTES` attributes."""
    names = compendium.data.names("keel")
    if part == "model":
        names = [n for n in names if compendium.data.load(n)[0].shape[1] <= MODEL_MAX_ATTRIBUTES]
    return names


def explained_rows(n: int, d: int, n_explain: int = N_EXPLAIN, seed: int = SEED) -> np.ndarray:
    """The rows the book's grid explains on a data set of ``n`` rows and ``d`` attributes: a sample
    of ``min(n, n_explain)`` drawn with ``default_rng([seed, d, n])``, sorted (``coal_grid.run_pair``)."""
    rng = np.random.default_rng([seed, d, n])
    return np.sort(rng.choice(n, size=min(n, n_explain), replace=False))


def _repository_roots() -> list[Path]:
    """The repository's root, and the root of the repository whose ``.side-envs`` this checkout
    links to (a scratch copy of ``compendium.regenerate --check`` links it, and sits elsewhere)."""
    roots = [REPO_ROOT]
    linked = side_env.SIDE_ENVS.resolve().parent
    if linked != REPO_ROOT:
        roots.append(linked)
    return roots


def code_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The folder of the authors' code: ``path`` (relative to the repository's root if relative),
    else :data:`DEFAULT_CODE`; an error says where to put it when it is missing or incomplete."""
    if path is not None:
        given = Path(path).expanduser()
        candidates = [given if given.is_absolute() else (REPO_ROOT / given)]
    else:
        candidates = [(root / DEFAULT_CODE) for root in _repository_roots()]
    for folder in candidates:
        if all((folder / f).is_file() for f in CODE_FILES):
            return folder.resolve()
    where = candidates[0]
    missing = [f for f in CODE_FILES if not (where / f).is_file()]
    raise FileNotFoundError(
        f"the authors' code is not at {where} ({'the folder does not exist' if not where.is_dir() else 'missing ' + ', '.join(missing)}). "
        f"Put an unmodified snapshot of github.com/kaduceo/{CODE_FOLDER} (commit {CODE_COMMIT[:7]}, GPL-3) "
        f"in the folder {DEFAULT_CODE.as_posix()} relative to the repository's root (beside the clone, like the "
        f"data in ../shared/data), or pass --code PATH; the book's repository holds none of it."
    )


def code_digests(folder: Path) -> dict[str, str]:
    """sha256 of each file of the authors' code that runs (which snapshot produced the results)."""
    return {f: hashlib.sha256((folder / f).read_bytes()).hexdigest() for f in CODE_FILES}


# ----------------------------------------------------------------------------- groups
def repeats(groups: Iterable[Sequence[int]]) -> bool:
    """Whether some group names one attribute twice (their VIF grouping does)."""
    return any(len(set(g)) != len(g) for g in groups)


def canonical(groups: Iterable[Sequence[int]]) -> frozenset[tuple[int, ...]]:
    """The groups as a set of sorted tuples, repeats within a group kept: order of the groups ignored."""
    return frozenset(tuple(sorted(int(i) for i in g)) for g in groups if len(g))


def match_groups(theirs: Iterable[Sequence[int]], ours: Iterable[Sequence[int]]) -> dict[str, Any]:
    """How the authors' groups compare with the book's, the order of the groups ignored.

    ``identical``: the same groups (a group naming an attribute twice matches no group of the
    book's, which never does); ``identical without repeats``: the same once each group's
    repeated attributes are kept once; ``only theirs`` / ``only ours``: the groups of one side
    missing from the other (as sets of attributes).
    """
    t, o = canonical(theirs), canonical(ours)
    t_sets = {tuple(sorted(set(g))) for g in t}
    o_sets = {tuple(sorted(set(g))) for g in o}
    return {
        "identical": t == o,
        "identical without repeats": t_sets == o_sets,
        "only theirs": format_groups(sorted(t_sets - o_sets)),
        "only ours": format_groups(sorted(o_sets - t_sets)),
    }


def vif_tables(X: Any) -> tuple[np.ndarray, np.ndarray]:
    """The VIFs Algorithm 3 compares (:func:`lib.grouping.variance_inflation_factors`): ``old`` of
    every attribute, shape ``(d,)``, and ``new[a, j]``, the VIF of column ``j`` of the data without
    attribute ``a``, shape ``(d, d - 1)``."""
    A = gr.numeric_matrix(X)
    d = A.shape[1]
    old = gr.variance_inflation_factors(A)
    new = np.empty((d, max(d - 1, 0)))
    for a in range(d):
        if d > 1:
            new[a] = gr.variance_inflation_factors(np.delete(A, a, axis=1))
    return old, new


def vif_groups_from(tables: tuple[np.ndarray, np.ndarray], alpha: float, *, reverse: bool = False,
                    shifted: bool = True) -> list[list[int]]:
    """Algorithm 3 on the VIFs of :func:`vif_tables`, with column ``j`` of the data without attribute
    ``a`` taken for attribute ``j + 1 if j >= 1 else j`` whatever ``a`` is (``shifted``: the one change
    found in the authors' ``vif_grouping``, right only for ``a = 1``), both to look up its old VIF and to
    join the group, or for the attribute it is (``shifted=False``: the book's ``vif_groups``). Groups as
    their code returns them: sorted, repeats kept, a group equal to an earlier one dropped, uncovered
    attributes added as singletons. A demonstration of a cause, not a method of the book.
    """
    t = float(alpha)
    old, new = tables
    d = len(old)
    groups: list[list[int]] = []
    for a in range(d):
        g = [a]
        for j in range(d - 1):
            k = (j + 1 if j >= 1 else j) if shifted else (j if j < a else j + 1)
            with np.errstate(invalid="ignore"):
                keep = new[a, j] > old[k] * (1 - t * 0.05) if reverse else new[a, j] < old[k] * (0.4 + t)
            if keep:
                g.append(k)
        g.sort()
        if g not in groups:
            groups.append(g)
    covered = {i for g in groups for i in g}
    groups += [[i] for i in range(d) if i not in covered]
    return [sorted(g) for g in groups]


# ----------------------------------------------------------------------------- exact values
@functools.cache
def ordering_counts(d: int) -> np.ndarray:
    """``counts[i, S]``: in how many of the ``d!`` orderings of the players ``S`` is exactly the set
    that precedes ``i``. Enumerated over the orderings (``itertools.permutations``), not from the
    weight formula, so that :func:`shapley_by_orderings` is an independent computation."""
    if not 1 <= d <= 9:
        raise ValueError(f"enumerating the orderings needs 1 <= d <= 9 players, got d = {d}")
    perms = np.array(list(itertools.permutations(range(d))), dtype=np.int64)      # (d!, d)
    bits = np.left_shift(np.int64(1), perms)
    before = np.cumsum(bits, axis=1) - bits                                        # mask of the prefix
    counts = np.zeros((d, 2**d), dtype=np.int64)
    np.add.at(counts, (perms.ravel(), before.ravel()), 1)
    return counts


def shapley_by_orderings(values: np.typing.ArrayLike) -> np.ndarray:
    """The Shapley value as the mean marginal contribution over all ``d!`` orderings of the players
    (the definition, enumerated): ``values`` holds ``v(S)`` on its last axis (``2**d`` bitmasks)."""
    v = np.asarray(values, dtype=float)
    d = int(round(math.log2(v.shape[-1])))
    if 2**d != v.shape[-1]:
        raise ValueError(f"the last axis must hold 2**d coalition values, got {v.shape[-1]}")
    counts = ordering_counts(d)
    masks = np.arange(2**d)
    out = np.empty(v.shape[:-1] + (d,))
    for i in range(d):
        without = masks[(masks >> i) & 1 == 0]
        gain = v[..., without | (1 << i)] - v[..., without]
        out[..., i] = gain @ counts[i, without] / math.factorial(d)
    return out


def coalitional_as_their_code(value: Callable[[tuple[int, ...]], np.ndarray], groups: Sequence[Sequence[int]],
                              d: int) -> np.ndarray:
    """Eq. (F4) combined over the groups as the authors' ``compute_instance_coal_inf`` does, written
    from its description (groups may repeat an attribute): for every group ``g`` and every non-empty
    sub-list ``T`` of it (by position), each member ``i`` of ``T`` receives
    ``w (v(T) - v(T minus one i))`` with ``w = (|T|-1)! (|g|-|T|)!``, and each attribute's total is
    divided by the sum of its weights. On groups without repeats this is
    ``lib.coalitional.coalitional_influence(..., overlap="size-factorial")``.
    ``value(T)`` gives ``v`` of the attribute tuple ``T`` (repeats allowed) per explained row, ``v(()) = 0``.
    """
    total: np.ndarray | None = None
    weight = np.zeros(d)
    for g in groups:
        g = [int(i) for i in g]
        for r in range(1, len(g) + 1):
            for positions in itertools.combinations(range(len(g)), r):
                T = tuple(g[p] for p in positions)
                w = math.factorial(r - 1) * math.factorial(len(g) - r)
                vT = value(T)
                if total is None:
                    total = np.zeros(vT.shape + (d,))
                for k, i in enumerate(T):
                    rest = T[:T.index(i)] + T[T.index(i) + 1:]
                    total[..., i] += w * (vT - (value(rest) if rest else 0.0))
                    weight[i] += w
    if total is None or np.any(weight == 0):
        raise ValueError("the groups must cover every attribute")
    return total / weight


# ----------------------------------------------------------------------------- the bridge
#: Frames: an 8-byte little-endian length, a JSON header (its "arrays": dtype and shape of each array
#: that follows), then the arrays' bytes in C order. ``scripts/_coal_authors_worker.py`` speaks it too.
_LENGTH = struct.Struct("<Q")


def encode_frame(header: Mapping[str, Any], arrays: Sequence[np.ndarray] = ()) -> bytes:
    arrays = [np.ascontiguousarray(a) for a in arrays]
    head = dict(header, arrays=[[a.dtype.str, list(a.shape)] for a in arrays])
    text = json.dumps(head, sort_keys=True).encode()
    return _LENGTH.pack(len(text)) + text + b"".join(a.tobytes() for a in arrays)


def _read_exact(stream: BinaryIO, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError(f"the stream ended {left} bytes before the end of a frame")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(stream: BinaryIO) -> tuple[dict[str, Any], list[np.ndarray]] | None:
    """One frame from ``stream``, or ``None`` at the end of the stream (between frames)."""
    first = stream.read(_LENGTH.size)
    if not first:
        return None
    if len(first) < _LENGTH.size:
        first += _read_exact(stream, _LENGTH.size - len(first))
    (size,) = _LENGTH.unpack(first)
    header = json.loads(_read_exact(stream, size))
    arrays = []
    for dtype, shape in header.pop("arrays"):
        dt = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        arrays.append(np.frombuffer(_read_exact(stream, count * dt.itemsize), dtype=dt).reshape(shape).copy())
    return header, arrays


def _digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(a.dtype.str.encode() + str(a.shape).encode() + a.tobytes())
    return h.hexdigest()


class ModelServer:
    """The book's side of the bridge: fits and predictions that the authors' code asks for.

    ``full[c]`` is the book's classifier ``c`` fitted on the whole data set (the model explained);
    a ``fit`` request fits a fresh ``coal_grid.CLASSIFIERS[c]()`` on the arrays received (the
    same fit is done once: scikit-learn's fits here are deterministic); ``predict`` and
    ``predict_proba`` answer with the model of a handle. :attr:`fits` counts the fits made.
    """

    def __init__(self, full: Mapping[str, Any]):
        self.full = dict(full)
        self.models: list[Any] = []
        self._memo: dict[tuple[str, str], int] = {}
        self.fits = 0

    def handle(self, header: Mapping[str, Any], arrays: Sequence[np.ndarray]) -> tuple[dict[str, Any], list[np.ndarray]]:
        op = header.get("op")
        if op == "full":
            self.models.append(self.full[header["classifier"]])
            model = self.models[-1]
            return {"handle": len(self.models) - 1, "classes": np.asarray(model.classes_).tolist()}, []
        if op == "fit":
            X, y = arrays
            key = (header["classifier"], _digest(X, y))
            if key not in self._memo:
                model = GRID_CLASSIFIERS[header["classifier"]]().fit(X, y)
                self.fits += 1
                self.models.append(model)
                self._memo[key] = len(self.models) - 1
            h = self._memo[key]
            return {"handle": h, "classes": np.asarray(self.models[h].classes_).tolist()}, []
        if op == "predict":
            return {}, [np.asarray(self.models[header["handle"]].predict(arrays[0])).astype(np.int64)]
        if op == "predict_proba":
            return {}, [np.asarray(self.models[header["handle"]].predict_proba(arrays[0]), dtype=np.float64)]
        raise ValueError(f"unknown request {op!r} from the worker")


#: The OpenBLAS kernel the worker runs on. The authors' PCA grouping reads the directions of a PCA
#: whose variances can tie (monk-2, where the notebook finds their PCA directions not unique); tied
#: directions come out of LAPACK in an order and a basis that depend on the kernel OpenBLAS picks for
#: the CPU (measured: Haswell and SkylakeX give the groups {5} {2} and {2} {5}, Prescott splits {1,3}).
#: The worker therefore runs on one kernel, Haswell (AVX2), the one the stored results were made with,
#: on every x86-64 CPU that has AVX2 (AVX-512 ones included); elsewhere OpenBLAS picks its own, and
#: the tied rows' groups may differ from the stored ones.
WORKER_BLAS_KERNEL = "Haswell"


def _has_avx2() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return " avx2" in flags


def worker_environment() -> dict[str, str]:
    """The worker's environment: this process's, with OpenBLAS on :data:`WORKER_BLAS_KERNEL` where the
    CPU can run it (x86-64 with AVX2)."""
    env = dict(os.environ)
    if platform.machine().lower() in ("x86_64", "amd64") and _has_avx2():
        env["OPENBLAS_CORETYPE"] = WORKER_BLAS_KERNEL
    return env


def serve(command: Sequence[str], server: ModelServer, *, what: str) -> None:
    """Run the worker ``command`` and answer its requests until it exits; an error names ``what``.
    The worker runs on one OpenBLAS kernel (:func:`worker_environment`)."""
    proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO_ROOT,
                            env=worker_environment())
    assert proc.stdin is not None and proc.stdout is not None
    try:
        while True:
            frame = read_frame(proc.stdout)
            if frame is None:
                break
            reply, arrays = server.handle(*frame)
            proc.stdin.write(encode_frame(reply, arrays))
            proc.stdin.flush()
    finally:
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
        code = proc.wait()
    if code != 0:
        raise RuntimeError(f"the authors' code stopped on {what} (exit code {code}); its messages are above")


# ----------------------------------------------------------------------------- the unit of work
def _load(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The attributes as the grid codes them, the class labels recoded 0..k-1 (in the order of the
    labels, so every model's classes and probabilities are those of the grid's), the labels as the
    data set has them, and the column names."""
    X, y = compendium.data.load(name)
    raw = np.asarray(labels_of(y)).astype(np.int64)
    codes = np.unique(raw, return_inverse=True)[1].astype(np.int64)
    return gr.numeric_matrix(X), codes, raw, [str(c) for c in X.columns]


def _job(name: str, folder: Path, A: np.ndarray, Y: np.ndarray, raw: np.ndarray, names: list[str],
         explain: np.ndarray, **fields: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    part = fields["part"]   # each part its own files: two parts may run on one data set at once
    job = {"dataset": name, "columns": names, "explain": explain.tolist(), "A": f"A-{part}.npy",
           "Y": f"Y-{part}.npy", **fields}
    np.save(folder / job["A"], A)
    np.save(folder / job["Y"], Y)
    if not np.array_equal(raw, Y):
        job["Y_raw"] = f"Y_raw-{part}.npy"
        np.save(folder / job["Y_raw"], raw)
    path = folder / f"job-{part}.json"
    path.write_text(json.dumps(job, indent=1) + "\n")
    return path


class _Game:
    """``v(T) = P_{h_T}(ŷ | x_T) - prior(ŷ)`` on the explained rows for any attribute tuple ``T``,
    repeats allowed (the retrained game of :class:`lib.coalitional.RetrainedGame` for sets)."""

    def __init__(self, clf: str, A: np.ndarray, Y: np.ndarray, model: Any, explain: np.ndarray):
        self.game_of = co.RetrainedGame(GRID_CLASSIFIERS[clf](), A, Y, fitted=model)
        self.clf, self.A, self.Y, self.rows = clf, A, Y, A[explain]
        self.classes = self.game_of.predicted_class(self.rows)
        self.full = self.game_of.game(self.rows, classes=self.classes)      # every coalition, (rows, 2**d)
        self._tuples: dict[tuple[int, ...], np.ndarray] = {}

    def __call__(self, T: tuple[int, ...]) -> np.ndarray:
        if not T:
            return np.zeros(len(self.rows))
        if len(set(T)) == len(T):
            return self.full[:, sum(1 << i for i in T)]
        if T not in self._tuples:   # a repeated attribute: a model fitted on the repeated column
            model = GRID_CLASSIFIERS[self.clf]().fit(self.A[:, list(T)], self.Y)
            proba = model.predict_proba(self.rows[:, list(T)])
            k = np.arange(len(self.rows))
            self._tuples[T] = proba[k, self.classes] - self.game_of.prior[self.classes]
        return self._tuples[T]


def _dedup(groups: Iterable[Sequence[int]]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for g in groups:
        t = tuple(sorted(set(int(i) for i in g)))
        if t and t not in out:
            out.append(t)
    return out


def _influence_row(game: _Game, complete: np.ndarray, theirs: dict[str, Any], ours_groups: Sequence[Sequence[int]],
                   d: int) -> dict[str, Any]:
    """Their coalitional influence on one cell beside the book's (see the columns of the CSVs)."""
    book = co.coalitional_influence(game.full, ours_groups, overlap="size-factorial")
    row: dict[str, Any] = {"book error printed": float(co.error_printed(book, complete).mean())}
    if theirs.get("failure"):
        return {**row, "their failure": theirs["failure"]}
    phi = np.asarray(theirs["influence"], dtype=float)
    returned = [g for g in theirs["groups"] if len(g)]
    rebuilt = coalitional_as_their_code(game, [g for g in theirs["effective"] if len(g)], d)
    return {**row, "their failure": "",
            "their error printed": float(co.error_printed(phi, complete).mean()),
            "max |theirs - book|": float(np.abs(phi - book).max()),
            "max |theirs - Eq. (F4) on their groups|":
                float(np.abs(phi - co.coalitional_influence(game.full, _dedup(returned),
                                                            overlap="size-factorial")).max()),
            "max |theirs - Eq. (F4), plain mean over groups|":
                float(np.abs(phi - co.coalitional_influence(game.full, _dedup(returned), overlap="mean")).max()),
            "max |theirs - their combination rebuilt|": float(np.abs(phi - rebuilt).max())}


def _start(name: str, part: str, parts: Path, python: Path, code: Path, classifiers: Sequence[str],
           n_explain: int, seed: int, **fields: Any) -> tuple[dict[str, Any], Any]:
    """Write the job of ``part`` for data set ``name``, run the worker on it while serving its requests
    with the book's classifiers, and return what it found with the data as the book's side reads it."""
    A, Y, raw, names = _load(name)
    n, d = A.shape
    explain = explained_rows(n, d, n_explain, seed)
    folder = parts / name.removeprefix("keel-")
    job = _job(name, folder, A, Y, raw, names, explain, part=part, classifiers=list(classifiers), **fields)
    models = {c: GRID_CLASSIFIERS[c]().fit(A, Y) for c in classifiers}
    out = folder / f"theirs-{part}.json"
    serve([str(python), str(WORKER), "--code", str(code), "--job", str(job), "--out", str(out)],
          ModelServer(models), what=f"{name} ({part})")
    data = {"label": name.removeprefix("keel-"), "A": A, "Y": Y, "raw": raw, "n": n, "d": d, "explain": explain,
            "models": models, "folder": folder}
    return data, json.loads(out.read_text())


def _write_part(folder: Path, file: str, rows: list[dict[str, Any]]) -> None:
    tmp = folder / f"{file}.tmp"
    pd.DataFrame(rows).to_csv(tmp, index=False, float_format="%.17g", lineterminator="\n")
    tmp.replace(folder / f"{file}.csv")


def algorithm2_on(components: np.typing.ArrayLike, alpha: float) -> Groups:
    """The book's Algorithm 2 (:func:`lib.grouping.pca_groups`) applied to given principal directions
    (rows of ``components``): run on centred data built to have exactly these directions, with
    distinct variances, so that the book's code reads them as they are. A demonstration, not a method."""
    V = np.asarray(components, dtype=float)
    d = V.shape[1]
    if V.shape != (d, d):
        raise ValueError(f"components must be a square matrix of directions, got shape {V.shape}")
    Z = np.random.default_rng(0).normal(size=(4 * d, d))
    Q, _ = np.linalg.qr(Z - Z.mean(axis=0))                      # orthonormal columns of mean zero
    return gr.pca_groups(Q @ np.diag(np.arange(d, 0, -1.0)) @ V, alpha)


def same_eigenspaces(X: Any, components: np.typing.ArrayLike, *, atol: float = 1e-8) -> bool:
    """Whether ``components`` (rows, by decreasing variance) span the same principal subspaces as the
    data's own: the same orthogonal projector on each cluster of tied singular values
    (:func:`lib.grouping.tied_components`) and on each single one."""
    A = gr.numeric_matrix(X)
    A = A - A.mean(axis=0)
    _, sv, vt = np.linalg.svd(A, full_matrices=False)
    W = np.asarray(components, dtype=float)
    if W.shape != vt.shape:
        return False
    tied = gr.tied_components(sv)
    clusters = tied + [(i,) for i in range(len(sv)) if not any(i in c for c in tied)]
    for c in clusters:
        P, R = vt[list(c)].T @ vt[list(c)], W[list(c)].T @ W[list(c)]
        if not np.allclose(P, R, atol=atol, rtol=0):
            return False
    return True


def run_groups(name: str, *, python: Path, code: Path, parts: Path = PARTS, classifiers: Sequence[str] = CLASSIFIERS,
               alphas: Sequence[float] = ALPHAS, n_explain: int = N_EXPLAIN, seed: int = SEED) -> Path:
    """One data set, part ``groups``: the authors' five data-driven groupings beside the book's, and their
    complete influence beside ``lib.coalitional`` and the exact value by enumeration of the orderings;
    ``parts/<data set>/groups.csv`` and ``complete.csv``."""
    data, theirs = _start(name, "groups", parts, python, code, classifiers, n_explain, seed, alphas=list(alphas),
                          methods={m: list(v) for m, v in DATA_METHODS.items()})
    A, Y, raw, d, explain = data["A"], data["Y"], data["raw"], data["d"], data["explain"]
    components = np.asarray(theirs["pca components"], dtype=float)
    eigenspaces = same_eigenspaces(A, components)
    group_rows, complete_rows = [], []
    for cell in theirs["groups"]:
        method, alpha = cell["method"], cell["alpha"]
        start = time.process_time()
        ours = gr.find_groups(A, method, alpha)
        book_seconds = time.process_time() - start
        pca = method == "PCA"
        group_rows.append({
            "data set": data["label"], "n attributes": d, "method": method, "alpha": alpha,
            "their groups": format_groups(cell["groups"]), "book groups": format_groups(ours),
            **match_groups(cell["groups"], ours), "their groups repeat an attribute": repeats(cell["groups"]),
            "their failure": cell["failure"],
            "PCA directions unique": gr.pca_is_determined(A) if pca else None,
            "their PCA directions span the book's eigenspaces": eigenspaces if pca else None,
            "Algorithm 2 on their PCA directions": format_groups(algorithm2_on(components, alpha)) if pca else "",
            "their CPU s": cell["seconds"], "book CPU s": book_seconds})
    for clf in classifiers:
        part = theirs["classifiers"][clf]
        game = _Game(clf, A, Y, data["models"][clf], explain)
        complete = co.complete_influence(game.full)
        exact = shapley_by_orderings(game.full)
        mine = np.asarray(part["complete"], dtype=float)
        complete_rows.append({
            "data set": data["label"], "n attributes": d, "rows": data["n"], "classifier": clf,
            "explained": len(explain),
            "max |theirs - lib|": float(np.abs(mine - complete).max()),
            "max |lib - orderings|": float(np.abs(complete - exact).max()),
            "max |theirs - orderings|": float(np.abs(mine - exact).max()),
            "max |sum of theirs - inf_A|": float(np.abs(mine.sum(axis=1) - game.full[:, -1]).max()),
            "class labels": ("0..k-1" if np.array_equal(raw, Y) else
                             "recoded 0..k-1 from " + " ".join(str(v) for v in np.unique(raw))),
            "their run on the data set's labels": part["raw labels"],
            "their run on rows labelled as in the data set": part["labelled rows"],
            "their CPU s": part["complete seconds"]})
    _write_part(data["folder"], "groups", group_rows)
    _write_part(data["folder"], "complete", complete_rows)
    return data["folder"]


def run_influence(name: str, *, python: Path, code: Path, parts: Path = PARTS,
                  classifiers: Sequence[str] = CLASSIFIERS, alphas: Sequence[float] = ALPHAS,
                  n_explain: int = N_EXPLAIN, seed: int = SEED) -> Path:
    """One data set, part ``influence``: the authors' coalitional influence on each of their data-driven
    groupings beside Eq. (F4) (``lib.coalitional``) on theirs and on the book's; ``parts/<data set>/influence.csv``."""
    data, theirs = _start(name, "influence", parts, python, code, classifiers, n_explain, seed, alphas=list(alphas),
                          methods={m: list(v) for m, v in DATA_METHODS.items()})
    A, Y, d = data["A"], data["Y"], data["d"]
    book = {(m, a): gr.find_groups(A, m, a) for m in DATA_METHODS for a in alphas}
    rows = []
    for clf in classifiers:
        game = _Game(clf, A, Y, data["models"][clf], data["explain"])
        complete = co.complete_influence(game.full)
        for cell in theirs["classifiers"][clf]["cells"]:
            rows.append({"data set": data["label"], "n attributes": d, "classifier": clf, "method": cell["method"],
                         "alpha": cell["alpha"],
                         **_influence_row(game, complete, cell, book[cell["method"], cell["alpha"]], d),
                         "their CPU s": cell["seconds"]})
    _write_part(data["folder"], "influence", rows)
    return data["folder"]


def run_model(name: str, *, python: Path, code: Path, parts: Path = PARTS, classifiers: Sequence[str] = MODEL_CLASSIFIERS,
              alphas: Sequence[float] = MODEL_ALPHAS, seeds: Sequence[int] = MODEL_SEEDS, n_explain: int = N_EXPLAIN,
              seed: int = SEED, fidelity_rows: int = FIDELITY_ROWS) -> Path:
    """One data set, part ``model``: the authors' model-based method (their random draws seeded with each
    of ``seeds``) beside the book's Algorithm 1 and Eq. (F4); ``parts/<data set>/model.csv``."""
    data, theirs = _start(name, "model", parts, python, code, classifiers, n_explain, seed, alphas=list(alphas),
                          seeds=list(seeds), witness_rows=WITNESS_ROWS)
    A, Y, d = data["A"], data["Y"], data["d"]
    rows = []
    for clf in classifiers:
        model = data["models"][clf]
        game = _Game(clf, A, Y, model, data["explain"])
        complete = co.complete_influence(game.full)
        labels = np.asarray(model.predict(A))
        contiguous = bool(np.array_equal(np.unique(labels), np.arange(len(np.unique(labels)))))
        book: dict[float, tuple[Groups, float]] = {}
        for cell in theirs["model"][clf]:
            if cell["alpha"] not in book:
                start = time.process_time()
                groups = gr.find_groups(A, "Model", cell["alpha"], predict=model.predict, seed=seed,
                                        fidelity_rows=fidelity_rows, progress=False)
                book[cell["alpha"]] = groups, time.process_time() - start
            ours, book_seconds = book[cell["alpha"]]
            theirs_groups = cell.get("groups", [])
            rows.append({"data set": data["label"], "n attributes": d, "rows": data["n"], "classifier": clf,
                         "alpha": cell["alpha"], "their seed": cell["seed"],
                         "their groups": format_groups(theirs_groups), "book groups": format_groups(ours),
                         **match_groups(theirs_groups, ours), "predicted classes are 0..k-1": contiguous,
                         **_influence_row(game, complete, cell, ours, d),
                         "modelbased_method itself": cell.get("witness", ""),
                         "their CPU s": cell["seconds"], "book CPU s": book_seconds})
    _write_part(data["folder"], "model", rows)
    return data["folder"]


#: The parts of a run, in order: the function of one data set, its part files, the stored tables.
PARTS_OF_A_RUN: Mapping[str, tuple[Callable[..., Path], tuple[str, ...]]] = {
    "groups": (run_groups, ("complete", "groups")),
    "influence": (run_influence, ("influence",)),
    "model": (run_model, ("model",)),
}
#: Data sets on which the model part also runs the authors' ``modelbased_method`` itself (it explains every
#: row of the data set) once, at the first classifier, threshold and seed, to show that the two steps run
#: for every cell compute what it computes.
WITNESS_ROWS = 500


def part_done(name: str, part: str, *, parts: Path = PARTS) -> bool:
    folder = parts / name.removeprefix("keel-")
    return all((folder / f"{f}.csv").is_file() for f in PARTS_OF_A_RUN[part][1])


# ----------------------------------------------------------------------------- gathering and reading
#: Columns of rounding noise (differences of two computations of one number): rounded to 12 places
#: when stored, so that the bytes do not follow the last bits of a BLAS kernel.
_DECIMALS = 12


def _stored(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    floats = [c for c in out.columns if out[c].dtype.kind == "f" and not c.endswith("CPU s")]
    out[floats] = out[floats].round(_DECIMALS)
    return out


def gather(names: Sequence[str], part: str, *, parts: Path = PARTS, versions: pd.DataFrame | None = None,
           root: Path | None = None) -> list[str]:
    """Concatenate the files of ``part`` of the data sets ``names`` (in that order) into ``data/derived/``
    (``coal-authors-<file>.csv``, noise columns rounded to 12 places); the paths written."""
    written = []
    for file in PARTS_OF_A_RUN[part][1]:
        frames = [pd.read_csv(parts / n.removeprefix("keel-") / f"{file}.csv", keep_default_na=False,
                              na_values=[""]) for n in names]
        table = _stored(pd.concat(frames, ignore_index=True))
        for column in TEXT_COLUMNS:
            if column in table.columns:
                table[column] = _text(table[column])
        written.append(stable.write_derived(table, f"coal-authors-{file}.csv", float_format="%.12g", root=root))
    if versions is not None:
        written.append(stable.write_derived(versions, "coal-authors-versions.csv", root=root))
    return written


def versions_table(python: Path, code: Path) -> pd.DataFrame:
    """The side environment's Python and packages (asked of its interpreter) and the sha256 of the
    authors' files that ran."""
    probe = ("import sys, json, importlib.metadata as md; "
             "print(json.dumps({'python': '.'.join(map(str, sys.version_info[:3])), "
             "**{p: md.version(p) for p in sys.argv[1:]}}))")
    packages = [p.split("==")[0] for p in PINS]
    done = subprocess.run([str(python), "-c", probe, *packages], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    rows = [{"what": "side environment", "name": k, "version or sha256": v} for k, v in found.items()]
    rows += [{"what": "authors' code", "name": "commit", "version or sha256": CODE_COMMIT}]
    rows += [{"what": "authors' code", "name": f, "version or sha256": h} for f, h in code_digests(code).items()]
    return pd.DataFrame(rows)


def read(name: str, root: Path = STORED_IN) -> pd.DataFrame:
    """A stored table of this result (``coal-authors-<name>.csv``); a missing file says how to make it."""
    path = root / f"coal-authors-{name}.csv"
    if not path.is_file():
        part = next((p for p, (_, files) in PARTS_OF_A_RUN.items() if name in files), "groups")
        raise FileNotFoundError(f"{path.name} is not stored in data/derived/: run `{COMMAND} --part {part}`")
    table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    for column in TEXT_COLUMNS:
        if column in table.columns:
            table[column] = _text(table[column])
    return table


def fails_on_repeats(groups: Sequence[Sequence[int]], d: int) -> bool:
    """Whether the authors' coalitional influence must stop on these groups: a group that names an
    attribute twice and has at least ``d`` entries is a subset for which their ``train_models`` fits
    no model (it fits the subsets of fewer than ``d`` entries and uses the explained model for all
    ``d`` attributes), so their ``compute_instance_coal_inf`` subtracts from a missing value (``None``)."""
    return any(len(g) >= d and len(set(g)) < len(g) for g in groups)


def with_groups(table: pd.DataFrame, groups: pd.DataFrame) -> pd.DataFrame:
    """The cells of ``coal-authors-influence.csv`` with the groups of ``coal-authors-groups.csv`` beside
    them (their groups, the book's, whether they repeat an attribute, whether they are identical)."""
    keys = ["data set", "method", "alpha"]
    columns = keys + ["their groups", "book groups", "identical", "their groups repeat an attribute"]
    out = table.merge(groups[columns], on=keys, how="left", validate="many_to_one")
    if out["their groups"].isna().any():
        raise ValueError("coal-authors-influence.csv has cells that coal-authors-groups.csv does not: rerun "
                         f"`{COMMAND}`")
    out["their code ran"] = out["their failure"] == ""
    return out


#: Columns of text that may be empty (an empty cell is an empty text, not a missing number).
TEXT_COLUMNS = ("their failure", "only theirs", "only ours", "Algorithm 2 on their PCA directions",
                "modelbased_method itself")


def _text(column: pd.Series) -> pd.Series:
    """A text column read back from CSV: empty cells (NaN) are empty texts."""
    return column.astype(object).where(column.notna(), "")


#: The files each part of ``scripts/coal_authors.py`` writes (``coal-authors-<name>.csv``).
PART_FILES = {"groups": ("versions", "complete", "groups"), "influence": ("influence",), "model": ("model",)}


def units() -> list[Result]:
    """The stored results of ``scripts/coal_authors.py``: one per part (groups, influence, model).

    Only the groups part is in CI's cheap set (about two CPU minutes with the side environment
    built); the influence part takes six, the model part about half an hour. The CPU-time columns
    vary from run to run; everything else regenerates byte for byte.
    """
    keel_sets = tuple(compendium.data.names("keel"))
    notes = {"model": "the authors' fidelity rebuilds a 2500-row table one row at a time: about half an hour of CPU"}
    return [Result("coal-authors" + ("" if part == "groups" else f"-{part}"),
                   ("scripts/coal_authors.py", "--part", part, "--force"),
                   tuple(f"coal-authors-{name}.csv" for name in files), keel_sets, variable={"* CPU s": None},
                   engine=True, side_env=SIDE_NAME, cheap=part == "groups", note=notes.get(part, ""),
                   shown_in=("notebooks/05-coalitional-explanations/05-authors-code",))
            for part, files in PART_FILES.items()]
