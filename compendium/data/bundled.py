"""The data sets that need no file: scikit-learn's iris and digits, and Breiman's twonorm generated."""

from __future__ import annotations

import numpy as np
import pandas as pd

from compendium.data.cache import dataset_entry

__all__ = ["TWONORM_A", "load_digits", "load_iris", "load_twonorm_generated", "make_twonorm"]

#: Breiman's twonorm mean offset per coordinate, a = 2 / sqrt(20).
TWONORM_A = 2.0 / np.sqrt(20.0)


def load_iris() -> tuple[pd.DataFrame, pd.Series]:
    """Fisher's iris from scikit-learn (no file, no network): 150 x 4, 3 classes.

    Returns
    -------
    X : pandas.DataFrame
        Four float64 columns (cm).
    y : pandas.Series
        ``target``, int64 in {0, 1, 2} (setosa, versicolor, virginica).
    """
    from sklearn.datasets import load_iris as _sk

    bunch = _sk(as_frame=True)
    return bunch.data, bunch.target.astype("int64")


def load_digits() -> tuple[pd.DataFrame, pd.Series]:
    """Optical digits (8 x 8) from scikit-learn: 1797 x 64, 10 classes.

    Returns
    -------
    X : pandas.DataFrame
        ``pixel_0_0`` ... ``pixel_7_7``, float64 in 0..16.
    y : pandas.Series
        ``target``, int64 in 0..9.
    """
    from sklearn.datasets import load_digits as _sk

    bunch = _sk(as_frame=True)
    return bunch.data, bunch.target.astype("int64")


def make_twonorm(
    n_samples: int,
    n_features: int = 20,
    rng: np.random.Generator | int | None = None,
    a: float = TWONORM_A,
) -> tuple[pd.DataFrame, pd.Series]:
    """Draw a sample of Breiman's twonorm problem.

    Each label is 0 or 1 with probability 1/2; given the label, the inputs are
    Gaussian with identity covariance and mean ``(+a, ..., +a)`` for class 0,
    ``(-a, ..., -a)`` for class 1, with ``a = 2 / sqrt(20)`` (Breiman 1996;
    class 0 at ``+a`` as in the Delve file ``Twonorm.txt``). The Bayes-optimal
    rule is the sign of the sum of the inputs.

    Parameters
    ----------
    n_samples : int
        Number of rows (>= 0).
    n_features : int, default 20
        Number of inputs (>= 1). ``a`` does not change with it.
    rng : numpy.random.Generator or int or None
        Random source; an int is used as a seed for
        :func:`numpy.random.default_rng`. The same generator state (or seed)
        gives the same sample.
    a : float, default 2/sqrt(20)
        Mean offset per coordinate.

    Returns
    -------
    X : pandas.DataFrame
        ``Var1`` ... ``Var<n_features>``, float64.
    y : pandas.Series
        ``Class``, int64 in {0, 1}.
    """
    if int(n_samples) != n_samples or n_samples < 0:
        raise ValueError(f"n_samples must be a non-negative integer, got {n_samples!r}")
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    n, d = int(n_samples), int(n_features)
    labels = gen.integers(0, 2, size=n)
    sign = np.where(labels == 0, 1.0, -1.0)[:, None]
    values = gen.standard_normal((n, d)) + sign * a
    X = pd.DataFrame(values, columns=[f"Var{j + 1}" for j in range(d)])
    y = pd.Series(labels.astype("int64"), name="Class")
    return X, y


def load_twonorm_generated(
    n_samples: int | None = None, seed: int | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """A freshly generated twonorm sample with the manifest's size and seed.

    Parameters
    ----------
    n_samples : int, optional
        Default: the manifest's ``rows`` (7400, the Delve size).
    seed : int, optional
        Default: the manifest's ``seed``.

    Returns
    -------
    X, y : as :func:`make_twonorm`.
    """
    entry = dataset_entry("twonorm-generated")
    return make_twonorm(
        entry["rows"] if n_samples is None else n_samples,
        n_features=entry["columns"] - 1,
        rng=entry["seed"] if seed is None else seed,
    )

