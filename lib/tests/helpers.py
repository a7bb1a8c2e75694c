"""Small data the test modules share (imported as ``lib.tests.helpers``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

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


def imported_packages(path: Path) -> Iterator[tuple[str, bool]]:
    """The top-level package of every absolute import of a Python file, with whether the import runs when the
    module is imported (a statement of the module's body) or later (inside a function): the packaging tests
    of lib and of compendium read them."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    at_top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for root in dict.fromkeys(n.split(".")[0] for n in names):
            yield root, id(node) in at_top
