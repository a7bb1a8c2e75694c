"""The estimators benchmark's games past exact enumeration, with exact ground truth by another route.

``benchmarks/estimators.py`` (shown in ``notebooks/00-foundations/03-estimators``) compares Shapley-value
estimators against exact values. With ``d = 14`` the exact values come from enumeration
(:func:`lib.shapley.exact_shapley`); where a user needs an estimator, ``d = 30`` and ``d = 60``, the
``2^d`` coalitions are out of reach, and the games below have exact values by another route:

* :func:`twonorm_gbt`: a gradient boosting (``GradientBoostingClassifier``, 50 trees of depth 3) on
  Breiman's two-norm data with ``d`` features, its log-odds (``decision_function``); the interventional
  Shapley values against the same background are exact by tree-path enumeration
  (:func:`tree_ground_truth`: shap's ``TreeExplainer`` with ``feature_perturbation="interventional"``
  and ``model_output="raw"``, the log-odds margin). Its "probability" output is not the
  interventional game of ``predict_proba`` (it rescales the margin's values), so the game is the
  margin. Both routes run at ``d = 14``, where they agree to :data:`TREE_AGREEMENT` (shap's tree code
  compares float32 thresholds: ``compendium/tests/test_estimator_games.py``);
* :func:`additive_game`: ``f(z) = sum_j a_j sin(w_j z_j)`` with ``d = 60``, whose Shapley values are the
  closed form ``phi_j = g_j(x_j) - mean_b g_j(b_j)`` (:func:`additive_ground_truth`): the check that an
  estimator is exact on an additive game, not a contest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import compendium.data

__all__ = ["TREE_AGREEMENT", "BenchmarkGame", "additive_game", "additive_ground_truth", "tree_ground_truth",
           "twonorm_gbt", "twonorm_model"]

#: How far shap's tree-path values may be from the exact engine's at ``d = 14`` (measured: about 1e-8;
#: shap's tree code compares float32 thresholds, the model float64 ones).
TREE_AGREEMENT = 1e-7


@dataclass(frozen=True)
class BenchmarkGame:
    """One benchmark game: the model's function of the rows, the explained rows, the background rows
    and the exact Shapley values ``(n, d)`` of the interventional game."""

    name: str
    data: str
    f: Any
    explain: np.ndarray
    background: np.ndarray
    exact: np.ndarray
    truth: str


def twonorm_model(d: int, seed: int = 0):
    """The gradient boosting (50 trees of depth 3) fitted on 1,000 two-norm rows with ``d`` features
    drawn with ``default_rng(seed + d)`` (``benchmarks/exact_engine.py``'s ``gradient-boosting``
    case), and those rows."""
    from sklearn.ensemble import GradientBoostingClassifier

    rng = np.random.default_rng(seed + d)
    X, y = compendium.data.make_twonorm(n_samples=1000, n_features=d, rng=rng)
    X = X.to_numpy()
    model = GradientBoostingClassifier(n_estimators=50, max_depth=3, random_state=seed).fit(X, y)
    return model, X


def tree_ground_truth(model: Any, explain: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Exact interventional Shapley values ``(n, d)`` of a tree ensemble's raw output (the log-odds
    margin of a gradient-boosted classifier) against ``background``, by tree-path enumeration:
    shap's ``TreeExplainer(model, data=background, feature_perturbation="interventional",
    model_output="raw")``, which holds every background row (it caps nothing below 100 rows)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import shap

        if len(background) > 100:
            raise ValueError("shap's TreeExplainer caps the background at 100 rows: give at most 100")
        explainer = shap.TreeExplainer(model, data=background, feature_perturbation="interventional",
                                       model_output="raw")
        return np.asarray(explainer.shap_values(explain, check_additivity=True), dtype=float)


def twonorm_gbt(d: int, *, rows: int, background: int, seed: int = 0) -> BenchmarkGame:
    """The gradient-boosted two-norm game with ``d`` features: the model of
    ``benchmarks/exact_engine.py``'s ``gradient-boosting`` case (fitted on 1,000 rows drawn with
    ``default_rng(seed + d)``), its log-odds; the first ``rows`` rows explained against the next
    ``background`` rows; exact values by :func:`tree_ground_truth`."""
    model, X = twonorm_model(d, seed)
    explain, bg = X[:rows], X[rows: rows + background]
    return BenchmarkGame(f"gbt-twonorm-{d}", "two-norm", model.decision_function, explain, bg,
                tree_ground_truth(model, explain, bg), "tree paths (shap TreeExplainer, interventional, raw)")


def _additive_terms(d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng([seed, d, 60])
    return rng.normal(size=d), rng.uniform(0.5, 2.0, size=d)


def additive_ground_truth(a: np.ndarray, w: np.ndarray, explain: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Shapley values of ``f(z) = sum_j a_j sin(w_j z_j)``: ``phi_j(x) = g_j(x_j) - mean_b g_j(b_j)``
    with ``g_j(t) = a_j sin(w_j t)`` (an additive game: each feature's term alone)."""
    g = lambda Z: a * np.sin(w * np.asarray(Z, dtype=float))  # noqa: E731
    return g(explain) - g(background).mean(axis=0)


def additive_game(d: int = 60, *, rows: int, background: int, seed: int = 0) -> BenchmarkGame:
    """An additive game on two-norm rows with ``d`` features: ``f(z) = sum_j a_j sin(w_j z_j)``, ``a``
    standard normal and ``w`` uniform on ``[0.5, 2]`` (``default_rng([seed, d, 60])``); exact values in
    closed form (:func:`additive_ground_truth`)."""
    a, w = _additive_terms(d, seed)
    X, _ = compendium.data.make_twonorm(n_samples=rows + background, n_features=d, rng=np.random.default_rng([seed, d]))
    X = X.to_numpy()
    explain, bg = X[:rows], X[rows:]

    def f(Z: np.ndarray, a: np.ndarray = a, w: np.ndarray = w) -> np.ndarray:
        return (a * np.sin(w * np.asarray(Z, dtype=float))).sum(axis=1)

    return BenchmarkGame(f"additive-{d}", "two-norm", f, explain, bg, additive_ground_truth(a, w, explain, bg),
                "closed form (additive)")
