"""Amoukou & Brunel's claims about their Figure 1 (§3.2), as tests on one instance's SDPs.

Its home: the paper's words (:data:`FIGURE1_PAPER`, :data:`PAPER`, quoted exactly) and their tests,
each a :class:`compendium.claims.Claim`: the seven tests of the Figure 1 readings (:func:`figure1_claims`,
with the LUCAS variables of the paper's figure as defaults), the tests of the paper's sentences
about game-changers and negative values (:func:`game_changer_claims`), both built on the exact SDP
and Swing Shapley values of :mod:`lib.sdp`, and of its two statements about the LUCAS network
(:func:`network_claims`). ``notebooks/03-same-decision-probability/03-swing-shapley-figure-1``
tests them on the authors' own set-up (``data/derived/sdp-figure1-authors-claims.csv``) and on the
Bayes classifier of the network (``data/derived/sdp-figure1-claims.csv``), ``04-estimated-sdp`` on
estimated SDPs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from compendium.claims import Claim, Threshold
from lib import formula
from lib.bayesnet import state_index, states
from lib.sdp import check_pi, check_sdp, swing_decomposition, swing_game
from lib.validation import is_number

__all__ = ["FIGURE1_PAPER", "PAPER", "REVERSE_SWINGS", "cut_correlations", "figure1_claims", "game_changer_claims",
           "negative_claim", "network_claims", "null_players", "reverse_swing_claims"]


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


#: Amoukou & Brunel's other sentences on what the swing game shows and on the LUCAS network, quoted exactly,
#: with where they stand.
PAPER: dict[str, tuple[str, str]] = {
    "headline": ("Our main contribution is the introduction of a new cooperative game that shows that the variables "
                 "who acts as game-changer are the important variables of the model.", "abstract"),
    "introduction": ("Finally, we show that the variables that perform as game-changer when we consider swinging "
                     "coalitions, are important variables.", "§1"),
    "negative": ("However, it should be noted that the SV $\\phi_i^{SDP, \\pi}$ can be negative, especially when the "
                 "variable is not very important.", "§3.1"),
    "blanket": ('The variables "Smoking, Coughing, Allergy, Genetics, Fatigue" are Markov Blanket, the 6 other '
                "variables are not directly related to the target.", "§3.2"),
    "very high": ("We know from the probability tables that if Smoking, Genetic, Coughing are True, the probability "
                  "of having Cancer is very high.", "§3.2"),
}


def null_players(sdp: np.typing.ArrayLike, features: Sequence[str]) -> list[str]:
    """The features that never change an SDP of the instance (``SDP_{S+i} = SDP_S`` for every ``S``): null
    players of the swing game at every level, which can make neither a swing nor a reverse swing."""
    v = check_sdp(sdp)
    d = len(features)
    if v.ndim != 1 or v.size != 2**d:
        raise ValueError(f"need the 2**{d} SDPs of one instance, got shape {v.shape}")
    masks = np.arange(2**d)
    out = []
    for i, name in enumerate(features):
        without = masks[(masks >> i) & 1 == 0]
        if np.abs(v[without | (1 << i)] - v[without]).max() < 1e-12:
            out.append(name)
    return out


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
    other_instance: str = "",
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

    The readings are about the paper's Figure 1, one model at one instance, which the authors' own demo
    fixes. On any ``other_instance`` (say which, in a few words) the same tests are shown, never scored:
    each row's paper cell reads "not claimed (<other_instance>): <the paper's words>".

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
    quoted = {k: (f"not claimed ({other_instance}): {q}" if other_instance else q) for k, q in FIGURE1_PAPER.items()}
    claims = [
        Claim(
            f"(i) all Swing-SVs equal for every pi <= {low:g}", quoted["i"], where,
            f"largest spread for pi <= {low:g}: {spread:.3f}; "
            + (f"all equal up to pi = {equal.max():g}" if equal.size else "never all equal"),
            spread < 1e-12),
        Claim(
            f"(ii) {', '.join(expected)} are the top {k} at pi = {pi:g}", quoted["ii"], where,
            f"top {k}: {', '.join(sorted(top))}; " + ", ".join(f"{f} rank {rank[f]}" for f in expected),
            set(top) == set(expected)),
        Claim(
            f"(iii) {' and '.join(seem_important)} above every non-blanket variable at pi = {pi:g}",
            quoted["iii-a"], where,
            ", ".join(f"{f} {at[idx[f]]:.3f}" for f in seem_important)
            + f"; largest non-blanket {out_values.max():.3f} ({largest_out})",
            bool(min(at[idx[f]] for f in seem_important) > out_values.max())),
        Claim(
            f"(iii) every non-blanket |Swing-SV| below {small:g} times the largest value at pi = {pi:g}",
            quoted["iii-b"], where,
            f"largest |Swing-SV| outside the blanket {np.abs(out_values).max():.3f} ({largest_abs_out}), "
            f"largest value {at.max():.3f}",
            almost_zero.holds, (almost_zero,)),
        Claim(
            f"(iv) {', '.join(expected)} make no reverse swings at pi = {pi:g}", quoted["iv"], where,
            f"reverse swings of {', '.join(expected)}: {reverse_expected}; "
            f"blanket variables with reverse swings: {', '.join(with_reverse) or 'none'}",
            reverse_expected == 0),
        Claim(
            f"(v) reverse swings outweigh swings for most of the {len(noise)} noise variables at pi = {pi:g}",
            quoted["v"], where,
            f"reverse swings outweigh swings for {', '.join(dominated) or 'none'} ({len(dominated)} of {len(noise)})",
            most.holds, (most,)),
        Claim(
            f"(iv) most of the {len(outside)} variables outside the blanket make reverse swings at pi = {pi:g}",
            quoted["iv-b"], where,
            f"with reverse swings: {', '.join(outside_reverse) or 'none'} ({len(outside_reverse)} of {len(outside)})",
            irrelevant.holds, (irrelevant,)),
    ]
    return claims



def game_changer_claims(
    sdp: np.typing.ArrayLike,
    features: Sequence[str],
    blanket: Iterable[str],
    *,
    pi: float = 0.9,
    small: float = 0.25,
) -> list[Claim]:
    """Test the paper's two sentences on what the swing game shows (:data:`PAPER`) on one instance's SDPs.

    The readings, fixed here before looking at any model, take the paper's own words: "important" is the
    Markov ``blanket`` (§3.2: the other variables "are not directly related to the target"), a
    "game-changer" a variable with a high Swing-SV ("a high Swing-SV implies that the variable X_i
    generates a lot of swings and is a game-changer", §3.1), read at ``pi`` (the level of the paper's right
    panel):

    (h)  the abstract's "the variables who acts as game-changer are the important variables": the
         ``len(blanket)`` largest Swing-SVs are the blanket's (every blanket variable above every other;
         values equal to 10 decimals are a tie, which separates nothing);
    (g)  the introduction's "the variables that perform as game-changer ... are important variables"
         (every game-changer is important, not every important variable a game-changer): no variable
         outside the blanket reaches ``small`` times the largest Swing-SV (the threshold of "almost zero"
         of :func:`figure1_claims`, ours, with the range over which the verdict stands).

    Raises ``ValueError`` for a batch of instances, names that are not features, or an empty blanket or
    outside.
    """
    v = check_sdp(sdp)
    features = list(features)
    if v.ndim != 1 or v.size != 2 ** len(features):
        raise ValueError(f"need the 2**{len(features)} SDPs of one instance, got shape {v.shape}")
    blanket, outside = _blanket(features, blanket)
    pi = check_pi(pi)
    if not (is_number(small) and small > 0):
        raise ValueError(f"small must be a positive fraction, got {small!r}")
    at = swing_decomposition(swing_game(v, pi)).values
    at = np.where(np.abs(at) < 1e-12, 0.0, at)
    idx = {f: i for i, f in enumerate(features)}
    r = np.round(at, 10)
    inside_values, outside_values = r[[idx[f] for f in blanket]], r[[idx[f] for f in outside]]
    order = np.lexsort((np.array(features), -r))
    top = [features[i] for i in order[: len(blanket)]]
    low_in = blanket[int(np.argmin(inside_values))]
    high_out = outside[int(np.argmax(outside_values))]
    largest = float(at.max())
    share = float(outside_values.max() / largest) if largest > 0 else float("inf")
    changers = Threshold("largest Swing-SV outside the blanket / largest Swing-SV <= t", small, round(share, 6))
    return [
        Claim(
            f"(h) the {len(blanket)} largest Swing-SVs at pi = {pi:g} are the Markov blanket's", PAPER["headline"][0],
            PAPER["headline"][1],
            f"largest {len(blanket)}: {', '.join(top)}; smallest in the blanket {at[idx[low_in]]:.3f} ({low_in}), "
            f"largest outside {at[idx[high_out]]:.3f} ({high_out})",
            bool(inside_values.min() > outside_values.max())),
        Claim(
            f"(g) no variable outside the blanket reaches {small:g} times the largest Swing-SV at pi = {pi:g}",
            PAPER["introduction"][0], PAPER["introduction"][1],
            f"largest outside the blanket {at[idx[high_out]]:.3f} ({high_out}), {share:.2f} of the largest "
            f"{largest:.3f}",
            changers.holds, (changers,)),
    ]


def negative_claim(
    sdps: np.typing.ArrayLike,
    weights: np.typing.ArrayLike,
    features: Sequence[str],
    blanket: Iterable[str],
    *,
    pi: float = 0.9,
    population: str = "the instances",
) -> Claim:
    """Test "the SV ... can be negative, especially when the variable is not very important" (§3.1, :data:`PAPER`).

    A statement about the game in general, so it is read over many instances, not one: ``sdps`` holds the
    ``2**d`` SDPs of each instance (one row each) and ``weights`` their probabilities (or counts). It holds
    when some Swing-SV at ``pi`` is negative and a variable outside the Markov ``blanket`` has a negative
    value more often than a blanket variable (the weighted share of negative values among the outside
    variables' values above that among the blanket variables'). ``population`` names the instances in the
    claim's text.
    """
    v = check_sdp(sdps)
    features = list(features)
    if v.ndim != 2 or v.shape[1] != 2 ** len(features):
        raise ValueError(f"need the 2**{len(features)} SDPs of each instance (one row each), got shape {v.shape}")
    w = np.asarray(weights, dtype=float)
    if w.shape != (v.shape[0],) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights: one non-negative number per instance, not all 0, got shape {w.shape}")
    blanket, outside = _blanket(features, blanket)
    pi = check_pi(pi)
    values = swing_decomposition(swing_game(v, pi)).values
    negative = values < -1e-12
    w = w / w.sum()
    inside = np.array([f in blanket for f in features])
    rate_out, rate_in = float((w @ negative[:, ~inside]).mean()), float((w @ negative[:, inside]).mean())
    return Claim(
        f"(n) at pi = {pi:g}, a variable outside the blanket has a negative Swing-SV more often than a blanket "
        f"variable ({population})",
        PAPER["negative"][0], PAPER["negative"][1],
        f"share of negative values: outside the blanket {rate_out:.3f}, in the blanket {rate_in:.3f} "
        f"({v.shape[0]} instances, weighted)",
        bool(negative.any() and rate_out > rate_in))


def _blanket(features: list[str], blanket: Iterable[str]) -> tuple[list[str], list[str]]:
    blanket = _names(features, blanket, "blanket")
    outside = [f for f in features if f not in blanket]
    if not blanket or not outside:
        raise ValueError("the claims compare the blanket with the other variables: both must be non-empty")
    return blanket, outside


def network_claims(net: Any, target: str, features: Sequence[str], *, given: Sequence[str] = ("Smoking", "Genetics",
                   "Coughing"), high: float = 0.9) -> list[Claim]:
    """Test the paper's two statements about the LUCAS network (§3.2, :data:`PAPER`) on its published tables.

    (b) the Markov blanket of ``target`` read from the graph is the five variables the paper names, the six
        others are "not directly related to the target": ``P(target = 1 | x)`` is the same for two states
        that agree on the blanket (checked on every state);
    (p) ``P(target = 1 | given = 1)``, every other variable summed out, is "very high": at least ``high``
        (ours: the paper's own level of its right panel, with the range over which the verdict stands).
    """
    features = list(features)
    named = ["Smoking", "Coughing", "Allergy", "Genetics", "Fatigue"]
    blanket = list(net.markov_blanket(target))
    p = net.marginal_table(features)
    f = net.conditional_table(target, features)
    Z = np.asarray(states(len(features)))
    inside = [features.index(b) for b in blanket if b in features]
    key = Z[:, inside] @ (1 << np.arange(len(inside)))
    spread = max(float(np.ptp(f[key == k])) for k in np.unique(key))
    match = np.all(Z[:, [features.index(g) for g in given]] == 1, axis=1)
    prob = float(p[match] @ f[match] / p[match].sum())
    very = Threshold(f"P({target} = 1 | {', '.join(given)} = 1) >= t", high, round(prob, 6), "at least")
    return [
        Claim("(b) the Markov blanket is the five named variables; the others do not move P(target | x) given it",
              PAPER["blanket"][0], PAPER["blanket"][1],
              f"blanket from the graph: {', '.join(sorted(blanket))}; {len(features) - len(blanket)} others; largest "
              f"change of P({target} = 1 | x) among states equal on the blanket {spread:.1e}",
              bool(set(blanket) == set(named) and len(features) - len(blanket) == 6 and spread < 1e-12)),
        Claim(f"(p) P({target} = 1 | {', '.join(given)} = 1) is at least {high:g}", PAPER["very high"][0],
              PAPER["very high"][1],
              f"P({target} = 1 | {', '.join(given)} = 1) = {prob:.4f} (every other variable summed out; "
              f"P({target} = 1) = {float(p @ f):.4f})",
              very.holds, (very,)),
    ]


#: §3.1's sentence on negative Swing-SVs, quoted exactly, in three clauses that can come out differently: what
#: such a variable does not do (few swings), and the two causes it gives for its reverse swings (correlations,
#: local over-fitting; "…" stands for the words of the other cause).
REVERSE_SWINGS: dict[str, tuple[str, str]] = {
    "few swings": ("In that latter case, the variable is not important enough to make a lot of swings", "§3.1"),
    "correlations": ("while correlations with other variables … induce a lot of reverse-swings", "§3.1"),
    "over-fitting": ("local over-fitting induce a lot of reverse-swings (i.e adding the variable transforms a winning "
                     "coalition into a losing coalition).", "§3.1"),
}


def cut_correlations(p: np.typing.ArrayLike, i: int) -> np.ndarray:
    """The distribution of the ``2**d`` binary states with variable ``i`` made independent of the others:
    ``p'(z) = p(z_{-i}) p(z_i)``, the others' joint and ``i``'s marginal kept (states ordered as
    :func:`lib.bayesnet.states`)."""
    q = np.asarray(p, dtype=float)
    d = int(np.log2(q.size))
    if q.ndim != 1 or q.size != 2**d or not 0 <= i < d:
        raise ValueError(f"need the probabilities of the 2**d states and a variable below d, got {q.shape}, {i}")
    z = states(d)
    flipped = z.copy()
    flipped[:, i] ^= 1
    others = q + q[state_index(flipped)]          # p(z_{-i}), once for each value of z_i
    one = float(q[z[:, i] == 1].sum())
    return others * np.where(z[:, i] == 1, one, 1 - one)


def reverse_swing_claims(decision: np.typing.ArrayLike, p: np.typing.ArrayLike, x: np.typing.ArrayLike,
                         threshold: float, features: Sequence[str], neighbours: dict[str, Sequence[str]], *,
                         pi: float = 0.9) -> list[Claim]:
    """Test §3.1's account of a negative Swing-SV (:data:`REVERSE_SWINGS`) at one instance, with exact SDPs.

    ``decision`` is the model's decision on each of the ``2**d`` states, ``p`` their probabilities, ``x`` the
    instance, ``neighbours`` each variable's parents and children in the network. The readings, fixed before
    the numbers were computed ("a lot" has no number in the paper: each test asks for the direction only):

    - "not important enough to make a lot of swings": each variable with a negative Swing-SV at ``pi`` makes
      fewer swings (coalitions, unweighted) than every variable with a positive one;
    - "local over-fitting induce[s] ... reverse-swings": a variable with no neighbour in the network is
      independent of every other and of the target, so adding it to a coalition moves an SDP only through the
      model's reading of it; such a variable makes reverse swings (the model's over-fitting alone can);
    - "correlations with other variables ... induce ... reverse-swings": for each variable with a negative
      Swing-SV and a neighbour, making it independent of the others (:func:`cut_correlations`: its marginal
      and the others' joint kept, the model unchanged) lowers its Shapley-weighted reverse swings. This
      changes the one thing the clause names, on the same model and instance: an intervention, not an
      association.
    """
    from lib.sdp import same_decision_probability

    features = list(features)
    pi = check_pi(pi)

    def split(q: np.ndarray) -> Any:
        return swing_decomposition(swing_game(same_decision_probability(decision, q, x, threshold)[0], pi))

    here = split(np.asarray(p, dtype=float))
    values = np.where(np.abs(here.values) < 1e-12, 0.0, here.values)
    negative = [f for f, v in zip(features, values) if v < 0]
    positive = [f for f, v in zip(features, values) if v > 0]
    n_sw = dict(zip(features, here.n_swings.astype(int)))
    if not positive:       # the values add to 1 - v(empty) >= 0: a negative value comes with a positive one
        raise ValueError("no Swing-SV is positive at this instance: the swing game is empty")
    fewest = min(positive, key=lambda f: (n_sw[f], f))
    few = bool(negative) and all(n_sw[f] < n_sw[fewest] for f in negative)
    alone = [f for f in features if not neighbours[f]]
    n_rev = dict(zip(features, here.n_reverse_swings.astype(int)))
    overfit = bool(alone) and all(n_rev[f] > 0 for f in alone)
    tied = [f for f in negative if neighbours[f]]
    cut = {f: float(split(cut_correlations(p, features.index(f))).reverse_swings[features.index(f)]) for f in tied}
    rev = dict(zip(features, here.reverse_swings))
    lowered = bool(tied) and all(cut[f] < rev[f] for f in tied)
    c = REVERSE_SWINGS
    return [
        Claim(f"each variable with a negative Swing-SV at pi = {pi:g} makes fewer swings than every variable with "
              f"a positive one", *c["few swings"],
              "swings of the negative: " + ", ".join(f"{f} {n_sw[f]}" for f in negative)
              + f"; fewest of a positive value: {fewest} {n_sw[fewest]}", few),
        Claim(f"a variable with no neighbour in the network (independent of every other and of the target) makes "
              f"reverse swings at pi = {pi:g}", *c["over-fitting"],
              ("reverse swings: " + ", ".join(f"{f} {n_rev[f]}" for f in alone)) if alone
              else "no variable without a neighbour", overfit),
        Claim(f"making a negative-valued variable independent of the others lowers its reverse swings at "
              f"pi = {pi:g}", *c["correlations"],
              "; ".join(f"{f} {rev[f]:.4f} -> {cut[f]:.4f}" for f in tied) + " (Shapley-weighted)" if tied
              else "no negative-valued variable with a neighbour", lowered),
    ]
