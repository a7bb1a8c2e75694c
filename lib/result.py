"""The result every Shapley explainer of ``lib`` returns: :class:`~lib.result.ShapleyResult`.

Shapes follow shap's conventions: values ``(n, d)`` for one output and ``(n, d, k)`` for ``k``
outputs; base values ``(n,)`` or ``(n, k)``.  ``to_explanation()`` hands a result to shap's plots;
its ``output=`` picks one output by the rule of every ``output=`` of ``lib``
(:func:`lib.models.output_index`: a label, else a column index).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from lib.models import output_index

__all__ = ["ShapleyResult"]

ArrayOrFrame = np.ndarray | pd.DataFrame


@dataclass(frozen=True)
class ShapleyResult:
    """Shapley values of a model output for several rows.

    Attributes
    ----------
    values
        ``(n, d)`` or ``(n, d, k)``.
    base_values
        ``v(∅)``: the mean output over the background, ``(n,)`` or ``(n, k)``.
    outputs
        ``v(N) = f(x)``, ``(n,)`` or ``(n, k)``; efficiency reads
        ``values.sum(axis=1) + base_values == outputs``.
    data
        The explained rows, ``(n, d)`` (array or DataFrame).
    feature_names, output_names
        Optional labels.
    variances
        For sampled values: the estimated variance of each estimate (same shape as
        ``values``), else ``None``.
    standard_errors
        For sampled values: the standard error of each value (and output), from the sampler's own
        draws (same shape as ``values``; ``0`` where the value is exact, ``nan`` where the draws
        cannot measure a spread, e.g. a single pair of walks), else ``None``.  A nominal 95 %
        interval is :meth:`interval`'s: ``values ± t standard_errors``, ``t`` Student's 97.5 % quantile at
        :attr:`degrees_of_freedom`.
    n_samples
        For sampled values: the number of samples spent on each ``(row, feature)``.
    method
        ``"exact"`` or the sampling scheme used.
    model_rows
        The model rows the call spent (rows passed to the model, as :class:`lib.games.Game`
        counts them): the cost of the result, to set beside its accuracy; ``0`` for a closed form
        that reads the model's parameters, ``None`` where unknown.
    rows_per_row
        Where sampling stopped at a tolerance (:func:`lib.sampling.sample_shapley`'s ``tol``): the model
        rows spent on each explained row, ``(n,)`` int, counted as ``max_rows`` counts them (as if the
        row were explained alone: ``f(x)`` once, the ``m`` background rows once, and the rows of its
        draws), so each is at most ``max_rows``.  Their sum exceeds :attr:`model_rows` by
        ``(n - 1) m``: the call evaluates the background once for all rows.  ``None`` without a
        tolerance, where every row is given the whole budget (:attr:`model_rows` says what it spent).
    degrees_of_freedom
        For sampled values: the degrees of freedom of each standard error (same shape as ``values``): the
        draws less the strata they are pooled within, or Satterthwaite's effective ones where the strata
        differ in spread (:func:`lib.sampling.walk.pooled_dof`); ``inf`` where the value is exact or where its
        standard error is not a measured spread but the rule of three's bound for draws that all agreed
        (:func:`lib.sampling.walk.agreement_floor`, whose ``± 1.96`` standard errors are that bound), ``nan``
        where the standard error is.  ``None`` where unknown: :meth:`interval` then takes the normal 1.96.
    bootstrap_quantiles
        For sampled values whose draws are resampled (:func:`lib.sampling.walk.bootstrap_t`): the quantiles of
        the studentized estimate, ``(value* - value) / standard_error*``, over resamples of the draws within
        their strata, ``values.shape + (L, 2)`` (the lower and upper ``(1 -+ level) / 2`` quantiles per
        level of :data:`lib.sampling.walk.BOOTSTRAP_LEVELS`, ``L`` of them); ``nan`` where a value has none
        (its interval is then Student's t).  :meth:`interval` reads them: the bootstrap-t interval.  ``None``
        where the estimator resamples nothing.
    """

    values: np.ndarray
    base_values: np.ndarray
    outputs: np.ndarray
    data: ArrayOrFrame
    feature_names: list[str] | None = None
    output_names: list[str] | None = None
    variances: np.ndarray | None = None
    standard_errors: np.ndarray | None = None
    n_samples: np.ndarray | None = None
    method: str = "exact"
    model_rows: int | None = None
    rows_per_row: np.ndarray | None = None
    degrees_of_freedom: np.ndarray | None = None
    bootstrap_quantiles: np.ndarray | None = None

    def interval(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """The nominal ``level`` intervals of the sampled values: ``(low, high)``, each shaped as ``values``.

        ``values ± t standard_errors``, ``t`` Student's ``(1 + level) / 2`` quantile at
        :attr:`degrees_of_freedom` (the normal one where those are ``None`` or ``inf``): with few strata
        carrying the spread, ``t`` is well above 1.96 (``t`` at 8 degrees of freedom is 2.31).  Where the
        result keeps :attr:`bootstrap_quantiles` for ``level`` (one of :data:`lib.sampling.walk.BOOTSTRAP_LEVELS`), the
        bootstrap-t interval instead, ``[value - q_high se, value - q_low se]``: not symmetric where the draws
        are skewed, for then a value and its standard error move together.  Zero width
        for an exact value (standard error 0), ``nan`` where the standard error is.  Book:
        :ref:`found-est-coverage` (notebooks/00-foundations/03-estimators.ipynb) measures how often these
        intervals cover the exact values.  Refused for a result without standard errors (exact values, or an
        estimator that gives none).
        """
        from scipy import stats

        # imported here: lib.sampling imports this module
        from lib.sampling.walk import BOOTSTRAP_LEVELS

        if self.standard_errors is None:
            raise ValueError(f"this result (method={self.method!r}) has no standard errors: its values are "
                             "exact or its estimator gives none, so there is no interval to give")
        if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.0 < float(level) < 1.0:
            raise ValueError(f"level must be a number strictly between 0 and 1, got {level!r}")
        se = np.asarray(self.standard_errors, dtype=float)
        q = (1.0 + float(level)) / 2.0
        if self.degrees_of_freedom is None:
            t = np.full(se.shape, stats.norm.ppf(q))
        else:
            dof = np.broadcast_to(np.asarray(self.degrees_of_freedom, dtype=float), se.shape)
            t = np.where(np.isinf(dof), stats.norm.ppf(q), stats.t.ppf(q, np.where(dof > 0, dof, np.nan)))
        half = np.where(se == 0.0, 0.0, t * se)
        values = np.asarray(self.values, dtype=float)
        low, high = values - half, values + half
        matches = [k for k, kept in enumerate(BOOTSTRAP_LEVELS) if abs(kept - float(level)) < 1e-12]
        if self.bootstrap_quantiles is not None and matches:
            q = np.asarray(self.bootstrap_quantiles, dtype=float)[..., matches[0], :]
            kept = np.isfinite(q).all(axis=-1) & (se > 0.0)
            low = np.where(kept, values - q[..., 1] * se, low)
            high = np.where(kept, values - q[..., 0] * se, high)
        return low, high

    @classmethod
    def from_replicates(cls, runs: list[ShapleyResult], *, method: str | None = None,
                        model_rows: int | None = None) -> ShapleyResult:
        """One result from ``R`` independent runs of an estimator that gives no standard errors of its own
        (shap's explainers; :func:`lib.validation.replicate_seeds` gives their seeds): the values are the
        runs' mean, each with the standard error of that mean, ``s / sqrt(R)`` (``s`` the runs' sample
        standard deviation) on ``R - 1`` degrees of freedom, so :meth:`interval` is Student's t interval of
        the mean of ``R`` independent draws.  Runs that agree up to rounding (``1e-12`` of the row's largest
        value or output) agree.  Where every value of a row agreed in every run (shap's exact enumeration),
        the standard errors are 0; a value on which the runs agreed while others spread carries the rule of
        three's bound instead (:func:`lib.sampling.walk.agreement_floor`, ``inf`` degrees of freedom): a
        sampler with few distinct draws (one permutation of four features) repeats a value that is not
        exact.  The interval is about the estimator's mean: a bias of the estimator (KernelSHAP's regression
        at small budgets) is not in it.  Base values and outputs are the first
        run's (every run computes them exactly); the mean of efficient runs is efficient.  ``model_rows``:
        every run's rows (default: their sum).  At least two runs, of one shape."""
        runs = list(runs)
        if len(runs) < 2:
            raise ValueError(f"{len(runs)} run(s): standard errors need at least two independent runs "
                             "(replicates >= 2)")
        # imported here: lib.sampling imports this module
        from lib.sampling.walk import agreement_floor

        stack = np.stack([np.asarray(r.values, dtype=float) for r in runs])   # (R, n, d[, k])
        count, n = stack.shape[:2]
        first = runs[0]
        # deviations of a float's last digits (1e-12 of the row's largest value or output) are rounding, not a
        # spread: an interval 1e-16 wide would miss an exact value by its rounding
        size = np.concatenate([np.abs(stack).max(axis=0).reshape(n, -1),
                               np.abs(np.asarray(first.outputs, dtype=float)).reshape(n, -1),
                               np.abs(np.asarray(first.base_values, dtype=float)).reshape(n, -1)], axis=1)
        scale = size.max(axis=1).reshape((1, n) + (1,) * (stack.ndim - 2))
        dev = stack - stack.mean(axis=0)
        dev = np.where(np.abs(dev) <= 1e-12 * scale, 0.0, dev)
        measured = np.sqrt((dev**2).sum(axis=0) / (count - 1) / count)
        # a value on which every run agreed while others spread need not be exact (a permutation sampler's
        # few distinct draws): the rule of three's bound, as for the samplers' draws
        floors = np.stack([agreement_floor(dev[:, i], count - 1) for i in range(n)])
        se = np.maximum(measured, floors)
        dof = np.where((se == 0.0) | (floors > measured), np.inf, float(count - 1))
        rows = [r.model_rows for r in runs]
        return cls(values=stack.mean(axis=0), base_values=first.base_values, outputs=first.outputs,
                   data=first.data, feature_names=first.feature_names, output_names=first.output_names,
                   variances=se**2, standard_errors=se, method=method or f"{first.method}-replicates-{count}",
                   model_rows=model_rows if model_rows is not None else
                   (None if any(r is None for r in rows) else int(sum(rows))),
                   degrees_of_freedom=dof)

    def efficiency_gap(self) -> np.ndarray:
        """``f(x) - base - sum_i phi_i`` per row (and output); zero for exact values.

        Book: :ref:`eq-found-efficiency` (book/foundations.md).
        """
        return self.outputs - self.base_values - self.values.sum(axis=1)

    def to_explanation(self, output: Any = None) -> Any:
        """Convert to a :class:`shap.Explanation` so ``shap.plots`` work on it.

        ``output`` selects one output of a multi-output result (waterfall and beeswarm plots need
        a single output): one of :attr:`output_names` (a class label, as given or as text), or a
        column index (:func:`lib.models.output_index`, the rule of every ``output=`` of ``lib``).
        A single-output result needs none: ``shap.plots.waterfall(result.to_explanation()[0])``,
        ``shap.plots.beeswarm(result.to_explanation())`` and ``shap.plots.bar(...)`` draw it.
        """
        import shap  # imported lazily: importing shap is slow

        values, base = self.values, self.base_values
        if output is not None:
            if values.ndim != 3:
                raise ValueError("output= picks one output of a multi-output result; this one has a single output "
                                 f"({self.output_names[0] if self.output_names else 'unnamed'}): leave output= out")
            k = output_index(output, self.output_names, values.shape[2])
            values, base = values[:, :, k], base[:, k]
        data = self.data.to_numpy() if isinstance(self.data, pd.DataFrame) else self.data
        names = self.feature_names
        if names is None and isinstance(self.data, pd.DataFrame):
            names = [str(c) for c in self.data.columns]
        # shap's plots take a single output's name as text (a list of one breaks its waterfall)
        single = values.ndim == 2
        output_names = (self.output_names if output is None and not single
                        else self.output_names[0] if output is None and self.output_names else None)
        return shap.Explanation(
            values=values,
            base_values=base,
            data=data,
            feature_names=names,
            output_names=output_names,
        )

    def __post_init__(self) -> None:
        """Refuse names that do not fit the values: ``d`` feature names, one name per output."""
        shape = np.shape(self.values)
        if self.feature_names is not None and len(shape) >= 2 and len(self.feature_names) != shape[1]:
            raise ValueError(f"{len(self.feature_names)} feature names for {shape[1]} features")
        if self.output_names is not None and len(shape) >= 2:
            k = shape[2] if len(shape) == 3 else 1
            if len(self.output_names) != k:
                raise ValueError(
                    f"{len(self.output_names)} output names for {k} outputs ({list(self.output_names)}): "
                    "give one name per output (per column of the model's output)"
                )
