"""Compiled loops of the exact engine's distinct-row path (private to :mod:`lib.shapley`).

On a discretised part matrix the model is cheap (a table look-up per feature), so the
engine's bookkeeping around it — which hybrid rows coincide, and the ``n 2**d m`` outputs
gathered back for the means — set the time when written as a dozen numpy calls per
feature.  Here each step is one compiled pass.  Two layouts of the same pairs: the game's
(:func:`distinct_pairs`, :func:`game_means`: every coalition's mean, bit for bit numpy's)
and the Shapley values' (:func:`pair_plan`, :func:`pair_shapley`: per background row, the
coalitions of its free features only, no means over ``n 2**d m`` outputs).

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
def _key_span(wx, wb):  # pragma: no cover - compiled
    """One more than the largest row key: the sum of each feature's largest weighted code."""
    span = np.int64(1)
    for j in range(wx.shape[1]):
        top = np.int64(0)
        for i in range(wx.shape[0]):
            top = max(top, wx[i, j])
        for b in range(wb.shape[0]):
            top = max(top, wb[b, j])
        span += top
    return span


@numba.njit(cache=False, nogil=True)
def _direct_table(span, total):  # pragma: no cover - compiled
    """Whether keys spanning ``span`` values get a table indexed by the key itself (few values
    for ``total`` keys), rather than a hash table."""
    return span <= 8 * total + 4096


@numba.njit(cache=False, nogil=True)
def _hash_table_size(total):  # pragma: no cover - compiled
    """Slots of the open-addressing table for ``total`` keys (a power of two, at least twice
    ``total``), and the shift that keeps the top bits of a Fibonacci hash as the slot."""
    size = 16
    bits = 4
    while size < 2 * total:
        size *= 2
        bits += 1
    return size, np.uint64(64 - bits)


@numba.njit(cache=False, nogil=True, inline="always")
def _hash_label(table, label_key, k, shift, mask, n_labels):  # pragma: no cover - compiled
    """The label of key ``k`` in the open-addressing ``table`` (Fibonacci hashing: the top bits
    of ``k`` times 2**64 / golden ratio; linear probing): the label already given to ``k``,
    or ``n_labels``, then entered in ``table`` and ``label_key`` (the caller counts it)."""
    slot = (np.uint64(k) * np.uint64(0x9E3779B97F4A7C15)) >> shift
    while True:
        lab = table[slot]
        if lab < 0:
            table[slot] = n_labels
            label_key[n_labels] = k
            return n_labels
        if label_key[lab] == k:
            return lab
        slot = (slot + np.uint64(1)) & mask


@numba.njit(cache=False, nogil=True)
def labels(key, span):  # pragma: no cover - compiled
    """Labels ``0, 1, ...`` of the keys in order of first appearance, and the first position
    of each label: through a table indexed by the key itself when the keys span few values
    (``span``, one more than the largest), else an open-addressing hash table (Fibonacci
    hashing, linear probing) holding labels."""
    total = key.shape[0]
    codes = np.empty(total, dtype=np.int32)
    first = np.empty(total, dtype=np.int32)
    n_labels = 0
    if _direct_table(span, total):
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
        size, shift = _hash_table_size(total)
        mask = np.uint64(size - 1)
        table = np.full(size, -1, dtype=np.int32)
        label_key = np.empty(total, dtype=np.int64)
        for r in range(total):
            lab = _hash_label(table, label_key, key[r], shift, mask, n_labels)
            if lab == n_labels:
                first[lab] = r
                n_labels += 1
            codes[r] = lab
    return codes, first[:n_labels]


@numba.njit(cache=False, nogil=True)
def distinct_pairs(agree, wx, wb, d):  # pragma: no cover - compiled
    """The pairs ``(T, b)`` with ``T ⊇ E_i(b)``, and which of them give the same hybrid row.

    ``agree`` ``(c, m)`` is ``E_i(b)``; ``wx`` ``(c, d)``, ``wb`` ``(m, d)`` the weighted
    codes whose sums are the row keys (distinct rows, distinct keys).  Pairs are listed as
    the numpy version of the engine listed them: first every pair ``p = i m + b`` with
    ``T = E_i(b)``, then, feature by feature, a copy with bit ``j`` added of every pair
    listed so far that leaves ``j`` free (doubling; written without a branch).  The keys
    get labels in order of first appearance (:func:`labels`), and the first pair of each
    label is its representative, the row the model sees.

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
    codes, first = labels(key[:total], _key_span(wx, wb))
    n_labels = first.shape[0]
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
def pair_plan(agree, wx, wb, d):  # pragma: no cover - compiled
    """The pairs ``(T, b)`` with ``T ⊇ E_i(b)``, listed pair by pair, and their labels.

    The layout of :func:`pair_shapley`: the pairs of ``p = i m + b`` take positions
    ``offsets[p] .. offsets[p + 1] - 1``, one per subset ``U`` of the free features
    ``F = E_i(b)^c`` (``k = |F|``, ``2**k`` positions), at the position ``offsets[p] + u``
    where ``u`` is ``U`` written in the bits of ``F`` alone (bit ``a`` of ``u``: the
    ``a``-th free feature), so that ``T = E_i(b) ∪ U``.  Keys as in :func:`distinct_pairs`
    (built by doubling over the free features), labelled as :func:`labels` does, pair by
    pair as they are built; the first position of each label is its representative.

    Returns ``offsets`` ``(c m + 1,)``, ``codes`` (the label of each position) and, per
    label, the representative's explained row ``inst``, background row ``b`` and ``T``.
    """
    c, m = agree.shape
    offsets = np.empty(c * m + 1, dtype=np.int64)
    total = np.int64(0)
    for p in range(c * m):
        e = agree[p // m, p % m]
        free = d
        while e:
            e &= e - 1
            free -= 1
        offsets[p] = total
        total += np.int64(1) << free
    offsets[c * m] = total
    span = _key_span(wx, wb)
    direct_table = _direct_table(span, total)
    if direct_table:
        table = np.full(span, -1, dtype=np.int32)
        mask = np.uint64(0)
        shift = np.uint64(0)
    else:
        size, shift = _hash_table_size(total)
        table = np.full(size, -1, dtype=np.int32)
        mask = np.uint64(size - 1)
    codes = np.empty(total, dtype=np.int32)
    labels_max = min(total, span) if direct_table else total  # distinct keys: at most span
    rep_inst = np.empty(labels_max, dtype=np.intp)
    rep_b = np.empty(labels_max, dtype=np.intp)
    rep_T = np.empty(labels_max, dtype=np.int64)
    rep_key = np.empty(0 if direct_table else labels_max, dtype=np.int64)  # the hash table's
    key = np.empty(np.int64(1) << d, dtype=np.int64)
    T = np.empty(np.int64(1) << d, dtype=np.int64)
    n_labels = 0
    for i in range(c):
        for b in range(m):
            e = agree[i, b]
            o = offsets[i * m + b]
            k = np.int64(0)
            for j in range(d):
                k += wx[i, j] if (e >> j) & 1 else wb[b, j]
            key[0] = k
            T[0] = e
            width = np.int64(1)
            for j in range(d):  # doubling over the free features, in the order of F's bits
                if (e >> j) & 1:
                    continue
                delta = wx[i, j] - wb[b, j]
                bit = np.int64(1) << j
                for r in range(width):
                    key[width + r] = key[r] + delta
                    T[width + r] = T[r] | bit
                width *= 2
            for r in range(width):
                k = key[r]
                if direct_table:
                    lab = table[k]
                    if lab < 0:
                        lab = n_labels
                        table[k] = lab
                else:
                    lab = _hash_label(table, rep_key, k, shift, mask, n_labels)
                if lab == n_labels:
                    rep_inst[lab] = i
                    rep_b[lab] = b
                    rep_T[lab] = T[r]
                    n_labels += 1
                codes[o + r] = lab
    return offsets, codes, rep_inst[:n_labels], rep_b[:n_labels], rep_T[:n_labels]


@numba.njit(cache=False, nogil=True)
def pair_plan_rows(agree, wx, wb, d, X, background, start):  # pragma: no cover - compiled
    """:func:`pair_plan` then :func:`hybrid_rows` of the representatives (explained rows
    ``start + inst``) in one compiled call: ``offsets``, ``codes`` and the rows."""
    offsets, codes, inst, b, T = pair_plan(agree, wx, wb, d)
    return offsets, codes, hybrid_rows(X, background, inst + start, b, T)


@numba.njit(cache=False, nogil=True)
def int_pair_rows(Xi, Bi, X, background, max_fraction):  # pragma: no cover - compiled
    """:func:`int_plan` then :func:`pair_plan_rows` in one compiled call, for integer rows
    (``Xi``, ``Bi``: as ``int64``; ``X``, ``background``: as the model takes them).

    Returns the status of :func:`int_plan` (1: the rows follow; 0: deduplication does not
    pay; 2: no exact key in 64 bits), ``agree``, ``offsets``, ``codes`` and the rows.
    """
    status, agree, wx, wb = int_plan(Xi, Bi, max_fraction)
    if status != 1:
        return status, agree, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int32), X[:0].copy()
    offsets, codes, rows = pair_plan_rows(agree, wx, wb, Xi.shape[1], X, background, 0)
    return status, agree, offsets, codes, rows


@numba.njit(cache=False, nogil=True)
def _mean(values, pairwise):  # pragma: no cover - compiled
    """The mean of ``values`` as the game takes it: numpy's pairwise order (one output: a
    reduction over a contiguous axis), else one value after the other from the first
    (several outputs: numpy's reduction over the middle axis of ``(rows, m, k)``)."""
    m = values.shape[0]
    if pairwise:
        s = 0.0
        s += pairwise_sum(values, 0, m)
        return s / m
    s = values[0]
    for b in range(1, m):
        s += values[b]
    return s / m


@numba.njit(cache=False, nogil=True)
def pair_shapley(offsets, codes, out, agree, d):  # pragma: no cover - compiled
    """Shapley values, ``v(∅)`` and ``v(N)`` of the interventional games, pair by pair.

    The game of row ``i`` is the mean over ``b`` of the games ``g_b(S) = f(x_S, b_{-S})``,
    and the Shapley value is linear: ``φ_j = (1/m) Σ_b φ_j(g_b)``.  In ``g_b`` the features
    of ``E = E_i(b)`` are null players (``x_j = b_j``: adding one changes no row), so
    ``φ_j(g_b) = 0`` for ``j ∈ E`` and, for the ``k`` free features, ``φ(g_b)`` is the
    Shapley value of the game ``u(U) = g_b(U)`` on them alone: its ``2**k`` values are the
    outputs at positions ``offsets[p] + u`` (:func:`pair_plan`).  With the weights
    ``w(s) = s! (k - s - 1)! / k!``,
    ``φ_a = Σ_{U ∌ a} w(|U|) (u(U ∪ a) - u(U)) = Σ_{U ∋ a} z(U) - Σ_U w(|U|) u(U)`` where
    ``z(U) = (w(|U| - 1) + w(|U|)) u(U)`` (``w(k) = 0``); the sums over ``U ∋ a`` for every
    ``a`` by halving (the upper half is the sum for the top bit; folding it onto the lower
    half leaves the same problem one bit smaller), four partial sums at a time.  Every
    step is in a fixed order: the same bits on any CPU.

    ``out`` is ``(labels,)`` or ``(labels, k_out)``.  Returns the values ``(c, d, k_out)``,
    and ``v(∅)`` and ``v(N)`` ``(c, k_out)``: the means over ``b`` of the outputs of the rows
    ``b`` and ``x`` of each pair, in the order the game takes them (:func:`_mean`), hence
    the same numbers.
    """
    c, m = agree.shape
    k_out = out.size // out.shape[0]
    out = out.reshape((out.shape[0], k_out))  # (labels,) -> (labels, 1): a view
    values = np.zeros((c, d, k_out))
    base = np.empty((c, k_out))
    outputs = np.empty((c, k_out))
    W = np.zeros((d + 1, d + 1))  # W[k, s] = s! (k - s - 1)! / k!, zero for s >= k
    for kk in range(1, d + 1):
        W[kk, 0] = 1.0 / kk
        for s in range(1, kk):
            W[kk, s] = W[kk, s - 1] * s / (kk - s)
    n_max = np.int64(1) << d
    size = np.empty(n_max, dtype=np.int64)
    size[0] = 0
    for r in range(1, n_max):
        size[r] = size[r >> 1] + (r & 1)
    z = np.empty(n_max)
    free = np.empty(d, dtype=np.int64)
    empty = np.empty(m)
    full = np.empty(m)
    for q in range(k_out):
        for i in range(c):
            for b in range(m):
                e = agree[i, b]
                o = offsets[i * m + b]
                n = offsets[i * m + b + 1] - o
                kk = 0
                for j in range(d):
                    if not (e >> j) & 1:
                        free[kk] = j
                        kk += 1
                empty[b] = out[codes[o], q]
                full[b] = out[codes[o + n - 1], q]
                if kk == 0:
                    continue
                Wk = W[kk]
                # z(U) and the total sum_U w(|U|) u(U) in one pass, four partial sums (U = 0 first)
                z[0] = 0.0  # never summed: the empty set holds no feature
                t0 = Wk[0] * empty[b]
                t1 = 0.0
                t2 = 0.0
                t3 = 0.0
                r = 1
                while r < n and r < 4:
                    ur = out[codes[o + r], q]
                    w = Wk[size[r]]
                    z[r] = (Wk[size[r] - 1] + w) * ur
                    t1 += w * ur
                    r += 1
                while r + 4 <= n:
                    u0 = out[codes[o + r], q]
                    u1 = out[codes[o + r + 1], q]
                    u2 = out[codes[o + r + 2], q]
                    u3 = out[codes[o + r + 3], q]
                    w0 = Wk[size[r]]
                    w1 = Wk[size[r + 1]]
                    w2 = Wk[size[r + 2]]
                    w3 = Wk[size[r + 3]]
                    z[r] = (Wk[size[r] - 1] + w0) * u0
                    z[r + 1] = (Wk[size[r + 1] - 1] + w1) * u1
                    z[r + 2] = (Wk[size[r + 2] - 1] + w2) * u2
                    z[r + 3] = (Wk[size[r + 3] - 1] + w3) * u3
                    t0 += w0 * u0
                    t1 += w1 * u1
                    t2 += w2 * u2
                    t3 += w3 * u3
                    r += 4
                total = (t0 + t1) + (t2 + t3)
                # the sum over U ∋ a of the top bit a is the upper half; folding the upper half onto the
                # lower one (in the same pass) leaves the same problem on one bit fewer
                width = n
                for a in range(kk - 1, -1, -1):
                    half = width >> 1
                    s0 = 0.0
                    s1 = 0.0
                    s2 = 0.0
                    s3 = 0.0
                    r = 0
                    while r + 4 <= half:
                        h0 = z[r + half]
                        h1 = z[r + half + 1]
                        h2 = z[r + half + 2]
                        h3 = z[r + half + 3]
                        s0 += h0
                        s1 += h1
                        s2 += h2
                        s3 += h3
                        z[r] += h0
                        z[r + 1] += h1
                        z[r + 2] += h2
                        z[r + 3] += h3
                        r += 4
                    while r < half:
                        h0 = z[r + half]
                        s0 += h0
                        z[r] += h0
                        r += 1
                    values[i, free[a], q] += ((s0 + s1) + (s2 + s3)) - total
                    width = half
            base[i, q] = _mean(empty, k_out == 1)
            outputs[i, q] = _mean(full, k_out == 1)
            for j in range(d):
                values[i, j, q] /= m
    return values, base, outputs


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
