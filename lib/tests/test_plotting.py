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
    plotting.save_figure(fig, "grid-check", description="A rising curve, to check the canvas.")
    plt.close(fig)
    head = (tmp_path / "grid-check.svg").read_text()[:600]
    width, height = (float(v) for v in re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', head).groups())
    step = plotting.SNAP_INCHES * 72
    for size in (width, height):
        assert abs(size / step - round(size / step)) < 1e-4, size


def test_svg_clip_ids_do_not_depend_on_last_bits(tmp_path, monkeypatch):
    # matplotlib hashes a clip rectangle's coordinates at full precision into its id: an
    # axes moved by 1e-15 of the figure (layout noise on another CPU) renamed every clip
    # path although the printed coordinates stayed the same
    import re

    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    texts = []
    for shift in (0.0, 1e-15):
        fig = plt.figure(figsize=(3, 2))
        ax = fig.add_axes((0.125 + shift, 0.11, 0.775, 0.77))
        ax.plot([0, 1], [1, 0])
        plotting.save_figure(fig, "clip-check", description="A falling line, to check the SVG's ids.")
        plt.close(fig)
        texts.append((tmp_path / "clip-check.svg").read_text(encoding="utf-8"))
    assert texts[0] == texts[1]
    assert 'id="clip0"' in texts[0] and "url(#clip0)" in texts[0]
    assert not re.search(r'id="p[0-9a-f]{10}"', texts[0])


def test_stable_svg_ids_renames_every_clip_path_in_order():
    svg = ('<clipPath id="pffffffffff"/><clipPath id="p0123456789"/>'
           '<g clip-path="url(#p0123456789)"/><g clip-path="url(#pffffffffff)"/>')
    assert plotting.stable_svg_ids(svg) == ('<clipPath id="clip0"/><clipPath id="clip1"/>'
                                            '<g clip-path="url(#clip1)"/><g clip-path="url(#clip0)"/>')
    with pytest.raises(ValueError, match="clip0"):
        plotting.stable_svg_ids('<clipPath id="p0123456789"/><g id="clip0"/>')


def test_denoise_rounds_away_ulps_and_rejects_nan():
    assert plotting.denoise(np.array([-1e-17, 0.1 + 0.2]))[0] == 0.0
    assert np.signbit(plotting.denoise(np.array([-1e-17]))[0]) == False  # noqa: E712
    assert plotting.denoise(np.array([0.1 + 0.2]))[0] == 0.3
    with pytest.raises(ValueError, match="NaN"):
        plotting.denoise(np.array([np.nan]))


@pytest.mark.parametrize("k", [1, 7, 347, 12345])
def test_snap_extents_keeps_an_edge_on_a_grid_line_whatever_its_last_bits(k):
    # layouts put edges on round numbers of inches (0.9 x 7.6 + 0.1 = 347 steps of 0.02);
    # a few ulps either side must give the same canvas on every CPU
    grid = plotting.SNAP_INCHES
    edge = k * grid
    boxes = {plotting.snap_extents(e, e, e, e, grid) for e in
             (edge, np.nextafter(edge, np.inf), np.nextafter(edge, -np.inf), edge * (1 + 4e-16), edge * (1 - 4e-16))}
    assert boxes == {(round(edge, 6),) * 4}
    # off the grid, the box still widens outwards by less than a step
    x0, y0, x1, y1 = plotting.snap_extents(edge + 0.3 * grid, edge + 0.3 * grid, edge + 0.3 * grid, edge + 0.3 * grid, grid)
    assert x0 == y0 == round(edge, 6) and x1 == y1 == round(edge + grid, 6)
    with pytest.raises(ValueError, match="grid > 0"):
        plotting.snap_extents(0, 0, 1, 1, grid=0)


def test_png_does_not_depend_on_the_last_bit_of_a_vertex(tmp_path):
    # Agg rounds vertices to 1/256 pixel, half up: a vertex on half a subpixel in exact
    # arithmetic lands on either side by its last bit, which differs between CPUs.  Plain
    # matplotlib then changes pixels; the book's PNG writer must not.
    import io

    from matplotlib.patches import Polygon
    from matplotlib.transforms import Bbox, IdentityTransform

    def png_bytes(x, ours):
        fig = plt.figure(figsize=(3, 2), dpi=100)
        fig.add_artist(Polygon([[20.0, 20.0], [x, 150.0], [250.0, 60.0]], transform=IdentityTransform()))
        fig.add_artist(plt.Line2D([x, 200.0], [30.0, 180.0], transform=IdentityTransform()))
        if ours:
            path = tmp_path / "fig.png"
            plotting._save_png(fig, path, dpi=100, bbox=Bbox([[0, 0], [3, 2]]), metadata={"Software": None})
            out = path.read_bytes()
        else:
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
            out = buf.getvalue()
        plt.close(fig)
        return out

    x = 100 + 0.5 / 256
    noisy = np.nextafter(x, -np.inf)
    assert png_bytes(x, ours=False) != png_bytes(noisy, ours=False)   # the hazard is real
    assert png_bytes(x, ours=True) == png_bytes(noisy, ours=True)


def test_saving_a_png_leaves_the_figure_its_canvas(tmp_path, monkeypatch):
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.scatter([0.1, 0.5], [0.2, 0.4])
    ax.imshow(np.arange(6.0).reshape(2, 3), extent=(0, 1, 0, 1))
    canvas = fig.canvas
    plotting.save_figure(fig, "canvas-kept", description="Two dots over a small image.")
    assert fig.canvas is canvas
    image = plt.imread(tmp_path / "canvas-kept.png")
    assert image.shape[2] == 4 and image[..., :3].std() > 0   # something was drawn
    plt.close(fig)


# ------------------------------------------------------------------ descriptions (alternative text)
import base64  # noqa: E402
import html  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

from PIL import Image  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def test_a_figure_saved_without_a_description_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    with pytest.raises(TypeError, match="description"):
        plotting.save_figure(fig, "no-description")  # type: ignore[call-arg]
    for bad in (None, "", "   ", "no-description.png", "../_images/985c2f9e.png", "fig-coal-cost", "x " * 250):
        with pytest.raises(ValueError, match="description"):
            plotting.save_figure(fig, "no-description", description=bad)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []   # refused before anything was written
    assert not hasattr(fig, plotting.DESCRIPTION_ATTR)
    plt.close(fig)


def test_the_description_is_stored_in_both_files_reproducibly(tmp_path, monkeypatch):
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    text = "A line falling from 1 to 0 − the  whole\nway."
    plotting.save_figure(fig, "described", description=text)
    first = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with Image.open(tmp_path / "described.png") as png:
        assert png.text == {"Title": "described", "Description": "A line falling from 1 to 0 − the whole way."}
    svg = (tmp_path / "described.svg").read_text(encoding="utf-8")
    assert "<title>A line falling from 1 to 0 − the whole way.</title>" in svg
    assert "<dc:description>A line falling from 1 to 0 − the whole way.</dc:description>" in svg
    assert getattr(fig, plotting.DESCRIPTION_ATTR) == "A line falling from 1 to 0 − the whole way."
    plotting.save_figure(fig, "described", description=text)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == first   # no date, no random id
    plt.close(fig)


def test_a_described_figure_is_shown_with_its_description():
    from IPython.core.formatters import PNGFormatter

    formatter = PNGFormatter()
    formatter.for_type(plt.Figure, lambda fig: "PNG-BYTES")   # stands for the inline backend's printer
    assert plotting.describe_display(formatter) and plotting.describe_display(formatter)   # wrapped once
    described, plain = plt.figure(), plt.figure()
    setattr(described, plotting.DESCRIPTION_ATTR, "A described figure.")
    assert formatter(described) == ("PNG-BYTES", {"alt": "A described figure."})
    assert formatter(plain) == "PNG-BYTES"
    assert not plotting.describe_display(PNGFormatter())   # no figure printer registered: nothing to wrap
    plt.close(described)
    plt.close(plain)


_SAVE = re.compile(r"save_figure\(\s*\w+,\s*\"(?P<name>[^\"]+)\"")


def _figure_outputs() -> dict[str, list[dict]]:
    """figure name -> the image/png outputs of the notebook cell that saves it."""
    found: dict[str, list[dict]] = {}
    for path in sorted((REPO / "notebooks").glob("*/*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            for match in _SAVE.finditer("".join(cell["source"])):
                found[match["name"]] = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
    return found


def test_every_figure_of_the_book_is_described():
    """Each figure file carries a description, and the notebook's output of the figure the same one."""
    outputs = _figure_outputs()
    pngs = sorted(plotting.FIGURE_DIR.glob("*.png"))
    assert pngs and {p.stem for p in pngs} <= set(outputs)
    bad = []
    for png in pngs:
        with Image.open(png) as image:
            text = image.text.get("Description")
        try:
            plotting.check_description(text)
        except ValueError as error:
            bad.append(f"{png.name}: {error}")
            continue
        title = re.search(r"<title>(.*?)</title>", png.with_suffix(".svg").read_text(encoding="utf-8"), re.S)
        if title is None or html.unescape(title[1]) != text:
            bad.append(f"{png.stem}.svg: its title is not the PNG's description")
        shown = outputs[png.stem]
        if len(shown) != 1 or shown[0].get("metadata", {}).get("image/png", {}).get("alt") != text:
            bad.append(f"{png.stem}: the notebook shows it {len(shown)} time(s), not once with its description as alt")
        elif not base64.b64decode("".join(shown[0]["data"]["image/png"])):
            bad.append(f"{png.stem}: empty output")
    assert not bad, bad
