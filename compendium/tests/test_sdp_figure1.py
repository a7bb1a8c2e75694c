"""compendium.experiments.sdp_figure1: Figure 1's claims on hand-made games (moved from lib/tests/test_sdp.py)."""

from __future__ import annotations

import numpy as np
import pytest

import compendium.data
from compendium import report
from compendium.experiments import acv_lucas, sdp_figure1
from lib import bayesnet as bn
from lib import sdp


def _sdp_of(rule, d=4):
    """SDPs of a hand-made game over features A, B, C, N: rule(set of names) -> SDP."""
    names = ["A", "B", "C", "N"][:d]
    return np.array([rule({names[i] for i in range(d) if (S >> i) & 1}) for S in range(2**d)]), names


def test_figure1_claims_on_hand_made_games():
    kw = dict(blanket=["A", "B", "C"], expected=["A", "B"], seem_important=["C"], null_players=[])
    # A or B alone secure the decision at 0.9; every coalition wins below 0.8: A and B are
    # symmetric game-changers (1/2 each), C and N null players.
    sdp_ab, names = _sdp_of(lambda S: 0.95 if S & {"A", "B"} else 0.8)
    sdp_ab[-1] = 1.0
    i, ii, iii_a, iii_b, iv, v, iv_b = (c.holds for c in sdp_figure1.figure1_claims(sdp_ab, names, **kw))
    assert i and ii and iii_b and iv
    assert not iii_a                                      # C (0) is not above N (0)
    assert not v and not iv_b                             # N makes neither swings nor reverse swings
    phi = sdp.swing_shapley(sdp_ab, 0.9)
    np.testing.assert_allclose(phi, [0.5, 0.5, 0.0, 0.0], atol=1e-12)
    # with N known the decision is less sure: N's arrival turns winning coalitions into losing ones
    sdp_n, _ = _sdp_of(lambda S: (0.95 if S & {"A", "B"} else 0.8) - (0.1 if "N" in S else 0.0))
    sdp_n[-1] = 1.0
    assert sdp_figure1.figure1_claims(sdp_n, names, **kw)[5].holds
    assert sdp_figure1.figure1_claims(sdp_n, names, **kw)[6].holds    # (iv-b): N, outside the blanket, does
    assert sdp.swing_decomposition(sdp.swing_game(sdp_n, 0.9)).n_reverse_swings[3] > 0
    # (i) fails when the values already differ at a low level
    sdp_low, _ = _sdp_of(lambda S: 0.95 if "A" in S else 0.6)
    sdp_low[-1] = 1.0
    assert not sdp_figure1.figure1_claims(sdp_low, names, **kw)[0].holds
    # (ii) fails when an unexpected variable leads; (iii) compares with the non-blanket values
    sdp_c, _ = _sdp_of(lambda S: 0.95 if "C" in S else 0.8)
    sdp_c[-1] = 1.0
    c = sdp_figure1.figure1_claims(sdp_c, names, **kw)
    assert not c[1].holds and c[2].holds and c[3].holds
    assert {x.paper for x in c} == set(sdp_figure1.FIGURE1_PAPER.values())


def test_figure1_claims_rejects_bad_input():
    sdp_ab, names = _sdp_of(lambda S: 0.9)
    with pytest.raises(ValueError, match="one instance"):
        sdp_figure1.figure1_claims(np.stack([sdp_ab, sdp_ab]), names, blanket=["A"], expected=["A"], seem_important=["B"],
                           null_players=[])
    with pytest.raises(ValueError, match="not features"):
        sdp_figure1.figure1_claims(sdp_ab, names, blanket=["A", "Z"], expected=["A"], seem_important=["B"], null_players=[])
    with pytest.raises(ValueError, match="outside the blanket"):
        sdp_figure1.figure1_claims(sdp_ab, names, blanket=names, expected=["A"], seem_important=["B"], null_players=[])


def test_figure1_claims_on_another_instance_are_shown_not_scored():
    sdp_ab, names = _sdp_of(lambda S: 0.95 if S & {"A", "B"} else 0.8)
    sdp_ab[-1] = 1.0
    kw = dict(blanket=["A", "B", "C"], expected=["A", "B"], seem_important=["C"], null_players=[])
    shown = sdp_figure1.figure1_claims(sdp_ab, names, other_instance="a model of ours", **kw)
    scored = sdp_figure1.figure1_claims(sdp_ab, names, **kw)
    assert [c.holds for c in shown] == [c.holds for c in scored]
    assert all(c.paper == f"not claimed (a model of ours): {s.paper}" for c, s in zip(shown, scored))
    assert not any(report.is_paper_claim(c.paper) for c in shown)


def test_null_players_are_the_features_that_never_move_an_sdp():
    sdp_ab, names = _sdp_of(lambda S: 0.95 if S & {"A", "B"} else 0.8)
    sdp_ab[-1] = 1.0      # the full coalition moves C and N too: at S = {A, B, C}, N's arrival lifts 0.95 to 1
    assert sdp_figure1.null_players(sdp_ab, names) == []
    flat, _ = _sdp_of(lambda S: 0.95 if S & {"A", "B"} else 0.8)
    assert sdp_figure1.null_players(flat, names) == ["C", "N"]


def test_game_changer_claims_on_hand_made_games():
    # A and B secure the decision: the game-changers, both in the blanket {A, B}; C and N never move it
    sdp_ab, names = _sdp_of(lambda S: 0.95 if S & {"A", "B"} else 0.8)
    h, g = sdp_figure1.game_changer_claims(sdp_ab, names, ["A", "B"])
    assert h.holds and g.holds
    assert h.paper == sdp_figure1.PAPER["headline"][0] and g.paper == sdp_figure1.PAPER["introduction"][0]
    # the blanket {A, C}: C is no game-changer, so the largest values are not the blanket's (h fails), and B,
    # outside it, is a game-changer (g fails), whatever share of the largest value a game-changer needs up to 1
    h, g = sdp_figure1.game_changer_claims(sdp_ab, names, ["A", "C"])
    assert not h.holds and not g.holds
    assert g.thresholds[0].measure == pytest.approx(1.0)
    # N, outside the blanket {A, B, C}, is a weak game-changer (it secures only with C): its share decides (g)
    weak, _ = _sdp_of(lambda S: 0.95 if S & {"A", "B"} or {"C", "N"} <= S else 0.8)
    _, g = sdp_figure1.game_changer_claims(weak, names, ["A", "B", "C"], small=0.25)
    phi = sdp.swing_shapley(weak, 0.9)
    assert g.thresholds[0].measure == pytest.approx(round(phi[3] / phi.max(), 6))
    assert g.holds == (phi[3] / phi.max() <= 0.25)
    with pytest.raises(ValueError, match="both must be non-empty"):
        sdp_figure1.game_changer_claims(sdp_ab, names, names)


def test_negative_claim_compares_the_rates_of_negative_values():
    # N lowers the SDP of any coalition it joins: its reverse swings make it negative on every instance
    sdp_n, names = _sdp_of(lambda S: (0.95 if S & {"A", "B"} else 0.8) - (0.1 if "N" in S else 0.0))
    sdp_n[-1] = 1.0
    both = np.stack([sdp_n, sdp_n])
    c = sdp_figure1.negative_claim(both, [1, 1], names, ["A", "B", "C"])
    assert c.holds and c.paper == sdp_figure1.PAPER["negative"][0]
    # with N in the blanket and C outside, the negative values are the blanket's: it fails
    assert not sdp_figure1.negative_claim(both, [1, 1], names, ["A", "B", "N"]).holds
    # no negative value at all: nothing concentrates anywhere
    sdp_ab, _ = _sdp_of(lambda S: 0.95 if S & {"A", "B"} else 0.8)
    assert not sdp_figure1.negative_claim(sdp_ab[None, :], [1], names, ["A", "B", "C"]).holds
    with pytest.raises(ValueError, match="weights"):
        sdp_figure1.negative_claim(both, [1], names, ["A", "B", "C"])
    with pytest.raises(ValueError, match="one row each"):
        sdp_figure1.negative_claim(sdp_n, [1], names, ["A", "B", "C"])


def test_network_claims_read_the_published_tables():
    net = bn.lucas()
    features = list(bn.LUCAS_FEATURES)
    b, p = sdp_figure1.network_claims(net, bn.LUCAS_TARGET, features)
    assert b.holds and p.holds
    # the probability the claim reads is the network's, by brute force over the joint distribution
    joint = net.marginal_table(features + [bn.LUCAS_TARGET])
    states = bn.states(len(features) + 1)
    given = np.all(states[:, [features.index(v) for v in ("Smoking", "Genetics", "Coughing")]] == 1, axis=1)
    brute = joint[given & (states[:, -1] == 1)].sum() / joint[given].sum()
    assert p.thresholds[0].measure == pytest.approx(round(brute, 6))
    # "very high" at a level above that probability fails
    _, strict = sdp_figure1.network_claims(net, bn.LUCAS_TARGET, features, high=0.999)
    assert not strict.holds


def test_the_authors_demo_is_refitted_as_their_worker_fits_it():
    """The worker that runs ACV (Python 3.9, no lib) repeats the demo's split, tree and row: the same numbers."""
    import ast

    worker = (compendium.data.REPO_ROOT / "scripts" / "_acv_worker.py").read_text(encoding="utf-8")
    constants = {t.id: n.value.value for n in ast.parse(worker).body if isinstance(n, ast.Assign)
                 for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)}
    assert (constants["SEED_SPLIT"], constants["SEED_TREE"], constants["MIN_SAMPLES_LEAF"]) == (
        acv_lucas.SEED_SPLIT, acv_lucas.SEED_TREE, acv_lucas.MIN_SAMPLES_LEAF)


def test_authors_demo_row_and_decisions():
    import pandas as pd

    features = list(bn.LUCAS_FEATURES)
    X0, y0 = compendium.data.load_lucas0()
    demo = acv_lucas.authors_demo(X0, y0, features)
    # the row the paper describes: Smoking, Genetics and Coughing true, a positive decision
    assert all(demo.x[features.index(v)] == 1 for v in ("Smoking", "Genetics", "Coughing"))
    assert demo.decision[bn.state_index(demo.x[None, :])[0]] == 1
    # the tree decides as its own predict, state by state, and its probabilities are in [0, 1]
    states = pd.DataFrame(bn.states(len(features)), columns=features)
    np.testing.assert_array_equal(demo.decision, demo.tree.predict(states))
    assert ((demo.proba >= 0) & (demo.proba <= 1)).all() and len(demo.X_train) == 4 * len(demo.X_test)
    with pytest.raises(ValueError, match="no column"):
        acv_lucas.authors_demo(X0.drop(columns="Smoking"), y0, features)



def test_cut_correlations_by_hand():
    # states ordered as lib.bayesnet.states: s = x0 + 2 x1
    p = np.array([0.5, 0.2, 0.1, 0.2])                    # P(x0 = 1) = 0.4, P(x1 = 1) = 0.3
    np.testing.assert_allclose(sdp_figure1.cut_correlations(p, 0), [0.42, 0.28, 0.18, 0.12])
    np.testing.assert_allclose(sdp_figure1.cut_correlations(p, 1), [0.42, 0.28, 0.18, 0.12])
    independent = np.array([0.42, 0.28, 0.18, 0.12])
    np.testing.assert_allclose(sdp_figure1.cut_correlations(independent, 1), independent)
    with pytest.raises(ValueError):
        sdp_figure1.cut_correlations(p, 2)


def _abn():
    """Features A, B, N: A and B correlated (P(A = B) = 0.8), N a fair coin independent of both."""
    z = bn.states(3)
    p_ab = np.where(z[:, 0] == z[:, 1], 0.4, 0.1)
    return z, p_ab * 0.5, ["A", "B", "N"]


def test_reverse_swing_claims_on_a_hand_made_model():
    z, p, names = _abn()
    # the decision reads N, which carries nothing: at x = (1, 1, 1), SDP_{A} = 1 - P(N = 1) P(B = 0 | A = 1) = 0.9
    # and SDP_{A, N} = P(B = 1 | A = 1) = 0.8, so N's arrival turns the winning {A} into a losing coalition
    decision = ((z[:, 0] == 1) & ~((z[:, 2] == 1) & (z[:, 1] == 0))).astype(float)
    x = np.array([1, 1, 1])
    few, overfit, corr = sdp_figure1.reverse_swing_claims(decision, p, x, 0.5, names,
                                                          {"A": ["B"], "B": ["A"], "N": []})
    assert overfit.holds and "N" in overfit.ours
    # no variable without a neighbour: the over-fitting reading cannot hold
    _, overfit, _ = sdp_figure1.reverse_swing_claims(decision, p, x, 0.5, names,
                                                     {"A": ["B"], "B": ["A"], "N": ["A"]})
    assert not overfit.holds and "no variable without a neighbour" in overfit.ours
    # the decision is A alone, every variable independent: no negative value, no reverse swing, nothing to cut
    flat = np.full(8, 1 / 8)
    few, overfit, corr = sdp_figure1.reverse_swing_claims((z[:, 0] == 1).astype(float), flat, x, 0.5, names,
                                                          {"A": ["B"], "B": ["A"], "N": []})
    assert not few.holds and not overfit.holds and not corr.holds
    assert {c.paper for c in (few, overfit, corr)} == {q for q, _ in sdp_figure1.REVERSE_SWINGS.values()}
