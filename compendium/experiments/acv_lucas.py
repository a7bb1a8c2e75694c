"""Chapter 3: the authors' ACV library beside the book's exact SDPs on LUCAS.

Its home: the side environment's pins (:data:`PINS`), the set-up of the authors' LUCAS demonstration
(their split, tree and row: :data:`SEED_SPLIT`, :data:`SEED_TREE`, :data:`MIN_SAMPLES_LEAF`,
:data:`AUTHORS_ROW`, :func:`authors_demo`), the set-up of the comparison (the level :data:`PI`, the
rows explained: :data:`SWING_ROWS`, :data:`N_DRAWN`), the tables it stores (:data:`TABLES`) and the
stored result it declares (:func:`units`).
``scripts/acv_lucas.py`` runs ACV in its side environment (the worker ``scripts/_acv_worker.py``,
Python 3.9, cannot import ``lib``) and computes the exact values beside it;
``notebooks/03-same-decision-probability/06-acv`` shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from compendium.regenerate.result import Result

__all__ = ["AUTHORS_DEMO", "AUTHORS_ROW", "MIN_SAMPLES_LEAF", "N_DRAWN", "PI", "PINS", "SEED_SPLIT", "SEED_TREE",
           "SWING_ROWS", "TABLES", "AuthorsDemo", "authors_demo", "units"]

#: The side environment's pins: the ones the brief fixes, and lightgbm/xgboost at the versions
#: that resolved with them on Python 3.9 (acv-exp depends on both).
PINS = ["acv-exp==1.2.3", "numpy==1.21.6", "scikit-learn==1.2.2", "pandas==1.5.3",
        "lightgbm==4.6.0", "xgboost==2.1.4"]
#: Probability level of the sufficient coalitions and Swing Shapley values (the paper's Figure 1, right).
PI = 0.9
#: Rows whose Swing Shapley values ACV computes (its slowest call: minutes per row here).
SWING_ROWS = [0, 1, 2]
#: How many rows drawn from the network (seed 7, the draw of notebook 04) are explained besides.
N_DRAWN = 4
#: The authors' LUCAS demonstration, ``notebooks/demo_acv_explainer/demo_swings_sdp.ipynb`` of
#: ``salimamoukou/acv00`` (at the commit that pins its data file in ``data/MANIFEST.yaml``): what it fixes is
#: the paper's set-up. ``scripts/_acv_worker.py`` (Python 3.9, no ``lib``) repeats the three numbers below,
#: and a test keeps them equal.
AUTHORS_DEMO = ("https://github.com/salimamoukou/acv00/blob/f9d9407b212082ea7315e443c97218ad2d757b70/"
                "notebooks/demo_acv_explainer/demo_swings_sdp.ipynb")
#: Their ``train_test_split(X, y, test_size=0.2, random_state=21)`` of LUCAS0.
SEED_SPLIT = 21
#: Their ``DecisionTreeClassifier(min_samples_leaf=20, random_state=212)``.
SEED_TREE = 212
MIN_SAMPLES_LEAF = 20
#: Index of the authors' demo observation in their test split (``X_test.values[160]``).
AUTHORS_ROW = 160
#: The tables of ``data/derived/sdp-acv-<table>.csv``.
TABLES = ("decisions", "train-rows", "rows", "versions", "sdp", "sufficient", "swing", "runtime")


@dataclass(frozen=True)
class AuthorsDemo:
    """The authors' demonstration set-up, refitted in the book's environment (:func:`authors_demo`).

    ``tree`` is their decision tree fitted on ``X_train``; ``x`` their explained row (``X_test[160]``) as a
    0/1 vector over ``features``; ``proba`` and ``decision`` the tree's probability of ``Lung_cancer = 1``
    and its decision (the class of largest probability, as ``predict`` and ACV take it) on the ``2**d``
    binary states in :func:`lib.bayesnet.states` order.
    """

    features: list[str]
    X_train: pd.DataFrame
    y_train: np.ndarray
    X_test: pd.DataFrame
    tree: Any
    x: np.ndarray
    proba: np.ndarray
    decision: np.ndarray


def authors_demo(X0: pd.DataFrame, y0: pd.Series, features: list[str]) -> AuthorsDemo:
    """Refit the authors' LUCAS demonstration (:data:`AUTHORS_DEMO`) on LUCAS0 ``X0``, ``y0``: their split
    (:data:`SEED_SPLIT`), their tree (:data:`SEED_TREE`, :data:`MIN_SAMPLES_LEAF`) and their row
    (:data:`AUTHORS_ROW`), with the tree's probability and decision on every binary state.

    Raises ``ValueError`` when a feature is missing from ``X0`` or a value is not 0/1 (the states need
    binary features).
    """
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    from lib import bayesnet as bn

    missing = [f for f in features if f not in X0.columns]
    if missing:
        raise ValueError(f"LUCAS0 has no column {missing}; it has {list(X0.columns)}")
    X = X0[features]
    if not X.isin([0, 1]).all().all():
        raise ValueError("the authors' demo needs LUCAS0's binary features (0/1 values)")
    X_train, X_test, y_train, _ = train_test_split(X, np.asarray(y0), test_size=0.2, random_state=SEED_SPLIT)
    tree = DecisionTreeClassifier(min_samples_leaf=MIN_SAMPLES_LEAF, random_state=SEED_TREE)
    tree.fit(X_train, y_train)
    states = pd.DataFrame(bn.states(len(features)), columns=features)
    proba = tree.predict_proba(states)
    return AuthorsDemo(features=list(features), X_train=X_train, y_train=y_train, X_test=X_test, tree=tree,
                       x=X_test.to_numpy()[AUTHORS_ROW].astype(np.int64), proba=proba[:, 1],
                       decision=np.argmax(proba, axis=1).astype(np.int64))


def units() -> list[Result]:
    """The stored result of ``scripts/acv_lucas.py``: one run, every table (only the timings vary)."""
    return [Result("sdp-acv", ("scripts/acv_lucas.py", "--force"), tuple(f"sdp-acv-{a}.csv" for a in TABLES),
                   ("lucas0",), variable={"seconds": None}, side_env="acv",
                   shown_in=("notebooks/03-same-decision-probability/06-acv",))]
