"""Tests of lib.pyagrum_bridge: the book's networks handed to pyAgrum must be the same
distribution (checked state by state against pyAgrum's own product of its own CPTs, and by
pyAgrum's own inference engine), and a wrong hand-over must be caught."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyagrum
import pyagrum.explain
import pytest
from hypothesis import given, settings

from lib import bayesnet as bn
from lib import formula, sdp
from lib import pyagrum_bridge as pb
from lib.tests.test_bayesnet import random_nets

LC = bn.LUCAS_TARGET
FEATURES = list(bn.LUCAS_FEATURES)


@pytest.fixture(scope="module")
def net():
    return bn.lucas()


@pytest.fixture(scope="module")
def pa(net):
    return pb.to_pyagrum(net, "LUCAS")


def test_lucas_joint_agrees_on_all_states(net, pa):
    # 2**12 states (11 features and the target); each probability is a product of 12 CPT
    # entries, so two correct products differ by at most a few ulps.
    joint = pb.pyagrum_joint(pa, net.names)
    assert joint.shape == (2**12,)
    np.testing.assert_allclose(joint, net.joint, rtol=1e-13, atol=0)
    assert pa.size() == net.d and pa.sizeArcs() == len(net.edges)
    assert sorted((pa.variable(a).name(), pa.variable(b).name()) for a, b in pa.arcs()) == sorted(net.edges)


def test_a_wrong_cpt_is_caught(net):
    # swap two configurations of Lung_cancer's parents, as a transposed table would
    wrong = pb.to_pyagrum(net)
    cpt = wrong.cpt(LC)
    a, b = {"Genetics": 1, "Smoking": 0}, {"Genetics": 0, "Smoking": 1}
    pa_, pb_ = list(cpt[a]), list(cpt[b])
    cpt[a], cpt[b] = pb_, pa_
    joint = pb.pyagrum_joint(wrong, net.names)
    assert not np.allclose(joint, net.joint, rtol=1e-13, atol=0)
    # the state order matters too: read back in another order, the tables disagree
    assert not np.allclose(pb.pyagrum_joint(pb.to_pyagrum(net), net.names[::-1]), net.joint, rtol=1e-13, atol=0)


@settings(max_examples=40, deadline=None)
@given(random_nets())
def test_random_networks_agree(net):
    np.testing.assert_allclose(pb.pyagrum_joint(pb.to_pyagrum(net), net.names), net.joint, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("evidence", [{}, {"Smoking": 1}, {"Coughing": 1, "Fatigue": 0}, {"Yellow_Fingers": 1, "Car_Accident": 1}])
def test_pyagrum_inference_gives_the_same_posteriors(net, pa, evidence):
    ie = pyagrum.LazyPropagation(pa)
    ie.setEvidence(evidence)
    ie.makeInference()
    assert ie.posterior(LC)[1] == pytest.approx(net.conditional(LC, evidence), abs=1e-12)


def test_pyagrum_conditional_shapley_is_our_observational_game(net, pa):
    # pyAgrum's ConditionalShapValues (logit=False) plays v(S) = P(target | x_S): the
    # observational game of the Bayes classifier, by the tower property.
    x = np.array([1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1], dtype=np.uint8)
    instance = pd.DataFrame([dict(zip(FEATURES, map(int, x)))])
    expl = pyagrum.explain.ConditionalShapValues(pa, LC, logit=False).compute((instance, False))
    ours = sdp.network_shapley(net, x, target=LC, game="observational").values[0]
    np.testing.assert_allclose(pb.shap_values(expl, FEATURES), ours, rtol=0, atol=1e-12)


def test_pyagrum_causal_shapley_is_the_causal_game_of_the_target():
    # Small chain with a confounder: U -> A -> Y, U -> Y, Y -> C.  Ancestors of Y: U, A.
    net = bn.BinaryBayesNet(
        ["U", "A", "C", "Y"],
        {"A": ("U",), "Y": ("U", "A"), "C": ("Y",)},
        {"U": 0.3, "A": [0.2, 0.7], "Y": [[0.1, 0.6], [0.4, 0.95]], "C": [0.25, 0.8]},
    )
    every_state = pd.DataFrame(bn.states(net.d).astype(int), columns=list(net.names))
    x = {"U": 1, "A": 0, "C": 1}
    expl = pyagrum.explain.CausalShapValues(pb.to_pyagrum(net), "Y", (every_state, False), logit=False).compute(
        (pd.DataFrame([x]), False)
    )
    phi = formula.shapley_from_game(bn.causal_target_game(net, x, "Y", ["U", "A"]))
    np.testing.assert_allclose(pb.shap_values(expl, ["U", "A", "C"]), [*phi, 0.0], rtol=0, atol=1e-12)


def test_bad_input_is_refused(net, pa):
    with pytest.raises(TypeError, match="BinaryBayesNet"):
        pb.to_pyagrum(pa)
    with pytest.raises(TypeError, match="pyagrum.BayesNet"):
        pb.pyagrum_joint(net, net.names)
    with pytest.raises(ValueError, match="each variable"):
        pb.pyagrum_joint(pa, net.names[:-1])
    with pytest.raises(ValueError, match="each variable"):
        pb.pyagrum_joint(pa, list(net.names[:-1]) + [net.names[0]])
    three = pyagrum.BayesNet()
    three.add(pyagrum.LabelizedVariable("t", "t", 3))
    with pytest.raises(ValueError, match="binary"):
        pb.pyagrum_joint(three, ["t"])
    with pytest.raises(ValueError, match="label position"):
        pb.shap_values({0: {"a": 0.1}}, ["a"])
    with pytest.raises(ValueError, match="no value"):
        pb.shap_values({1: {"a": 0.1}}, ["a", "b"])
    with pytest.raises(ValueError, match="single instance"):
        pb.shap_values({1: [0.1]}, ["a"])
