"""compendium.experiments.comp_estimation's estimation-error table (moved from lib/tests/test_compositions.py)."""

from __future__ import annotations

import numpy as np
import pytest

from compendium.experiments import comp_estimation as ce
from lib import compositions as cp
from lib.tests.test_compositions import random_model  # noqa: F401 - pytest fixtures and helpers shared with lib's tests


def test_estimation_errors_table():
    rng = np.random.default_rng(8)
    f = random_model(rng, 2, 3)
    X, bg = rng.normal(size=(2, 2)), rng.normal(size=(5, 2))
    exact = cp.exact_shapley_compositions(f, X, bg)
    table = ce.estimation_errors(f, X, bg, exact, n_samples=64, seed=0,
                                 estimators=ce.ESTIMATORS[:5])
    assert list(table["estimator"]) == list(ce.ESTIMATORS[:5])
    assert np.all(table["rows_per_instance"].iloc[:4] == (2 * 64 * 2 + 5 + 2) / 2)
    raw, adj = table.set_index("estimator").loc[["Algorithm 2", "Algorithm 2 + adjustment"], "efficiency_gap"]
    assert adj <= 1e-5 * raw
    sub = ce.estimation_errors(f, X, bg, exact, n_samples=64, seed=0, estimators=["Algorithm 2"])
    assert sub["mean_distance"].iloc[0] == table.set_index("estimator").loc["Algorithm 2", "mean_distance"]
    with pytest.raises(ValueError, match="unknown estimator"):
        ce.estimation_errors(f, X, bg, exact, n_samples=64, seed=0, estimators=["nope"])
