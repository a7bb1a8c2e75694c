"""The Shapley formula over a game's ``2**d`` coalition values: the bottom of the engine.

Players are the features ``0 .. d-1``.  A coalition ``S`` is an integer *bitmask*: feature ``i``
belongs to ``S`` if and only if bit ``i`` of ``S`` is set (``(S >> i) & 1 == 1``).  A game on ``d``
players is therefore an array of ``2**d`` coalition values indexed by bitmask,
``values[..., S] = v(S)``; the empty coalition is index ``0`` and the grand coalition is index
``2**d - 1``.

The Shapley value of player ``i`` (Shapley, 1953; book eq. ``eq-found-shapley``) is

.. math::

    \\phi_i(v) = \\sum_{S \\subseteq N \\setminus \\{i\\}}
        \\frac{|S|!\\,(d-|S|-1)!}{d!}\\,\\bigl(v(S \\cup \\{i\\}) - v(S)\\bigr).

This module holds that formula and nothing that calls a model: the value function of a model's
interventional game is :meth:`lib.games.Game.coalition_values` (the module below this one), the
exact engine :mod:`lib.shapley`, the estimators past exact enumeration :mod:`lib.sampling`.  Every
estimator and every paper's method that needs the formula imports it from here, so no module of the
engine imports the module that dispatches to it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from lib.games import bitmask_rows

__all__ = ["coalition_masks", "game_size", "shapley_from_game", "shapley_weights"]


def coalition_masks(d: int) -> np.ndarray:
    """Boolean membership matrix of all ``2**d`` coalitions.

    Returns ``M`` of shape ``(2**d, d)`` with ``M[S, i] = True`` iff feature ``i``
    is in the coalition whose bitmask is ``S``.
    """
    if d < 0:
        raise ValueError(f"the number of players must be >= 0, got {d}")
    return bitmask_rows(np.arange(2**d, dtype=np.int64), d)


def shapley_weights(d: int) -> np.ndarray:
    """Shapley weights ``w(s) = s! (d-s-1)! / d!`` for coalition sizes ``s = 0 .. d-1``.

    Book: :ref:`eq-found-shapley` (book/foundations.md); :ref:`eq-coal-weights`
        (notebooks/05-coalitional-explanations/01-definitions.ipynb).

    Shapley (1953); book eq. ``eq-found-shapley``.  Computed as
    ``1 / (d * C(d-1, s))``, which is exact in floating point for the sizes used here.
    """
    if d < 1:
        raise ValueError(f"Shapley weights need at least one player, got d={d}")
    return np.array([1.0 / (d * math.comb(d - 1, s)) for s in range(d)])


def game_size(n_coalitions: int) -> int:
    """The number of players ``d`` of a game given by its ``2**d`` coalition values.

    Raises ``ValueError`` unless ``n_coalitions`` is a power of two.
    """
    d = int(n_coalitions).bit_length() - 1
    if n_coalitions < 1 or 2**d != n_coalitions:
        raise ValueError(
            "a game must give one value per coalition: the last axis must have length "
            f"2**d, got {n_coalitions}"
        )
    return d


def shapley_from_game(values: np.typing.ArrayLike) -> np.ndarray:
    """Exact Shapley values of games given by all their coalition values.

    Book: :ref:`eq-found-shapley` (book/foundations.md); :ref:`eq-found-shapley-sum`
        (notebooks/00-foundations/01-shapley-values.ipynb); :ref:`eq-nb-shapley-def`
        (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).

    Shapley (1953), book eq. ``eq-found-shapley``: for each player ``i``, the weighted sum over
    the coalitions ``S`` without ``i`` of ``w(|S|) (v(S ∪ {i}) - v(S))``, all games at once
    (one vectorised pass per player; memory ``O(2**d)`` per game).  Each sum is numpy's, in a
    fixed order, and each game's values depend on that game alone: the same bits on any CPU
    and whatever other games are computed with it (no matrix product, whose rounding depends
    on the BLAS kernel and on the batch).

    Parameters
    ----------
    values
        Array of shape ``(..., 2**d)``; ``values[..., S]`` is ``v(S)`` for the
        coalition with bitmask ``S`` (bit ``i`` set iff player ``i`` is in ``S``).
        Any leading axes index independent games, all computed at once.

    Returns
    -------
    numpy.ndarray
        Shape ``(..., d)``: the Shapley value of each player in each game.

    Raises
    ------
    ValueError
        If the last axis is not a power of two or a value is NaN or infinite.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim == 0:
        raise ValueError("a game needs an array of coalition values, got a scalar")
    d = game_size(v.shape[-1])
    if not np.all(np.isfinite(v)):
        raise ValueError("the game has NaN or infinite coalition values")
    v = np.ascontiguousarray(v)
    phi = np.empty(v.shape[:-1] + (d,))
    for i, weights in enumerate(_weights_without(d) if d <= 16 else _weights_without.__wrapped__(d)):
        pairs = v.reshape(v.shape[:-1] + (2 ** (d - 1 - i), 2, 2**i))  # [..., bits above i, bit i, bits below i]
        gain = (pairs[..., 1, :] - pairs[..., 0, :]) * weights          # w(|S|) (v(S ∪ {i}) - v(S)), S without i
        phi[..., i] = gain.sum(axis=(-2, -1))
    return phi


@lru_cache(maxsize=32)
def _weights_without(d: int) -> tuple[np.ndarray, ...]:
    """For each player ``i``, the Shapley weights ``w(|S|)`` of the coalitions ``S`` without ``i``,
    shaped ``(2**(d-1-i), 2**i)`` as they sit in a game (the bits above ``i``, the bits below)."""
    w = shapley_weights(d) if d else np.zeros(0)
    size = bitmask_rows(np.arange(2**d), d).sum(axis=1)
    return tuple(w[size.reshape(2 ** (d - 1 - i), 2, 2**i)[:, 0, :]] for i in range(d))
