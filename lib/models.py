"""One way in for any model: what every explainer of the book accepts as the model it explains.

Every explainer of ``lib`` that evaluates a model (:func:`lib.shapley.exact_shapley`,
:func:`lib.sampling.sample_shapley`, :func:`lib.compositions.exact_shapley_compositions`, the
typical-value contributions, coalitional influence, the Swing Shapley values of a model) passes
its model through :func:`as_model`, which accepts

* a **fitted scikit-learn classifier** (anything with ``predict_proba`` and ``classes_``): the
  explained function is its ``predict_proba``, one output per class, named by the classes;
* a **callable** mapping an ``(r, d)`` table of rows to ``(r,)`` or ``(r, k)`` outputs (a
  ``predict_proba``, a ``decision_function``, a log-odds, any function of the rows): used as it is.

The explained class (or output) is chosen everywhere with one keyword, ``output=``, read by one
rule (:func:`output_index`): a label of the classifier's ``classes_`` (or of the outputs' names),
else a column index.  :func:`select_output` narrows a model to that column; :func:`renamed_keywords`
keeps the old names of that keyword (``positive=``, ``class_names=``) working for one release,
with a ``DeprecationWarning``.

Anything else raises a ``ValueError`` that names ``predict_proba``. A classifier fitted on a
single class, or a ``predict_proba`` that returns another number of columns than the classifier
has classes, is refused with what to do instead: an explanation of a constant is zeros, and a
dropped column shifts every class name.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = ["ClassifierFunction", "as_model", "model_and_output_names", "output_index", "renamed_keywords",
           "select_output"]

F = TypeVar("F", bound=Callable[..., Any])

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
    (:class:`lib.result.ShapleyResult`), once the outputs are known.
    """
    f = as_model(model)
    if output_names is not None:
        return f, [str(c) for c in output_names]
    return f, (f.output_names if isinstance(f, ClassifierFunction) else None)


def _is_index(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def output_index(output: Any, labels: Sequence[Any] | np.ndarray | None, n_outputs: int | None) -> int:
    """The column of the explained output: the one rule every ``output=`` of ``lib`` follows.

    ``output`` is, first, a **label**: one of ``labels`` (a classifier's ``classes_``, or the
    outputs' names), compared as given or as text (``"1"`` names the class ``1``, as the
    results' names are text); else a **column index** ``0 .. n_outputs - 1`` — unless the labels
    are themselves integers, where an integer that is not one of them is refused rather than read
    as a position (``classes_ = [1, 2]``: ``output=2`` is the class 2, ``output=0`` an error).
    ``n_outputs=None`` (a callable whose width is not known yet): any index ``>= 0`` is accepted
    here, and checked against the outputs when the model is called (:func:`select_output`).
    Raises ``ValueError`` naming the labels and the valid indices.
    """
    names = None if labels is None else list(labels)
    if names is not None:
        hits = [k for k, c in enumerate(names) if _same_label(output, c)]
        if len(hits) == 1:
            return hits[0]
        text = [k for k, c in enumerate(names) if str(c) == str(output)]
        if len(text) == 1:
            return text[0]
    integer_labels = names is not None and len(names) > 0 and all(_is_index(c) for c in names)
    if _is_index(output) and not integer_labels:
        k = int(output)
        if 0 <= k and (n_outputs is None or k < n_outputs):
            return k
    what = (f"one of the classes {[_plain(c) for c in names]}" if names is not None else "a column index")
    if names is not None and not integer_labels:
        what += f", or a column index 0 .. {len(names) - 1}"
    elif names is None and n_outputs is not None:
        what += f" 0 .. {n_outputs - 1}"
    raise ValueError(f"output={output!r} is not {what}: say which output to explain with output=")


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _same_label(a: Any, b: Any) -> bool:
    if isinstance(a, (bool, np.bool_)) != isinstance(b, (bool, np.bool_)):
        return False
    try:
        return bool(a == b) and type(_plain(a)) is type(_plain(b)) or (_is_index(a) and _is_index(b) and a == b)
    except (TypeError, ValueError):
        return False


class _Column:
    """The column ``k`` of a model's outputs, as a model of its own (one output per row)."""

    def __init__(self, f: Model, k: int) -> None:
        self.f, self.k = f, k

    def __call__(self, Z: Any) -> np.ndarray:
        out = np.asarray(self.f(Z), dtype=float)
        if out.ndim != 2 or out.shape[1] <= self.k:
            width = out.shape[1] if out.ndim == 2 else 1
            raise ValueError(f"output={self.k} is a column index, but the model returns {width} column"
                             f"{'s' if width != 1 else ''}: choose 0 .. {width - 1}, or leave output= out")
        return out[:, self.k]

    def __repr__(self) -> str:
        return f"column {self.k} of {self.f!r}"


def select_output(model: Any, output: Any, output_names: Sequence[str] | None = None
                  ) -> tuple[Model, list[str] | None]:
    """:func:`model_and_output_names`, narrowed to the explained output when ``output`` is given.

    ``output=None``: every output of the model, named by ``output_names`` or a classifier's
    classes.  Else the column :func:`output_index` picks, as a model with one output per row, and
    its name (the label, as text).
    """
    f, names = model_and_output_names(model, output_names)
    if output is None:
        return f, names
    labels = f.classes if isinstance(f, ClassifierFunction) and output_names is None else names
    k = output_index(output, labels, len(labels) if labels is not None else None)
    name = str(names[k]) if names is not None else str(k)
    return _Column(f, k), [name]


def renamed_keywords(**renamed: str) -> Callable[[F], F]:
    """Keep the old names of keywords working for one release: ``@renamed_keywords(positive="output")``.

    A call with the old name gets a ``DeprecationWarning`` that names the new one and is passed on
    under the new name; both at once is a ``TypeError``.
    """
    def wrap(func: F) -> F:
        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            for old, new in renamed.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both {old}= (its old name) and {new}=: give {new}= only")
                    warnings.warn(f"{func.__name__}({old}=...) is deprecated and will be removed in the next "
                                  f"release: use {new}= (one keyword for the explained class across lib)",
                                  DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)
        return call  # type: ignore[return-value]
    return wrap
