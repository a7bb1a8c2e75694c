"""The shared library of the compendium *Shapley explanations of classifiers*.

Every formula the book uses lives here once; notebooks ``import lib`` and call it.

Modules
-------
shapley
    The exact (2^d enumeration) and sampled (antithetic by default; Štrumbelj & Kononenko) Shapley engine.
data
    Loaders for every data set the book uses, with sha256 verification.
plotting
    Figure helpers (take an ``ax``, return it, set no global style).
simplex
    Aitchison geometry of the simplex: closure, perturbation, powering, clr, ILR, class-compositions.
compositions
    Shapley compositions of multiclass probabilities (Shapley values of ilr∘f, mapped back).
bayesnet
    Small exact discrete Bayesian networks (LUCAS).
pyagrum_bridge
    The book's Bayesian networks handed to pyAgrum (an independent peer for chapter 3).
sdp
    Same Decision Probability and Swing Shapley values (Amoukou & Brunel).
sdp_estimation
    The SDP estimated from data: matching rows, projected random forests.
coalitional
    Complete and coalitional influence inside attribute groups (Ferrettini et al.).
grouping
    The coalitional paper's six methods that find the attribute groups (§4).
typical_value
    Typical-value (negative-class mode) contributions for unbalanced binary classification.
naive_bayes
    Weighted naive Bayes tables and their exact Shapley values (Lemaire et al., Eq. (L10)).
naive_bayes_sklearn
    scikit-learn's four naive Bayes classifiers read as one term per feature (Eq. (L10) generalised).
models
    One way in for any model: a fitted classifier (its predict_proba) or a callable.
khiops_nb
    Khiops' selective naive Bayes read into those tables, exactly as Khiops predicts.
kernel_comparison
    KernelSHAP against the closed form: the pieces of Lemaire et al.'s Table 3 comparison.
validation
    The input checks every explainer applies (rows to explain, background rows).
report
    The reproduction report: every published number the book reproduces, classified.
claims
    The claims-table records a notebook builds (re-exported by ``report``).
registry
    The reproduction registries, read and validated (re-exported by ``report``).
stable
    Same bytes on any machine: derived tables, orders that ties cannot flip, rounded glue.
page
    What a notebook page prints and pastes: checks that print their number, bound and verdict
    (asserted), and values glued into the prose without myst-nb.
ranks
    Ties in rank statistics of attributions.
permutation_sampling
    Antithetic permutation sampling, the book's recommended estimator past exact enumeration.
regenerate
    Every stored result of data/derived/, regenerated or checked by one command.
parallel
    Independent units of the long-run scripts through joblib (or dask).
side_env
    Pinned side environments for tools that cannot join the book's.
experiments
    One module per stored result of an experiment (constants, unit of work), shared by its
    notebook and its script.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = [
    "bayesnet",
    "claims",
    "coalitional",
    "compositions",
    "counting",
    "data",
    "experiments",
    "games",
    "grouping",
    "kernel_comparison",
    "khiops_nb",
    "models",
    "naive_bayes",
    "naive_bayes_compositions",
    "naive_bayes_sklearn",
    "page",
    "parallel",
    "permutation_sampling",
    "plotting",
    "pyagrum_bridge",
    "ranks",
    "registry",
    "regenerate",
    "report",
    "sdp",
    "sdp_estimation",
    "shapley",
    "side_env",
    "simplex",
    "stable",
    "typical_value",
    "validation",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> ModuleType:
    # Submodules load on first use (``lib.data``), so ``python -m lib.data`` runs
    # the module once, as __main__, without importing it a second time.
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
