"""The interventional game of a model: one checked object under every explainer.

Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-found-value-function`
    (notebooks/00-foundations/01-shapley-values.ipynb).

The interventional game of a row ``x`` (Štrumbelj & Kononenko, 2014; Lundberg & Lee, 2017)
is ``v_x(S) = (1/m) Σ_b f(x_S, b_{-S})``: the mean of the model's outputs on the *hybrid
rows* ``(x_S, b_{-S})``, ``x`` on the features of the coalition ``S`` and a background row
``b`` elsewhere (book eq. ``eq-found-interventional``).

:class:`Game` is that game for a model, rows to explain and background rows, built **once per
public call** of any explainer of ``lib``: the model through :func:`lib.models.as_model` (and the
explained output, ``output=``), ``X`` and the background checked once
(:func:`lib.validation.check_inputs`: columns matched by name, NaN and ±inf refused with row,
column and remedy), the feature and output names, and a count of the model rows it evaluates.
Everything below it — the exact engine, every sampler of :mod:`lib.sampling`, the compositions,
the coalitional, SDP and typical-value methods — takes the game and checks nothing again.  It
offers the pieces they share: one hybrid-row builder (:meth:`Game.hybrid`), one "where ``x`` and
the background agree" (:attr:`Game.differ`), the model on hybrid rows (:meth:`Game.evaluate`),
the game's values (:meth:`Game.coalition_values`: the equation in numpy), and the exact base
values and outputs.

Module functions: :func:`bitmask_rows`, :func:`as_coalition_masks`, :func:`mix_rows` (coalitions
as membership rows; hybrid rows of DataFrames), :func:`evaluate` (the checked model call), and
the game's values of a model in one call, :func:`interventional_game` (all ``2**d`` coalitions)
and :func:`coalition_values` (any list of coalitions, any number of features).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from lib.models import choose_output
from lib.validation import check_enumerable, check_inputs, common_dtypes, model_columns
from lib.entry_points import entry_point

__all__ = [
    "Game",
    "MAX_EXACT_FEATURES",
    "as_coalition_masks",
    "as_game",
    "bitmask_rows",
    "coalition_values",
    "describe_row",
    "evaluate",
    "gather_rows",
    "interventional_game",
    "mix_rows",
    "pool_rows",
]

Model = Callable[[Any], Any]
ArrayOrFrame = np.ndarray | pd.DataFrame

#: The largest number of features an enumeration of all coalitions accepts by default
#: (:func:`interventional_game`, :func:`lib.shapley.exact_shapley`): 2**20 coalitions, each
#: evaluated against every background row, is already ~1e6 model calls per row.
MAX_EXACT_FEATURES = 20


def bitmask_rows(bitmasks: np.typing.ArrayLike, d: int) -> np.ndarray:
    """Boolean membership rows of coalitions given by their bitmasks.

    ``bitmask_rows(S, d)[j, i]`` is ``True`` iff bit ``i`` of ``S[j]`` is set (player ``i``
    is in the coalition ``S[j]``); shape ``S.shape + (d,)``.  Bitmasks are read as int64,
    so ``d <= 62``.
    """
    if not 0 <= d <= 62:
        raise ValueError(f"bitmasks as int64 hold 0 to 62 players, got d={d}")
    s = np.asarray(bitmasks, dtype=np.int64)
    return ((s[..., None] >> np.arange(d, dtype=np.int64)) & 1).astype(bool)


def pool_rows(X: ArrayOrFrame, background: ArrayOrFrame | None = None) -> Any:
    """The rows of ``X`` then those of ``background`` (same columns, same dtypes), as the table every
    row a model is given is gathered from (:func:`gather_rows`): an array, or a DataFrame's columns
    one array each (numpy, categorical or another extension array: the column's dtype kept)."""
    if isinstance(X, pd.DataFrame):
        both = X if background is None else pd.concat([X, background], ignore_index=True)
        columns = list(both.columns)
        arrays = [both.iloc[:, j].to_numpy() if isinstance(both.dtypes.iloc[j], np.dtype) else both.iloc[:, j].array
                  for j in range(both.shape[1])]
        return columns, arrays
    return X if background is None else np.concatenate([X, background])


def gather_rows(pool: Any, index: np.ndarray) -> ArrayOrFrame:
    """The one hybrid-row builder of ``lib``: row ``r`` takes, in column ``j``, the value of row
    ``index[r, j]`` of the pooled table (:func:`pool_rows`: ``X``'s rows, then the background's).

    Every value is kept as it is: the pooled columns already have a dtype that holds both tables'
    values (:func:`lib.validation.common_dtypes`), categorical columns stay categorical.  A
    DataFrame comes back for DataFrames (a fresh ``RangeIndex``), an array for arrays."""
    index = np.asarray(index, dtype=np.int64)
    if isinstance(pool, tuple):
        columns, arrays = pool
        return pd.DataFrame({c: a.take(index[:, j]) for j, (c, a) in enumerate(zip(columns, arrays))},
                            columns=columns) if columns else pd.DataFrame(index=pd.RangeIndex(len(index)))
    return pool[index, np.arange(pool.shape[1])[None, :]] if index.size else np.empty(index.shape, pool.dtype)


def mix_rows(xs: pd.DataFrame, donor: pd.DataFrame, keep: np.ndarray) -> pd.DataFrame:
    """Row ``r`` takes ``xs`` where ``keep[r, j]`` is True and ``donor`` elsewhere (aligned rows).

    The game's builder (:func:`gather_rows`) on two aligned frames: each column takes a dtype that
    holds the values of both (:func:`lib.validation.common_dtypes`: an integer column against float
    values becomes float, a categorical one stays categorical).
    """
    if keep.shape != (len(xs), xs.shape[1]) or len(donor) != len(xs):
        raise ValueError("mix_rows needs aligned frames and a (rows, columns) mask")
    xs, donor = common_dtypes(xs.reset_index(drop=True), donor.reset_index(drop=True)[list(xs.columns)])
    r = np.arange(len(xs))[:, None]
    return gather_rows(pool_rows(xs, donor), np.where(keep, r, len(xs) + r))


def describe_row(rows: Any, r: int) -> str:
    """Row ``r`` of a table of rows as the user reads it: ``{'age': 41, 'income': 2.5}`` (a DataFrame's
    columns by name) or ``[41.0, 2.5]``."""
    if isinstance(rows, pd.DataFrame):
        values = {str(c): (v.item() if isinstance(v, np.generic) else v) for c, v in rows.iloc[r].items()}
    else:
        values = [v.item() if isinstance(v, np.generic) else v for v in np.asarray(rows)[r]]
    text = repr(values)
    return text if len(text) <= 240 else text[:237] + "..."


def evaluate(f: Model, rows: ArrayOrFrame, n_rows: int) -> np.ndarray:
    """``f(rows)`` as floats, checked: one output (or one row of ``k``) per row, all finite.

    A wrong shape, outputs that are not numbers, or NaN and infinite outputs raise ``ValueError``
    naming the first row at fault (its values, columns by name), the output column and the remedy."""
    raw = f(rows)
    try:
        out = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"the model returned outputs that are not numbers ({np.asarray(raw).dtype}, e.g. class "
                         "labels): explain numbers, e.g. the model's predict_proba or decision_function") from None
    if out.ndim == 0 or out.shape[0] != n_rows or out.ndim > 2:
        raise ValueError(
            f"the model must map {n_rows} rows to an array of shape ({n_rows},) or "
            f"({n_rows}, k); it returned shape {out.shape}: give a model that returns one output (or one row "
            "of outputs) per row, e.g. predict_proba, or wrap it (lambda Z: f(Z).reshape(len(Z), -1))"
        )
    bad = ~np.isfinite(out)
    if bad.any():
        where = np.argwhere(bad)[0]
        column = f", output column {int(where[1])}" if out.ndim == 2 else ""
        n_bad = int(bad.reshape(len(out), -1).any(axis=1).sum())
        raise ValueError(
            f"the model returned NaN or infinite outputs on {n_bad} of the {n_rows} rows it was given, first on "
            f"the row {describe_row(rows, int(where[0]))}{column}: explain a finite output (e.g. a probability "
            "rather than its log where it is 0), or a model that gives one on every row"
        )
    return out


@entry_point(model="model", rows=("X", "background"), allow_nan=True)
class Game:
    """The interventional game of a model at the rows ``X``, against background rows: checked once.

    Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-found-value-function`
        (notebooks/00-foundations/01-shapley-values.ipynb).

    ``Game(model, X, background)`` is what every explainer of ``lib`` builds from its inputs, once
    per public call, and hands down (see the module docstring): the estimators of
    :mod:`lib.sampling` are functions of a game.

    Parameters
    ----------
    model
        A fitted classifier (its ``predict_proba``, one output per class) or a function of the rows
        (:func:`lib.models.as_model`).  It must not modify its input in place.
    X, background
        Rows to explain ``(n, d)`` (a 1-D array is one row, a ``pd.Series`` one row with names) and
        background rows ``(m, d)``: both arrays or both DataFrames.  DataFrame columns are matched
        **by name** — the background's to ``X``'s, and both to the model's ``feature_names_in_`` if it
        has them (reordered; a missing, extra, renamed or repeated column is refused); each column
        takes one dtype that holds the values of both (an integer ``X`` against a float background:
        float); NaN and ±inf are refused in every dtype with the row, the column (by name) and the
        remedy (:func:`lib.validation.check_inputs`).  ``background=None``: ``X`` alone, checked the
        same way, for a method that needs no background (its coalitions cannot be evaluated).
    output
        The explained output (class), by the one class rule of ``lib`` (:func:`lib.models.choose_output`:
        a label of ``classes_`` or of ``output_names``, else a column index).
    output_default
        What ``output=None`` means for the method building the game, one of
        :data:`lib.models.DEFAULT_OUTPUTS` (default ``"all"``: every output of the model).
    feature_names, output_names
        Labels for arrays and callables; by default a DataFrame's columns and a classifier's classes.
    allow_nan
        Let missing values through to the model (one that handles them); infinite values never.
        ``None``: the method offers no ``allow_nan`` (the message says to impute).
        ``allow_nan_background`` decides it for the background alone (default: as ``X``);
        ``nan_remedy``: the remedy the message of a missing value gives, for a method that takes
        ``allow_nan`` another way.
    max_rows_per_call
        The most rows one model call is given (memory stays bounded).
    names
        The names of the two tables in the messages (default ``("X", "background")``).

    Attributes
    ----------
    X, background
        The checked rows, columns in one order (the model's, if it names them).
    n, d, m
        Rows explained, features, background rows.
    feature_names, output_names
        ``list[str]`` or ``None``.
    output_index, classes
        The column explained (``None``: every output, or a function's positive one) and a
        classifier's ``classes_`` (else ``None``).
    model_rows
        The model rows evaluated so far through :meth:`f` (every method of the game): what a
        budget counts.
    """

    def __init__(self, model: Any, X: Any, background: Any, *, output: Any = None,
                 feature_names: Sequence[str] | None = None, output_names: Sequence[str] | None = None,
                 allow_nan: bool | None = False, max_rows_per_call: int = 2**16, output_default: str = "all",
                 names: tuple[str, str] = ("X", "background"), allow_nan_background: bool | None = None,
                 nan_remedy: str | None = None) -> None:
        if isinstance(max_rows_per_call, bool) or not isinstance(max_rows_per_call, (int, np.integer)) \
                or max_rows_per_call < 1:
            raise ValueError(f"max_rows_per_call must be an integer >= 1, got {max_rows_per_call!r}")
        choice = choose_output(model, output, output_names, default=output_default)
        frame = isinstance(X, (pd.DataFrame, pd.Series))
        columns = model_columns(model) if frame else None
        self.X, self.background = check_inputs(X, background, allow_nan, columns, names=names,
                                               allow_nan_background=allow_nan_background, nan_remedy=nan_remedy)
        self.n, self.d = self.X.shape
        self.m = self.background.shape[0] if self.background is not None else 0
        self.names = names
        self.feature_names = _feature_names(self.X, feature_names)
        self.output_names = choice.names
        self.output_index = choice.index
        self.classes = choice.classes
        self.allow_nan = bool(allow_nan)
        self.max_rows_per_call = int(max_rows_per_call)
        self.model_rows = 0
        self._function = choice.function
        self._k_shape: tuple[int, ...] | None = None

    def __repr__(self) -> str:
        return f"Game(n={self.n}, d={self.d}, m={self.m}, model={self._function!r})"

    def _needs_background(self) -> np.ndarray | pd.DataFrame:
        if self.background is None:
            raise ValueError("this game has no background rows: give background rows to evaluate its coalitions")
        return self.background

    @property
    def is_frame(self) -> bool:
        """Whether the rows are a DataFrame (hybrid rows are then built column by column)."""
        return isinstance(self.X, pd.DataFrame)

    # -- the model, counted --------------------------------------------------------------------

    def f(self, rows: ArrayOrFrame) -> Any:
        """The model (its explained output) on a table of rows, as it returns them; counted in
        :attr:`model_rows`.  Every evaluation of the game goes through it."""
        self.model_rows += len(rows)
        return self._function(rows)

    def call(self, rows: ArrayOrFrame) -> np.ndarray:
        """:meth:`f` checked (:func:`evaluate`): one output, or one row of ``k``, per row, all finite,
        and the same number of outputs on every call."""
        out = evaluate(self.f, rows, len(rows))
        if self._k_shape is None:
            self._k_shape = out.shape[1:]
        elif out.shape[1:] != self._k_shape:
            raise ValueError("the model returned a different number of outputs between calls")
        return out

    @cached_property
    def outputs(self) -> np.ndarray:
        """``f(x)`` of every explained row, ``(n[, k])``: ``v_x(N)`` (``n`` model rows, once)."""
        return self.call(self.X)

    @cached_property
    def background_outputs(self) -> np.ndarray:
        """``f(b)`` of every background row, ``(m[, k])`` (``m`` model rows, once)."""
        return self.call(self._needs_background())

    @property
    def base_values(self) -> np.ndarray:
        """``v_x(∅)``: the mean of ``f`` over the whole background, exact, ``(n[, k])``."""
        return np.broadcast_to(self.background_outputs.mean(axis=0), self.outputs.shape).copy()

    def of_rows(self, index: np.typing.ArrayLike) -> Game:
        """The game of the explained rows ``X[index]`` alone, against the same background: what a
        sequential estimator runs round after round on one row (:func:`lib.sampling.registry.run`'s
        ``tol``).

        It shares the model, the background and what this game knows already: ``f(x)`` of those rows
        and ``f(b)`` of the background rows (computed here first if they were not, and counted here,
        once), and :attr:`differ` and :attr:`codes` of those rows.  Its :attr:`model_rows` starts at 0
        and counts only what is evaluated through it: the caller adds it to this game's count.
        """
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        outputs, background_outputs = self.outputs, self.background_outputs
        differ, (cx, cb) = self.differ, self.codes
        sub = copy.copy(self)
        for name in ("pool", "_dense_codes", "values_are_codes"):
            sub.__dict__.pop(name, None)
        sub.X = self.X.iloc[index] if isinstance(self.X, pd.DataFrame) else self.X[index]
        sub.n = len(index)
        sub.model_rows = 0
        sub.__dict__.update(outputs=outputs[index], background_outputs=background_outputs,
                            differ=differ[index], codes=(cx[index], cb))
        return sub

    # -- hybrid rows ---------------------------------------------------------------------------

    @cached_property
    def pool(self) -> Any:
        """``X``'s rows then the background's, in one dtype per column (:func:`pool_rows`): every row the
        model is given is gathered from it (:meth:`rows`)."""
        return pool_rows(self.X, self.background)

    def rows(self, index: np.ndarray) -> ArrayOrFrame:
        """The rows whose column ``j`` is row ``index[r, j]`` of :attr:`pool` (``X``'s rows ``0 .. n-1``,
        then the background's ``n .. n+m-1``), as the model takes them: the one hybrid-row builder
        (:func:`gather_rows`), every value kept."""
        return gather_rows(self.pool, index)

    def hybrid(self, rows: np.ndarray, masks: np.ndarray, donors: np.ndarray) -> ArrayOrFrame:
        """The hybrid rows: row ``r`` takes ``X[rows[r]]`` where ``masks[r]`` is True and the
        background row ``donors[r]`` elsewhere (``masks`` ``(r, d)`` booleans), through :meth:`rows`."""
        rows, donors = np.asarray(rows, dtype=np.int64), np.asarray(donors, dtype=np.int64)
        if not self.is_frame:  # the same rows as rows() gives, gathered row by row (X and the background
            return np.where(masks, self.X[rows], self.background[donors])  # share one dtype): faster
        return self.rows(np.where(masks, rows[:, None], self.n + donors[:, None]))

    @cached_property
    def _dense_codes(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each pooled row's values as dense codes ``0 .. u_j - 1`` per column (equal iff the values are
        equal) and, per column, the pooled row of each code's first occurrence."""
        cx, cb = self.codes
        both = np.concatenate([cx, cb]) if self.background is not None else cx
        dense = np.empty(both.shape, dtype=np.int64)
        first = []
        for j in range(both.shape[1]):
            _, index, inverse = np.unique(both[:, j], return_index=True, return_inverse=True)
            dense[:, j] = inverse.reshape(-1)
            first.append(index.astype(np.int64))
        return dense, first

    @cached_property
    def values_are_codes(self) -> bool:
        """Whether the values can stand for their own codes in :meth:`encoded`: every column of ``X`` and
        the background numeric (numpy booleans, integers of at most 2**53 in size, floats), none
        missing, and no two different values of a column within ``np.isclose``'s tolerance
        (``1e-8 + 1e-5 |v|``: how shap's explainers tell a feature that varies from one that does
        not). A tool that mixes rows then copies and compares the values as it would their codes, and
        :meth:`decode` gives the model its rows as they come, each column back in its dtype (exactly:
        the float64 values hold them): the same rows, without gathering them again (the decoding
        cost three times the model in shap's KernelSHAP of a naive Bayes)."""
        if self.background is None:
            return False
        columns = self.pool[1] if self.is_frame else [self.pool[:, j] for j in range(self.pool.shape[1])]
        for column in columns:
            if not isinstance(column, np.ndarray) or column.dtype.kind not in "biuf":
                return False
            values = column.astype(np.float64)
            if np.isnan(values).any() or (column.dtype.kind in "iu" and len(values) and np.abs(values).max() > 2.0**53):
                return False
            u = np.unique(values)
            if len(u) > 1 and np.any(np.diff(u) <= 1e-8 + 1e-5 * np.maximum(np.abs(u[:-1]), np.abs(u[1:]))):
                return False
        return True

    def encoded(self) -> tuple[np.ndarray, np.ndarray]:
        """``X`` and the background as float arrays of codes, equal iff the values are (per column):
        what a tool that mixes rows itself (shap's explainers) is given, so that :meth:`decode` builds
        the rows the model sees, with every value and dtype kept. The values themselves where they
        can stand for their codes (:attr:`values_are_codes`)."""
        if self.values_are_codes:
            return np.array(self.X, dtype=np.float64), np.array(self.background, dtype=np.float64)
        dense, _ = self._dense_codes
        return dense[: self.n].astype(float), dense[self.n:].astype(float)

    def decode(self, codes: Any) -> ArrayOrFrame:
        """The rows of a table of codes (:meth:`encoded`, mixed by another tool), as the model takes them
        (:meth:`rows`)."""
        Z = np.asarray(codes, dtype=float)
        if Z.ndim == 1:
            Z = Z[None, :]
        if self.values_are_codes:  # the codes are the values: the rows as they come, each column in its dtype
            if self.is_frame:
                columns, arrays = self.pool
                return pd.DataFrame({c: Z[:, j].astype(a.dtype) for j, (c, a) in enumerate(zip(columns, arrays))},
                                    columns=columns)
            return np.array(Z, dtype=self.pool.dtype, order="C")
        _, first = self._dense_codes
        index = np.empty(Z.shape, dtype=np.int64)
        for j in range(Z.shape[1]):
            index[:, j] = first[j][Z[:, j].astype(np.int64)]
        return self.rows(index)

    def evaluate(self, rows: np.ndarray, masks: np.ndarray, donors: np.ndarray) -> np.ndarray:
        """The model on the hybrid rows :meth:`hybrid` ``(rows, masks, donors)``: ``(r[, k])``, in
        calls of at most ``max_rows_per_call`` rows (``r`` model rows)."""
        total = len(rows)
        if total <= self.max_rows_per_call:
            return self.call(self.hybrid(rows, masks, donors))
        parts = [self.call(self.hybrid(rows[a:a + self.max_rows_per_call], masks[a:a + self.max_rows_per_call],
                                       donors[a:a + self.max_rows_per_call]))
                 for a in range(0, total, self.max_rows_per_call)]
        return np.concatenate(parts)

    @cached_property
    def codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Each column's values as int64 codes, equal iff the values are equal: ``(n, d)`` for ``X``,
        ``(m, d)`` for the background.  Integers and booleans are their own codes; a categorical
        column gives its category codes (``-1`` for a missing value); any other column its values'
        ranks (missing values equal to each other)."""
        X = self.X
        background = self.background if self.background is not None else X.iloc[:0] if self.is_frame else X[:0]
        if isinstance(X, pd.DataFrame):
            cx, cb = np.empty(X.shape, dtype=np.int64), np.empty(background.shape, dtype=np.int64)
            for j, c in enumerate(X.columns):
                if isinstance(X[c].dtype, pd.CategoricalDtype):
                    cx[:, j], cb[:, j] = X[c].cat.codes.to_numpy(), background[c].cat.codes.to_numpy()
                else:
                    ranks, _ = pd.factorize(pd.concat([background[c], X[c]], ignore_index=True), use_na_sentinel=False)
                    cb[:, j], cx[:, j] = ranks[: len(background)], ranks[len(background):]
            return cx, cb
        if X.dtype.kind in "biu" and background.dtype.kind in "biu":
            return np.ascontiguousarray(X, dtype=np.int64), np.ascontiguousarray(background, dtype=np.int64)
        both = np.concatenate([background, X])
        ranks = np.column_stack([np.unique(both[:, j], return_inverse=True)[1].reshape(-1)
                                 for j in range(both.shape[1])]) if both.shape[1] else np.zeros(both.shape, np.int64)
        ranks = ranks.reshape(both.shape).astype(np.int64)
        return np.ascontiguousarray(ranks[len(background):]), np.ascontiguousarray(ranks[: len(background)])

    @cached_property
    def differ(self) -> np.ndarray:
        """``(n, m, d)``: where explained row ``i`` and background row ``b`` differ (from
        :attr:`codes`).  Where they agree, switching the feature changes no hybrid row: a null
        player of ``f(x_S, b_{-S})``, and a model row an estimator need not pay for."""
        cx, cb = self.codes
        return cx[:, None, :] != cb[None, :, :]

    # -- the game's values ---------------------------------------------------------------------

    def coalition_values(self, masks: np.ndarray) -> np.ndarray:
        """The value function on the coalitions ``masks`` ``(c, d)``, for every explained row.

        Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-found-value-function`
            (notebooks/00-foundations/01-shapley-values.ipynb).

        ``v_x(S) = (1/m) Σ_b f(x_S, b_{-S})``, the equation in numpy: for each explained row and
        coalition, the model on its ``m`` hybrid rows and numpy's mean over them, in background
        order.  ``m`` model rows per coalition per explained row, in calls of whole coalitions of at
        most about ``max_rows_per_call`` rows.  Returns ``(n, c[, k])``.
        """
        self._needs_background()
        n, m, c = self.n, self.m, masks.shape[0]
        per_call = max(1, self.max_rows_per_call // m)
        result: np.ndarray | None = None
        for start in range(0, n * c, per_call):
            stop = min(n * c, start + per_call)
            inst, coal = np.divmod(np.arange(start, stop), c)
            out = self.call(self.hybrid(np.repeat(inst, m), np.repeat(masks[coal], m, axis=0),
                                        np.tile(np.arange(m), stop - start)))
            means = out.reshape((stop - start, m) + out.shape[1:]).mean(axis=1)
            if result is None:
                result = np.empty((n * c,) + means.shape[1:])
            result[start:stop] = means
        assert result is not None
        return result.reshape((n, c) + result.shape[1:])

    def values(self, coalitions: Any) -> np.ndarray:
        """:meth:`coalition_values` of any coalitions (bitmasks or a boolean ``(c, d)`` array,
        :func:`as_coalition_masks`), each distinct one evaluated once, in the order given."""
        masks = as_coalition_masks(coalitions, self.d)
        # distinct coalitions in increasing bitmask order (the columns reversed make the
        # lexicographic order of np.unique the numeric order of the bitmasks)
        unique_rev, inverse = np.unique(masks[:, ::-1], axis=0, return_inverse=True)
        values = self.coalition_values(np.ascontiguousarray(unique_rev[:, ::-1]))
        return values[:, np.asarray(inverse).reshape(-1)]


def as_game(model: Any, X: Any, background: Any, what: str, **given: Any) -> Game:
    """The checked game of a public call: ``Game(model, X, background, **given)``, or the :class:`Game`
    passed as ``model`` (then nothing else describes it: ``X``, ``background`` and the options left out,
    else ``ValueError`` naming ``what``, the function called)."""
    if not isinstance(model, Game):
        return Game(model, X, background, **given)
    defaults = {"allow_nan": False, "max_rows_per_call": 2**16, "output_default": None, "names": None,
                "allow_nan_background": None, "nan_remedy": None}
    extra = [k for k, v in (("X", X), ("background", background), *given.items())
             if v is not None and not (k in defaults and (defaults[k] is None or v == defaults[k]))]
    if extra:
        raise ValueError(f"{what} got a Game and {extra}: a Game already holds its rows, background and "
                         "options; give either a Game, or the model, X and background")
    return model


def _feature_names(X: ArrayOrFrame, given: Sequence[str] | None) -> list[str] | None:
    """The features' names: those given (one per column), else a DataFrame's columns as text."""
    if given is not None:
        names = [str(c) for c in given]
        if len(names) != X.shape[1]:
            raise ValueError(f"{len(names)} feature names for {X.shape[1]} features: give one name per column")
        return names
    if isinstance(X, pd.DataFrame):
        return [str(c) for c in X.columns]
    return None


def as_coalition_masks(coalitions: Any, d: int) -> np.ndarray:
    """Coalitions as a boolean ``(c, d)`` array (row ``r``, column ``j``: feature ``j`` present).

    Accepts that array itself, or bitmasks (bit ``j`` = feature ``j``) as integers of any
    size: numpy integers while ``d <= 62``, Python ints beyond (no ``2**d`` array is
    ever built, so ``d`` can be in the hundreds).
    """
    if d < 1:
        raise ValueError(f"need at least one feature, got d={d}")
    if isinstance(coalitions, np.ndarray) and coalitions.dtype == bool:
        if coalitions.ndim != 2 or coalitions.shape[1] != d or coalitions.shape[0] == 0:
            raise ValueError(f"boolean coalitions must have shape (c, {d}) with c >= 1, got {coalitions.shape}")
        return coalitions
    ints = [int(s) for s in np.asarray(coalitions, dtype=object).reshape(-1)]
    if not ints:
        raise ValueError("coalitions must not be empty")
    if min(ints) < 0 or max(ints) >= 1 << d:
        raise ValueError(f"coalitions must be bitmasks in [0, 2**{d})")
    if d <= 62:
        return bitmask_rows(ints, d)
    return np.array([[(s >> j) & 1 for j in range(d)] for s in ints], dtype=bool)


@entry_point(model="f", rows=("X", "background"), allow_nan=True, example={"coalitions": [0, 1, 6, 7]})
def coalition_values(
    f: Model,
    X: ArrayOrFrame | np.typing.ArrayLike,
    background: ArrayOrFrame | np.typing.ArrayLike,
    coalitions: Any,
    *,
    output: Any = None,
    max_rows_per_call: int = 2**16,
    allow_nan: bool = False,
) -> np.ndarray:
    """The interventional game on an explicit list of coalitions, for any number of features.

    Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-found-value-function`
        (notebooks/00-foundations/01-shapley-values.ipynb).

    ``v_x(S) = (1/m) sum_b f(x_S, b_{-S})`` (book eq. ``eq-found-interventional``;
    Štrumbelj & Kononenko, 2014) for each row of ``X`` and each coalition in
    ``coalitions`` (see :func:`as_coalition_masks`), without allocating the ``2**d``
    coalitions: :meth:`Game.coalition_values` of ``Game(f, X, background)``.  Each *distinct*
    coalition is evaluated once: the model sees ``n * (number of distinct coalitions) * m`` rows.

    Returns ``(n, c)`` for a single-output model (or ``output`` given), ``(n, c, k)`` otherwise,
    in the order of ``coalitions`` (repeated coalitions repeat their value).
    """
    game = Game(f, X, background, output=output, allow_nan=allow_nan, max_rows_per_call=max_rows_per_call)
    return game.values(coalitions)


@entry_point(model="f", rows=("X", "background"), allow_nan=True)
def interventional_game(
    f: Model,
    X: ArrayOrFrame | np.typing.ArrayLike,
    background: ArrayOrFrame | np.typing.ArrayLike,
    *,
    output: Any = None,
    coalitions: np.typing.ArrayLike | None = None,
    max_rows_per_call: int = 2**16,
    allow_nan: bool = False,
    max_features: int = MAX_EXACT_FEATURES,
) -> np.ndarray:
    """All ``2**d`` coalition values of the interventional game of each row of ``X``.

    Book: :ref:`eq-found-interventional` (book/foundations.md); :ref:`eq-found-value-function`
        (notebooks/00-foundations/01-shapley-values.ipynb); :ref:`eq-nb-value-function`
        (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb); :ref:`eq-nb-ks-game`
        (notebooks/01-naive-bayes/03-kernelshap.ipynb).

    ``v_x(S) = (1/m) sum_b f(x_S, b_{-S})`` over the ``m`` background rows
    (Štrumbelj & Kononenko, 2014; Lundberg & Lee, 2017; book eq.
    ``eq-found-interventional``): the model on every hybrid row, each coalition's value the
    mean of its ``m`` outputs in background order (:meth:`Game.coalition_values`, the equation in
    numpy).  With :func:`lib.formula.shapley_from_game`, the exact Shapley values
    (:func:`lib.shapley.exact_shapley` computes the same numbers on faster paths).

    Parameters
    ----------
    f
        A fitted classifier or a function of the rows (:class:`Game`): maps an ``(r, d)`` array
        (or DataFrame, if ``X`` is one) to ``(r,)`` or ``(r, k)``.  It must not modify its input.
    X
        Instances to explain, ``(n, d)`` (a single 1-D row is accepted).
    background
        Background rows ``(m, d)`` replacing the absent features; same type and
        columns as ``X`` (matched by name).
    output
        The explained output (:func:`lib.models.output_index`); default every output.
    coalitions
        Evaluate only these coalitions (bitmasks); the others are NaN in the result.
        Default: all ``2**d``.  Cost: ``n * len(coalitions) * m`` model rows.
    max_rows_per_call
        Bound on the number of rows passed to ``f`` at once (memory stays bounded).
    allow_nan
        Let NaN through to the model (for models that handle missing values).
    max_features
        Refuse more features than this (default :data:`MAX_EXACT_FEATURES`).

    Returns
    -------
    numpy.ndarray
        ``(n, 2**d)`` for a single-output model, ``(n, 2**d, k)`` otherwise.
    """
    game = Game(f, X, background, output=output, allow_nan=allow_nan, max_rows_per_call=max_rows_per_call)
    check_enumerable(game.d, max_features)
    n, d = game.n, game.d
    if coalitions is None:
        return game.coalition_values(bitmask_rows(np.arange(2**d), d))
    chosen = np.unique(np.asarray(coalitions, dtype=np.int64))
    if chosen.ndim != 1 or chosen.size == 0 or chosen[0] < 0 or chosen[-1] >= 2**d:
        raise ValueError(f"coalitions must be a non-empty list of bitmasks in [0, 2**{d})")
    values = game.coalition_values(bitmask_rows(chosen, d))
    out = np.full((n, 2**d) + values.shape[2:], np.nan)
    out[:, chosen] = values
    return out
