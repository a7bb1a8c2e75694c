"""Small data the test modules share (imported as ``lib.tests.helpers``)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def toy_data(n: int = 400, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Two categorical and two numeric inputs that depend on a binary label "yes"/"no"."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({
        "colour": pd.Categorical(np.where(rng.random(n) < 0.3 + 0.4 * y, "red", rng.choice(["blue", "green"], n))),
        "size": rng.normal(loc=y * 1.0, size=n),
        "shape": pd.Categorical(rng.choice(["round", "square", "star"], n, p=[0.5, 0.3, 0.2])),
        "weight": rng.gamma(2.0 + y, size=n),
    })
    return X, pd.Series(np.where(y == 1, "yes", "no"), name="label")
