"""The book's Bayesian networks in pyAgrum, an independent peer for chapter 3.

pyAgrum (version 3.3.1, https://agrum.gitlab.io) explains a Bayesian-network
classifier with its own Shapley values (``pyagrum.explain.ConditionalShapValues``,
``MarginalShapValues``, ``CausalShapValues``), computed by its own inference engine
(``pyagrum.LazyPropagation``).  This module hands it the network the book computes with
(:class:`lib.bayesnet.BinaryBayesNet`, e.g. LUCAS), reads its joint distribution back in the
book's state order so that the two can be compared state by state, and reads its Shapley
values back as arrays.  Nothing here computes a Shapley value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyagrum

from lib.bayesnet import BinaryBayesNet, states

__all__ = ["pyagrum_joint", "shap_values", "to_pyagrum"]


def to_pyagrum(net: BinaryBayesNet, name: str = "network") -> pyagrum.BayesNet:
    """The network ``net`` as a ``pyagrum.BayesNet``: same variables, arcs and CPTs.

    Each variable becomes a ``LabelizedVariable`` with the two labels ``"0"`` and ``"1"``
    (label position = the book's value), added in the order of ``net.names``, so that its
    pyAgrum node id is its position (its bit in the book's state).  Each CPT entry
    ``P(v = 1 | parents = a)`` of the book is written to pyAgrum's table at the parents'
    configuration named variable by variable (``{parent: value}``), so the result does not
    depend on how pyAgrum orders the axes of its tables.

    Raises ``TypeError`` if ``net`` is not a :class:`~lib.bayesnet.BinaryBayesNet`.
    """
    if not isinstance(net, BinaryBayesNet):
        raise TypeError(f"net must be a lib.bayesnet.BinaryBayesNet, got {type(net).__name__}")
    bn = pyagrum.BayesNet(str(name))
    for v in net.names:
        node = bn.add(pyagrum.LabelizedVariable(v, v, 2))
        if node != net.index(v):  # pragma: no cover - pyAgrum numbers nodes as added
            raise RuntimeError(f"pyAgrum gave {v!r} the id {node}, expected {net.index(v)}")
    for parent, child in net.edges:
        bn.addArc(parent, child)
    for v in net.names:
        ps = net.parents[v]
        for cfg in np.ndindex(*(2,) * len(ps)):
            theta = float(net.cpts[v][cfg])
            bn.cpt(v)[{p: int(a) for p, a in zip(ps, cfg)}] = [1.0 - theta, theta]
    return bn


def pyagrum_joint(bn: pyagrum.BayesNet, names: Sequence[str]) -> np.ndarray:
    """``P(X = s)`` by pyAgrum for every state ``s`` of the binary variables ``names``.

    ``(2**d,)``, in the book's bitmask order (bit ``i`` of ``s`` is the value of
    ``names[i]``, as :attr:`lib.bayesnet.BinaryBayesNet.joint`), each entry from pyAgrum's
    ``BayesNet.jointProbability`` (its own product of its own CPTs).

    Raises ``TypeError`` if ``bn`` is not a ``pyagrum.BayesNet``, ``ValueError`` if
    ``names`` are not exactly its variables (each once) or a variable is not binary.
    """
    if not isinstance(bn, pyagrum.BayesNet):
        raise TypeError(f"bn must be a pyagrum.BayesNet, got {type(bn).__name__}")
    names = [str(n) for n in names]
    if len(set(names)) != len(names) or set(names) != set(bn.names()):
        raise ValueError(f"names must list each variable of the network once: {sorted(bn.names())}, got {names}")
    not_binary = [v for v in names if bn.variable(v).domainSize() != 2]
    if not_binary:
        raise ValueError(f"variables must be binary, these are not: {not_binary}")
    inst = pyagrum.Instantiation()
    for v in names:
        inst.add(bn.variable(v))
    x = states(len(names))
    joint = np.empty(len(x))
    for s, row in enumerate(x):
        inst.fromdict({v: int(a) for v, a in zip(names, row)})
        joint[s] = bn.jointProbability(inst)
    return joint


def shap_values(explanation: Mapping[Any, Any], features: Sequence[str], label: int = 1) -> np.ndarray:
    """The Shapley values of one instance from a pyAgrum ``Explanation``, as a ``(d,)`` array.

    pyAgrum's explainers return, for a single instance, a mapping from each label position
    of the target (here 0 and 1) to ``{feature: value}``; this reads position ``label`` in
    the order of ``features``.  A feature pyAgrum gave no value raises ``ValueError`` (it
    explains only the features of the instance it was given).
    """
    if label not in explanation:
        raise ValueError(f"the explanation has no label position {label!r}; it has {sorted(explanation)}")
    values = explanation[label]
    if not isinstance(values, Mapping):
        raise ValueError("expected the explanation of a single instance ({feature: value} per label)")
    missing = [v for v in features if v not in values]
    if missing:
        raise ValueError(f"the explanation has no value for {missing}")
    return np.array([float(values[v]) for v in features])
