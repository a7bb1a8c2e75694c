"""compendium.experiments.estimator_games (issue 40): the estimators benchmark's exact values by other routes.

The tree-path values of the boosted two-norm model (shap's interventional TreeExplainer on the
log-odds margin) equal the book's exact engine where both run (``d = 12`` and ``14``), to
:data:`TREE_AGREEMENT` (shap's tree code compares float32 thresholds); they add up to
``f(x) - E_b f(b)`` at ``d = 30`` and ``60``; the additive game's closed form equals the engine.
"""

from __future__ import annotations

import numpy as np
import pytest

from lib import shapley
from compendium.experiments import estimator_games as eg


@pytest.mark.parametrize("d", [12, 14])
def test_tree_paths_equal_enumeration(d):
    game = eg.twonorm_gbt(d, rows=3, background=20)
    exact = shapley.exact_shapley(game.f, game.explain, game.background).values
    gap = np.abs(game.exact - exact).max()
    assert gap <= eg.TREE_AGREEMENT, gap


@pytest.mark.parametrize("d", [30, 60])
def test_tree_paths_are_efficient_past_enumeration(d):
    game = eg.twonorm_gbt(d, rows=3, background=20)
    assert game.exact.shape == (3, d)
    gap = game.exact.sum(axis=1) - (game.f(game.explain) - game.f(game.background).mean())
    assert np.abs(gap).max() < 1e-6


def test_the_additive_closed_form_equals_enumeration():
    game = eg.additive_game(10, rows=2, background=7)
    exact = shapley.exact_shapley(game.f, game.explain, game.background).values
    np.testing.assert_allclose(game.exact, exact, atol=1e-12)
    big = eg.additive_game(60, rows=3, background=20)
    assert big.exact.shape == (3, 60)
    np.testing.assert_allclose(big.exact.sum(axis=1), big.f(big.explain) - big.f(big.background).mean(), atol=1e-10)


def test_tree_ground_truth_refuses_a_background_shap_would_cap():
    model, X = eg.twonorm_model(5)
    with pytest.raises(ValueError, match="100 rows"):
        eg.tree_ground_truth(model, X[:1], X[:101])
