"""compendium.experiments.nb_table3_kernelshap: Table 3's protocol on small models (moved from lib/tests/test_kernel_comparison.py)."""

from __future__ import annotations

import numpy as np
import pytest

from compendium.experiments import nb_table3_kernelshap as t3
from lib import kernel_comparison as kc
from lib import naive_bayes as nb
from lib import shapley as sh
from lib.tests.test_kernel_comparison import toy  # noqa: F401 - pytest fixtures and helpers shared with lib's tests


def test_table3_protocol_on_a_small_model(toy):
    _, model, parts = toy
    run = t3.table3_protocol(model.tables_, parts, "yes", n_explain=20, n_background=300, seed=1)
    assert run.exhaustive and len(run.explain) == 20 and len(run.background) == 300
    eq10, _ = nb.shapley_values(model.tables_, parts[run.explain], "yes")
    np.testing.assert_allclose(run.ours, eq10, atol=0)
    # background = all the rows: KernelSHAP on the log-odds is eq. 10
    np.testing.assert_allclose(run.kernel_log_odds, eq10, atol=1e-10)
    exact_p = sh.exact_shapley(kc.naive_bayes_output(model.tables_, "yes", "proba"),
                               parts[run.explain], parts[run.background]).values
    np.testing.assert_allclose(run.kernel_proba, exact_p, atol=1e-10)
    s = run.summary()
    assert s["pearson log-odds"] == pytest.approx(1.0) and s["kendall log-odds"] == pytest.approx(1.0)
    assert s["log-odds vs eq10 max_abs"] < 1e-10
    g = run.global_table()
    np.testing.assert_allclose(g["ours"], np.abs(eq10).mean(axis=0))
    assert list(g.index) == model.tables_.feature_names


def test_table3_protocol_background_subsample(toy):
    _, model, parts = toy
    run = t3.table3_protocol(model.tables_, parts, "yes", n_explain=10, n_background=30, seed=2)
    assert len(run.background) == 30
    s = run.summary()
    assert s["log-odds vs eq10 background max_abs"] < 1e-10
    assert s["log-odds vs eq10 max_abs"] > 1e-4  # 30 rows are not the training distribution
