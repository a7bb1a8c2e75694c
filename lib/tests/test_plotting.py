"""Tests of lib.plotting helpers."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg", force=False)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib import plotting, simplex  # noqa: E402


def test_bifurcation_tree_labels_every_leaf_and_balance():
    fig, ax = plt.subplots()
    plotting.bifurcation_tree(ax, simplex.helmert_sbp(4), ["a", "b", "c", "d"])
    texts = [t.get_text() for t in ax.texts]
    assert sorted(t for t in texts if not t.startswith("$")) == ["a", "b", "c", "d"]
    assert sorted(t for t in texts if t.startswith("$")) == [rf"$\tilde p_{{{j}}}$" for j in (1, 2, 3)]
    assert len(ax.lines) == 3  # one bracket per split
    plt.close(fig)


def test_bifurcation_tree_needs_one_label_per_class():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="labels"):
        plotting.bifurcation_tree(ax, simplex.helmert_sbp(3), ["a", "b"])
    plt.close(fig)


def test_figure_names_are_checked():
    with pytest.raises(ValueError):
        plotting.figure_path("Has Spaces")


def test_snapped_tight_bbox_is_on_the_grid_and_contains_the_tight_box():
    fig, ax = plt.subplots(figsize=(3.3, 2.1))
    ax.plot([0, 1.2345678901], [0, 3.3333333333])
    ax.set_title("a title")
    box = plotting.snapped_tight_bbox(fig)
    tight = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1)
    for edge in (box.x0, box.y0, box.x1, box.y1):
        assert abs(edge / plotting.SNAP_INCHES - round(edge / plotting.SNAP_INCHES)) < 1e-9
    assert box.x0 <= tight.x0 and box.y0 <= tight.y0 and box.x1 >= tight.x1 and box.y1 >= tight.y1
    assert box.width - tight.width < 2 * plotting.SNAP_INCHES + 1e-9
    with pytest.raises(ValueError, match="grid > 0"):
        plotting.snapped_tight_bbox(fig, grid=0)
    plt.close(fig)


def test_saved_canvas_is_on_the_grid(tmp_path, monkeypatch):
    # the canvas of a saved SVG is a whole number of grid steps (in points), so last-bit
    # noise in tick positions cannot move its edges (or, through them, any coordinate)
    import re

    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(np.linspace(0, 1, 7), plotting.denoise(np.linspace(0, 1, 7) ** 2 / 3))
    ax.set_title("canvas")
    plotting.save_figure(fig, "grid-check")
    plt.close(fig)
    head = (tmp_path / "grid-check.svg").read_text()[:600]
    width, height = (float(v) for v in re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', head).groups())
    step = plotting.SNAP_INCHES * 72
    for size in (width, height):
        assert abs(size / step - round(size / step)) < 1e-4, size


def test_denoise_rounds_away_ulps_and_rejects_nan():
    assert plotting.denoise(np.array([-1e-17, 0.1 + 0.2]))[0] == 0.0
    assert np.signbit(plotting.denoise(np.array([-1e-17]))[0]) == False  # noqa: E712
    assert plotting.denoise(np.array([0.1 + 0.2]))[0] == 0.3
    with pytest.raises(ValueError, match="NaN"):
        plotting.denoise(np.array([np.nan]))
