"""The methods of the compendium *Shapley explanations of classifiers*, for your own models.

Every formula the book uses lives here once; notebooks ``import lib`` and call it. The book's own
machinery (data sets, report, pages, stored results, experiments) is the package ``compendium``,
which imports ``lib``; ``lib`` never imports it.

The modules are listed once, in :data:`MODULES` below: ``lib.__all__``, this docstring's list
(appended from it), CONTRIBUTING.md's map of ``lib`` and the API pages are read from it or
checked against it (``compendium/tests/test_lib_map.py``, ``compendium/tests/test_api_page.py``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Every public module of ``lib`` (a package ends its name in the map with ``/``) and what it holds,
#: in one place.
MODULES: dict[str, str] = {
    'models': 'One way in for any model: a fitted classifier (its predict_proba) or a callable.',
    'formula': "The Shapley formula over a game's 2^d coalition values: the bottom of the engine.",
    'shapley': 'The exact engine (2^d enumeration): interventional Shapley values, the ground truth.',
    'games': 'The interventional game of a model, checked once per public call (Game): hybrid rows, where x and the background agree, the value function in numpy, a count of model rows.',
    'result': 'ShapleyResult, the result every Shapley explainer returns (values, base values, outputs, names, to_explanation).',
    'sampling': 'Shapley values past exact enumeration: sample_shapley, and the estimators it runs, plug-ins registered by name.',
    'counting': 'CountingModel: counts the model rows an explainer asks for (cost tables, budgets, benchmarks).',
    'permutation_sampling': 'Deprecated: antithetic permutation sampling moved to lib.sampling.antithetic (kept one release).',
    'validation': 'The input checks every explainer applies (rows to explain, background rows).',
    'naive_bayes': 'Weighted naive Bayes tables and their exact Shapley values (Lemaire et al., Eq. (L10)).',
    'naive_bayes_sklearn': "scikit-learn's four naive Bayes classifiers read as one term per feature (Eq. (L10) generalised).",
    'khiops_nb': "Khiops' selective naive Bayes read into those tables, exactly as Khiops predicts.",
    'kernel_comparison': "KernelSHAP against the closed form: the pieces of Lemaire et al.'s Table 3 comparison.",
    'simplex': 'Aitchison geometry of the simplex: closure, perturbation, powering, clr, ILR, class-compositions.',
    'compositions': 'Shapley compositions of multiclass probabilities (Shapley values of ilr∘f, mapped back).',
    'naive_bayes_compositions': 'The Shapley compositions of a weighted naive Bayes in closed form, and the one-vs-rest reading.',
    'bayesnet': 'Small exact discrete Bayesian networks (LUCAS).',
    'pyagrum_bridge': "The book's Bayesian networks handed to pyAgrum (an independent peer for chapter 3).",
    'sdp': 'Same Decision Probability and Swing Shapley values (Amoukou & Brunel).',
    'sdp_estimation': 'The SDP estimated from data: matching rows, projected random forests.',
    'typical_value': 'Typical-value (negative-class mode) contributions for unbalanced binary classification.',
    'ranks': 'Ties in rank statistics of attributions.',
    'coalitional': 'Complete and coalitional influence inside attribute groups (Ferrettini et al.).',
    'grouping': "The coalitional paper's six methods that find the attribute groups (§4).",
}

__all__ = sorted(MODULES)
__version__ = "0.1.0"
__doc__ = (__doc__ or "") + "\nModules\n-------\n" + "".join(f"{name}\n    {what}\n" for name, what in MODULES.items())


#: The book's machinery that lived in ``lib`` before issue 48 and is now the package ``compendium``:
#: ``lib`` never imports it, so the old names say where they went instead of importing it for you.
MOVED_TO_COMPENDIUM = ("data", "report", "claims", "registry", "stable", "page", "plotting", "regenerate",
                       "parallel", "side_env", "experiments")


def __getattr__(name: str) -> ModuleType:
    # Submodules load on first use (``lib.sampling``), and a module run as ``python -m lib.<name>``
    # runs once, as __main__, without being imported a second time.
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    if name in MOVED_TO_COMPENDIUM:
        raise AttributeError(f"lib.{name} is now compendium.{name}, the book's machinery (lib holds the methods "
                             f"and never imports it): import compendium.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
