"""Table 3 of Lemaire et al. (§5.3): KernelSHAP against Eq. (L10) on one data set, the protocol.

Its home: the paper's numbers and data sets (:data:`PAPER`, :data:`DATASETS`), the protocol of the experiment (:func:`table3_protocol`, one data set; its result
:class:`Table3Run`), built from the functions of :mod:`lib.kernel_comparison`.
``scripts/nb_table3_kernelshap.py`` runs it on the ten data sets from the command line;
``notebooks/01-naive-bayes/03-kernelshap`` imports this module to run it live on one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from lib.kernel_comparison import (
    background_shapley_values,
    choose_rows,
    correlations,
    global_importance,
    kernel_shap,
    local_errors,
    naive_bayes_output,
)
from lib.naive_bayes import NaiveBayesTables, shapley_values
from compendium.regenerate.result import Result

__all__ = ["DATASETS", "LOAD_KWARGS", "PAPER", "SPREAD_SEEDS", "Table3Run", "table3_protocol", "units"]

#: The paper's Table 3 (N_k, Pearson, Kendall) and Table 1 (#Var), with our loader names; the
#: correlations as printed (text: their last digit sets the reproduction report's tolerance).
PAPER = pd.DataFrame(
    [("Twonorm", "twonorm", 200, "0.9027", "0.7052", 20),
     ("Crx", "crx", 690, "0.9953", "0.9047", 7),
     ("Ionosphere", "ionosphere", 351, "0.9974", "0.8888", 9),
     ("Spam", "spambase", 200, "0.8829", "0.7684", 29),
     ("Tictactoe", "tic-tac-toe", 958, "1.0000", "1.00", 5),
     ("German", "german-numeric", 1000, "0.9974", "0.9047", 9),
     ("Telco", "telco", 1000, "0.9633", "0.7333", 10),
     ("Adult", "adult", 1000, "0.8373", "0.7692", 13),
     ("KRFCC", "cervical", 858, "0.9993", "1.00", 3),
     ("Breast", "breast-wisconsin", 699, "0.9908", "0.8571", 8)],
    columns=["data set", "dataset", "N_k", "pearson", "kendall", "n_var"])
#: The ten data sets in the paper's order: the paper's name -> our loader's name.
DATASETS: dict[str, str] = dict(zip(PAPER["data set"], PAPER["dataset"]))
#: Telco and Breast keep their identifier column, as the paper's Khiops dictionaries do
#: (Khiops does not select it); the loaders' keyword arguments (Tables 1 to 3 alike).
LOAD_KWARGS = {"telco": {"drop_ids": False}, "breast-wisconsin": {"drop_ids": False}}
#: The spread of Table 3 (``scripts/nb_table3_kernelshap.py --seeds S``): seeds 1-3 on every data
#: set, 4-7 on the four whose rows are drawn (their spread is the widest).
SPREAD_SEEDS: dict[int, tuple[str, ...]] = {1: tuple(DATASETS.values()), 2: tuple(DATASETS.values()),
                                            3: tuple(DATASETS.values()),
                                            **{s: ("telco", "twonorm", "adult", "spambase") for s in (4, 5, 6, 7)}}
#: The data sets whose units (every seed) CI reruns on every run: about 10 CPU s a unit; the
#: others 10 s to 10 min.
CHEAP = ("tic-tac-toe", "cervical", "crx", "ionosphere", "breast-wisconsin", "german-numeric")
#: The run summaries' columns that vary: seconds, and KernelSHAP's distance to Eq. (L10) where it
#: enumerates every coalition (and to Eq. (L10)'s background expectation), rounding noise, 1e-15 to
#: 1e-13, whose digits depend on the BLAS kernel (spambase: 2.48e-15 on one machine, 2.43e-15 on
#: another); allowed to move by 1e-12, far below the sampled distances (1e-3 to 1e-1) the chapter reads.
VARIABLE = {"seconds": None, "seconds per explained row": None, "log-odds vs eq10 *": 1e-12}
SHOWN_IN = ("notebooks/01-naive-bayes/03-kernelshap",)


@dataclass(frozen=True)
class Table3Run:
    """One data set of Table 3 (Lemaire et al., §5.3): local values on the explained rows.

    Attributes
    ----------
    feature_names
        The model's ``d`` variables.
    weights
        Their weights ``w_i``.
    explain, background
        Row indices (into the data set) of the explained and background rows.
    ours
        Eq. (L10) (expectation over the training frequencies), ``(n, d)``.
    ours_background
        Eq. (L10) with the expectation over the background rows
        (:func:`background_shapley_values`), ``(n, d)``.
    kernel_proba, kernel_log_odds
        KernelSHAP on ``P(Y_1|x)`` (the paper's) and on the log-odds (ours), ``(n, d)``,
        from one run on the two-output model (the same sampled coalitions for both).
    nsamples
        KernelSHAP's ``nsamples`` argument.
    exhaustive
        Whether that budget enumerates every coalition (``nsamples >= 2**d - 2``), i.e.
        KernelSHAP is then exact for its background.
    """

    feature_names: list[str]
    weights: np.ndarray
    explain: np.ndarray
    background: np.ndarray
    ours: np.ndarray
    ours_background: np.ndarray
    kernel_proba: np.ndarray
    kernel_log_odds: np.ndarray
    nsamples: int | str
    exhaustive: bool

    def global_table(self) -> pd.DataFrame:
        """Per variable: weight and global importance (mean |value|) of each method."""
        return pd.DataFrame({
            "weight": self.weights,
            "ours": global_importance(self.ours),
            "ours (background expectation)": global_importance(self.ours_background),
            "kernelshap P(Y|X)": global_importance(self.kernel_proba),
            "kernelshap log-odds": global_importance(self.kernel_log_odds),
        }, index=pd.Index(self.feature_names, name="variable"))

    def summary(self) -> dict[str, Any]:
        """Table 3's two correlations on ``P(Y|X)`` (the paper's comparison), the same on
        the log-odds, and the local errors of KernelSHAP on the log-odds against Eq. (L10)
        and against Eq. (L10) with the background expectation."""
        g = self.global_table()
        out: dict[str, Any] = {"n_explain": len(self.explain), "n_background": len(self.background),
                               "d": len(self.feature_names), "nsamples": self.nsamples,
                               "exhaustive": self.exhaustive}
        for label, col in (("proba", "kernelshap P(Y|X)"), ("log-odds", "kernelshap log-odds")):
            c = correlations(g["ours"], g[col]) if len(g) >= 2 else {"pearson": math.nan, "kendall": math.nan}
            out[f"pearson {label}"] = c["pearson"]
            out[f"kendall {label}"] = c["kendall"]
        for label, ref in (("eq10", self.ours), ("eq10 background", self.ours_background)):
            e = local_errors(self.kernel_log_odds, ref)
            for k, v in e.items():
                out[f"log-odds vs {label} {k}"] = v
        return out


def table3_protocol(
    tables: NaiveBayesTables,
    parts: np.typing.ArrayLike,
    positive: Any,
    *,
    n_explain: int = 1000,
    n_background: int,
    seed: int,
    nsamples: int | Literal["auto"] = "auto",
    progress: bool = False,
) -> Table3Run:
    """Lemaire et al.'s KernelSHAP comparison (§5.3, Table 3) on one data set.

    ``parts`` are the part indices of all the data set's rows under the model (the
    training rows: the paper trains on 100 %). Draws ``n_explain`` explained rows and
    ``n_background`` background rows with :func:`choose_rows` (``rng =
    np.random.default_rng(seed)``), runs :func:`kernel_shap` once on the two-output model
    (``P(Y_1|x)``, log-odds) with ``l1_reg=False`` and shap's global generator seeded
    with ``seed``, and computes Eq. (L10) on the same rows.
    """
    parts = tables.check_parts(parts)
    rng = np.random.default_rng(seed)
    explain, background = choose_rows(parts.shape[0], n_explain, n_background, rng)
    small = np.int16 if max(tables.n_parts) < 2**15 else np.int64  # shap tiles the background: keep it small
    X, B = parts[explain].astype(small), parts[background].astype(small)
    d = parts.shape[1]
    f = naive_bayes_output(tables, positive, ("proba", "log-odds"))
    ks = kernel_shap(f, X, B, seed=seed, nsamples=nsamples, progress=progress)
    ours, _ = shapley_values(tables, parts[explain], positive)
    ours_bg, _ = background_shapley_values(tables, parts[explain], parts[background], positive)
    budget = 2 * d + 2**11 if nsamples == "auto" else int(nsamples)
    values = ks.values if ks.values.ndim == 3 else ks.values.reshape(len(explain), d, 2)
    return Table3Run(
        feature_names=list(tables.feature_names),
        weights=np.asarray(tables.weights, dtype=float),
        explain=explain,
        background=background,
        ours=ours,
        ours_background=ours_bg,
        kernel_proba=values[:, :, 0],
        kernel_log_odds=values[:, :, 1],
        nsamples=nsamples,
        exhaustive=bool(budget >= 2**d - 2),
    )


def units() -> list[Result]:
    """The stored results of ``scripts/nb_table3_kernelshap.py``: one per data set, the 300-row run on
    Adult, one per data set and seed of :data:`SPREAD_SEEDS`, then the gather step. The data sets of
    :data:`CHEAP` (the units CI reruns) are one unit per seed, run by one process: the script's start-up
    (its imports) paid once per seed rather than once per data set."""
    script = "scripts/nb_table3_kernelshap.py"

    def unit(name: str, stems: list[str], args: tuple[str, ...], datasets: tuple[str, ...], **kwargs: Any) -> Result:
        return Result(name, (script, *args), tuple(f"nb-table3/{stem}.{x}" for stem in stems for x in ("csv", "json")),
                      datasets, variable=VARIABLE, shown_in=SHOWN_IN, **kwargs)

    def per_seed(prefix: str, seed_args: tuple[str, ...], names: Sequence[str]) -> list[Result]:
        cheap = tuple(d for d in names if d in CHEAP)
        found = [unit(f"nb-table3/{prefix}cheap", [f"{prefix}{d}" for d in cheap],
                      (*seed_args, "--datasets", *cheap, "--force", "--no-gather"), cheap, engine=True,
                      cheap=True)] if cheap else []
        return found + [unit(f"nb-table3/{prefix}{d}", [f"{prefix}{d}"], (*seed_args, "--datasets", d, "--force",
                                                                            "--no-gather"), (d,), engine=True)
                        for d in names if d not in CHEAP]

    main = per_seed("", (), list(DATASETS.values()))
    extra = unit("nb-table3/adult-300-rows", ["adult-300-rows"], ("--datasets", "adult", "--rows", "300",
                                                                  "--name-suffix=-300-rows", "--no-gather", "--force"),
                 ("adult",))
    spread = [u for s, names in SPREAD_SEEDS.items() for u in per_seed(f"seed-{s}/", ("--seeds", str(s)), names)]
    gather_step = Result("nb-table3", (script, "--gather-only"),
                         ("nb-table3.csv", "nb-table3-log-odds.csv", "nb-table3-spread.csv"),
                         tuple(o for r in main + spread for o in r.outputs if o.endswith(".json")), cheap=True,
                         shown_in=SHOWN_IN)
    return [*main, extra, *spread, gather_step]
