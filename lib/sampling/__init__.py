"""Estimators of Shapley values past exact enumeration, as plug-ins on one seam.

Each estimator is one function of a checked game (:class:`lib.games.Game`), a budget in model rows
per explained row, a random generator and its options object, registered by name in its own module
of this package (:mod:`lib.sampling.registry`: :func:`register`, :func:`run`).  The public
functions :func:`lib.shapley.sample_shapley` and :func:`lib.compositions.sample_shapley_compositions`
take ``method=`` (a registered name) and ``options=`` (that method's options).

The estimators, one module each:

* :mod:`lib.sampling.strata` — ``"strata"``, the default: the background rows as strata, each
  enumerated exactly where that costs no more than its share of walks (the rows on which ``x`` and
  the background row agree are free), else walked as by ``"antithetic"``;
* :mod:`lib.sampling.antithetic` — ``"antithetic"``: antithetic permutation sampling
  (Mitchell et al., 2022), orderings walked forwards and backwards, post-stratified by background row;
* :mod:`lib.sampling.strumbelj_kononenko` — ``"uniform"`` and ``"variance"``: Štrumbelj &
  Kononenko's Algorithms 1 and 2 (2014), one ordering and one background row per draw.

Adding an estimator is one new module here (its function, decorated with :func:`register`) and its
test: the registry finds it, and ``lib/tests/test_sampling.py`` runs every registered estimator
through the same checks (the budget kept, the minimum refused, exact on an additive game).
"""

from __future__ import annotations

from lib.sampling.registry import DEFAULT, Estimator, Options, estimator, estimators, register, run

__all__ = ["DEFAULT", "Estimator", "Options", "estimator", "estimators", "register", "run"]
