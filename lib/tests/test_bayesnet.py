"""Tests of lib.bayesnet against ground truth it does not compute itself: the published
LUCAS CPTs, a plain-Python product of CPT entries, the graph read by hand, seeded samples
and the LUCAS0 data file (which needs the data cache, ``$SHAPLEY_BOOK_DATA``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import bayesnet as bn


@st.composite
def random_nets(draw, max_d: int = 5):
    """A random DAG (parents drawn among earlier variables of a shuffled order) with random CPTs."""
    d = draw(st.integers(1, max_d))
    names = [f"v{i}" for i in range(d)]
    order = draw(st.permutations(names))
    parents, cpts = {}, {}
    prob = st.floats(0.0, 1.0, allow_nan=False)
    for k, v in enumerate(order):
        ps = [p for p in order[:k] if draw(st.booleans())][:3]
        parents[v] = tuple(ps)
        cpts[v] = np.array(draw(st.lists(prob, min_size=2 ** len(ps), max_size=2 ** len(ps)))).reshape((2,) * len(ps))
    return bn.BinaryBayesNet(names, parents, cpts)


def brute_joint(net: bn.BinaryBayesNet, state: tuple[int, ...]) -> float:
    """P(state) as a plain product of CPT entries, one variable at a time."""
    value = dict(zip(net.names, state))
    p = 1.0
    for v in net.names:
        theta = float(net.cpts[v][tuple(value[q] for q in net.parents[v])])
        p *= theta if value[v] == 1 else 1.0 - theta
    return p


# --------------------------------------------------------------------------- generic network
@settings(max_examples=60, deadline=None)
@given(random_nets())
def test_joint_is_the_product_of_cpts_and_sums_to_one(net):
    joint = net.joint
    assert abs(joint.sum() - 1.0) < 1e-12
    for s, state in enumerate(itertools.product((0, 1), repeat=net.d)):
        bits = tuple(state[::-1])  # itertools varies the last element fastest; bit 0 is names[0]
        idx = int(bn.state_index(np.array(bits)))
        assert abs(joint[idx] - brute_joint(net, bits)) < 1e-14


@settings(max_examples=60, deadline=None)
@given(random_nets())
def test_conditionals_of_a_node_given_its_parents_are_its_cpt(net):
    for v in net.names:
        for cfg in itertools.product((0, 1), repeat=len(net.parents[v])):
            ev = dict(zip(net.parents[v], cfg))
            if net.probability(ev) < 1e-9:
                continue
            assert abs(net.conditional(v, ev) - net.cpts[v][cfg]) < 1e-9


@settings(max_examples=40, deadline=None)
@given(random_nets(max_d=4), st.data())
def test_marginal_table_matches_probability_of_evidence(net, data):
    sub = data.draw(st.lists(st.sampled_from(net.names), unique=True, max_size=net.d))
    table = net.marginal_table(sub)
    assert abs(table.sum() - 1.0) < 1e-12
    for s in range(2 ** len(sub)):
        ev = {n: (s >> j) & 1 for j, n in enumerate(sub)}
        assert abs(table[s] - net.probability(ev)) < 1e-12


def test_states_and_state_index_are_inverse():
    x = bn.states(5)
    assert x.shape == (32, 5)
    np.testing.assert_array_equal(bn.state_index(x), np.arange(32))
    assert list(x[6]) == [0, 1, 1, 0, 0]  # 6 = bits 1 and 2


# --------------------------------------------------------------------------- LUCAS
PUBLISHED = [  # (variable, {parent: value}, P(variable = T | parents)) from MANIFEST.md section B
    ("Anxiety", {}, 0.64277),
    ("Peer_Pressure", {}, 0.32997),
    ("Genetics", {}, 0.15953),
    ("Born_an_Even_Day", {}, 0.5),
    ("Allergy", {}, 0.32841),
    ("Smoking", {"Peer_Pressure": 0, "Anxiety": 0}, 0.43118),
    ("Smoking", {"Peer_Pressure": 1, "Anxiety": 0}, 0.74591),
    ("Smoking", {"Peer_Pressure": 0, "Anxiety": 1}, 0.8686),
    ("Smoking", {"Peer_Pressure": 1, "Anxiety": 1}, 0.91576),
    ("Yellow_Fingers", {"Smoking": 0}, 0.23119),
    ("Yellow_Fingers", {"Smoking": 1}, 0.95372),
    ("Lung_cancer", {"Genetics": 0, "Smoking": 0}, 0.23146),
    ("Lung_cancer", {"Genetics": 1, "Smoking": 0}, 0.86996),
    ("Lung_cancer", {"Genetics": 0, "Smoking": 1}, 0.83934),
    ("Lung_cancer", {"Genetics": 1, "Smoking": 1}, 0.99351),
    ("Attention_Disorder", {"Genetics": 0}, 0.28956),
    ("Attention_Disorder", {"Genetics": 1}, 0.68706),
    ("Coughing", {"Allergy": 0, "Lung_cancer": 0}, 0.1347),
    ("Coughing", {"Allergy": 1, "Lung_cancer": 0}, 0.64592),
    ("Coughing", {"Allergy": 0, "Lung_cancer": 1}, 0.7664),
    ("Coughing", {"Allergy": 1, "Lung_cancer": 1}, 0.99947),
    ("Fatigue", {"Lung_cancer": 0, "Coughing": 0}, 0.35212),
    ("Fatigue", {"Lung_cancer": 1, "Coughing": 0}, 0.56514),
    ("Fatigue", {"Lung_cancer": 0, "Coughing": 1}, 0.80016),
    ("Fatigue", {"Lung_cancer": 1, "Coughing": 1}, 0.89589),
    ("Car_Accident", {"Attention_Disorder": 0, "Fatigue": 0}, 0.2274),
    ("Car_Accident", {"Attention_Disorder": 1, "Fatigue": 0}, 0.779),
    ("Car_Accident", {"Attention_Disorder": 0, "Fatigue": 1}, 0.78861),
    ("Car_Accident", {"Attention_Disorder": 1, "Fatigue": 1}, 0.97169),
]


@pytest.fixture(scope="module")
def net():
    return bn.lucas()


def test_lucas_joint_sums_to_one(net):
    assert net.d == 12 and net.joint.shape == (4096,)
    assert abs(net.joint.sum() - 1.0) < 1e-12
    assert np.all(net.joint > 0)


@pytest.mark.parametrize("variable, evidence, theta", PUBLISHED)
def test_lucas_exact_conditionals_are_the_published_cpts(net, variable, evidence, theta):
    assert abs(net.conditional(variable, evidence) - theta) < 1e-12


def test_lucas_edges_are_the_published_graph(net):
    published = {
        ("Anxiety", "Smoking"), ("Peer_Pressure", "Smoking"), ("Smoking", "Yellow_Fingers"),
        ("Smoking", "Lung_cancer"), ("Genetics", "Lung_cancer"), ("Genetics", "Attention_Disorder"),
        ("Allergy", "Coughing"), ("Lung_cancer", "Coughing"), ("Lung_cancer", "Fatigue"),
        ("Coughing", "Fatigue"), ("Fatigue", "Car_Accident"), ("Attention_Disorder", "Car_Accident"),
    }
    assert set(net.edges) == published
    assert net.children("Born_an_Even_Day") == () and net.parents["Born_an_Even_Day"] == ()


def test_lucas_markov_blanket_of_lung_cancer(net):
    assert set(net.markov_blanket("Lung_cancer")) == {"Smoking", "Genetics", "Coughing", "Fatigue", "Allergy"}
    assert net.markov_blanket("Born_an_Even_Day") == ()
    assert set(net.markov_blanket("Smoking")) == {"Anxiety", "Peer_Pressure", "Yellow_Fingers", "Lung_cancer", "Genetics"}


def test_lung_cancer_given_everything_depends_on_its_blanket_only(net):
    """The defining property of the Markov blanket, checked numerically on all 2^11 states."""
    features = list(bn.LUCAS_FEATURES)
    blanket = list(net.markov_blanket("Lung_cancer"))
    full = net.conditional_table("Lung_cancer", features)
    small = net.conditional_table("Lung_cancer", blanket)
    x = bn.states(11)
    idx = bn.state_index(x[:, [features.index(b) for b in blanket]])
    np.testing.assert_allclose(full, small[idx], atol=1e-12)


def test_sampling_is_seeded(net):
    a = net.sample(100, np.random.default_rng(3))
    b = net.sample(100, np.random.default_rng(3))
    assert a.equals(b) and list(a.columns) == list(net.names)


def test_sampled_frequencies_agree_with_cpts(net):
    data = net.sample(20000, np.random.default_rng(20261121))
    fit = net.goodness_of_fit(data)
    assert len(fit) == 29  # 5 roots + 2 + 2 + 4 * 5 parent configurations
    assert fit["n"].groupby(fit["variable"]).sum().eq(20000).all()
    summary = net.goodness_of_fit_summary(data)
    assert summary["dof"] == 29 and summary["p-value"] > 1e-3
    # and the frequencies are within 5 binomial standard errors of every CPT entry
    se = np.sqrt(fit["CPT"] * (1 - fit["CPT"]) / fit["n"])
    assert np.all(np.abs(fit["empirical"] - fit["CPT"]) < 5 * se)


def test_goodness_of_fit_rejects_a_wrong_network(net):
    """The check can fail: data from a network with one CPT entry moved by 0.05."""
    cpts = dict(net.cpts)
    t = cpts["Fatigue"].copy()
    t[1, 1] -= 0.05
    cpts["Fatigue"] = t
    other = bn.BinaryBayesNet(net.names, net.parents, cpts)
    data = other.sample(20000, np.random.default_rng(1))
    assert net.goodness_of_fit_summary(data)["p-value"] < 1e-6


# --------------------------------------------------------------------------- bad input
def test_bad_networks_are_refused():
    with pytest.raises(ValueError, match="cycle"):
        bn.BinaryBayesNet(["a", "b"], {"a": ["b"], "b": ["a"]}, {"a": [0.1, 0.2], "b": [0.3, 0.4]})
    with pytest.raises(ValueError, match="shape"):
        bn.BinaryBayesNet(["a", "b"], {"b": ["a"]}, {"a": 0.5, "b": 0.3})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bn.BinaryBayesNet(["a"], {}, {"a": 1.2})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bn.BinaryBayesNet(["a"], {}, {"a": float("nan")})
    with pytest.raises(ValueError, match="not variables"):
        bn.BinaryBayesNet(["a"], {"a": ["z"]}, {"a": [0.1, 0.2]})
    with pytest.raises(ValueError, match="no CPT"):
        bn.BinaryBayesNet(["a", "b"], {}, {"a": 0.5})
    with pytest.raises(ValueError, match="unique"):
        bn.BinaryBayesNet(["a", "a"], {}, {"a": 0.5})


def test_bad_queries_are_refused(net):
    with pytest.raises(ValueError, match="unknown variable"):
        net.conditional("Lung_Cancer", {})  # the data file spells it Lung_cancer
    with pytest.raises(ValueError, match="unknown variable"):
        net.markov_blanket("nope")
    with pytest.raises(ValueError, match="unknown variables"):
        net.marginal_table(["Smoking", "Smokin"])
    with pytest.raises(ValueError, match="0 or 1"):
        net.probability({"Smoking": 2})
    with pytest.raises(ValueError, match="both"):
        net.conditional("Smoking", {"Smoking": 1})
    zero = bn.BinaryBayesNet(["a", "b"], {"b": ["a"]}, {"a": 0.0, "b": [0.5, 0.5]})
    with pytest.raises(ValueError, match="probability zero"):
        zero.conditional("b", {"a": 1})
    with pytest.raises(TypeError):
        net.sample(5, rng=0)
    with pytest.raises(ValueError, match="only 0 and 1"):
        bn.state_index([0, 2, 1])
