"""The exact engine's fast path: discretised data, each distinct hybrid row evaluated once.

Private to :mod:`lib.shapley`, which takes this path for arrays of integers or booleans and
for DataFrames (categorical columns compared through their codes), and the reference path
(the game's ``2**d`` values, then the Shapley formula) for everything else.  Both compute
the interventional Shapley values (book eqs. ``eq-found-interventional`` and
``eq-found-shapley``); they agree to ``1e-12`` (``lib/tests/test_shapley_paths.py``), and
each gives the same bits on any CPU: here every sum runs in a fixed order, in compiled loops
without fast-math.

Why it is faster.  The game of row ``x`` is the mean over the background rows ``b`` of the
games ``g_b(S) = f(x_S, b_{-S})``, and the Shapley value is linear, so
``φ(v_x) = (1/m) Σ_b φ(g_b)``.  In ``g_b`` the features ``E(b)`` on which ``b`` equals ``x``
are null players (adding one changes no row): ``φ_j(g_b) = 0`` for ``j ∈ E(b)``, and on the
``k`` *free* features ``F = E(b)^c`` ``φ(g_b)`` is the Shapley value of a game of ``k``
players, whose ``2**k`` values are the model's outputs on the rows ``(x_{E∪U}, b_{-(E∪U)})``,
``U ⊆ F``.  On discretised data ``k`` is often much smaller than ``d``, and many of those rows
coincide across pairs ``(x, b)``: each distinct row is evaluated once.

The steps, for a chunk of pairs ``p = i m + b`` (explained row ``i``, background row ``b``):

1. :func:`_plan` lists each pair's positions (one per ``U ⊆ F``), gives every position the
   *label* of its row (equal rows, equal labels: exact integer keys of the rows' codes, in a
   hash table) and returns, per label, the first position that has it (its representative);
2. the model is called on the representatives' rows (:func:`_rows` for arrays of a numba type,
   the game's :meth:`lib.games.Game.hybrid` otherwise), at most ``max_rows_per_call`` at a time;
3. :func:`_pair_shapley` reads each pair's ``2**k`` outputs through the labels and adds
   ``φ(g_b)`` to row ``i``'s values, pair after pair in a fixed order.

How the pairs are cut into chunks (memory) or the model calls into pieces changes which
rows the model is asked twice, never a sum: the values do not depend on it.

The compiled loops are cached on disk (numba ``cache=True``) so that a new process (a
notebook's kernel, a Binder session) loads them instead of compiling them again: beside this
file, or, when the package folder is read-only, in a user cache folder (see
:func:`_cache_folder`); where no folder can be written they are compiled in memory, with a
warning.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd

from lib.games import Game, bitmask_rows, evaluate

ArrayOrFrame = np.ndarray | pd.DataFrame

#: Positions (pairs times the subsets of their free features) planned at once: bounds the
#: memory of one chunk (about 40 bytes each); a single pair may exceed it.
MAX_POSITIONS = 2**22


def _writable(folder: Path) -> bool:
    """Whether ``folder`` exists or can be created, and a file can be written in it (numba's test)."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _cache_folder() -> bool:
    """Whether numba can cache the compiled loops; sets ``numba.config.CACHE_DIR`` if it must.

    numba caches beside this file (``lib/__pycache__``) or in ``NUMBA_CACHE_DIR`` when that is
    set; both are used as they are when writable.  Otherwise (a read-only package folder, as in
    Binder images), the first writable of a user cache folder (``$XDG_CACHE_HOME`` or
    ``~/.cache``, then ``shapley-book-numba``) and a folder of the user's own in the temporary
    directory becomes numba's ``CACHE_DIR``.  If none can be written: ``False`` (and a warning),
    and the loops are compiled in memory in each process.
    """
    given = numba.config.CACHE_DIR
    if given and _writable(Path(given)):
        return True
    if _writable(Path(__file__).resolve().parent / "__pycache__"):
        return True
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    getuid = getattr(os, "getuid", lambda: 0)
    for folder in (Path(home) / "shapley-book-numba",
                   Path(tempfile.gettempdir()) / f"shapley-book-numba-{getuid()}"):
        # a folder of the temporary directory must be the user's own: numba loads what it finds there
        if _writable(folder) and folder.stat().st_uid == getuid() and not folder.stat().st_mode & 0o022:
            numba.config.CACHE_DIR = str(folder)
            return True
    warnings.warn("no writable folder for numba's cache (the package folder, NUMBA_CACHE_DIR, ~/.cache and the "
                  "temporary directory are read-only): the exact engine's compiled loops are compiled in memory, "
                  "a few seconds in each new process; set NUMBA_CACHE_DIR to a writable folder to avoid it",
                  RuntimeWarning, stacklevel=2)
    return False


_jit = numba.njit(cache=_cache_folder(), nogil=True)


def _row_builder(game: Game) -> Callable[[np.ndarray, np.ndarray, np.ndarray], Any]:
    """``build(inst, b, T)``: the rows ``(x_T, b_{-T})`` of explained rows ``inst``, as the model
    takes them: the game's builder (:meth:`lib.games.Game.hybrid`), or for arrays of a numba type
    the same rows from the bitmasks in a compiled loop."""
    X, background, d = game.X, game.background, game.d
    if game.is_frame:
        return lambda inst, b, T: game.hybrid(inst, bitmask_rows(T, d), b)
    dtype = np.result_type(X.dtype, background.dtype)
    Xc, Bc = np.ascontiguousarray(X, dtype=dtype), np.ascontiguousarray(background, dtype=dtype)
    if dtype.kind in "biu" or (dtype.kind == "f" and dtype.itemsize >= 4):  # a numba type
        return lambda inst, b, T: _rows(Xc, Bc, inst, b, T)
    return lambda inst, b, T: game.hybrid(inst, bitmask_rows(T, d), b)


def shapley_values(game: Game, progress: Callable[[float], Any] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact interventional Shapley values of every row of ``X``, from each distinct hybrid row once.

    Book: :ref:`eq-found-interventional`, :ref:`eq-found-shapley` (book/foundations.md).

    ``game`` as :func:`lib.shapley.exact_shapley` built it (``d <= 62``); the model rows go
    through :meth:`lib.games.Game.f` (counted), the codes of the values are the game's
    (:attr:`lib.games.Game.codes`, where ``x`` and ``b`` agree).  Returns ``values`` ``(n, d[, k])``, ``base`` ``(n[, k])`` (the mean of ``f`` over the
    background) and ``outputs`` ``(n[, k])`` (``f(x)``), ``k`` outputs if the model returns
    ``(rows, k)``.  See the module docstring for the method.
    """
    n, d, m = game.n, game.d, game.m
    f, max_rows_per_call = game.f, game.max_rows_per_call
    cx, cb = game.codes
    build = _row_builder(game)
    values = base = outputs = None
    one_output = False
    p0 = 0
    while p0 < n * m:
        p1, agree, offsets, labels, inst, b, T = _plan(cx, cb, p0, MAX_POSITIONS)
        out = _outputs(f, build, inst, b, T, max_rows_per_call)
        if values is None:
            one_output = out.ndim == 1
            k = 1 if one_output else out.shape[1]
            values, base, outputs = np.zeros((n, d, k)), np.zeros((n, k)), np.zeros((n, k))
        elif (out.ndim == 1) != one_output or (not one_output and out.shape[1] != values.shape[2]):
            raise ValueError("the model returned a different number of outputs between calls")
        _pair_shapley(agree, offsets, labels, np.ascontiguousarray(out.reshape(len(out), -1)), p0, m,
                      values, base, outputs)
        if progress is not None:  # in row-coalitions: each pair stands for 2**d of them, over m pairs
            progress((p1 - p0) * 2**d / m)
        p0 = p1
    assert values is not None and base is not None and outputs is not None
    values /= m
    base /= m
    if one_output:
        return values[:, :, 0], base[:, 0], outputs[:, 0]
    return values, base, outputs


def _outputs(f: Callable[[Any], Any], build: Callable[[np.ndarray, np.ndarray, np.ndarray], Any],
             inst: np.ndarray, b: np.ndarray, T: np.ndarray, max_rows_per_call: int) -> np.ndarray:
    """The model's outputs on the representatives' rows, in calls of at most ``max_rows_per_call``."""
    outs = []
    for lo in range(0, len(inst), max_rows_per_call):
        hi = min(len(inst), lo + max_rows_per_call)
        outs.append(evaluate(f, build(inst[lo:hi], b[lo:hi], T[lo:hi]), hi - lo))
    if len({o.shape[1:] for o in outs}) > 1:
        raise ValueError("the model returned a different number of outputs between calls")
    return outs[0] if len(outs) == 1 else np.concatenate(outs)


# ---------------------------------------------------------------------------
# Compiled loops
# ---------------------------------------------------------------------------


@_jit
def _plan(cx, cb, p0, max_positions):  # pragma: no cover - compiled
    """The pairs ``p0 .. p1 - 1`` (``p = i m + b``), their positions and the labels of their rows.

    Pairs are taken from ``p0`` while their positions fit in ``max_positions`` (at least
    one pair).  Pair ``p`` has ``E`` = ``agree[p - p0]`` (bit ``j`` set iff ``x_i`` and ``b``
    have the same code in column ``j``) and the positions ``offsets[p - p0] + u`` for
    ``u = 0 .. 2**k - 1``, where bit ``t`` of ``u`` is the ``t``-th free feature: the row of
    position ``u`` is ``(x_T, b_{-T})`` with ``T = E ∪ U``.  Its key is the mixed-radix number
    of the row's codes (each code minus its column's minimum, times the product of the ranges
    of the columns before), equal iff the rows are equal; the keys are built by doubling over
    the free features.  Labels are given in order of first appearance, through a table indexed
    by the key when the keys span few values, else an open-addressing hash table (Fibonacci
    hashing, linear probing); when the product of the ranges exceeds ``2**62`` (no exact key in
    64 bits) every position is its own label.

    Returns ``p1``, ``agree``, ``offsets`` (one more than the pairs), ``labels`` and, per
    label, its representative's explained row ``inst``, background row ``b`` and ``T``.
    """
    n, d = cx.shape
    m = cb.shape[0]
    # the pairs of this chunk, their agreements and first positions
    p1 = p0
    total = 0
    agree = np.empty(n * m - p0, dtype=np.int64)
    while p1 < n * m:
        i, b = p1 // m, p1 % m
        e = 0
        free = d
        for j in range(d):
            if cx[i, j] == cb[b, j]:
                e |= 1 << j
                free -= 1
        if p1 > p0 and total + (1 << free) > max_positions:
            break
        agree[p1 - p0] = e
        total += 1 << free
        p1 += 1
    offsets = np.empty(p1 - p0 + 1, dtype=np.int64)
    offsets[0] = 0
    for q in range(p1 - p0):
        e = agree[q]
        free = d
        while e:
            e &= e - 1
            free -= 1
        offsets[q + 1] = offsets[q] + (1 << free)
    # the weighted codes whose sums are the row keys
    wx = np.empty((n, d), dtype=np.int64)
    wb = np.empty((m, d), dtype=np.int64)
    exact = True
    radix = 1
    for j in range(d):
        low = min(cx[:, j].min(), cb[:, j].min())
        size = max(cx[:, j].max(), cb[:, j].max()) - low + 1
        wx[:, j] = (cx[:, j] - low) * radix
        wb[:, j] = (cb[:, j] - low) * radix
        if size > (1 << 62) // radix:
            exact = False
            break
        radix *= size
    # the labels' table: indexed by the key itself when the keys span few values (``radix``, one
    # more than the largest), else a hash table of a power of two at least twice the positions,
    # the slot the top bits of the key times 2**64 / golden ratio
    direct = exact and radix <= 4 * total + 1024
    slots, bits = 16, 4
    while slots < 2 * total:
        slots, bits = 2 * slots, bits + 1
    shift = np.uint64(64 - bits)
    table = np.full(radix if direct else slots, -1, dtype=np.int32)
    label_key = np.empty(total, dtype=np.int64)
    labels = np.empty(total, dtype=np.int64)
    rep_inst = np.empty(total, dtype=np.int64)
    rep_b = np.empty(total, dtype=np.int64)
    rep_T = np.empty(total, dtype=np.int64)
    key = np.empty(1 << d, dtype=np.int64)
    T = np.empty(1 << d, dtype=np.int64)
    n_labels = 0
    for q in range(p1 - p0):
        i, b = (p0 + q) // m, (p0 + q) % m
        e = agree[q]
        key[0] = 0
        T[0] = e
        if exact:
            for j in range(d):
                key[0] += wx[i, j] if (e >> j) & 1 else wb[b, j]
        width = 1
        for j in range(d):  # doubling over the free features, in increasing order
            if (e >> j) & 1:
                continue
            for r in range(width):
                key[width + r] = key[r] + wx[i, j] - wb[b, j] if exact else 0
                T[width + r] = T[r] | (1 << j)
            width *= 2
        for r in range(width):
            lab = n_labels
            if direct:
                if table[key[r]] >= 0:
                    lab = table[key[r]]
                else:
                    table[key[r]] = lab
            elif exact:
                slot = (np.uint64(key[r]) * np.uint64(0x9E3779B97F4A7C15)) >> shift
                while table[slot] >= 0 and label_key[table[slot]] != key[r]:
                    slot = (slot + np.uint64(1)) & np.uint64(slots - 1)
                if table[slot] >= 0:
                    lab = table[slot]
                else:
                    table[slot] = lab
                    label_key[lab] = key[r]
            if lab == n_labels:
                rep_inst[lab], rep_b[lab], rep_T[lab] = i, b, T[r]
                n_labels += 1
            labels[offsets[q] + r] = lab
    return (p1, agree[: p1 - p0], offsets, labels, rep_inst[:n_labels], rep_b[:n_labels], rep_T[:n_labels])


@_jit
def _rows(X, background, inst, b, T):  # pragma: no cover - compiled
    """Row ``r`` takes ``X[inst[r]]`` on the features of ``T[r]``, ``background[b[r]]`` elsewhere."""
    rows = np.empty((inst.shape[0], X.shape[1]), dtype=X.dtype)
    for r in range(inst.shape[0]):
        x, w, t = X[inst[r]], background[b[r]], T[r]
        for j in range(X.shape[1]):
            rows[r, j] = x[j] if (t >> j) & 1 else w[j]
    return rows


@_jit
def _pair_shapley(agree, offsets, labels, out, p0, m, values, base, outputs):  # pragma: no cover - compiled
    """Add each pair's ``φ(g_b)``, ``g_b(∅)`` and ``g_b(N)`` to its explained row's sums.

    Book: :ref:`eq-found-shapley` (book/foundations.md).

    For pair ``p = p0 + q`` (explained row ``i``, background row ``b``) with ``k`` free
    features, ``u(U)`` (``U ⊆`` the free features, numbered as the positions of :func:`_plan`)
    is the output of the row of position ``offsets[q] + U``, and the Shapley value of its free
    feature ``a`` is the Shapley formula on ``k`` players with the weights
    ``w(s) = 1 / (k C(k-1, s))``, rewritten as
    ``Σ_{U ∌ a} w(|U|) (u(U ∪ a) - u(U)) = Σ_{U ∋ a} z(U) - Σ_U w(|U|) u(U)``,
    ``z(U) = (w(|U| - 1) + w(|U|)) u(U)`` (``w(-1) = w(k) = 0``).  The sums over ``U ∋ a`` for
    every ``a`` take one pass over ``z`` and halves of it: the sum for the highest free feature
    is the upper half of ``z``, and adding the upper half onto the lower one leaves the same
    problem on one feature fewer.  ``values[i, a]`` gets ``φ_a``, ``base[i]`` gets ``u(∅)`` (the
    output of ``b`` itself) and ``outputs[i]`` is ``u(F)`` (the output of ``x``), pair after
    pair, every sum in a fixed order; the caller divides by ``m``.  ``out`` is ``(labels, k_out)``.
    """
    d = values.shape[1]
    W = np.zeros((d + 1, d + 2))  # W[k, s + 1] = w(s) among k players; W[k, 0] = W[k, k + 1] = 0
    for k in range(1, d + 1):
        c = 1.0  # C(k - 1, s), exact in floats for the d of an enumeration
        for s in range(k):
            W[k, s + 1] = 1.0 / (k * c)
            c = c * (k - 1 - s) / (s + 1)
    size = np.zeros(1 << d, dtype=np.int64)
    for U in range(1, 1 << d):
        size[U] = size[U >> 1] + (U & 1)
    free = np.empty(d, dtype=np.int64)
    z = np.empty(1 << d)
    for q in range(offsets.shape[0] - 1):
        i, e, o = (p0 + q) // m, agree[q], offsets[q]
        width = offsets[q + 1] - o
        k = 0
        for j in range(d):
            if not (e >> j) & 1:
                free[k] = j
                k += 1
        w = W[k]
        for c in range(out.shape[1]):
            base[i, c] += out[labels[o], c]
            outputs[i, c] = out[labels[o + width - 1], c]
            total = 0.0
            for U in range(width):
                u = out[labels[o + U], c]
                total += w[size[U] + 1] * u
                z[U] = (w[size[U]] + w[size[U] + 1]) * u
            half = width
            for t in range(k - 1, -1, -1):
                half //= 2
                upper = 0.0
                for U in range(half):
                    upper += z[half + U]
                    z[U] += z[half + U]
                values[i, free[t], c] += upper - total
