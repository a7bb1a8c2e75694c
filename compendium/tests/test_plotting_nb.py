"""Tests of compendium.plotting.shapley_bars (chapter 1, Figure 1)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg", force=False)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from compendium import plotting  # noqa: E402


def test_one_bar_per_value_with_sign_colours_and_order():
    fig, ax = plt.subplots()
    values = [0.5, -1.25, 0.0, 2.0]
    labels = ["age", "a very long label that must be shortened", "sex", "capital"]
    out = plotting.shapley_bars(ax, values, labels, title="row 1", max_label=10)
    assert out is ax
    bars = ax.patches
    assert len(bars) == 4
    # widths are the values, bar i at y = i, the first value on top (inverted y axis)
    np.testing.assert_allclose([b.get_width() for b in bars], values)
    np.testing.assert_allclose([b.get_y() + b.get_height() / 2 for b in bars], [0, 1, 2, 3])
    lo, hi = ax.get_ylim()
    assert lo > hi
    blue, red = matplotlib.colors.to_rgba("tab:blue"), matplotlib.colors.to_rgba("tab:red")
    assert [b.get_facecolor() for b in bars] == [blue, red, red, blue]
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == ["age", "a very ...", "sex", "capital"]
    assert ax.get_title() == "row 1"
    plt.close(fig)


def test_bad_input_is_refused():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="labels"):
        plotting.shapley_bars(ax, [1.0, 2.0], ["a"])
    with pytest.raises(ValueError, match="finite 1-D"):
        plotting.shapley_bars(ax, [1.0, np.nan], ["a", "b"])
    with pytest.raises(ValueError, match="finite 1-D"):
        plotting.shapley_bars(ax, [[1.0, 2.0]], ["a", "b"])
    plt.close(fig)
