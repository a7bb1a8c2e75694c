"""compendium.experiments.sdp_figure1: Figure 1's claims on hand-made games (moved from lib/tests/test_sdp.py)."""

from __future__ import annotations

import numpy as np
import pytest

from compendium.experiments import sdp_figure1
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
