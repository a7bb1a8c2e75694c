"""One way in for any model: what every explainer of the book accepts as the model it explains.

Every explainer of ``lib`` that evaluates a model (:func:`lib.shapley.exact_shapley`,
:func:`lib.shapley.sample_shapley`, :func:`lib.compositions.exact_shapley_compositions`, the
typical-value contributions, coalitional influence, the Swing Shapley values of a model) passes
its model through :func:`as_model`, which accepts

* a **fitted scikit-learn classifier** (anything with ``predict_proba`` and ``classes_``): the
  explained function is its ``predict_proba``, one output per class, named by the classes;
* a **callable** mapping an ``(r, d)`` table of rows to ``(r,)`` or ``(r, k)`` outputs (a
  ``predict_proba``, a ``decision_function``, a log-odds, any function of the rows): used as it is.

Anything else raises a ``ValueError`` that names ``predict_proba``. A classifier fitted on a
single class, or a ``predict_proba`` that returns another number of columns than the classifier
has classes, is refused with what to do instead: an explanation of a constant is zeros, and a
dropped column shifts every class name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["ClassifierFunction", "as_model", "model_and_output_names"]

Model = Callable[[Any], Any]


def _fitted_classes(estimator: Any) -> np.ndarray:
    """The classes of a fitted classifier, refusing an unfitted one and a one-class one."""
    name = type(estimator).__name__
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise ValueError(
            f"{name} has predict_proba but no classes_: fit it first (model.fit(X, y)), or pass the "
            "function to explain itself (e.g. lambda Z: model.predict_proba(Z))"
        )
    classes = np.asarray(classes)
    if classes.ndim != 1:
        raise ValueError(f"{name}.classes_ must list the classes (one label each), got shape {classes.shape}")
    if len(classes) < 2:
        raise ValueError(
            f"{name} was fitted on one class ({classes.tolist()}): its predict_proba is the constant 1, "
            "so every explanation would be zero. Fit it on data with at least two classes"
        )
    return classes


class ClassifierFunction:
    """A fitted classifier's ``predict_proba`` as the function the explainers evaluate.

    ``ClassifierFunction(model)(Z)`` returns ``model.predict_proba(Z)``, shape ``(r, K)``,
    unchanged, after checking that it has one column per class of ``model.classes_`` (a
    ``predict_proba`` that drops a class would shift every class name). :attr:`output_names`
    are the classes as text. Build it with :func:`as_model`.
    """

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator
        self.classes = _fitted_classes(estimator)

    @property
    def output_names(self) -> list[str]:
        """The class labels as text, in the order of the columns of ``predict_proba``."""
        return [str(c) for c in self.classes]

    def __call__(self, Z: Any) -> Any:
        P = self.estimator.predict_proba(Z)
        shape = np.shape(P)
        if len(shape) != 2 or shape[1] != len(self.classes):
            width = shape[1] if len(shape) == 2 else "no"
            raise ValueError(
                f"{type(self.estimator).__name__}.predict_proba returned {width} columns for "
                f"{len(self.classes)} classes {self.classes.tolist()}: every class needs its column "
                "(a dropped class shifts the others' names)"
            )
        return P

    def __repr__(self) -> str:
        return f"ClassifierFunction({self.estimator!r})"


def as_model(model: Any) -> Model:
    """The function an explainer evaluates, from a fitted classifier or a callable.

    Parameters
    ----------
    model
        A fitted scikit-learn classifier (its ``predict_proba`` is explained, one output per
        class), the bound ``predict_proba`` of one (checked the same way), or any callable
        mapping an ``(r, d)`` table of rows (array or DataFrame, as the explainer's ``X``) to
        ``(r,)`` or ``(r, k)`` numbers, returned unchanged.

    Returns
    -------
    Callable
        A :class:`ClassifierFunction` for a classifier (it knows the class names), else
        ``model`` itself.

    Raises
    ------
    ValueError
        An object that is neither (a regressor, a string, ...): the message names
        ``predict_proba`` and the callable to pass instead; an unfitted classifier; a classifier
        fitted on one class.
    """
    if isinstance(model, ClassifierFunction):
        return model
    if hasattr(model, "predict_proba") and not callable(model):
        return ClassifierFunction(model)
    if callable(model):
        owner = getattr(model, "__self__", None)
        if owner is not None and getattr(model, "__name__", None) == "predict_proba" and hasattr(owner, "classes_"):
            return ClassifierFunction(owner)
        return model
    name = type(model).__name__
    if hasattr(model, "predict") or hasattr(model, "decision_function"):
        raise ValueError(
            f"{name} has no predict_proba: pass a fitted classifier (its predict_proba is explained), "
            f"or the function to explain itself, e.g. model.predict for a regressor or "
            "model.decision_function for a margin"
        )
    raise ValueError(
        f"expected a fitted classifier with predict_proba, or a function mapping rows to outputs "
        f"(e.g. model.predict_proba); got {name}"
    )


def model_and_output_names(model: Any, output_names: Sequence[str] | None) -> tuple[Model, list[str] | None]:
    """:func:`as_model`, and the output names: those given, else a classifier's classes.

    The names are checked against the number of outputs where the result is built
    (:class:`lib.shapley.ShapleyResult`), once the outputs are known.
    """
    f = as_model(model)
    if output_names is not None:
        return f, [str(c) for c in output_names]
    return f, (f.output_names if isinstance(f, ClassifierFunction) else None)
