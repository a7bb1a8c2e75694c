"""Amoukou & Brunel's claims about their Figure 1 (§3.2), as tests on one instance's SDPs.

Its home: the paper's words (:data:`FIGURE1_PAPER`, quoted exactly) and the six tests
(:func:`figure1_claims`, with the LUCAS variables of the paper's figure as defaults, each a
:class:`compendium.claims.Claim`), built on the exact SDP and Swing Shapley values of :mod:`lib.sdp`.
``notebooks/03-same-decision-probability/03-swing-shapley-figure-1`` tests them on the exact
SDPs (``data/derived/sdp-figure1-claims.csv``) and ``04-estimated-sdp`` on estimated ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from compendium.claims import Claim, Threshold
from lib import formula
from lib.sdp import check_pi, check_sdp, swing_decomposition, swing_game
from lib.validation import is_number

__all__ = ["FIGURE1_PAPER", "figure1_claims"]


#: Amoukou & Brunel §3.2, their words about Figure 1, quoted exactly (one entry per test of
#: :func:`figure1_claims`; the two tests of (iii), and of (iv), quote their one sentence alike: one claim).
FIGURE1_PAPER: dict[str, str] = {
    "i": "all the features have the same Swing-SV for low values of π (below 0.7)",
    "ii": "For higher probability π, the three expected variables (Smoking, Coughing, Genetic) stand out.",
    "iii-a": "The variables Fatigue, Allergy seems important, but the remaining variables have almost zero contributions.",
    "iii-b": "The variables Fatigue, Allergy seems important, but the remaining variables have almost zero contributions.",
    "iv": "important variables do not make any reverse-swings, while irrelevant variables do.",
    "v": "Even more, reverse-swings dominate for noisy variables.",
    "iv-b": "important variables do not make any reverse-swings, while irrelevant variables do.",
}


def _names(features: Sequence[str], names: Iterable[str], what: str) -> list[str]:
    names = list(names)
    unknown = sorted(set(names) - set(features))
    if unknown:
        raise ValueError(f"{what}: {unknown} are not features")
    return names


def figure1_claims(
    sdp: np.typing.ArrayLike,
    features: Sequence[str],
    blanket: Iterable[str],
    *,
    expected: Sequence[str] = ("Smoking", "Genetics", "Coughing"),
    seem_important: Sequence[str] = ("Fatigue", "Allergy"),
    null_players: Iterable[str] = ("Born_an_Even_Day",),
    pi: float = 0.9,
    low: float = 0.7,
    small: float = 0.25,
    step: float = 0.005,
) -> list[Claim]:
    """Test the claims of Amoukou & Brunel §3.2 about their Figure 1 on one instance's SDPs (seven tests).

    ``sdp`` holds the ``2**d`` SDPs of one instance (:func:`same_decision_probability`); the
    Swing Shapley values (Definition 3.2) are computed on the grid ``pi' = 0.5, 0.5 + step, …, 1``
    and at ``pi`` (the level of the paper's right panel), with the swing split of
    :func:`swing_decomposition`.  The tests, fixed here before looking at any model:

    (i)     the values are all equal at every grid level ``pi' <= low``;
    (ii)    the variables ``expected`` are the ``len(expected)`` largest values at ``pi``
            (ties, equal to 10 decimals, broken by name);
    (iii-a) every variable of ``seem_important`` has a larger value than every variable
            outside the Markov ``blanket`` at ``pi``;
    (iii-b) every variable outside the blanket has ``|value| <= small * max value`` at ``pi``
            (``small`` is ours: the claim carries the range of thresholds over which it stands);
    (iv)    the ``expected`` variables make no reverse swing at ``pi``;
    (v)     for most of the noise variables (outside the blanket, not in ``null_players``),
            the Shapley-weighted reverse swings exceed the swings at ``pi`` ("most": a share above
            one half, ours, with the range over which the verdict stands);
    (iv-b)  ("while irrelevant variables do", the second clause of (iv)'s sentence) most of the
            variables outside the blanket make at least one reverse swing at ``pi`` (a share above
            one half, ours, read as (v)'s "dominate", with its range); last, so that the six before
            keep their places.

    Raises ``ValueError`` for a batch of instances, names that are not features, or no noise
    variable.
    """
    v = check_sdp(sdp)
    features = list(features)
    if v.ndim != 1 or v.size != 2 ** len(features):
        raise ValueError(f"need the 2**{len(features)} SDPs of one instance, got shape {v.shape}")
    blanket = _names(features, blanket, "blanket")
    expected = _names(features, expected, "expected")
    seem_important = _names(features, seem_important, "seem_important")
    null_players = _names(features, null_players, "null_players")
    pi, low = check_pi(pi), check_pi(low)
    if not (is_number(small) and small > 0):
        raise ValueError(f"small must be a positive fraction, got {small!r}")
    outside = [f for f in features if f not in blanket]
    noise = [f for f in outside if f not in null_players]
    if not outside or not noise:
        raise ValueError("the claims about the remaining and the noisy variables need variables outside the blanket")
    idx = {f: i for i, f in enumerate(features)}

    def exact(a: np.ndarray) -> np.ndarray:          # rounding residues of exact zeros
        return np.where(np.abs(a) < 1e-12, 0.0, a)

    levels = np.round(np.arange(0.5, 1.0 + 1e-9, step), 6)
    curve = exact(formula.shapley_from_game(np.stack([swing_game(v, q) for q in levels])))
    split = swing_decomposition(swing_game(v, pi))
    at = exact(split.values)
    below = curve[levels <= low + 1e-12]
    spread = float((below.max(axis=1) - below.min(axis=1)).max()) if below.size else 0.0
    equal = levels[(curve.max(axis=1) - curve.min(axis=1)) < 1e-12]
    order = np.lexsort((np.array(features), -np.round(at, 10)))
    top = [features[i] for i in order[: len(expected)]]
    rank = {features[i]: r + 1 for r, i in enumerate(order)}
    out_values = at[[idx[f] for f in outside]]
    largest_out = outside[int(np.argmax(out_values))]
    largest_abs_out = outside[int(np.argmax(np.abs(out_values)))]
    reverse_expected = int(split.n_reverse_swings[[idx[f] for f in expected]].sum())
    with_reverse = [f for f in blanket if split.n_reverse_swings[idx[f]] > 0]
    dominated = [f for f in noise if split.reverse_swings[idx[f]] > split.swings[idx[f]]]
    outside_reverse = [f for f in outside if split.n_reverse_swings[idx[f]] > 0]
    k = len(expected)
    share = float(np.abs(out_values).max() / at.max()) if at.max() > 0 else float("inf")
    almost_zero = Threshold("max |Swing-SV| outside the blanket / largest value <= t", small, round(share, 6))
    # "dominate for noisy variables": read as reverse swings outweighing swings for most (a share t = 1/2, ours)
    most = Threshold("share of the noise variables whose reverse swings outweigh their swings > t", 0.5,
                     round(len(dominated) / len(noise), 6), "at least")
    # "while irrelevant variables do": read as most of the variables outside the blanket (a share t = 1/2, ours)
    irrelevant = Threshold("share of the variables outside the blanket that make a reverse swing > t", 0.5,
                           round(len(outside_reverse) / len(outside), 6), "at least")
    where = "§3.2"
    claims = [
        Claim(
            f"(i) all Swing-SVs equal for every pi <= {low:g}", FIGURE1_PAPER["i"], where,
            f"largest spread for pi <= {low:g}: {spread:.3f}; "
            + (f"all equal up to pi = {equal.max():g}" if equal.size else "never all equal"),
            spread < 1e-12),
        Claim(
            f"(ii) {', '.join(expected)} are the top {k} at pi = {pi:g}", FIGURE1_PAPER["ii"], where,
            f"top {k}: {', '.join(sorted(top))}; " + ", ".join(f"{f} rank {rank[f]}" for f in expected),
            set(top) == set(expected)),
        Claim(
            f"(iii) {' and '.join(seem_important)} above every non-blanket variable at pi = {pi:g}",
            FIGURE1_PAPER["iii-a"], where,
            ", ".join(f"{f} {at[idx[f]]:.3f}" for f in seem_important)
            + f"; largest non-blanket {out_values.max():.3f} ({largest_out})",
            bool(min(at[idx[f]] for f in seem_important) > out_values.max())),
        Claim(
            f"(iii) every non-blanket |Swing-SV| below {small:g} times the largest value at pi = {pi:g}",
            FIGURE1_PAPER["iii-b"], where,
            f"largest |Swing-SV| outside the blanket {np.abs(out_values).max():.3f} ({largest_abs_out}), "
            f"largest value {at.max():.3f}",
            almost_zero.holds, (almost_zero,)),
        Claim(
            f"(iv) {', '.join(expected)} make no reverse swings at pi = {pi:g}", FIGURE1_PAPER["iv"], where,
            f"reverse swings of {', '.join(expected)}: {reverse_expected}; "
            f"blanket variables with reverse swings: {', '.join(with_reverse) or 'none'}",
            reverse_expected == 0),
        Claim(
            f"(v) reverse swings outweigh swings for most of the {len(noise)} noise variables at pi = {pi:g}",
            FIGURE1_PAPER["v"], where,
            f"reverse swings outweigh swings for {', '.join(dominated) or 'none'} ({len(dominated)} of {len(noise)})",
            most.holds, (most,)),
        Claim(
            f"(iv) most of the {len(outside)} variables outside the blanket make reverse swings at pi = {pi:g}",
            FIGURE1_PAPER["iv-b"], where,
            f"with reverse swings: {', '.join(outside_reverse) or 'none'} ({len(outside_reverse)} of {len(outside)})",
            irrelevant.holds, (irrelevant,)),
    ]
    return claims

