"""How the interventional game is evaluated: hybrid rows, model calls, and the speed-ups.

The private engine room of :mod:`lib.shapley`, which holds the formula, the results and the
public estimators.  The value of a coalition is always the same number,
``v_x(S) = (1/m) Σ_b f(x_S, b_{-S})`` (book eq. ``eq-found-interventional``), the mean of the
model's outputs on the ``m`` hybrid rows in background order; what this module decides is how
those rows are built and which of them the model is asked for:

* :func:`hybrid_rows`, :func:`mix_rows` build hybrid rows of arrays and of DataFrames, and
  :func:`evaluate` calls the model on them and checks what it returns;
* :func:`full_game` evaluates all ``2**d`` coalitions of arrays, either each *distinct*
  hybrid row once (discretised or categorical data; the bookkeeping compiled in
  :mod:`lib._shapley_kernels`) or every row in cache-sized blocks visited in Gray-code
  order; :func:`frame_game_distinct` is the distinct-row path for DataFrames;
* :func:`distinct_shapley` goes from the distinct rows' outputs to the Shapley values
  without the game (what :func:`lib.shapley.exact_shapley` does on discretised data).

The two paths give the same game to the last bit (the same outputs averaged in the same
order), which ``lib/tests/test_shapley.py`` checks; the Shapley values from the pairs are
the same sums in another order, equal up to rounding (checked to ``1e-12``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

Model = Callable[[Any], Any]
ArrayOrFrame = np.ndarray | pd.DataFrame


def bitmask_rows(bitmasks: np.typing.ArrayLike, d: int) -> np.ndarray:
    """Boolean membership rows of coalitions given by their bitmasks.

    ``bitmask_rows(S, d)[j, i]`` is ``True`` iff bit ``i`` of ``S[j]`` is set (player ``i``
    is in the coalition ``S[j]``); shape ``S.shape + (d,)``.  Bitmasks are read as int64,
    so ``d <= 62``.
    """
    if not 0 <= d <= 62:
        raise ValueError(f"bitmasks as int64 hold 0 to 62 players, got d={d}")
    s = np.asarray(bitmasks, dtype=np.int64)
    return ((s[..., None] >> np.arange(d, dtype=np.int64)) & 1).astype(bool)


def mix_rows(xs: pd.DataFrame, donor: pd.DataFrame, keep: np.ndarray) -> pd.DataFrame:
    """Row ``r`` takes ``xs`` where ``keep[r, j]`` is True and ``donor`` elsewhere (aligned rows).

    The one place where the book builds hybrid rows of DataFrames (the interventional
    game, permutation sampling, typical-value replacements).  Column dtypes are kept:
    categorical columns are mixed through their codes; a numerical column that receives
    NaN (e.g. a "missing" replacement) in an integer column becomes float.
    """
    if keep.shape != (len(xs), xs.shape[1]) or len(donor) != len(xs):
        raise ValueError("mix_rows needs aligned frames and a (rows, columns) mask")
    cols = {}
    for j, c in enumerate(xs.columns):
        a, b = xs[c], donor[c]
        if isinstance(a.dtype, pd.CategoricalDtype):
            codes = np.where(keep[:, j], a.cat.codes.to_numpy(), b.cat.codes.to_numpy())
            cols[c] = pd.Categorical.from_codes(codes, dtype=a.dtype)
            continue
        vals = np.where(keep[:, j], a.to_numpy(), b.to_numpy())
        if pd.api.types.is_numeric_dtype(a.dtype) and not pd.api.types.is_bool_dtype(a.dtype):
            try:
                out = vals.astype(a.dtype)
            except (TypeError, ValueError):  # NaN into an integer column
                out = vals.astype(float)
            if out.dtype.kind in "iu" and np.isnan(vals.astype(float)).any():
                out = vals.astype(float)
            cols[c] = out
        else:
            try:
                cols[c] = pd.array(vals, dtype=a.dtype)
            except (TypeError, ValueError):
                cols[c] = vals
    return pd.DataFrame(cols, columns=xs.columns)


def hybrid_rows(
    X: ArrayOrFrame, background: ArrayOrFrame, inst: np.ndarray, member: np.ndarray
) -> ArrayOrFrame:
    """Rows taking ``x`` on the features of a coalition and ``b`` elsewhere.

    ``inst`` (shape ``(r,)``) gives the instance of each of ``r`` hybrid blocks,
    ``member`` (shape ``(r, d)``) the coalition of each block.  Every block is
    repeated over all background rows: the result has ``r * m`` rows, block-major.
    """
    m = background.shape[0]
    if isinstance(X, pd.DataFrame):
        inst_rows = np.repeat(inst, m)
        bg_rows = np.tile(np.arange(m), len(inst))
        return mix_rows(X.iloc[inst_rows], background.iloc[bg_rows], np.repeat(member, m, axis=0))
    rows = np.where(member[:, None, :], X[inst][:, None, :], background[None, :, :])
    return rows.reshape(len(inst) * m, X.shape[1])


def evaluate(f: Model, rows: ArrayOrFrame, n_rows: int) -> np.ndarray:
    """``f(rows)`` as floats, checked: one output (or one row of ``k``) per row, all finite."""
    out = np.asarray(f(rows), dtype=float)
    if out.ndim == 0 or out.shape[0] != n_rows or out.ndim > 2:
        raise ValueError(
            f"the model must map {n_rows} rows to an array of shape ({n_rows},) or "
            f"({n_rows}, k); it returned shape {out.shape}"
        )
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"the model returned NaN or infinite outputs for {int((~np.isfinite(out)).sum())} "
            "of the evaluated rows (e.g. log of a zero probability); explain a finite output"
        )
    return out


# ---------------------------------------------------------------------------
# All 2**d coalitions at once
# ---------------------------------------------------------------------------

#: Target size in bytes of one call's hybrid rows when every row is evaluated: 1 MiB, so
#: that a block and the model's work on it stay in a core's L2 cache (2 MiB on the book's
#: machines, 1 MiB or more on most). With 4 MiB blocks a near-free linear model at d = 10
#: (one 4 MB block per explained row) took 2-3 times as long, the time going to memory
#: traffic; a model with a per-call cost (scikit-learn's gradient boosting, ~0.5 ms a
#: call) pays about 10 % more calls at d = 12 (``benchmarks/exact_engine.py`` measures both).
GRAY_BLOCK_BYTES = 2**20

#: Hybrid rows whose outputs are gathered back at once after deduplication (cache-sized).
GATHER_ELEMENTS = 2**15

#: Bound on the hybrid rows handled at once when deduplicating (memory: about 17 bytes
#: each); rows are distinct-evaluated within such a chunk of explained rows.
DEDUP_MAX_KEYS = 2**22


def _agreement(X: np.ndarray, background: np.ndarray) -> np.ndarray:
    """``E[i, b]``: the bitmask of the features on which background row ``b`` equals ``x_i``."""
    d = X.shape[1]
    bits = np.left_shift(np.int64(1), np.arange(d, dtype=np.int64))
    return ((background[None, :, :] == X[:, None, :]) * bits).sum(axis=2)


def full_game(f: Model, X: np.ndarray, background: np.ndarray, max_rows_per_call: int,
              max_distinct_fraction: float) -> np.ndarray:
    """All ``2**d`` coalition values of every row of the array ``X``: ``(n, 2**d[, k])``.

    Two ways to the same numbers (each ``v_x(S)`` is the mean of the model's outputs on
    the ``m`` hybrid rows ``(x_S, b_{-S})``, in background order, as in
    :func:`lib.shapley.coalition_values`):

    * when many hybrid rows coincide (discretised or categorical data), each *distinct*
      row is evaluated once and the outputs are gathered back before the means
      (:func:`_full_game_distinct`, its loops compiled in :mod:`lib._shapley_kernels`).
      Rows coincide mostly because a background row
      agrees with ``x`` on some features ``E(b)``: then ``(x_S, b_{-S})`` is the row
      ``(x_T, b_{-T})`` with ``T = S ∪ E(b)``, so only the pairs ``(T, b)`` with
      ``T ⊇ E(b)`` need be considered — ``Σ_b 2**(d - |E(b)|)`` rows per explained row,
      counted exactly beforehand to decide whether deduplication pays;
    * otherwise every hybrid row is evaluated, in blocks of ``2**k`` coalitions that share
      their high ``d - k`` features: the ``(2**k, m, d)`` rows of one block are built once
      per explained row, and the blocks are visited in Gray-code order of their high
      features, so that going to the next block rewrites one column (the model must not
      modify its input in place).
    """
    setup = _distinct_setup(X, background, max_distinct_fraction)
    if setup is not None:
        return _full_game_distinct(f, X, background, *setup, max_rows_per_call)
    return _full_game_gray(f, X, background, max_rows_per_call)


def _dedup_plan(X: np.ndarray, background: np.ndarray,
                max_distinct_fraction: float) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None:
    """``(agree, keys)`` when evaluating only the distinct hybrid rows pays, else ``None``.

    Arrays of plain numbers without NaN only, ``d <= 62``, at most ``DEDUP_MAX_KEYS``
    pairs per explained row, and the rows to consider (``Σ_b 2**(d - |E(b)|)`` per
    explained row) at most ``max_distinct_fraction`` of all ``n 2**d m``
    (:data:`lib.shapley.DEDUP_MAX_DISTINCT_FRACTION`).
    ``agree`` as :func:`_agreement`, ``keys`` as :func:`_hybrid_row_keys`.
    """
    n, d = X.shape
    m = background.shape[0]
    if (X.dtype.kind not in "biuf" or background.dtype.kind not in "biuf"
            or (X.dtype.kind == "f" and np.isnan(X).any())
            or (background.dtype.kind == "f" and np.isnan(background).any())
            or 2**d * m > DEDUP_MAX_KEYS or d > 62):
        return None
    try:
        from lib import _shapley_kernels as kern  # numba: a dependency (it comes with shap)
    except ImportError:  # pragma: no cover - without numba, every row is evaluated
        return None
    if X.dtype.kind in "biu" and background.dtype.kind in "biu":
        status, agree, wx, wb = kern.int_plan(np.ascontiguousarray(X, dtype=np.int64),
                                              np.ascontiguousarray(background, dtype=np.int64),
                                              max_distinct_fraction)
        if status == 0:
            return None
        if status == 1:
            return agree, (wx, wb)
    else:
        agree = _agreement(X, background)
        size = np.bitwise_count(agree.astype(np.uint64)).astype(np.int64)
        considered = float(np.ldexp(1.0, d - size).sum())
        if considered > max_distinct_fraction * n * 2**d * m:
            return None
    keys = _hybrid_row_keys(X, background)
    if keys is None:
        return None
    return agree, keys


def _frame_codes(X: pd.DataFrame, background: pd.DataFrame) -> tuple[np.ndarray, np.ndarray] | None:
    """Each column's values as integer codes (equal codes iff equal values), ``(n, d)`` and
    ``(m, d)``; categorical columns by their category codes.  ``None`` if a value is missing."""
    n, m = len(X), len(background)
    code_x = np.empty(X.shape, dtype=np.int64)
    code_b = np.empty(background.shape, dtype=np.int64)
    for j, c in enumerate(X.columns):
        a, b = X[c], background[c]
        if isinstance(a.dtype, pd.CategoricalDtype):
            cx, cb = a.cat.codes.to_numpy(), b.cat.codes.to_numpy()
        else:
            codes, _ = pd.factorize(pd.concat([b, a], ignore_index=True), use_na_sentinel=True)
            cb, cx = codes[:m], codes[m:]
        if (cx < 0).any() or (cb < 0).any():
            return None
        code_x[:, j], code_b[:, j] = cx, cb
    assert code_x.shape == (n, X.shape[1])
    return code_x, code_b


def frame_game_distinct(f: Model, X: pd.DataFrame, background: pd.DataFrame,
                        max_rows_per_call: int, max_distinct_fraction: float) -> np.ndarray | None:
    """:func:`full_game`'s distinct-row path for DataFrames (categorical columns, KEEL
    frames): rows compared through their columns' codes, built with :func:`mix_rows`.
    ``None`` when deduplication does not pay (then every row is evaluated)."""
    setup = _distinct_setup(X, background, max_distinct_fraction)
    if setup is None:
        return None
    return _full_game_distinct(f, X, background, *setup, max_rows_per_call)


#: What the distinct-row paths need: ``agree``, ``keys`` (see :func:`_dedup_plan`),
#: ``build_rows(inst, b, T)`` (the hybrid rows ``(x_T, b_{-T})`` of explained rows ``inst``,
#: as the model takes them) and, for arrays of a numba type, the rows and the background as
#: such arrays (the compiled loops then build the rows themselves).
DistinctSetup = tuple[np.ndarray, tuple[np.ndarray, np.ndarray],
                      Callable[[np.ndarray, np.ndarray, np.ndarray], ArrayOrFrame],
                      tuple[np.ndarray, np.ndarray] | None]


def _distinct_setup(X: ArrayOrFrame, background: ArrayOrFrame,
                    max_distinct_fraction: float) -> DistinctSetup | None:
    """The plan of the distinct-row path for an array or a DataFrame, or ``None`` when
    deduplication does not pay (or a DataFrame has a missing value)."""
    d = X.shape[1]
    if isinstance(X, pd.DataFrame):
        codes = _frame_codes(X, background)
        if codes is None:
            return None
        plan = _dedup_plan(*codes, max_distinct_fraction)
        if plan is None:
            return None
        frame_X, frame_b = X, background

        def build_frame_rows(inst: np.ndarray, b: np.ndarray, T: np.ndarray) -> pd.DataFrame:
            return mix_rows(frame_X.iloc[inst], frame_b.iloc[b], bitmask_rows(T, d))

        return plan[0], plan[1], build_frame_rows, None
    plan = _dedup_plan(X, background, max_distinct_fraction)
    if plan is None:
        return None
    dtype = np.result_type(X.dtype, background.dtype)
    Xc = np.ascontiguousarray(X, dtype=dtype)
    Bc = np.ascontiguousarray(background, dtype=dtype)
    if dtype.itemsize < 4 and dtype.kind == "f":  # float16: not a numba type

        def build_half_rows(inst: np.ndarray, b: np.ndarray, T: np.ndarray) -> np.ndarray:
            return np.where(bitmask_rows(T, d), Xc[inst], Bc[b])

        return plan[0], plan[1], build_half_rows, None

    def build_rows(inst: np.ndarray, b: np.ndarray, T: np.ndarray) -> np.ndarray:
        from lib import _shapley_kernels as kern

        return kern.hybrid_rows(Xc, Bc, inst, b, T)

    return plan[0], plan[1], build_rows, (Xc, Bc)


def distinct_shapley(f: Model, X: ArrayOrFrame, background: ArrayOrFrame, max_rows_per_call: int,
                     max_distinct_fraction: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Exact Shapley values of every row of ``X`` from the distinct hybrid rows, without the game.

    Book: :ref:`eq-found-interventional`, :ref:`eq-found-shapley` (book/foundations.md).

    Where :func:`full_game` would take its distinct-row path (discretised or categorical
    data), the same model outputs give the Shapley values directly: the game is the mean
    over the background of one game per background row, in which the features where the
    background row equals ``x`` are null players, so each background row needs only the
    ``2**k`` coalitions of its ``k`` free features (:func:`lib._shapley_kernels.pair_shapley`)
    instead of all ``2**d`` coalitions times ``m`` rows for the means.  The model sees the
    same distinct rows as on that path, once each.  Returns ``(values, base, outputs)``:
    ``(n, d[, k])``, ``(n[, k])`` and ``(n[, k])`` — ``base`` and ``outputs`` the same numbers
    as the game's ``v(∅)`` and ``v(N)``, ``values`` equal to :func:`lib.shapley.shapley_from_game`
    of the game up to rounding (another order of the same sums) — or ``None`` when that
    path does not pay.
    """
    from lib import _shapley_kernels as kern

    n, d = X.shape
    m = background.shape[0]
    if (not isinstance(X, pd.DataFrame) and X.dtype.kind in "biu" and background.dtype.kind in "biu"
            and d <= 62 and n * m * 2**d <= min(max_rows_per_call, DEDUP_MAX_KEYS)):
        # integer rows, one chunk, one model call: the plan, the keys, the labels and the
        # rows in one compiled call (what follows does the same in several steps)
        dtype = np.result_type(X.dtype, background.dtype)
        Xc, Bc = np.ascontiguousarray(X, dtype=dtype), np.ascontiguousarray(background, dtype=dtype)
        Xi = Xc if dtype == np.int64 else Xc.astype(np.int64)
        Bi = Bc if dtype == np.int64 else Bc.astype(np.int64)
        status, agree, offsets, codes, rows = kern.int_pair_rows(Xi, Bi, Xc, Bc, max_distinct_fraction)
        if status == 0:
            return None
        if status == 1:
            out = evaluate(f, rows, len(rows))
            values, base, outputs = kern.pair_shapley(offsets, codes, np.ascontiguousarray(out), agree, d)
            if out.ndim == 1:
                return values[:, :, 0], base[:, 0], outputs[:, 0]
            return values, base, outputs
    setup = _distinct_setup(X, background, max_distinct_fraction)
    if setup is None:
        return None
    agree, (wx, wb), build_rows, numba_rows = setup
    wb = np.ascontiguousarray(wb, dtype=np.int64)
    step = max(1, DEDUP_MAX_KEYS // (2**d * m))
    values = base = outputs = None
    for start in range(0, n, step):
        stop = min(n, start + step)
        E = np.ascontiguousarray(agree[start:stop], dtype=np.int64)
        wxc = np.ascontiguousarray(wx[start:stop], dtype=np.int64)
        if numba_rows is not None and (stop - start) * m * 2**d <= max_rows_per_call:
            # at most max_rows_per_call positions, hence distinct rows: one model call
            offsets, codes, rows = kern.pair_plan_rows(E, wxc, wb, d, *numba_rows, start)
            out = evaluate(f, rows, len(rows))
        else:
            offsets, codes, inst, b, T = kern.pair_plan(E, wxc, wb, d)
            out = _evaluate_representatives(f, build_rows, start + inst, b, T, max_rows_per_call)
        if values is None:
            k = out.shape[1:]
            values, base, outputs = np.zeros((n, d) + k), np.empty((n,) + k), np.empty((n,) + k)
        elif out.shape[1:] != values.shape[2:]:
            raise ValueError("the model returned a different number of outputs between calls")
        assert base is not None and outputs is not None
        chunk, chunk_base, chunk_outputs = kern.pair_shapley(offsets, codes, np.ascontiguousarray(out), E, d)
        values[start:stop] = chunk.reshape(values[start:stop].shape)
        base[start:stop] = chunk_base.reshape(base[start:stop].shape)
        outputs[start:stop] = chunk_outputs.reshape(outputs[start:stop].shape)
    assert values is not None and base is not None and outputs is not None
    return values, base, outputs


def _full_game_gray(f: Model, X: np.ndarray, background: np.ndarray, max_rows_per_call: int) -> np.ndarray:
    n, d = X.shape
    m = background.shape[0]
    # a block of hybrid rows of about GRAY_BLOCK_BYTES: few enough model calls that a
    # model's per-call cost is small (scikit-learn's trees: ~0.5 ms), small enough to stay
    # in cache between its construction and the model call
    rows_per_call = min(max_rows_per_call, max(1, GRAY_BLOCK_BYTES // (8 * d)))
    k = 0
    while k < d and 2 ** (k + 1) * m <= rows_per_call:
        k += 1
    n_low, n_high = 2**k, 2 ** (d - k)
    # when a whole game fits in a block, several explained rows share one model call
    group = max(1, rows_per_call // (n_low * m)) if k == d else 1
    dtype = np.result_type(X.dtype, background.dtype)
    result: np.ndarray | None = None
    for start in range(0, n, group):
        stop = min(n, start + group)
        # the block of the 2**k low coalitions of each explained row, by doubling: copy
        # the first half, then put x in the column of the new feature (no masks)
        buf = np.empty((stop - start, n_low, m, d), dtype=dtype)
        for g, x in enumerate(X[start:stop]):
            buf[g, 0] = background
            for j in range(k):
                h = 1 << j
                buf[g, h : 2 * h] = buf[g, :h]
                buf[g, h : 2 * h, :, j] = x[j]
        rows = buf.reshape(-1, d)
        x = X[start]                                   # group > 1 only when n_high == 1
        hi = 0
        for t in range(n_high):
            if t:
                j = k + ((t & -t).bit_length() - 1)   # the bit a Gray code flips at step t
                hi ^= 1 << (j - k)
                buf[0, :, :, j] = x[j] if (hi >> (j - k)) & 1 else background[:, j]
            out = evaluate(f, rows, len(rows))
            means = out.reshape((stop - start, n_low, m) + out.shape[1:]).mean(axis=2)
            if result is None:
                result = np.empty((n, 2**d) + means.shape[2:])
            elif means.shape[2:] != result.shape[2:]:
                raise ValueError("the model returned a different number of outputs between calls")
            result[start:stop, hi * n_low:(hi + 1) * n_low] = means
    assert result is not None
    return result


def _hybrid_row_keys(X: np.ndarray, background: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact integer keys of hybrid rows: ``key(x_S, b_{-S}) = Σ_{j∈S} wx[i, j] + Σ_{j∉S} wb[b, j]``.

    Each feature's values (in the background and in ``X``) are coded ``0 .. c_j - 1``
    (integers: minus their minimum; others: their rank among the distinct values);
    the hybrid row gets the mixed-radix number of its codes ``Σ_j code_j Π_{l<j} c_l``,
    so two hybrid rows have the same key if and only if they are equal.  Returns
    ``(wx, wb)``, the codes times the radices, ``(n, d)`` and ``(m, d)``; ``None`` if the
    radix product exceeds ``2**62`` (no exact key in 64 bits).
    """
    n, d = X.shape
    m = background.shape[0]
    if X.dtype.kind in "iub" and background.dtype.kind in "iub":
        # small integers (part indices, category codes): the code is the value minus the
        # column's minimum, no sorting
        both = np.concatenate([background, X]).astype(np.int64)
        low, high = both.min(axis=0), both.max(axis=0)
        sizes = [int(h) - int(lo) + 1 for lo, h in zip(low, high)]
        if math.prod(sizes) <= 2**62:
            radix = np.array([math.prod(sizes[:j]) for j in range(d)], dtype=np.int64)
            weighted = (both - low) * radix
            return weighted[m:], weighted[:m]
    code_x = np.empty((n, d), dtype=np.int64)
    code_b = np.empty((m, d), dtype=np.int64)
    radix = np.empty(d, dtype=np.int64)
    product = 1
    for j in range(d):
        values, inverse = np.unique(np.concatenate([background[:, j], X[:, j]]), return_inverse=True)
        code_b[:, j], code_x[:, j] = inverse[:m], inverse[m:]
        radix[j] = product
        product *= len(values)
        if product > 2**62:
            return None
    return code_x * radix, code_b * radix


def _evaluate_representatives(f: Model, build_rows: Callable[[np.ndarray, np.ndarray, np.ndarray], ArrayOrFrame],
                              inst: np.ndarray, b: np.ndarray, T: np.ndarray, max_rows_per_call: int) -> np.ndarray:
    """The model's outputs on the rows ``(x_T, b_{-T})`` of explained rows ``inst``, in calls of at
    most ``max_rows_per_call`` rows, checked to have the same number of outputs each."""
    outs = []
    for lo in range(0, len(inst), max_rows_per_call):
        sel = slice(lo, lo + max_rows_per_call)
        rows = build_rows(inst[sel], b[sel], T[sel])
        outs.append(evaluate(f, rows, len(rows)))
    if len({o.shape[1:] for o in outs}) > 1:
        raise ValueError("the model returned a different number of outputs between calls")
    return np.concatenate(outs) if len(outs) > 1 else outs[0]


def _full_game_distinct(f: Model, X: ArrayOrFrame, background: ArrayOrFrame, agree: np.ndarray,
                        keys: tuple[np.ndarray, np.ndarray],
                        build_rows: Callable[[np.ndarray, np.ndarray, np.ndarray], ArrayOrFrame],
                        numba_rows: tuple[np.ndarray, np.ndarray] | None, max_rows_per_call: int) -> np.ndarray:
    """All ``2**d`` coalition values, each distinct hybrid row evaluated once.

    ``agree`` and ``keys`` as from :func:`_agreement` and :func:`_hybrid_row_keys` (on the
    rows themselves, or on codes of a DataFrame's columns); ``build_rows(inst, b, T)``
    returns the hybrid rows ``(x_T, b_{-T})`` of explained rows ``inst`` for the model;
    ``numba_rows``, the rows and the background as arrays of a numba type, lets the compiled
    pairs also build the rows when one model call takes them all (fewer calls into numba).
    The bookkeeping runs in the compiled loops of :mod:`lib._shapley_kernels`; the means
    over the background are numpy's, over the same outputs in the same order as when
    every hybrid row is evaluated.
    """
    from lib import _shapley_kernels as kern

    n, d = X.shape
    m = background.shape[0]
    wx, wb = keys
    wb = np.ascontiguousarray(wb, dtype=np.int64)
    n_coal = 2**d
    step = max(1, DEDUP_MAX_KEYS // (n_coal * m))
    result: np.ndarray | None = None
    for start in range(0, n, step):
        stop = min(n, start + step)
        c = stop - start
        E = np.ascontiguousarray(agree[start:stop], dtype=np.int64)                # (c, m)
        # the pairs (T, b) with T ⊇ E(b) (every hybrid row is the row of one of them),
        # the label of each pair's row, and each label's representative (the row the
        # model sees: the first pair of that label)
        wxc = np.ascontiguousarray(wx[start:stop], dtype=np.int64)
        if numba_rows is not None and c * m * n_coal <= max_rows_per_call:
            # at most max_rows_per_call pairs, hence distinct rows: one model call
            pair, T, codes, rows = kern.distinct_rows(E, wxc, wb, d, *numba_rows, start)
            out = np.ascontiguousarray(evaluate(f, rows, len(rows)))
        else:
            pair, T, codes, inst, b, T_first = kern.distinct_pairs(E, wxc, wb, d)
            out = np.ascontiguousarray(
                _evaluate_representatives(f, build_rows, start + inst, b, T_first, max_rows_per_call))
        if result is None:
            result = np.empty((n, n_coal) + out.shape[1:])
        elif out.shape[1:] != result.shape[2:]:
            raise ValueError("the model returned a different number of outputs between calls")
        # every hybrid row (i, S, b) is the row of the pair (S | E(b), b): the outputs are
        # placed at the pairs, at ((i m + b) << d) | T, and read back for every (i, S, b);
        # the means over b are numpy's (the same numbers as without dedup): summed in
        # numpy's order in the compiled loop for one output; for several, gathered in
        # (i, S, b) order into a cache-sized buffer, a few coalitions at a time, and
        # averaged by ndarray.mean
        if out.ndim == 1:
            kern.place_and_mean(pair, T, codes, out, E, d, result[start:stop].reshape(-1))
            continue
        placed = kern.place_outputs(pair, T, codes, out, d, c * m * n_coal)
        flat = result.reshape((n * n_coal,) + out.shape[1:])
        width = max(1, GATHER_ELEMENTS // m)
        buf = np.empty((width, m) + out.shape[1:])
        for r0 in range(0, c * n_coal, width):
            r1 = min(c * n_coal, r0 + width)
            kern.gather_outputs(placed, E, d, r0, r1, buf)
            flat[start * n_coal + r0 : start * n_coal + r1] = buf[: r1 - r0].mean(axis=1)
    assert result is not None
    return result
