"""Every public entry point of ``lib`` that takes a model and rows: one list, declared where each is defined.

A function (or method, or class) that evaluates a model on rows of features is an *entry point*: it
builds the checked game (:class:`lib.games.Game`) from its inputs, or takes one, before anything
else, and checks what is its own after the game's checks.  It declares itself with the decorator
:func:`entry_point`, which records the roles of its parameters (the model, the rows, the budget,
the randomness, ``output=``, ``allow_nan``) and example values of the others.  :func:`entry_points`
lists them all, in the order of :data:`lib.MODULES`.

The list is read by the conformance suite (``lib/tests/test_conformance.py``), which runs every
entry point through the same cases (columns permuted, mixed dtypes, NaN and ±inf, missing, extra,
renamed and repeated columns, empty and one-row inputs, budgets and seeds, a model that returns
NaN or the wrong shape) and stores the table of its outcomes, which the API page shows; a new entry
point is in the suite once it is declared, and a test fails on a public function that takes a model
and rows without being declared (or named in :data:`NOT_ENTRY_POINTS` with the reason).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["CONFORMANCE_TABLE", "KINDS", "NOT_ENTRY_POINTS", "EntryPoint", "entry_point", "entry_points"]

F = TypeVar("F", bound=Callable[..., Any])

#: The kinds of model an entry point explains: what the conformance suite gives it.
KINDS: dict[str, str] = {
    "probability": "a fitted classifier (its predict_proba) or a function of the rows returning numbers",
    "labels": "a fitted classifier's predict (rows -> class labels), or the classifier",
    "naive-bayes": "a fitted scikit-learn naive Bayes classifier, read by lib.naive_bayes_sklearn.from_sklearn",
}

#: Where the conformance suite stores the outcomes of its cases (relative to the repository's root): one
#: row per entry point, one column per case; the API page shows it, a test checks it is a fresh run.
CONFORMANCE_TABLE = "lib/tests/conformance.csv"

#: The rows an entry point takes: numbers and categories, or the 0/1 states of the SDP.
DOMAINS = ("real", "binary")


@dataclass(frozen=True)
class EntryPoint:
    """One public entry point that takes a model and rows, and the roles of its parameters.

    Attributes
    ----------
    name
        Its qualified name: ``lib.shapley.exact_shapley``, ``lib.naive_bayes_sklearn.SklearnNaiveBayes.shapley``.
    function
        The function (or method, or class) itself.
    model
        The parameter that takes the model (``"self"``: the object made by ``make`` from a fitted model).
    rows
        The parameters that take rows: ``X`` first, then the background's (``"background"``,
        ``"data"``, ``"typical"``: a typical row found from background rows), if any.
    kind
        The model it explains, one of :data:`KINDS`.
    budget
        Its budget parameter and a value the suite's small cases can pay for, e.g. ``("max_rows", 60)``.
    seed
        Its randomness parameter (``"rng"``: a ``numpy.random.Generator`` or an int seed; ``"seed"``: an
        int seed or a ``numpy.random.Generator``).
    output, allow_nan
        Whether it takes ``output=`` and ``allow_nan``.
    domain
        The rows it takes (``"real"``, ``"binary"``: 0/1 states).
    example
        Values of its other required parameters for a call on three features named ``a, b, c``
        (feature lists by index; the suite names them for DataFrames).
    features
        The parameters of ``example`` that name features.
    make
        For a method (``model="self"``): the function that makes its object from a fitted model.
    """

    name: str
    function: Callable[..., Any]
    model: str
    rows: tuple[str, ...]
    kind: str = "probability"
    budget: tuple[str, int] | None = None
    seed: str | None = None
    output: bool = True
    allow_nan: bool = False
    domain: str = "real"
    example: Mapping[str, Any] = field(default_factory=dict)
    features: tuple[str, ...] = ()
    make: str | None = None

    @property
    def module(self) -> str:
        return self.function.__module__

    def maker(self) -> Callable[[Any], Any] | None:
        """The function of ``make``, imported."""
        if self.make is None:
            return None
        module, _, name = self.make.rpartition(".")
        return getattr(importlib.import_module(module), name)


_REGISTRY: dict[str, EntryPoint] = {}


def entry_point(*, model: str, rows: tuple[str, ...], kind: str = "probability",
                budget: tuple[str, int] | None = None, seed: str | None = None, output: bool = True,
                allow_nan: bool = False, domain: str = "real", example: Mapping[str, Any] | None = None,
                features: tuple[str, ...] = (), make: str | None = None) -> Callable[[F], F]:
    """Declare a public function (method, class) that takes a model and rows (see :class:`EntryPoint`).

    The decorator returns the function unchanged; it checks that the parameters named exist.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    if domain not in DOMAINS:
        raise ValueError(f"domain must be one of {list(DOMAINS)}, got {domain!r}")

    def register(function: F) -> F:
        import inspect

        target = function.__init__ if isinstance(function, type) else function  # type: ignore[misc]
        params = inspect.signature(target).parameters
        takes_any = any(p.kind == p.VAR_KEYWORD for p in params.values())
        named = [model, *rows, *([budget[0]] if budget else []), *([seed] if seed else []),
                 *(["output"] if output else []), *(["allow_nan"] if allow_nan else []), *(example or {})]
        unknown = [p for p in named if p not in params and not (takes_any and p not in (model, *rows))]
        if unknown:
            raise ValueError(f"entry point {function.__qualname__}: no parameter {unknown}")
        name = f"{function.__module__}.{function.__qualname__}"
        _REGISTRY[name] = EntryPoint(name, function, model, tuple(rows), kind, budget, seed, output, allow_nan,
                                     domain, dict(example or {}), tuple(features), make)
        return function
    return register


#: Public functions that take a model or rows but are not entry points, and why (the test that finds
#: the undeclared entry points reads it).
NOT_ENTRY_POINTS: dict[str, str] = {
    "lib.games.evaluate": "the game's own checked call of a model on rows it has built",
    "lib.games.as_game": "builds the game of an entry point (the check itself), or passes a Game through",
    "lib.khiops_nb.khiops_interpret": "runs Khiops' own interpretation (a peer's code, which reads its columns by name) "
                                      "on its classifier",
    "lib.models.as_model": "takes a model, no rows: the one way in the game uses",
    "lib.models.choose_output": "takes a model, no rows: the one class rule the game uses",
    "lib.models.select_output": "takes a model, no rows: the one class rule the game uses",
    "lib.models.model_and_output_names": "takes a model, no rows",
    "lib.validation.model_columns": "takes a model, no rows: the columns the game matches",
    "lib.compositions.ilr_model": "takes a model, no rows: the model the compositions' game explains",
    "lib.typical_value.log_and_logit": "takes a model, no rows: a function to explain",
    "lib.counting.CountingModel": "wraps a model, no rows",
    "lib.coalitional.RetrainedGame": "fits one model per attribute subset on training rows (the authors' value "
                                     "function), evaluating no given model on rows",
    "lib.sdp_estimation.forest_sdp": "reads a forest's splits as neighbourhoods, with the decisions given; the "
                                     "rows' columns are matched by name to the forest's",
    "lib.sdp_estimation.path_dependent_sdp": "reads a tree's splits and covers, with the decisions given; x's "
                                             "columns are matched by name to the tree's",
    "lib.naive_bayes_compositions.naive_bayes_shapley_compositions": "a closed form of a naive Bayes' tables at "
                                                                     "part indices (checked by its tables)",
    "lib.naive_bayes_compositions.naive_bayes_ilr_terms": "a naive Bayes' tables, no rows",
    "lib.khiops_nb.khiops_multiclass_shapley": "a closed form of Khiops' tables at part indices (checked by its "
                                               "tables)",
    "lib.khiops_nb.khiops_one_vs_rest_log_odds": "Khiops' tables at part indices (checked by its tables)",
    "lib.sdp.same_decision_probability": "a decision function over a known joint distribution, at states",
    "lib.sdp.network_sdp": "a Bayesian network and a decision function, at states",
    "lib.sdp.decision_table": "a decision function over every state",
    "lib.sdp.network_shapley": "a Bayesian network and a decision function, at states",
}

def _declaring_modules() -> list[str]:
    """The modules of ``lib`` whose source declares an entry point (``@entry_point(``), in the order of
    :data:`lib.MODULES`: read from the files, so that a module is found however new it is."""
    from pathlib import Path

    import lib

    root = Path(lib.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "tests" or path.name == "entry_points.py":
            continue
        if "@entry_point(" in path.read_text(encoding="utf-8"):
            parts = list(rel.with_suffix("").parts)
            found.append(".".join(["lib", *(parts[:-1] if parts[-1] == "__init__" else parts)]))
    rank = {f"lib.{name}": k for k, name in enumerate(lib.MODULES)}
    return sorted(found, key=lambda m: (rank.get(m, rank.get(m.rsplit(".", 1)[0], len(rank))), m))


def entry_points() -> dict[str, EntryPoint]:
    """Every declared entry point by qualified name, in the order of :data:`lib.MODULES`, then of declaration."""
    modules = _declaring_modules()
    for module in modules:
        importlib.import_module(module)
    order = {m: k for k, m in enumerate(modules)}
    return dict(sorted(_REGISTRY.items(), key=lambda item: order.get(item[1].module, len(order))))
