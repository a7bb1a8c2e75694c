"""Tests of Pearl's do-operator on lib.bayesnet networks (``BinaryBayesNet.intervene``) and of
the causal game of the target (``causal_target_game``), against the truncated factorisation
written out as a plain product, and against the published LUCAS CPTs by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import bayesnet as bn
from lib import formula
from lib.tests.test_bayesnet import random_nets

LC = bn.LUCAS_TARGET


@pytest.fixture(scope="module")
def net():
    return bn.lucas()


@settings(max_examples=60, deadline=None)
@given(random_nets(), st.data())
def test_intervened_joint_is_the_truncated_factorisation(net, data):
    chosen = data.draw(st.lists(st.sampled_from(net.names), unique=True, max_size=net.d))
    values = {v: data.draw(st.integers(0, 1)) for v in chosen}
    done = net.intervene(values)
    for state in itertools.product((0, 1), repeat=net.d):
        value = dict(zip(net.names, state))
        expected = 1.0
        for v in net.names:
            if v in values:                           # the intervened factor is the indicator
                expected *= float(value[v] == values[v])
            else:
                theta = float(net.cpts[v][tuple(value[q] for q in net.parents[v])])
                expected *= theta if value[v] == 1 else 1.0 - theta
        s = int(bn.state_index(np.array(state)))
        assert done.joint[s] == pytest.approx(expected, abs=1e-15)


def test_do_on_effects_leaves_the_cause_alone_but_observing_them_does_not(net):
    # Coughing and Yellow_Fingers are effects (descendants) of Lung_cancer's causes: setting
    # them changes nothing upstream, observing them does.
    p_lc = net.probability({LC: 1})
    for v in ("Coughing", "Yellow_Fingers"):
        assert net.intervene({v: 1}).probability({LC: 1}) == pytest.approx(p_lc, abs=1e-15)
        assert abs(net.conditional(LC, {v: 1}) - p_lc) > 0.01


def test_do_on_the_parents_of_lung_cancer_by_hand(net):
    # Published CPT of Lung_cancer given (Genetics, Smoking): FF .23146, TF .86996, FT .83934, TT .99351
    # and P(Genetics = 1) = .15953: P(LC | do(Smoking = 1)) = sum_g P(g) P(LC | g, Smoking = 1).
    expected = 0.84047 * 0.83934 + 0.15953 * 0.99351
    assert net.intervene({"Smoking": 1}).probability({LC: 1}) == pytest.approx(expected, abs=1e-12)
    assert net.intervene({"Smoking": 1, "Genetics": 0}).probability({LC: 1}) == pytest.approx(0.83934, abs=1e-12)


def test_causal_target_game_by_hand(net):
    players = ["Smoking", "Genetics"]
    game = bn.causal_target_game(net, {"Smoking": 1, "Genetics": 1, "Coughing": 0}, LC, players)
    p_smoke = net.probability({"Smoking": 1})
    expected = [
        net.probability({LC: 1}),
        0.84047 * 0.83934 + 0.15953 * 0.99351,                     # do(Smoking = 1)
        (1 - p_smoke) * 0.86996 + p_smoke * 0.99351,                # do(Genetics = 1)
        0.99351,                                                    # do(both)
    ]
    np.testing.assert_allclose(game, expected, rtol=0, atol=1e-12)
    phi = formula.shapley_from_game(game)
    assert phi.sum() == pytest.approx(0.99351 - expected[0], abs=1e-12)   # efficiency


def test_ancestors_by_hand(net):
    # read off the published graph: Lung_cancer <- (Genetics, Smoking), Smoking <- (Peer_Pressure, Anxiety)
    assert set(net.ancestors(LC)) == {"Genetics", "Smoking", "Peer_Pressure", "Anxiety"}
    assert set(net.ancestors("Car_Accident")) == {
        "Attention_Disorder", "Fatigue", "Genetics", "Lung_cancer", "Coughing", "Allergy", "Smoking",
        "Peer_Pressure", "Anxiety",
    }
    assert net.ancestors("Born_an_Even_Day") == () and net.ancestors("Genetics") == ()
    with pytest.raises(ValueError, match="unknown variable"):
        net.ancestors("nope")


def test_bad_interventions_are_refused(net):
    with pytest.raises(ValueError, match="unknown variable"):
        net.intervene({"Smokin": 1})
    with pytest.raises(ValueError, match="0 or 1"):
        net.intervene({"Smoking": 2})
    with pytest.raises(ValueError, match="0 or 1"):
        net.intervene({"Smoking": 0.5})
    with pytest.raises(ValueError, match="cannot be a player"):
        bn.causal_target_game(net, {LC: 1}, LC, [LC])
    with pytest.raises(ValueError, match="no value"):
        bn.causal_target_game(net, {}, LC, ["Smoking"])
    with pytest.raises(ValueError, match="repeated"):
        bn.causal_target_game(net, {"Smoking": 1}, LC, ["Smoking", "Smoking"])
    with pytest.raises(ValueError, match="unknown variable"):
        bn.causal_target_game(net, {"Smoking": 1}, "Lung_Cancer", ["Smoking"])
