"""The simulated designs of chapter 4's evaluation: binary data with a known mechanism.

Its home: :func:`simulate`, the three designs (the naive Bayes assumption holds; it fails
through correlated features; an interaction) on which
``notebooks/04-typical-value-contributions/02-simulated-evaluation`` compares the
typical-value contributions of :mod:`lib.typical_value` with exact Shapley values (no
script: computed in the notebook).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

__all__ = ["simulate"]


def simulate(
    kind: Literal["naive-bayes", "correlated", "interaction"],
    n: int,
    d: int,
    positive_rate: float,
    rng: np.random.Generator,
    *,
    effects: np.typing.ArrayLike | None = None,
    rho: float = 0.6,
    interaction: float = 1.5,
) -> tuple[pd.DataFrame, np.ndarray]:
    """Simulated binary data with a known mechanism (chapter 4, simulated evaluation).

    * ``"naive-bayes"``: ``y ~ Bernoulli(π)``, ``x_k | y ~ N(μ_k y, 1)`` independently —
      the naive Bayes assumption holds and the log-odds is linear in ``x``.
    * ``"correlated"``: as above but ``x | y ~ N(μ y, Σ)`` with equicorrelation ``rho``:
      the naive Bayes assumption fails (features dependent given the class).
    * ``"interaction"``: ``x ~ N(0, I)`` and
      ``P(y = 1 | x) = σ(b + Σ_k μ_k x_k + interaction · x_0 x_1)``, ``b`` set so that the
      mean of ``P(y = 1 | x)`` over the sample is ``π``.

    ``effects`` are the ``μ_k`` (default: ``linspace(1.5, 0, d)``, the last feature null).
    Returns ``(X, y)``: a DataFrame with columns ``x0 … x{d-1}`` and ``y`` in {0, 1}.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator")
    if not 0 < positive_rate < 1:
        raise ValueError("positive_rate must lie in (0, 1)")
    if n < 1 or d < 1:
        raise ValueError("n and d must be >= 1")
    mu = np.linspace(1.5, 0.0, d) if effects is None else np.asarray(effects, dtype=float)
    if mu.shape != (d,):
        raise ValueError(f"effects must have shape ({d},)")
    if kind in ("naive-bayes", "correlated"):
        y = (rng.random(n) < positive_rate).astype(int)
        z = rng.standard_normal((n, d))
        if kind == "correlated":
            if not -1 / max(d - 1, 1) < rho < 1:
                raise ValueError("rho must make the equicorrelation matrix positive definite")
            cov = np.full((d, d), rho) + (1 - rho) * np.eye(d)
            z = z @ np.linalg.cholesky(cov).T
        X = z + y[:, None] * mu
    elif kind == "interaction":
        if d < 2:
            raise ValueError("the interaction design needs d >= 2")
        X = rng.standard_normal((n, d))
        score = X @ mu + interaction * X[:, 0] * X[:, 1]
        from scipy.optimize import brentq
        from scipy.special import expit

        b = brentq(lambda t: expit(score + t).mean() - positive_rate, -50, 50)
        y = (rng.random(n) < expit(score + b)).astype(int)
    else:
        raise ValueError(f"kind must be 'naive-bayes', 'correlated' or 'interaction', got {kind!r}")
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(d)]), y
