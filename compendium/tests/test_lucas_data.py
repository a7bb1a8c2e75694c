"""LUCAS's data set (compendium.data) against the network of lib.bayesnet (moved from lib/tests/test_bayesnet.py)."""

from __future__ import annotations

from lib import bayesnet as bn
from lib.tests.test_bayesnet import net  # noqa: F401 - pytest fixtures and helpers shared with lib's tests


def test_lucas0_agrees_with_the_cpts(net):
    from compendium import data as libdata

    X, y = libdata.load_lucas0()
    summary = net.goodness_of_fit_summary(X.assign(**{bn.LUCAS_TARGET: y}))
    assert summary["dof"] == 29 and summary["p-value"] > 0.01
