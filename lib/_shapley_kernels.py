"""Compiled loops of the exact engine's distinct-row path (private to :mod:`lib.shapley`).

On a discretised part matrix the model is cheap (a table look-up per feature), so the
engine's bookkeeping around it — which hybrid rows coincide, and the ``n 2**d m`` outputs
gathered back for the means — set the time when written as a dozen numpy calls per
feature.  Here each step is one compiled pass.

The means over the background are the same numbers as numpy's ``ndarray.mean`` over the
last axis (the path that evaluates every hybrid row): :func:`pairwise_sum` is numpy's
summation order for a contiguous ``float64`` reduction (``loops_utils.h.src``: eight
accumulators up to 128 terms, halves beyond), started from ``0.0``, then divided by the
count; ``lib/tests/test_shapley.py`` checks the equality bit for bit.  No fast-math: the
compiler keeps that order.

numba is a dependency of the book (it comes with shap); importing this module compiles
nothing, the first call of each function compiles it (a few seconds in all, once per
process).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=False, nogil=True)
def int_plan(X, background, max_fraction):  # pragma: no cover - compiled
    """Agreements and row keys of integer rows, if deduplicating pays.

    ``agree[i, b]``: the bitmask of the features on which background row ``b`` equals
    ``x_i``.  The rows to consider are ``Σ_b 2**(d - |E_i(b)|)`` per explained row; if more
    than ``max_fraction`` of all ``n 2**d m``, returns status 0.  Keys as in
    :func:`lib._shapley_games._hybrid_row_keys`: each value minus its column's minimum, times the
    product of the ranges of the columns before; status 2 if the product of all ranges
    exceeds ``2**62`` (no such key in 64 bits), else 1.
    """
    n, d = X.shape
    m = background.shape[0]
    agree = np.empty((n, m), dtype=np.int64)
    considered = 0.0
    for i in range(n):
        for b in range(m):
            e = np.int64(0)
            free = d
            for j in range(d):
                if X[i, j] == background[b, j]:
                    e |= np.int64(1) << j
                    free -= 1
            agree[i, b] = e
            considered += 2.0**free
    wx = np.empty((n, d), dtype=np.int64)
    wb = np.empty((m, d), dtype=np.int64)
    if considered > max_fraction * n * 2.0**d * m:
        return 0, agree, wx, wb
    radix = np.int64(1)
    for j in range(d):
        low = background[0, j]
        high = low
        for b in range(m):
            low = min(low, background[b, j])
            high = max(high, background[b, j])
        for i in range(n):
            low = min(low, X[i, j])
            high = max(high, X[i, j])
        size = high - low + 1
        for b in range(m):
            wb[b, j] = (background[b, j] - low) * radix
        for i in range(n):
            wx[i, j] = (X[i, j] - low) * radix
        if size > (np.int64(1) << 62) // radix:
            return 2, agree, wx, wb
        radix *= size
    return 1, agree, wx, wb


@numba.njit(cache=False, nogil=True)
def distinct_pairs(agree, wx, wb, d):  # pragma: no cover - compiled
    """The pairs ``(T, b)`` with ``T ⊇ E_i(b)``, and which of them give the same hybrid row.

    ``agree`` ``(c, m)`` is ``E_i(b)``; ``wx`` ``(c, d)``, ``wb`` ``(m, d)`` the weighted
    codes whose sums are the row keys (distinct rows, distinct keys).  Pairs are listed as
    the numpy version of the engine listed them: first every pair ``p = i m + b`` with
    ``T = E_i(b)``, then, feature by feature, a copy with bit ``j`` added of every pair
    listed so far that leaves ``j`` free (doubling; written without a branch).  The keys
    get labels ``0, 1, ...`` in order of first appearance — through a table indexed by
    the key itself when the keys span few values, else an open-addressing hash table
    (Fibonacci hashing, linear probing) holding labels — and the first pair of each label
    is its representative, the row the model sees.

    Returns ``pair``, ``T``, ``codes`` (the label of each pair) and, per label, the
    representative's explained row ``inst``, background row ``b`` and coalition ``T``.
    """
    c, m = agree.shape
    total = 0
    for i in range(c):
        for b in range(m):
            e = agree[i, b]
            free = d
            while e:
                e &= e - 1
                free -= 1
            total += np.int64(1) << free
    pair = np.empty(total + 1, dtype=np.int32)      # one spare slot: the branch-free copy
    T = np.empty(total + 1, dtype=np.int64)         # writes one past the last pair
    key = np.empty(total + 1, dtype=np.int64)
    swap = np.empty((c * m, d), dtype=np.int64)     # x_j in place of b_j
    q = 0
    for i in range(c):
        for b in range(m):
            e = agree[i, b]
            k = np.int64(0)
            for j in range(d):
                k += wx[i, j] if (e >> j) & 1 else wb[b, j]
                swap[q, j] = wx[i, j] - wb[b, j]
            pair[q] = q
            T[q] = e
            key[q] = k
            q += 1
    for j in range(d):
        bit = np.int64(1) << j
        filled = q
        for r in range(filled):
            t = T[r]
            p = pair[r]
            pair[q] = p
            T[q] = t | bit
            key[q] = key[r] + swap[p, j]
            q += 1 - ((t >> j) & 1)  # kept if bit j was free (bits above j: only E_i(b)'s)
    # the span of the keys: the largest is the sum of each feature's largest weighted code
    span = np.int64(1)
    for j in range(d):
        top = np.int64(0)
        for i in range(c):
            top = max(top, wx[i, j])
        for b in range(m):
            top = max(top, wb[b, j])
        span += top
    codes = np.empty(total, dtype=np.int32)
    first = np.empty(total, dtype=np.int32)
    n_labels = 0
    if span <= 8 * total + 4096:
        direct = np.full(span, -1, dtype=np.int32)
        for r in range(total):
            lab = direct[key[r]]
            if lab < 0:
                lab = n_labels
                direct[key[r]] = lab
                first[lab] = r
                n_labels += 1
            codes[r] = lab
    else:
        size = 16
        bits = 4
        while size < 2 * total:
            size *= 2
            bits += 1
        mask = np.uint64(size - 1)
        shift = np.uint64(64 - bits)
        table = np.full(size, -1, dtype=np.int32)
        for r in range(total):
            k = key[r]
            s = (np.uint64(k) * np.uint64(0x9E3779B97F4A7C15)) >> shift  # the top bits
            while True:
                lab = table[s]
                if lab < 0:
                    lab = n_labels
                    table[s] = lab
                    first[lab] = r
                    n_labels += 1
                    break
                if key[first[lab]] == k:
                    break
                s = (s + np.uint64(1)) & mask
            codes[r] = lab
    rep_inst = np.empty(n_labels, dtype=np.intp)
    rep_b = np.empty(n_labels, dtype=np.intp)
    rep_T = np.empty(n_labels, dtype=np.int64)
    for lab in range(n_labels):
        r = first[lab]
        rep_inst[lab] = pair[r] // m
        rep_b[lab] = pair[r] - rep_inst[lab] * m
        rep_T[lab] = T[r]
    return pair[:total], T[:total], codes, rep_inst, rep_b, rep_T


@numba.njit(cache=False, nogil=True)
def distinct_rows(agree, wx, wb, d, X, background, start):  # pragma: no cover - compiled
    """:func:`distinct_pairs` then :func:`hybrid_rows` of the representatives (explained
    rows ``start + inst``) in one compiled call: ``pair``, ``T``, ``codes`` and the rows."""
    pair, T, codes, inst, b, T_first = distinct_pairs(agree, wx, wb, d)
    return pair, T, codes, hybrid_rows(X, background, inst + start, b, T_first)


@numba.njit(cache=False, nogil=True)
def place_outputs(pair, T, codes, out, d, size):  # pragma: no cover - compiled
    """``placed[(p << d) | T] = out[label]``: the output of the row of each pair, at its pair.

    ``out`` is ``(labels,)`` or ``(labels, k)``; positions of no pair stay unwritten
    (never read).
    """
    placed = np.empty((size,) + out.shape[1:], dtype=out.dtype)
    for r in range(pair.shape[0]):
        placed[(np.int64(pair[r]) << d) | T[r]] = out[codes[r]]
    return placed


@numba.njit(cache=False, nogil=True)
def game_means(placed, agree, d, result):  # pragma: no cover - compiled
    """``result[(i << d) | S] = mean_b placed[((i m + b) << d) | S | E_i(b)]`` (one output).

    Every hybrid row ``(x_S, b_{-S})`` is the row of the pair ``(S ∪ E_i(b), b)``.  The
    ``m`` outputs of each coalition are summed over ``b`` in numpy's order
    (:func:`pairwise_sum`) and divided by ``m``: up to 128 background rows, the eight
    partial sums run over all coalitions at once, one background row after the other
    (each pass reads one block of ``placed`` in order); beyond, each coalition's ``m``
    outputs are gathered into a buffer and summed.
    """
    c, m = agree.shape
    n_coal = np.int64(1) << d
    if m > 128:
        buf = np.empty(m)
        for i in range(c):
            for S in range(n_coal):
                for b in range(m):
                    buf[b] = placed[(np.int64(i * m + b) << d) | S | agree[i, b]]
                s = 0.0
                s += pairwise_sum(buf, 0, m)
                result[i * n_coal + S] = s / m
        return
    acc = np.empty((8, n_coal))
    stop = m - (m % 8) if m >= 8 else 0
    for i in range(c):
        res = result[i * n_coal : (i + 1) * n_coal]
        if m < 8:
            res[:] = 0.0
        for b in range(m):
            block = placed[(np.int64(i * m + b) << d) : (np.int64(i * m + b + 1) << d)]
            e = agree[i, b]
            if m >= 8 and b < 8:
                row = acc[b]
                for S in range(n_coal):
                    row[S] = block[S | e]
                continue
            if m >= 8 and b < stop:
                row = acc[b % 8]
                for S in range(n_coal):
                    row[S] += block[S | e]
                continue
            if m >= 8 and b == stop:
                for S in range(n_coal):
                    res[S] = ((acc[0, S] + acc[1, S]) + (acc[2, S] + acc[3, S])) + (
                        (acc[4, S] + acc[5, S]) + (acc[6, S] + acc[7, S]))
            for S in range(n_coal):
                res[S] += block[S | e]
        if m >= 8 and stop == m:
            for S in range(n_coal):
                res[S] = ((acc[0, S] + acc[1, S]) + (acc[2, S] + acc[3, S])) + (
                    (acc[4, S] + acc[5, S]) + (acc[6, S] + acc[7, S]))
        for S in range(n_coal):
            s = 0.0
            s += res[S]
            res[S] = s / m


@numba.njit(cache=False, nogil=True)
def place_and_mean(pair, T, codes, out, agree, d, result):  # pragma: no cover - compiled
    """:func:`place_outputs` then :func:`game_means` (one output) in one compiled call: the
    placed outputs never cross into Python (one dispatch and one array less per chunk)."""
    c, m = agree.shape
    placed = place_outputs(pair, T, codes, out, d, (np.int64(c) * m) << d)
    game_means(placed, agree, d, result)


@numba.njit(cache=False, nogil=True)
def gather_outputs(placed, agree, d, r0, r1, buf):  # pragma: no cover - compiled
    """``buf[r - r0, b, :] = placed[((i m + b) << d) | S | E_i(b), :]`` for
    ``r = (i << d) | S`` in ``[r0, r1)`` (several outputs: ``placed`` ``(size, k)``)."""
    c, m = agree.shape
    low = (np.int64(1) << d) - 1
    k = placed.shape[1]
    for r in range(r0, r1):
        i = r >> d
        S = r & low
        base = np.int64(i * m) << d
        for b in range(m):
            src = (base + (np.int64(b) << d)) | S | agree[i, b]
            for o in range(k):
                buf[r - r0, b, o] = placed[src, o]


@numba.njit(cache=False, nogil=True)
def pairwise_sum(a, lo, n):  # pragma: no cover - compiled
    """``a[lo] + ... + a[lo + n - 1]`` in numpy's order for a contiguous float64 reduction."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    elif n <= 128:
        r0 = a[lo]
        r1 = a[lo + 1]
        r2 = a[lo + 2]
        r3 = a[lo + 3]
        r4 = a[lo + 4]
        r5 = a[lo + 5]
        r6 = a[lo + 6]
        r7 = a[lo + 7]
        i = 8
        stop = n - (n % 8)
        while i < stop:
            r0 += a[lo + i]
            r1 += a[lo + i + 1]
            r2 += a[lo + i + 2]
            r3 += a[lo + i + 3]
            r4 += a[lo + i + 4]
            r5 += a[lo + i + 5]
            r6 += a[lo + i + 6]
            r7 += a[lo + i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    else:
        n2 = n // 2
        n2 -= n2 % 8
        return pairwise_sum(a, lo, n2) + pairwise_sum(a, lo + n2, n - n2)


@numba.njit(cache=False, nogil=True)
def row_means(values):  # pragma: no cover - compiled
    """``values.mean(axis=1)`` of a ``(w, m)`` float64 array, in numpy's order (for the test)."""
    w, m = values.shape
    out = np.empty(w)
    for r in range(w):
        s = 0.0
        s += pairwise_sum(values[r], 0, m)
        out[r] = s / m
    return out


@numba.njit(cache=False, nogil=True)
def hybrid_rows(X, background, inst, b, T):  # pragma: no cover - compiled
    """Row ``r`` takes ``X[inst[r]]`` on the features of ``T[r]``, ``background[b[r]]`` elsewhere."""
    n = inst.shape[0]
    d = X.shape[1]
    rows = np.empty((n, d), dtype=X.dtype)
    for r in range(n):
        x = X[inst[r]]
        w = background[b[r]]
        t = T[r]
        for j in range(d):
            rows[r, j] = x[j] if (t >> j) & 1 else w[j]
    return rows
