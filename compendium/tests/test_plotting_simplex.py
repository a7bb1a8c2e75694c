"""compendium.plotting.composition_path and write_figure: a composition on the simplex, saved anywhere."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from compendium import plotting  # noqa: E402


def _closure(p):
    p = np.asarray(p, dtype=float)
    return p / p.sum(axis=-1, keepdims=True)


def test_the_path_ends_at_the_perturbed_base_on_the_ternary_diagram():
    base = _closure([0.2, 0.5, 0.3])
    phi = _closure([[2.0, 1.0, 1.0], [1.0, 1.0, 3.0], [1.0, 1.2, 1.0]])
    fig, ax = plt.subplots()
    plotting.composition_path(ax, base, phi, class_names=["a", "b", "c"], feature_names=["f", "g", "h"])
    star = [line for line in ax.get_lines() if line.get_label() == "prediction f(x)"][0]
    pred = _closure(base * phi.prod(axis=0))                  # base ⊕ φ1 ⊕ φ2 ⊕ φ3
    x, y = star.get_xdata()[0], star.get_ydata()[0]
    assert x == pytest.approx(pred[1] + pred[2] / 2) and y == pytest.approx(pred[2] * np.sqrt(3) / 2)
    # the steps in decreasing Aitchison norm: g (the largest), then f, then h
    labels = [line.get_label() for line in ax.get_lines()][2:5]
    assert labels == ["g", "f", "h"]
    plt.close(fig)


def test_two_classes_a_segment_more_classes_a_subcomposition():
    fig, ax = plt.subplots()
    plotting.composition_path(ax, [0.5, 0.5], _closure([[3.0, 1.0]]), class_names=["no", "yes"], feature_names=["f"])
    star = [line for line in ax.get_lines() if line.get_label() == "prediction f(x)"][0]
    assert star.get_xdata()[0] == pytest.approx(0.25)          # P(yes) = 1 / (3 + 1)
    ax.clear()
    base, phi = _closure([0.1, 0.2, 0.3, 0.4]), _closure([[1.0, 1.0, 1.0, 2.0], [1.0, 3.0, 1.0, 1.0]])
    plotting.composition_path(ax, base, phi, class_names=list("abcd"), feature_names=["f", "g"], classes=[1, 2, 3])
    star = [line for line in ax.get_lines() if line.get_label() == "prediction f(x)"][0]
    sub = _closure((base * phi.prod(axis=0))[[1, 2, 3]])
    assert star.get_xdata()[0] == pytest.approx(sub[1] + sub[2] / 2)
    with pytest.raises(ValueError, match="three distinct"):
        plotting.composition_path(ax, base, phi, class_names=list("abcd"), feature_names=["f", "g"], classes=[1, 1, 2])
    with pytest.raises(ValueError, match="positive"):
        plotting.composition_path(ax, [0.0, 1.0, 0.0], phi[:, :3], class_names=list("abc"), feature_names=["f", "g"])
    plt.close(fig)


def test_write_figure_writes_where_asked_the_same_bytes_twice(tmp_path):
    fig, ax = plt.subplots(figsize=(3, 2))
    plotting.composition_path(ax, _closure([1, 2, 3]), _closure([[2, 1, 1]]), class_names=list("abc"),
                              feature_names=["f"])
    paths = []
    for fmt in ("png", "svg"):
        out = plotting.write_figure(fig, tmp_path / "deep" / f"mine.{fmt}", description="A ternary path of one row.")
        first = out.read_bytes()
        plotting.write_figure(fig, out, description="A ternary path of one row.")
        assert out.read_bytes() == first and b"A ternary path of one row." in first
        paths.append(out)
    with pytest.raises(ValueError, match="description"):
        plotting.write_figure(fig, tmp_path / "x.png", description="")
    with pytest.raises(ValueError, match=r"\.png, \.svg or \.pdf"):
        plotting.write_figure(fig, tmp_path / "x.jpg", description="A ternary path of one row.")
    plt.close(fig)
