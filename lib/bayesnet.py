"""A small exact Bayesian network of binary variables, and the LUCAS network.

Chapter 3 of the book (Amoukou & Brunel, *Important variables are game-changers*, §3.2)
explains a lung-cancer classifier on LUCAS, a causal Bayesian network of 12 binary
variables whose structure and conditional probability tables (CPTs) are published (the
causality workbench page, reproduced in ``shared/data/MANIFEST.md``, section B).  With
12 binary variables the joint distribution has ``2**12 = 4096`` states, so every
marginal and conditional probability the chapter needs is computed *exactly*, by
enumeration, with no sampling and no approximate inference.

Conventions
-----------
A network holds ``d`` variables ``names[0] .. names[d-1]``.  A *state* (a full
assignment of 0/1 values) is an integer whose bit ``i`` is the value of ``names[i]``,
the same bitmask convention as coalitions in :mod:`lib.shapley`; ``states(d)`` lists
the ``2**d`` states in that order.  The CPT of a variable with parents
``(p_1, .., p_k)`` is an array of shape ``(2,) * k`` whose entry ``[a_1, .., a_k]`` is
``P(variable = 1 | p_1 = a_1, .., p_k = a_k)``; a root's CPT is a scalar.

The joint distribution factorises over the graph (the defining property of a Bayesian
network): ``P(x) = prod_v P(x_v | x_pa(v))``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import stats

from lib.games import bitmask_rows

__all__ = [
    "LUCAS_FEATURES",
    "LUCAS_TARGET",
    "BinaryBayesNet",
    "causal_target_game",
    "lucas",
    "state_index",
    "states",
]

#: The LUCAS target, spelled as in the LUCAS0 data file (``Lung_cancer``).
LUCAS_TARGET = "Lung_cancer"

#: The 11 LUCAS features, in the column order of the LUCAS0 data file.
LUCAS_FEATURES: tuple[str, ...] = (
    "Smoking",
    "Yellow_Fingers",
    "Anxiety",
    "Peer_Pressure",
    "Genetics",
    "Attention_Disorder",
    "Born_an_Even_Day",
    "Car_Accident",
    "Fatigue",
    "Allergy",
    "Coughing",
)

#: Largest network :class:`BinaryBayesNet` enumerates (2**20 states, 8 MB per table).
MAX_VARIABLES = 20


def states(d: int) -> np.ndarray:
    """All ``2**d`` binary states as rows, ``(2**d, d)`` uint8; row ``s`` has bit ``i`` of ``s`` in column ``i``."""
    if not 0 <= d <= MAX_VARIABLES:
        raise ValueError(f"d must be between 0 and {MAX_VARIABLES}, got {d}")
    return bitmask_rows(np.arange(2**d, dtype=np.int64), d).astype(np.uint8)


def state_index(x: np.typing.ArrayLike) -> np.ndarray:
    """Integer state of 0/1 rows: ``sum_i x_i 2**i`` over the last axis.

    Raises ``ValueError`` unless every entry is 0 or 1.
    """
    arr = np.asarray(x)
    if arr.ndim == 0:
        raise ValueError("a state needs a vector of 0/1 values, got a scalar")
    if arr.shape[-1] > MAX_VARIABLES:
        raise ValueError(f"at most {MAX_VARIABLES} binary variables, got {arr.shape[-1]}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("a binary state has NaN entries")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError("a binary state must contain only 0 and 1")
    bits = arr.astype(np.int64)
    return (bits << np.arange(arr.shape[-1], dtype=np.int64)).sum(axis=-1)


class BinaryBayesNet:
    """An exact Bayesian network of binary variables.

    Parameters
    ----------
    names
        The variables, in the order that defines the state bitmask (bit ``i`` is
        ``names[i]``).
    parents
        ``parents[v]`` is the ordered tuple of the parents of ``v`` (missing = root).
    cpts
        ``cpts[v]`` has shape ``(2,) * len(parents[v])``: ``P(v = 1 | parents)``, indexed
        by the parents' values in the order of ``parents[v]``.

    Raises
    ------
    ValueError
        Duplicate or unknown names, a cycle, a CPT of the wrong shape, or a
        probability outside ``[0, 1]`` or NaN.
    """

    def __init__(
        self,
        names: Sequence[str],
        parents: Mapping[str, Sequence[str]],
        cpts: Mapping[str, np.typing.ArrayLike],
    ) -> None:
        names = tuple(str(n) for n in names)
        if len(set(names)) != len(names):
            raise ValueError(f"variable names must be unique, got {names}")
        if len(names) > MAX_VARIABLES:
            raise ValueError(f"at most {MAX_VARIABLES} variables can be enumerated, got {len(names)}")
        unknown = (set(parents) | set(cpts)) - set(names)
        if unknown:
            raise ValueError(f"parents/cpts name unknown variables: {sorted(unknown)}")
        pa: dict[str, tuple[str, ...]] = {}
        for v in names:
            ps = tuple(str(p) for p in parents.get(v, ()))
            bad = [p for p in ps if p not in names]
            if bad:
                raise ValueError(f"parents of {v!r} are not variables of the network: {bad}")
            if v in ps:
                raise ValueError(f"{v!r} cannot be its own parent")
            if len(set(ps)) != len(ps):
                raise ValueError(f"parents of {v!r} are repeated: {ps}")
            pa[v] = ps
        tables: dict[str, np.ndarray] = {}
        for v in names:
            if v not in cpts:
                raise ValueError(f"no CPT for {v!r}")
            t = np.asarray(cpts[v], dtype=float)
            if t.shape != (2,) * len(pa[v]):
                raise ValueError(
                    f"CPT of {v!r} must have shape {(2,) * len(pa[v])} (one entry per configuration "
                    f"of its parents {pa[v]}), got {t.shape}"
                )
            if not np.all(np.isfinite(t)) or np.any(t < 0) or np.any(t > 1):
                raise ValueError(f"CPT of {v!r} must hold probabilities in [0, 1], got {t.tolist()}")
            t = t.copy()
            t.setflags(write=False)
            tables[v] = t
        self.names: tuple[str, ...] = names
        self.parents: dict[str, tuple[str, ...]] = pa
        self.cpts: dict[str, np.ndarray] = tables
        self.order: tuple[str, ...] = self._topological_order()

    # ------------------------------------------------------------------ structure
    @property
    def d(self) -> int:
        """Number of variables."""
        return len(self.names)

    def index(self, name: str) -> int:
        """Position (state bit) of a variable; ``ValueError`` if unknown."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"unknown variable {name!r}; the network has {list(self.names)}") from None

    def indices(self, names: Iterable[str]) -> list[int]:
        """Positions of several variables (``ValueError`` naming any unknown one)."""
        names = list(names)
        unknown = [n for n in names if n not in self.names]
        if unknown:
            raise ValueError(f"unknown variables {unknown}; the network has {list(self.names)}")
        return [self.names.index(n) for n in names]

    @property
    def edges(self) -> list[tuple[str, str]]:
        """``(parent, child)`` pairs."""
        return [(p, v) for v in self.names for p in self.parents[v]]

    def children(self, name: str) -> tuple[str, ...]:
        """Children of ``name``, in network order."""
        self.index(name)
        return tuple(v for v in self.names if name in self.parents[v])

    def ancestors(self, name: str) -> tuple[str, ...]:
        """Every variable with a directed path to ``name`` (``name`` excluded), in network order."""
        self.index(name)
        found: set[str] = set()
        stack = list(self.parents[name])
        while stack:
            v = stack.pop()
            if v not in found:
                found.add(v)
                stack.extend(self.parents[v])
        return tuple(v for v in self.names if v in found)

    def markov_blanket(self, name: str) -> tuple[str, ...]:
        """Parents, children and the children's other parents, in network order.

        Book: :ref:`eq-sdp-markov-blanket`
            (notebooks/03-same-decision-probability/01-lucas-network.ipynb).

        Given its Markov blanket a variable is independent of every other variable
        (Pearl, 1988), so ``P(name | all others)`` depends on the blanket only.
        """
        kids = self.children(name)
        blanket = set(self.parents[name]) | set(kids)
        for k in kids:
            blanket |= set(self.parents[k])
        blanket.discard(name)
        return tuple(v for v in self.names if v in blanket)

    def _topological_order(self) -> tuple[str, ...]:
        done: list[str] = []
        placed: set[str] = set()
        remaining = list(self.names)
        while remaining:
            ready = [v for v in remaining if set(self.parents[v]) <= placed]
            if not ready:
                raise ValueError(f"the graph has a cycle among {remaining}")
            for v in ready:
                done.append(v)
                placed.add(v)
            remaining = [v for v in remaining if v not in placed]
        return tuple(done)

    # ------------------------------------------------------------------ distribution
    def _cpt_at(self, name: str, values: np.ndarray) -> np.ndarray:
        """``P(name = 1 | parents)`` for rows ``values`` (columns in network order)."""
        idx = tuple(values[:, self.index(p)].astype(np.intp) for p in self.parents[name])
        theta = self.cpts[name][idx] if idx else np.full(values.shape[0], float(self.cpts[name]))
        return np.asarray(theta, dtype=float)

    @cached_property
    def joint(self) -> np.ndarray:
        """``P(X = s)`` for every state ``s`` (``(2**d,)``, bitmask order), by the factorisation.

        Book: :ref:`eq-sdp-factorisation`
            (notebooks/03-same-decision-probability/01-lucas-network.ipynb).

        Read-only; sums to one up to rounding.
        """
        x = states(self.d)
        p = np.ones(2**self.d)
        for v in self.names:
            theta = self._cpt_at(v, x)
            p *= np.where(x[:, self.index(v)] == 1, theta, 1.0 - theta)
        p.setflags(write=False)
        return p

    def marginal_table(self, names: Sequence[str]) -> np.ndarray:
        """Joint distribution of the sub-vector ``names``: ``(2**k,)``, bit ``j`` = ``names[j]``.

        Sums the joint over every other variable (exact marginalisation).
        """
        idx = self.indices(names)
        if len(set(idx)) != len(idx):
            raise ValueError(f"repeated variables in {list(names)}")
        x = states(self.d)
        sub = (x[:, idx].astype(np.int64) << np.arange(len(idx), dtype=np.int64)).sum(axis=1)
        return np.bincount(sub, weights=self.joint, minlength=2 ** len(idx))

    def probability(self, evidence: Mapping[str, int]) -> float:
        """``P(X_E = e)`` for evidence ``{name: 0/1}`` (the empty evidence has probability 1)."""
        mask = self._evidence_mask(evidence)
        return float(self.joint[mask].sum())

    def _evidence_mask(self, evidence: Mapping[str, int]) -> np.ndarray:
        idx = self.indices(evidence)
        vals = np.array([evidence[n] for n in evidence])
        if not np.all((vals == 0) | (vals == 1)):
            raise ValueError(f"evidence values must be 0 or 1, got {dict(evidence)}")
        x = states(self.d)
        return np.all(x[:, idx] == vals.astype(np.uint8), axis=1)

    def conditional(self, query: str, evidence: Mapping[str, int] | None = None) -> float:
        """``P(query = 1 | X_E = e)``, exactly; ``ValueError`` if ``P(X_E = e) = 0``."""
        evidence = dict(evidence or {})
        q = self.index(query)
        if query in evidence:
            raise ValueError(f"{query!r} is both the query and in the evidence")
        mask = self._evidence_mask(evidence)
        den = self.joint[mask].sum()
        if den <= 0:
            raise ValueError(f"the evidence {evidence} has probability zero: no conditional exists")
        x = states(self.d)
        return float(self.joint[mask & (x[:, q] == 1)].sum() / den)

    def marginals(self) -> pd.Series:
        """``P(X_v = 1)`` for every variable."""
        x = states(self.d)
        return pd.Series(self.joint @ x, index=list(self.names), name="P(=1)")

    def conditional_table(self, target: str, features: Sequence[str]) -> np.ndarray:
        """``P(target = 1 | X_F = s)`` for every state ``s`` of the features ``F``: ``(2**k,)``.

        With ``F`` = all other variables this is the Bayes classifier's probability.
        ``ValueError`` if some state of the features has probability zero.
        """
        if target in features:
            raise ValueError(f"the target {target!r} cannot be one of the features")
        t = self.marginal_table(list(features) + [target])
        k = len(features)
        den = t[: 2**k] + t[2**k :]
        if np.any(den <= 0):
            raise ValueError(
                f"{int((den <= 0).sum())} states of the features have probability zero; "
                "the conditional is undefined there"
            )
        return t[2**k :] / den

    def intervene(self, values: Mapping[str, int]) -> BinaryBayesNet:
        """The network after the intervention ``do(X_v = values[v])`` on each named variable.

        Pearl's do-operator (Pearl, *Causality*, 2009, §3.2, the truncated factorisation):
        every intervened variable loses its parents and becomes a root that takes its value
        with probability one; every other CPT is unchanged.  The joint of the returned
        network is ``P(x | do(X_E = e))``.  An empty ``values`` returns an equal network.

        Raises ``ValueError`` for an unknown variable or a value other than 0 or 1.
        """
        self.indices(values)
        bad = {v: a for v, a in values.items() if not (isinstance(a, (int, np.integer)) and a in (0, 1))}
        if bad:
            raise ValueError(f"intervention values must be the integers 0 or 1, got {bad}")
        parents = {v: (() if v in values else self.parents[v]) for v in self.names}
        cpts = {v: (float(values[v]) if v in values else self.cpts[v]) for v in self.names}
        return BinaryBayesNet(self.names, parents, cpts)

    def sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """``n`` independent draws (ancestral sampling), columns in network order, int64 0/1."""
        if not isinstance(rng, np.random.Generator):
            raise TypeError("rng must be a numpy.random.Generator, e.g. np.random.default_rng(0)")
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        x = np.zeros((n, self.d), dtype=np.uint8)
        for v in self.order:
            theta = self._cpt_at(v, x)
            x[:, self.index(v)] = rng.random(n) < theta
        return pd.DataFrame(x.astype(np.int64), columns=list(self.names))

    # ------------------------------------------------------------------ checks against data
    def goodness_of_fit(self, data: pd.DataFrame) -> pd.DataFrame:
        """Compare observed frequencies in ``data`` with every CPT entry (Pearson chi-square).

        One row per variable and configuration of its parents: the number ``n`` of rows
        with that configuration, the observed count of ``variable = 1``, the CPT's
        expected count ``n * theta``, the empirical frequency, the CPT value, and the
        Pearson statistic ``(O1-E1)^2/E1 + (O0-E0)^2/E0`` (one degree of freedom, since
        ``theta`` is given, not fitted) with its p-value.  Sum the ``chi2`` column and
        count the rows for the overall test (see :meth:`goodness_of_fit_summary`).

        ``data`` must have a 0/1 column for every variable (extra columns are ignored).
        """
        missing = [v for v in self.names if v not in data.columns]
        if missing:
            raise ValueError(f"data lacks columns {missing}")
        x = data[list(self.names)].to_numpy()
        state_index(x)  # validates 0/1
        rows = []
        for v in self.names:
            ps = self.parents[v]
            for cfg in np.ndindex(*(2,) * len(ps)):
                sel = np.ones(len(x), dtype=bool)
                for p, a in zip(ps, cfg):
                    sel &= x[:, self.index(p)] == a
                n = int(sel.sum())
                theta = float(self.cpts[v][cfg])
                o1 = int(x[sel, self.index(v)].sum())
                e1 = n * theta
                chi2 = np.nan
                if n > 0 and 0 < theta < 1:
                    chi2 = (o1 - e1) ** 2 / e1 + ((n - o1) - (n - e1)) ** 2 / (n - e1)
                rows.append({
                    "variable": v,
                    "parents": ", ".join(f"{p}={a}" for p, a in zip(ps, cfg)) or "(root)",
                    "n": n,
                    "observed 1": o1,
                    "expected 1": e1,
                    "empirical": o1 / n if n else np.nan,
                    "CPT": theta,
                    "chi2": chi2,
                    "p-value": float(stats.chi2.sf(chi2, 1)) if np.isfinite(chi2) else np.nan,
                })
        return pd.DataFrame(rows)

    def goodness_of_fit_summary(self, data: pd.DataFrame) -> dict[str, float]:
        """Overall Pearson test of all CPT entries: statistic, degrees of freedom, p-value.

        The CPT cells are disjoint conditional binomial samples, so the statistics add
        and the degrees of freedom are the number of cells with data.
        """
        table = self.goodness_of_fit(data)
        used = table["chi2"].notna()
        stat = float(table.loc[used, "chi2"].sum())
        dof = int(used.sum())
        return {"chi2": stat, "dof": dof, "p-value": float(stats.chi2.sf(stat, dof))}


def lucas() -> BinaryBayesNet:
    """The LUCAS network (causality workbench) with its published CPTs.

    Structure and numbers: ``shared/data/MANIFEST.md`` section B (the LUCAS page, as
    reproduced by ``pgmpy/example_datasets``).  In each CPT the first parent named in
    the MANIFEST is the first axis.  Variables are ordered as the LUCAS0 data columns,
    the target ``Lung_cancer`` (spelled as in the data file) last.
    """
    names = LUCAS_FEATURES + (LUCAS_TARGET,)
    parents = {
        "Smoking": ("Peer_Pressure", "Anxiety"),
        "Yellow_Fingers": ("Smoking",),
        LUCAS_TARGET: ("Genetics", "Smoking"),
        "Attention_Disorder": ("Genetics",),
        "Coughing": ("Allergy", LUCAS_TARGET),
        "Fatigue": (LUCAS_TARGET, "Coughing"),
        "Car_Accident": ("Attention_Disorder", "Fatigue"),
    }

    def table(ff: float, tf: float, ft: float, tt: float) -> np.ndarray:
        # MANIFEST order FF, TF, FT, TT: the first letter is the first parent.
        t = np.empty((2, 2))
        t[0, 0], t[1, 0], t[0, 1], t[1, 1] = ff, tf, ft, tt
        return t

    cpts = {
        "Anxiety": 0.64277,
        "Peer_Pressure": 0.32997,
        "Genetics": 0.15953,
        "Born_an_Even_Day": 0.5,
        "Allergy": 0.32841,
        "Smoking": table(0.43118, 0.74591, 0.8686, 0.91576),
        "Yellow_Fingers": np.array([0.23119, 0.95372]),
        LUCAS_TARGET: table(0.23146, 0.86996, 0.83934, 0.99351),
        "Attention_Disorder": np.array([0.28956, 0.68706]),
        "Coughing": table(0.1347, 0.64592, 0.7664, 0.99947),
        "Fatigue": table(0.35212, 0.56514, 0.80016, 0.89589),
        "Car_Accident": table(0.2274, 0.779, 0.78861, 0.97169),
    }
    return BinaryBayesNet(names, parents, cpts)


def causal_target_game(
    net: BinaryBayesNet, instance: Mapping[str, int], target: str, players: Sequence[str]
) -> np.ndarray:
    """``v(S) = P(target = 1 | do(X_S = x_S))`` for every coalition ``S`` of ``players``.

    Book: :ref:`eq-sdp-causal-target`
        (notebooks/03-same-decision-probability/05-ordinary-shapley-values.ipynb).

    The interventional (causal) probability of the target when the players of ``S`` are
    set to their values in ``instance`` by Pearl's do-operator (:meth:`BinaryBayesNet.intervene`).
    Returned as a ``(2**k,)`` array in the bitmask order of ``players`` (bit ``j`` set iff
    ``players[j]`` is in ``S``), ready for :func:`lib.formula.shapley_from_game`; ``v(∅)`` is
    ``P(target = 1)``.  This is the game pyAgrum's ``CausalShapValues`` (version 3.3.1,
    ``logit=False``) evaluates over the ancestors of the target when its background holds
    each state of the network once (chapter 3, notebook 05).

    Raises ``ValueError`` if ``target`` is a player, a player is repeated or unknown, or an
    instance value is missing or not 0/1.
    """
    net.index(target)
    players = list(players)
    net.indices(players)
    if len(set(players)) != len(players):
        raise ValueError(f"players are repeated: {players}")
    if target in players:
        raise ValueError(f"the target {target!r} cannot be a player")
    missing = [v for v in players if v not in instance]
    if missing:
        raise ValueError(f"the instance gives no value to the players {missing}")
    k = len(players)
    game = np.empty(2**k)
    for S in range(2**k):
        do = {v: int(instance[v]) for j, v in enumerate(players) if (S >> j) & 1}
        game[S] = net.intervene(do).probability({target: 1})
    return game
