"""Tests of compendium.plotting helpers."""

from __future__ import annotations

import io
import re

import matplotlib

matplotlib.use("Agg", force=False)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib import simplex  # noqa: E402
from compendium import plotting


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


def test_svg_text_sizes_reads_the_size_of_every_glyph(tmp_path, monkeypatch):
    # a figure with text of known sizes: a 13 pt title, 9 pt tick labels with 0.7 x 9 pt
    # superscripts (a log axis), written as save_figure writes text (as paths) but by matplotlib
    # itself, which leaves the superscripts as drawn; and no text in a second figure
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 10, 100], [1, 2, 3])
    ax.set_yscale("log")
    ax.set_xscale("log")
    ax.tick_params(which="both", labelsize=9)
    ax.set_title("title", fontsize=13)
    with matplotlib.rc_context({"svg.fonttype": "path"}):
        fig.savefig(tmp_path / "sizes.svg", format="svg", bbox_inches=plotting.snapped_tight_bbox(fig))
    plt.close(fig)
    svg = (tmp_path / "sizes.svg").read_text(encoding="utf-8")
    width, sizes = plotting.svg_text_sizes(svg)
    assert width == pytest.approx(float(re.search(r'width="([0-9.]+)pt"', svg)[1]))
    assert sorted({round(s, 6) for s in sizes}) == [pytest.approx(6.3), pytest.approx(9.0), pytest.approx(13.0)]
    assert plotting.smallest_text_px(svg) == pytest.approx(6.3 * plotting.PHONE_SHOWN_PX / width)
    assert plotting.smallest_text_px(svg, shown_px=2 * width) == pytest.approx(12.6)
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.axis("off")
    plotting.save_figure(fig, "no-text", description="A test figure with no text at all.")
    plt.close(fig)
    assert plotting.smallest_text_px((tmp_path / "no-text.svg").read_text(encoding="utf-8")) is None
    with pytest.raises(ValueError, match="viewBox"):
        plotting.svg_text_sizes('<svg xmlns="http://www.w3.org/2000/svg" width="10pt"/>')


def test_the_book_style_keeps_a_phone_width_figure_readable(tmp_path, monkeypatch):
    # the style's text, scripts included (of tick labels, a legend), on a figure of the phone width
    # is readable at the phone's width, and one a third wider is not (its 10 pt text is 7.6 px)
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    with matplotlib.rc_context():
        plotting.book_style()
        for name, width in (("narrow", plotting.PHONE_WIDTH), ("wide", 1.35 * plotting.PHONE_WIDTH)):
            fig, ax = plt.subplots(figsize=(width, 3), layout="constrained")
            ax.semilogy([0, 1, 2], [1, 10, 1000], label="$x_k$ and $10^{3}$")
            ax.set(xlabel="budget", ylabel="error", title="a title")
            ax.legend()
            plotting.save_figure(fig, name, description="A test figure in the book's style.")
            plt.close(fig)
    assert plotting.smallest_text_px((tmp_path / "narrow.svg").read_text(encoding="utf-8")) >= plotting.MIN_TEXT_PX
    assert plotting.smallest_text_px((tmp_path / "wide.svg").read_text(encoding="utf-8")) < plotting.MIN_TEXT_PX


def _scripted_figure():
    # every kind of text that can carry scripts: log-axis tick labels (major and minor), an axis
    # label, a legend entry, a free text (a script of a script), a title; and plain text beside them
    fig, ax = plotting.phone_figure()
    ax.loglog([1, 10, 1000], [0.2, 0.05, 0.01], label="complete influence $2^n$")
    ax.set(xlabel="background rows $N_k$", ylabel="error", title="plain title")
    ax.text(10, 0.1, r"$\tilde p_{i_j}$")
    ax.legend()
    return fig, ax


def test_text_carrying_scripts_is_saved_readable_and_plain_text_as_drawn(tmp_path, monkeypatch):
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    with matplotlib.rc_context():
        plotting.book_style()
        fig, ax = _scripted_figure()
        # planted: the same figure as matplotlib draws it, without the rule, is not readable
        with matplotlib.rc_context({"svg.fonttype": "path"}):
            fig.savefig(tmp_path / "as-drawn.svg", format="svg", bbox_inches=plotting.snapped_tight_bbox(fig))
        as_drawn = plotting.smallest_text_px((tmp_path / "as-drawn.svg").read_text(encoding="utf-8"))
        plotting.save_figure(fig, "scripts", description="A test figure whose text carries scripts.")
        svg = (tmp_path / "scripts.svg").read_text(encoding="utf-8")
        saved = plotting.smallest_text_px(svg)
        print(f"smallest text, shown {plotting.PHONE_SHOWN_PX} px wide: as drawn {as_drawn:.2f} px, "
              f"saved {saved:.2f} px; floor {plotting.MIN_TEXT_PX} px")
        assert as_drawn < plotting.MIN_TEXT_PX <= saved
        # only text with scripts grew: the plain title and the y label keep the style's sizes
        assert ax.title.get_fontsize() == 11 and ax.yaxis.label.get_fontsize() == 10
        assert ax.xaxis.label.get_fontsize() > 10 and ax.get_legend().get_texts()[0].get_fontsize() > 10
        assert ax.xaxis.get_ticklabels()[0].get_fontsize() > 10
        # a script of a script (0.49 of its text) needs a larger text than a script
        nested = next(t for t in ax.texts if "i_j" in t.get_text())
        assert nested.get_fontsize() > ax.xaxis.label.get_fontsize()
        plt.close(fig)


def test_a_figure_without_scripts_is_saved_as_drawn(tmp_path, monkeypatch):
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    with matplotlib.rc_context():
        plotting.book_style()
        fig, ax = plotting.phone_figure()
        ax.plot([0, 1], [0, 1], label=r"$\alpha = 0.1$")     # math, but no script
        ax.set(xlabel="number of attributes $n$", ylabel="error", title="a title")
        ax.legend()
        plotting.save_figure(fig, "plain", description="A test figure without scripts.")
        plt.close(fig)
    sizes = plotting.svg_text_sizes((tmp_path / "plain.svg").read_text(encoding="utf-8"))[1]
    assert sorted({round(s, 6) for s in sizes}) == [10.0, 11.0]


def test_glyph_ratio_reads_scripts_line_by_line(caplog):
    from matplotlib.text import Text

    assert plotting._glyph_ratio(Text(text="plain $x$ and 2^n")) == 1.0
    assert plotting._glyph_ratio(Text(text="$2^n$")) == pytest.approx(0.7)
    assert plotting._glyph_ratio(Text(text="$x_{i_j}$")) == pytest.approx(0.49)
    assert plotting._glyph_ratio(Text(text="$x_k$", usetex=False, parse_math=False)) == 1.0
    # matplotlib lays out a multi-line text line by line (shap's "\n$E[f(X)]$"): no glyph for "\n"
    with caplog.at_level("WARNING"):
        assert plotting._glyph_ratio(Text(text="\n$E[f(X)]$")) == 1.0
        assert plotting._glyph_ratio(Text(text="a\n$N_k$")) == pytest.approx(0.7)
    assert not caplog.records


def test_phone_figure_stacks_panels_and_refuses_a_width_a_phone_cannot_read():
    fig, axes = plotting.phone_figure(3, height=2.0)
    assert len(axes) == 3 and tuple(fig.get_size_inches()) == (plotting.PHONE_WIDTH, 6.0)
    plt.close(fig)
    fig, ax = plotting.phone_figure()
    assert hasattr(ax, "plot")
    plt.close(fig)
    with pytest.raises(ValueError, match="phone"):
        plotting.phone_figure(1, width=plotting.PHONE_WIDTH + 1)
    with pytest.raises(ValueError, match="nrows"):
        plotting.phone_figure(0)


def test_every_figure_of_the_book_can_be_read_on_a_phone():
    """Shown 352 px wide (a 400 px phone screen), the smallest text of every figure, sub- and
    superscripts included, is MIN_TEXT_PX (8 px) or more."""
    svgs = sorted(plotting.FIGURE_DIR.glob("*.svg"))
    assert svgs
    small = {}
    for svg in svgs:
        px = plotting.smallest_text_px(svg.read_text(encoding="utf-8"))
        if px is not None and px < plotting.MIN_TEXT_PX:
            small[svg.name] = round(px, 2)
    assert not small, (f"figures whose smallest text is under {plotting.MIN_TEXT_PX} px when shown "
                       f"{plotting.PHONE_SHOWN_PX} px wide (stack the panels, at most plotting.PHONE_WIDTH "
                       f"inches wide, text at 10 pt: plotting.book_style()): {small}")


def test_a_figure_with_a_layout_engine_is_cropped_after_its_layout(tmp_path, monkeypatch):
    # constrained layout moves the axes only when the figure is drawn: the crop box must be
    # measured after that, or it cuts the figure (its tick labels, a legend outside the axes)
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    fig, axes = plotting.phone_figure(3, height=1.5, sharex=True)
    for ax in axes:
        ax.plot([0, 1000], [0, 1], label="a line")
    axes[-1].set_xlabel("a label at the bottom")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside upper center")
    box = plotting.snapped_tight_bbox(fig)
    fig.canvas.draw()
    drawn = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1)
    assert box.x0 <= drawn.x0 and box.y0 <= drawn.y0 and box.x1 >= drawn.x1 and box.y1 >= drawn.y1
    plt.close(fig)


def test_an_svg_is_written_lean_and_draws_the_same(tmp_path, monkeypatch):
    """save_figure rounds drawing coordinates to hundredths of a point and drops indentation
    (issue 46): every coordinate within half a hundredth of matplotlib's, glyph sizes and scale
    factors untouched, a tenth or more of the bytes gone, and rounding again changes nothing."""
    monkeypatch.setattr(plotting, "FIGURE_DIR", tmp_path)
    fig, ax = plt.subplots(figsize=(plotting.PHONE_WIDTH, 3))
    ax.plot(np.linspace(0, 1, 200), np.sin(np.linspace(0, 7, 200)), marker=".")
    ax.set_xlabel(r"$\tilde p_1$ against $10^{-3}$")
    plotting.save_figure(fig, "lean", description="A sine curve drawn to test the SVG writer.", formats=("svg",))
    raw = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "lean", "svg.fonttype": "path"}):
        fig.savefig(raw, format="svg", dpi=150, bbox_inches=plotting.snapped_tight_bbox(fig),
                    metadata={"Title": "A sine curve drawn to test the SVG writer.",
                              "Description": "A sine curve drawn to test the SVG writer.", "Date": None})
    plt.close(fig)
    full = plotting.stable_svg_ids(raw.getvalue())
    lean = (tmp_path / "lean.svg").read_text(encoding="utf-8")
    assert lean == plotting.lean_svg(full) and plotting.lean_svg(lean) == lean
    assert len(lean) < 0.9 * len(full), (len(lean), len(full))
    assert plotting.svg_text_sizes(lean) == plotting.svg_text_sizes(full)
    numbers = re.compile(r"-?\d+(?:\.\d+)?")
    before = [float(x) for x in numbers.findall(" ".join(re.findall(r'\sd="([^"]*)"', full)))]
    after = [float(x) for x in numbers.findall(" ".join(re.findall(r'\sd="([^"]*)"', lean)))]
    assert len(before) == len(after) > 1000
    assert max(abs(a - b) for a, b in zip(before, after)) <= 0.005 + 1e-9
    assert "scale(0.015625)" in lean and "\n " not in lean


def test_every_stored_svg_is_lean():
    """The stored figures are what save_figure writes now (lean_svg of matplotlib's output)."""
    fat = [svg.name for svg in sorted(plotting.FIGURE_DIR.glob("*.svg"))
           if plotting.lean_svg(text := svg.read_text(encoding="utf-8")) != text]
    assert not fat, f"SVGs not written by the current save_figure (rerun their notebooks): {fat}"
