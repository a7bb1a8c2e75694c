"""Figure helpers shared by the notebooks.

Functions take an ``ax`` and return it; nothing here sets a global style on import.
:func:`save_figure` writes every figure of the book under a stable name,
``book/figures/<name>.png`` and ``.svg``, byte-for-byte reproducible (no dates,
SVG ids salted by the figure's name; a clip path's id also hashes the axes' edges, so a
figure's layout must not leave those at rounding noise), so a figure can be cited by its file name, with a short description of
what it shows (its alternative text for readers who cannot see it): stored in both files
and in the notebook's output of the figure, where the book's pages take it from
(``compendium/sphinx/accessibility.py``).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
from types import MethodType

from matplotlib import cbook
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.mathtext import MathTextParser
from matplotlib.path import Path as MplPath
from matplotlib.text import Text
from matplotlib.transforms import Bbox, IdentityTransform

from compendium.data.cache import REPO_ROOT
from compendium.stable import replace_file

__all__ = ["BOOK_STYLE", "FIGURE_DIR", "MIN_TEXT_PX", "PHONE_SHOWN_PX", "PHONE_WIDTH", "bifurcation_tree", "book_style", "check_description", "composition_path", "convergence", "denoise", "describe_display", "figure_path", "lean_svg", "phone_figure", "save_figure", "shapley_bars", "smallest_text_px", "snap_extents", "snapped_tight_bbox", "svg_text_sizes", "write_figure"]

#: Where :func:`save_figure` writes (inside the book, so pages can reference the files; outside a clone
#: of the repository, in the book folder that stands in for it: :func:`compendium.data.book_root`).
FIGURE_DIR = REPO_ROOT / "book" / "figures"


def figure_path(name: str, suffix: str = ".png") -> Path:
    """The stable path of figure ``name`` (e.g. ``"found-sampling-convergence"``)."""
    if not name or any(ch in name for ch in "/\\ ") or name != name.lower():
        raise ValueError(f"figure names are lowercase with hyphens, no spaces or slashes: {name!r}")
    return FIGURE_DIR / f"{name}{suffix}"


def denoise(values: np.ndarray, decimals: int = 12) -> np.ndarray:
    """``values`` rounded to ``decimals`` places, for drawing.

    A quantity that is 0, or equal to another, in exact arithmetic comes out of floating
    point a few ulps off, and the ulps differ between BLAS kernels: an arrow of length
    1e-17 then points in a direction set by rounding noise, and noisy data limits move
    every tick.  Rounding far below anything visible removes that noise (a value would have
    to lie within 1e-16 of a rounding boundary at ``decimals`` places to keep it).
    """
    a = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(a)):
        raise ValueError("cannot draw NaN or infinite values")
    return np.round(a, decimals) + 0.0        # + 0.0 turns -0.0 into 0.0


#: The grid, in inches, the crop box of a saved figure is snapped to (outwards).
SNAP_INCHES = 0.02


#: Edges within this fraction of a grid step of a grid line count as on it: layouts put edges on
#: round numbers of inches (an axis spine at 0.9 x 7.6 in, plus the 0.1 in pad, is exactly 347
#: steps), where last-bit noise would otherwise decide between two canvas sizes.
SNAP_TOLERANCE = 1e-6


def snap_extents(x0: float, y0: float, x1: float, y1: float, grid: float = SNAP_INCHES) -> tuple[float, float, float, float]:
    """The box ``(x0, y0, x1, y1)`` (inches) widened outwards to the grid of ``grid`` inches.

    The quotients by ``grid`` are rounded to 6 places before ``floor``/``ceil``: an edge that is
    a grid line in exact arithmetic (the usual case: figure sizes and subplot margins are round
    numbers) stays on it whatever its last bits, instead of jumping a step on one CPU and not on
    another.  Noise can move a result only if an edge lies within 1e-13 of ``k + 1e-6/2``
    steps, which no layout aims at.
    """
    if grid <= 0:
        raise ValueError(f"need grid > 0, got {grid}")
    q = np.round(np.array([x0, y0, x1, y1], dtype=float) / grid, 6)
    snap = np.array([np.floor(q[0]), np.floor(q[1]), np.ceil(q[2]), np.ceil(q[3])])
    a, b, c, d = (snap * grid).tolist()
    return round(a, 6), round(b, 6), round(c, 6), round(d, 6)


def snapped_tight_bbox(fig: Figure, pad_inches: float = 0.1, grid: float = SNAP_INCHES) -> Bbox:
    """Matplotlib's tight bounding box of ``fig``, padded and widened to a grid of ``grid`` inches.

    The edges become round numbers of inches that last-bit noise in the drawing cannot move
    (:func:`snap_extents`), so the canvas size and the offset of every drawn coordinate are
    the same on every machine.
    """
    if grid <= 0 or pad_inches < 0:
        raise ValueError(f"need grid > 0 and pad_inches >= 0, got {grid}, {pad_inches}")
    if fig.get_layout_engine() is not None:
        # a layout engine (constrained layout, as phone_figure's) places the axes when the figure
        # is drawn: measure the box after it has, as savefig(bbox_inches="tight") does
        fig.draw_without_rendering()
    tight = fig.get_tightbbox(fig.canvas.get_renderer()).padded(pad_inches)
    (x0, y0), (x1, y1) = tight.get_points()
    return Bbox.from_extents(*snap_extents(x0, y0, x1, y1, grid))


#: Display coordinates (pixels) are rounded to this many places before Agg rasterises them.
PIXEL_DECIMALS = 4


def _round_pixels(values: np.ndarray) -> np.ndarray:
    return np.round(values, PIXEL_DECIMALS) + 0.0


class _StableRendererAgg(RendererAgg):
    """Agg, fed display coordinates rounded to :data:`PIXEL_DECIMALS` places.

    Agg places every vertex on a grid of 1/256 pixel, rounding half up: a vertex that lies on
    half a subpixel in exact arithmetic (common: arrow tips at the origin, spines at round
    positions) lands on either side of it by the last bit of the coordinate transforms, and
    that bit differs between CPUs (numpy's SIMD kernels, BLAS kernels, libm).  Antialiased
    coverage then changes a few pixels.  Rounding the transformed vertices to 1e-4 pixel first
    removes the noise (no multiple of 1e-4 is an odd multiple of 1/512); the PNG differs from
    matplotlib's own by at most that shift, far below anything visible.

    Markers and collections are drawn path by path (matplotlib's generic implementations),
    so that every vertex passes through :meth:`draw_path`.
    """

    def __init__(self, width: float, height: float, dpi: float) -> None:
        super().__init__(width, height, dpi)
        self._update_methods()

    def _update_methods(self) -> None:
        super()._update_methods()
        # the generic implementations call self.draw_path once per path or marker
        self.draw_markers = MethodType(RendererBase.draw_markers, self)
        self.draw_path_collection = MethodType(RendererBase.draw_path_collection, self)
        self.draw_quad_mesh = MethodType(RendererBase.draw_quad_mesh, self)
        agg_image = self._renderer.draw_image
        self.draw_image = lambda gc, x, y, im, *args: agg_image(gc, round(float(x), PIXEL_DECIMALS),
                                                                round(float(y), PIXEL_DECIMALS), im, *args)

    def draw_path(self, gc, path, transform, rgbFace=None):  # type: ignore[no-untyped-def]
        moved = transform.transform_path(path)
        stable = MplPath(_round_pixels(moved.vertices), moved.codes, _interpolation_steps=1)
        stable.should_simplify = path.should_simplify
        stable.simplify_threshold = path.simplify_threshold
        super().draw_path(gc, stable, IdentityTransform(), rgbFace)

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):  # type: ignore[no-untyped-def]
        x, y = (float(v) for v in _round_pixels(np.array([x, y], dtype=float)))
        return super().draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)


class _StableCanvasAgg(FigureCanvasAgg):
    def get_renderer(self) -> RendererAgg:  # type: ignore[override]
        w, h = self.figure.bbox.size
        key = (w, h, self.figure.dpi)
        if getattr(self, "_stable_key", None) != key:
            self.renderer = _StableRendererAgg(w, h, self.figure.dpi)
            self._stable_key = key
        return self.renderer


def _save_png(fig: Figure, path: Path, *, dpi: float, bbox: Bbox, metadata: dict[str, str | None]) -> None:
    """``fig`` as a PNG rasterised by :class:`_StableRendererAgg`; the figure keeps its canvas."""
    original = fig.canvas
    buffer = io.BytesIO()
    try:
        _StableCanvasAgg(fig).print_figure(buffer, format="png", dpi=dpi, bbox_inches=bbox, metadata=metadata)
    finally:
        fig.set_canvas(original)
    replace_file(path, buffer.getvalue())


#: Longest description :func:`save_figure` accepts: alternative text is read out in one go, so
#: it says what the figure shows in a sentence or two; the caption beside it says the rest.
MAX_DESCRIPTION = 400

# A description that is no description: a file name, path, hash or label (one token of path characters).
_FILE_NAME = re.compile(r"[\w.\\/:-]*")


def check_description(description: object) -> str:
    """``description`` with its white space collapsed; ``ValueError`` unless it is a sentence.

    A figure's description is its alternative text: what a reader who cannot see the figure
    needs to know it shows (kind of plot, axes, what is compared, the pattern), in plain text.
    """
    if not isinstance(description, str):
        raise ValueError(f"a figure needs a description (alternative text) as a str, got {description!r}")
    text = " ".join(description.split())
    if not text or _FILE_NAME.fullmatch(text):
        raise ValueError(f"a figure's description says in words what it shows; got {description!r}")
    if len(text) > MAX_DESCRIPTION:
        raise ValueError(f"a figure's description is at most {MAX_DESCRIPTION} characters (the caption says "
                         f"the rest); got {len(text)}")
    return text


#: Attribute of a :class:`~matplotlib.figure.Figure` holding the description :func:`save_figure` gave it.
DESCRIPTION_ATTR = "_book_description"


def _with_description(png: Callable[[Figure], Any]) -> Callable[[Figure], Any]:
    """A figure formatter that also returns, for a described figure, ``{"alt": description}``
    as its metadata (IPython formatters may return ``(data, metadata)``)."""
    def png_with_description(fig: Figure) -> Any:
        data = png(fig)
        description = getattr(fig, DESCRIPTION_ATTR, None)
        if data is None or description is None:
            return data
        return data, {"alt": description}

    png_with_description.adds_description = True  # type: ignore[attr-defined]
    return png_with_description


def describe_display(formatter: Any) -> bool:
    """Make IPython's ``image/png`` ``formatter`` put a described figure's description in the
    metadata of its output (``{"image/png": {"alt": ...}}``), once; the formatter matplotlib's
    inline backend registered for figures still draws the image.  False if it has none.
    """
    try:
        current = formatter.lookup_by_type(Figure)
    except KeyError:
        return False
    if not getattr(current, "adds_description", False):
        formatter.for_type(Figure, _with_description(current))
    return True


def _describe_in_notebook() -> None:
    """In a Jupyter kernel, :func:`describe_display` on its PNG formatter (nothing elsewhere)."""
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        formatter = shell.display_formatter.formatters.get("image/png")
        if formatter is not None:
            describe_display(formatter)


#: matplotlib's SVG clip paths: ``id="p"`` and ten hex digits of a hash of the clip
#: rectangle's coordinates at full precision
_SVG_CLIP_ID = re.compile(r'id="(p[0-9a-f]{10})"')


def stable_svg_ids(svg: str) -> str:
    """The SVG with its clip-path ids numbered in order of appearance (``clip0``, ``clip1``, ...).

    matplotlib names a clip path by a hash of its rectangle's coordinates at full precision
    (salted by ``svg.hashsalt``), so last-bit noise in an axes' edges (from a layout
    computed through another BLAS kernel or numpy's baseline SIMD loops) renames it, while
    the coordinates the file prints, at lower precision, stay the same. Numbered in order,
    the ids depend only on what is drawn.
    """
    ids = list(dict.fromkeys(_SVG_CLIP_ID.findall(svg)))
    for k, old in enumerate(ids):
        new = f"clip{k}"
        if new in svg:
            raise ValueError(f"the SVG already uses the id {new!r}")
        svg = svg.replace(f'id="{old}"', f'id="{new}"').replace(f"url(#{old})", f"url(#{new})")
    if _SVG_CLIP_ID.search(svg) or re.search(r"#p[0-9a-f]{10}\b", svg):
        raise ValueError("a clip-path id of the SVG was left unrenamed")
    return svg


#: a coordinate matplotlib prints with more than two decimals
_SVG_LONG_DECIMAL = re.compile(r"-?\d+\.\d{3,}")
#: where an SVG's drawing coordinates are: a path's data, a marker's or a glyph's place
_SVG_COORDINATES = re.compile(r'(<(?:path\b[^>]*?\sd|use\b[^>]*?\s[xy])=")([^"]*)(")')
#: the book's rounding of drawing coordinates, in points: 0.01 pt is 0.01 CSS px on a phone
SVG_DECIMALS = 2


def _two_decimals(number: re.Match[str]) -> str:
    text = f"{float(number[0]):.{SVG_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def lean_svg(svg: str) -> str:
    """The SVG with its drawing coordinates (paths' data, markers' and glyphs' places) rounded to
    :data:`SVG_DECIMALS` decimals of a point, and no indentation or space at the ends of its lines.

    matplotlib prints six decimals (a millionth of a point) and indents every element: a tenth of
    a figure's bytes (issue 46: a page's own bytes, its figures' as stored, at most 600 kB). A
    hundredth of a point is a hundredth of a CSS pixel where a phone shows the figure. Scale factors
    (a glyph's ``scale(0.015625)``, which :func:`svg_text_sizes` reads) and every other attribute keep
    their digits. The rounding reads the printed decimals, not the float behind them, so a file
    stable at six decimals is stable at two; the result is its own fixed point."""
    svg = _SVG_COORDINATES.sub(lambda m: m[1] + _SVG_LONG_DECIMAL.sub(_two_decimals, m[2]) + m[3], svg)
    return re.sub(r"[ \t]*\n[ \t]*", "\n", svg)


def save_figure(fig: Figure, name: str, *, description: str, formats: Sequence[str] = ("png", "svg")) -> list[str]:
    """Save ``fig`` as ``book/figures/<name>.<fmt>`` for each format, reproducibly, described.

    ``description`` is the figure's alternative text, a sentence or two saying what it shows
    (:func:`check_description`; ``ValueError`` if missing, empty, a file name or too long).
    It is written into each file (the PNG's ``Description`` text chunk, its ``Title`` being
    ``name``; the SVG's ``<title>``, its accessible name, and ``Description`` metadata) and
    kept on ``fig``: when the notebook then shows the figure, its output carries it as
    metadata (``{"image/png": {"alt": description}}``), which the book's pages use as the
    image's ``alt`` text instead of the caption.

    Text that carries sub- or superscripts is first drawn just large enough for its scripts to
    reach :data:`MIN_TEXT_PX` on a phone (:func:`_readable_scripts`); a figure without any is
    saved as drawn.

    The figure is cropped to :func:`snapped_tight_bbox`, not to matplotlib's
    ``bbox_inches="tight"``: text extents are multiples of 1/64 pixel, so a tight canvas
    edge sits exactly on a rounding boundary of the SVG's six printed decimals, and the
    last-bit noise of data-dependent tick positions (which differs between BLAS kernels)
    would flip it, and with it every coordinate of the file.

    Returns the paths written, relative to the repository root (no machine paths).
    """
    text = check_description(description)
    figure_path(name)  # checks the name before anything is written
    FIGURE_DIR.mkdir(parents=True, exist_ok=True)
    bbox = _readable_scripts(fig)
    written = []
    for fmt in formats:
        path = figure_path(name, "." + fmt)
        # an SVG's title is its accessible name (a screen reader reads it): the description
        meta: dict[str, str | None] = {"Title": text if fmt == "svg" else name, "Description": text}
        meta.update({"Date": None} if fmt == "svg" else {"Software": None})
        with mpl.rc_context({"svg.hashsalt": name, "svg.fonttype": "path"}):
            if fmt == "png":
                _save_png(fig, path, dpi=150, bbox=bbox, metadata=meta)
            elif fmt == "svg":
                buffer = io.StringIO()
                fig.savefig(buffer, format=fmt, metadata=meta, dpi=150, bbox_inches=bbox)
                replace_file(path, lean_svg(stable_svg_ids(buffer.getvalue())))
            else:
                fig.savefig(path, format=fmt, metadata=meta, dpi=150, bbox_inches=bbox)
        written.append(path.relative_to(FIGURE_DIR.parent.parent).as_posix())
    setattr(fig, DESCRIPTION_ATTR, text)
    _describe_in_notebook()
    return written


#: A figure is shown about this many pixels wide on a 400 px phone screen (the page's margins off).
PHONE_SHOWN_PX = 352

#: The smallest text a phone reader can read, in CSS pixels, at :data:`PHONE_SHOWN_PX`: every glyph
#: of a figure, sub- and superscripts included.
MIN_TEXT_PX = 8.0

#: The widest figure, in inches, drawn for a phone. Its canvas is at most 4.6 in plus the crop's
#: padding (0.1 in each side) and a step of its grid (:data:`SNAP_INCHES`), 4.82 in = 347 pt, so
#: shown :data:`PHONE_SHOWN_PX` wide a glyph of ``g`` pt is at least ``g x 352 / 347`` px: the
#: style's 10 pt text is 10.1 px, and :data:`MIN_TEXT_PX` needs ``g >= 8 x 347 / 352 = 7.9`` pt.
#: Scripts are 0.7 of their text (matplotlib's mathtext), 7 pt of a 10 pt text, so
#: :func:`save_figure` draws text that carries them at ``7.9 / 0.7 = 11.3`` pt or more (11.5 pt
#: at this width, less on a narrower canvas: :func:`_readable_scripts`).
PHONE_WIDTH = 4.6

#: The book's figure style: every text at 10 pt (8 px or more at :data:`PHONE_WIDTH`), the title a
#: little larger; text carrying sub- or superscripts is enlarged when saved, as far as its scripts
#: need (:data:`PHONE_WIDTH`). Applied by :func:`book_style`, never on import.
BOOK_STYLE: dict[str, Any] = {
    "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "xtick.labelsize": 10,
    "ytick.labelsize": 10, "legend.fontsize": 10, "legend.title_fontsize": 10, "figure.titlesize": 11,
    "figure.figsize": (PHONE_WIDTH, 3.2),
}


def _glyph_ratio(text: Text) -> float:
    """The size of the smallest glyph ``text`` draws over its font size: 0.7 for a sub- or
    superscript, 0.49 for a script of a script (matplotlib's mathtext), 1 for text without."""
    if text.get_usetex() or not text.get_parse_math():
        return 1.0
    prop = text.get_fontproperties()
    # matplotlib lays a text out line by line, each line mathtext if it holds a $...$ pair
    lines = [line for line in text.get_text().split("\n") if cbook.is_math_text(line)]
    sizes = [g[1] for line in lines for g in MathTextParser("path").parse(line, dpi=72, prop=prop).glyphs]
    return min(sizes) / prop.get_size_in_points() if sizes else 1.0


def _script_size(text: Text, smallest_pt: float) -> float | None:
    """The font size, rounded up to half a point, at which ``text``'s smallest glyph is at least
    ``smallest_pt``; ``None`` when it already is (text without scripts always is)."""
    ratio, size = _glyph_ratio(text), text.get_fontsize()
    if ratio >= 1 or ratio * size >= smallest_pt:
        return None
    return float(np.ceil(2 * smallest_pt / ratio) / 2)


def _readable_scripts(fig: Figure, rounds: int = 4) -> Bbox:
    """Enlarge every text of ``fig`` whose sub- or superscripts would be under :data:`MIN_TEXT_PX`
    on a phone, and return the crop box (:func:`snapped_tight_bbox`) of the figure as saved.

    A figure saved ``w`` points wide and shown :data:`PHONE_SHOWN_PX` wide draws a glyph of ``g``
    pt at ``g x 352 / w`` px: a text's smallest glyph must be at least ``8 x w / 352`` pt.  Text
    without scripts is left as drawn (a figure without any is saved byte for byte as before);
    a text with them gets the size, rounded up to half a point, at which they reach it (the
    tick labels of an axis together, as ``set_tick_params`` sets them).  An enlarged text can
    widen the canvas, so the box is measured again until nothing changes (``rounds`` times).
    """
    bbox = snapped_tight_bbox(fig)
    for _ in range(rounds):
        smallest_pt = MIN_TEXT_PX * bbox.width * 72 / PHONE_SHOWN_PX
        changed, ticks = False, set[int]()
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                for which, tick_list in (("major", axis.majorTicks), ("minor", axis.minorTicks)):
                    labels = [t for tick in tick_list for t in (tick.label1, tick.label2)]
                    ticks.update(map(id, labels))
                    sizes = [_script_size(t, smallest_pt) for t in labels if t.get_visible()]
                    sizes = [z for z in sizes if z is not None]
                    if sizes:
                        axis.set_tick_params(which=which, labelsize=max(sizes))
                        changed = True
        for text in fig.findobj(Text):
            if id(text) not in ticks and text.get_visible():
                size = _script_size(text, smallest_pt)
                if size is not None:
                    text.set_fontsize(size)
                    changed = True
        if not changed:
            return bbox
        bbox = snapped_tight_bbox(fig)
    return bbox


def book_style() -> None:
    """Set the book's figure style (:data:`BOOK_STYLE`) for the rest of the session.

    Called once by a notebook that draws figures, in its set-up cell: text sizes are fixed when
    an artist is made (tick labels are copied from the first tick), so the style must be in
    force before any figure is created.
    """
    mpl.rcParams.update(BOOK_STYLE)


def phone_figure(nrows: int = 1, *, height: float = 3.0, width: float = PHONE_WIDTH, **kwargs: Any) -> tuple[Figure, Any]:
    """A figure of ``nrows`` panels stacked one per row, ``width`` inches wide (at most
    :data:`PHONE_WIDTH`, so that its text can be read on a phone), ``height`` inches per panel,
    laid out by matplotlib's constrained layout. Returns ``(fig, axes)`` as ``plt.subplots``
    (``axes`` a single ``Axes`` when ``nrows == 1``); ``kwargs`` go to ``plt.subplots``.
    """
    import matplotlib.pyplot as plt

    if nrows < 1 or height <= 0:
        raise ValueError(f"need nrows >= 1 and height > 0, got {nrows}, {height}")
    if not 0 < width <= PHONE_WIDTH:
        raise ValueError(f"a figure at most {PHONE_WIDTH} in wide can be read on a phone; got width={width}")
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(nrows, 1, figsize=(width, height * nrows), **kwargs)


_SVG = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_SCALE = re.compile(r"scale\(\s*([-+0-9.eE]+)")


def _scale(transform: str | None) -> float:
    factor = 1.0
    for match in _SCALE.finditer(transform or ""):
        factor *= abs(float(match.group(1)))
    return factor


def svg_text_sizes(svg: str) -> tuple[float, list[float]]:
    """The width of an SVG written by :func:`save_figure` (its ``viewBox``, in points) and the
    size in points of every glyph it draws.

    :func:`save_figure` writes text as paths (``svg.fonttype = "path"``): each glyph is a
    ``<use>`` of a path in ``<defs>`` (drawn at 1/64 of matplotlib's text-path size of 100, its
    own ``scale(0.015625)``), inside a group scaled by ``size / 100``; a sub- or superscript
    adds its own factor (``scale(0.7)``). A glyph's size is therefore 100 times the product of
    the scale factors from the root down to its ``<use>``. ``ValueError`` for an SVG without a
    ``viewBox``.
    """
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    box = root.get("viewBox")
    if not box:
        raise ValueError("the SVG has no viewBox: its width cannot be read")
    width = float(box.split()[2])
    glyphs = {path.get("id") for defs in root.iter(f"{_SVG}defs") for path in defs.iter(f"{_SVG}path")
              if "scale(0.015625)" in (path.get("transform") or "")}
    sizes: list[float] = []

    def walk(element: Any, factor: float) -> None:
        if element.tag == f"{_SVG}defs":
            return
        factor *= _scale(element.get("transform"))
        if element.tag == f"{_SVG}use":
            if element.get(_XLINK_HREF, "").lstrip("#") in glyphs:
                sizes.append(100 * factor)
            return
        for child in element:
            walk(child, factor)

    walk(root, 1.0)
    return width, sizes


def smallest_text_px(svg: str, shown_px: float = PHONE_SHOWN_PX) -> float | None:
    """The smallest text of the SVG, in CSS pixels, when it is shown ``shown_px`` wide:
    ``smallest glyph size x shown_px / SVG width`` (:func:`svg_text_sizes`); ``None`` if it has
    no text. A figure a phone reader can read has at least :data:`MIN_TEXT_PX`.
    """
    width, sizes = svg_text_sizes(svg)
    return min(sizes) * shown_px / width if sizes else None


def convergence(
    ax: Axes,
    budgets: np.ndarray,
    errors: np.ndarray,
    *,
    label: str,
    reference_slope: float | None = -0.5,
    **plot_kwargs: object,
) -> Axes:
    """Log-log plot of an estimation error against the sampling budget.

    ``errors`` may be ``(len(budgets),)`` or ``(len(budgets), repeats)``; with repeats
    the median is drawn with a band between the 10th and 90th percentiles.
    ``reference_slope`` adds a dashed line ``∝ budget**slope`` through the first
    point (``-0.5``: the Monte Carlo rate).
    """
    budgets = np.asarray(budgets, dtype=float)
    errors = np.asarray(errors, dtype=float)
    if errors.ndim == 1:
        centre = errors
    else:
        centre = np.median(errors, axis=1)
        lo, hi = np.percentile(errors, [10, 90], axis=1)
        ax.fill_between(budgets, lo, hi, alpha=0.2, **{k: v for k, v in plot_kwargs.items() if k == "color"})
    (line,) = ax.plot(budgets, centre, marker="o", label=label, **plot_kwargs)
    if reference_slope is not None:
        ref = centre[0] * (budgets / budgets[0]) ** reference_slope
        ax.plot(budgets, ref, ls="--", color=line.get_color(), alpha=0.6,
                label=f"∝ budget^{reference_slope:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("samples (model evaluation pairs)")
    ax.set_ylabel("error")
    return ax


def bifurcation_tree(ax: Axes, signs: np.typing.ArrayLike, labels: Sequence[str]) -> Axes:
    """Draw the bifurcation tree of a sequential binary partition (SBP) of the classes.

    ``signs`` is the ``(N-1, N)`` sign matrix of the partition (row ``j``: +1 / -1 for the
    two groups split by balance ``j``, 0 elsewhere; Egozcue & Pawlowsky-Glahn 2005, as used
    by the Shapley-composition paper's ILR bases).  Leaves are ordered by the splits, each
    internal node is labelled with its balance ``p̃_j`` at height (group size - 1).
    """
    signs = np.asarray(signs)
    n = signs.shape[1]
    if len(labels) != n:
        raise ValueError(f"{len(labels)} labels for {n} classes")

    def split_of(group: list[int]) -> tuple[int, list[int], list[int]] | None:
        for j, row in enumerate(signs):
            if set(np.flatnonzero(row != 0)) == set(group):
                return j, list(np.flatnonzero(row > 0)), list(np.flatnonzero(row < 0))
        return None

    leaves: list[int] = []

    def order(group: list[int]) -> None:
        s = split_of(group)
        if s is None:
            leaves.extend(group)
        else:
            order(s[1])
            order(s[2])

    order(list(range(n)))
    xpos = {leaf: i for i, leaf in enumerate(leaves)}

    def draw(group: list[int]) -> tuple[float, float]:
        s = split_of(group)
        if s is None:
            ax.text(xpos[group[0]], -0.15, labels[group[0]], ha="center", va="top")
            return xpos[group[0]], 0.0
        j, plus, minus = s
        height = len(group) - 1
        (xl, hl), (xr, hr) = draw(plus), draw(minus)
        ax.plot([xl, xl, xr, xr], [hl, height, height, hr], color="k", lw=1.2)
        ax.text((xl + xr) / 2, height + 0.08, rf"$\tilde p_{{{j + 1}}}$", ha="center", va="bottom")
        return (xl + xr) / 2, height

    draw(list(range(n)))
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylim(-0.8, n - 0.4)
    ax.axis("off")
    return ax


def shapley_bars(
    ax: Axes,
    values: np.typing.ArrayLike,
    labels: Sequence[str],
    *,
    title: str | None = None,
    xlabel: str = "Shapley value",
    max_label: int = 32,
    colors: tuple[str, str] = ("tab:blue", "tab:red"),
) -> Axes:
    """Horizontal bar chart of one instance's Shapley values (chapter 1, Figure 1 of
    Lemaire et al.), one bar per variable, top to bottom in the order given.

    Positive values are drawn in ``colors[0]``, negative ones in ``colors[1]``, with a
    vertical line at zero; labels longer than ``max_label`` characters are cut with
    ``...``.  Returns ``ax``.  ``ValueError`` if ``values`` is not a finite 1-D array or
    ``labels`` has another length.
    """
    vals = np.asarray(values, dtype=float)
    if vals.ndim != 1 or not np.all(np.isfinite(vals)):
        raise ValueError(f"values must be a finite 1-D array, got shape {vals.shape}")
    if len(labels) != len(vals):
        raise ValueError(f"{len(labels)} labels for {len(vals)} values")
    if max_label < 4:
        raise ValueError("max_label must be at least 4")
    shown = [s if len(s) <= max_label else s[: max_label - 3] + "..." for s in map(str, labels)]
    pos = np.arange(len(vals))
    ax.barh(pos, vals, color=[colors[0] if v > 0 else colors[1] for v in vals])
    ax.set_yticks(pos, shown)
    ax.set_ylim(len(vals) - 0.5, -0.5)  # first value on top
    ax.axvline(0.0, color="black", lw=0.8)
    ax.set_xlabel(xlabel)
    if title is not None:
        ax.set_title(title)
    return ax


def write_figure(fig: Figure, path: str | Path, *, description: str) -> Path:
    """Save ``fig`` at ``path`` (``.png``, ``.svg`` or ``.pdf``, by its suffix), described and
    reproducible as :func:`save_figure` saves the book's figures, wherever the caller asks.

    The description is the figure's alternative text (:func:`check_description`), written into
    the file's metadata; text carrying sub- or superscripts is made readable as :func:`save_figure`
    makes it; the crop is :func:`snapped_tight_bbox`; SVG ids are salted by the file's name and
    numbered in order (:func:`stable_svg_ids`).  Missing parent folders are created.
    Returns the path written.
    """
    text = check_description(description)
    out = Path(path)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise ValueError(f"write_figure writes .png, .svg or .pdf files, got {out.name!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    bbox = _readable_scripts(fig)
    meta: dict[str, str | None] = {"Title": text if fmt == "svg" else out.stem, "Description": text}
    meta.update({"Date": None} if fmt == "svg" else {"Software": None} if fmt == "png" else {"CreationDate": None})
    if fmt == "pdf":
        meta = {"Title": out.stem, "Subject": text, "CreationDate": None}
    with mpl.rc_context({"svg.hashsalt": out.stem, "svg.fonttype": "path"}):
        if fmt == "png":
            _save_png(fig, out, dpi=150, bbox=bbox, metadata=meta)
        elif fmt == "svg":
            buffer = io.StringIO()
            fig.savefig(buffer, format="svg", metadata=meta, dpi=150, bbox_inches=bbox)
            replace_file(out, lean_svg(stable_svg_ids(buffer.getvalue())))
        else:
            fig.savefig(out, format="pdf", metadata=meta, dpi=150, bbox_inches=bbox)
    setattr(fig, DESCRIPTION_ATTR, text)
    _describe_in_notebook()
    return out


def _closed(p: np.ndarray) -> np.ndarray:
    return p / p.sum(axis=-1, keepdims=True)


def _ternary_xy(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cartesian coordinates of closed 3-part compositions: parts 0, 1, 2 at the corners
    ``(0, 0)``, ``(1, 0)``, ``(1/2, √3/2)``."""
    q = _closed(np.asarray(p, dtype=float))
    return q[..., 1] + 0.5 * q[..., 2], q[..., 2] * np.sqrt(3.0) / 2.0


def composition_path(
    ax: Axes,
    base: np.typing.ArrayLike,
    compositions: np.typing.ArrayLike,
    *,
    class_names: Sequence[str],
    feature_names: Sequence[str],
    classes: Sequence[int] | None = None,
    top: int | None = None,
    steps: int = 24,
) -> Axes:
    """Draw one explanation by Shapley compositions on the simplex: the path from the base
    distribution, perturbed by each feature's composition in turn, to the prediction.

    ``base`` ``(N,)`` and ``compositions`` ``(d, N)`` are one row of a
    :class:`lib.compositions.ShapleyCompositions` (``base[r]``, ``compositions[r]``); the features
    are taken in decreasing Aitchison norm (``top`` of them, the rest merged into one last step
    "other features"), each step ``base ⊕ φ_1 ⊕ … ⊕ t ⊙ φ_i`` drawn for ``t`` in ``[0, 1]`` (a
    straight line of the Aitchison geometry, curved in the triangle).  Three classes: the
    ternary diagram, a corner per class.  Two classes: the segment of ``P(class 1)``.  More: the
    subcomposition of ``classes`` (three part indices; default the three most probable at the
    prediction), which perturbation commutes with.  The prediction is the path's end (efficiency
    of the compositions).  Returns ``ax``.
    """
    b = np.asarray(base, dtype=float)
    phi = np.asarray(compositions, dtype=float)
    if b.ndim != 1 or phi.ndim != 2 or phi.shape[1] != b.shape[0] or b.shape[0] < 2:
        raise ValueError(f"expected base (N,) and compositions (d, N) with N >= 2, got {b.shape} and {phi.shape}")
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(phi)) and np.all(b > 0) and np.all(phi > 0)):
        raise ValueError("compositions must have finite, strictly positive parts")
    if len(class_names) != b.shape[0] or len(feature_names) != phi.shape[0]:
        raise ValueError(f"{len(class_names)} class names and {len(feature_names)} feature names for "
                         f"{b.shape[0]} classes and {phi.shape[0]} features")
    log_b, log_phi = np.log(b), np.log(phi)
    log_phi = log_phi - log_phi.mean(axis=1, keepdims=True)                # clr of each step
    order = np.argsort(-np.linalg.norm(log_phi, axis=1), kind="stable")
    names = [str(feature_names[i]) for i in order]
    steps_clr = log_phi[order]
    if top is not None and 0 < top < len(order):
        steps_clr = np.vstack([steps_clr[:top], steps_clr[top:].sum(axis=0)])
        names = names[:top] + [f"other {len(order) - top} features"]
    end = log_b + log_phi.sum(axis=0)
    n_parts = b.shape[0]
    if n_parts > 3:
        parts = list(classes) if classes is not None else list(np.argsort(-end, kind="stable")[:3])
    else:
        parts = list(range(n_parts))
    if len(parts) != min(3, n_parts) or len(set(parts)) != len(parts):
        raise ValueError(f"classes must name three distinct classes, got {classes}")
    labels = [str(class_names[k]) for k in parts]
    t = np.linspace(0.0, 1.0, steps)[:, None]
    start = log_b
    colours = mpl.colormaps["tab10"]
    if len(parts) == 3:
        corners = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3.0) / 2.0], [0.0, 0.0]])
        ax.plot(corners[:, 0], corners[:, 1], color="0.3", lw=1.0)
        offsets = ((-0.03, -0.03), (0.03, -0.03), (0.0, 0.03))
        for (x, y), (dx, dy), label, ha, va in zip(corners[:3], offsets, labels, ("right", "left", "center"),
                                                   ("top", "top", "bottom")):
            ax.text(x + dx, y + dy, label, ha=ha, va=va, fontsize=10)
        to_xy = lambda L: _ternary_xy(np.exp(denoise(L[..., parts] - L[..., parts].max(axis=-1, keepdims=True))))  # noqa: E731
        ax.set_aspect("equal")
        ax.axis("off")
    else:
        to_xy = lambda L: (_closed(np.exp(denoise(L - L.max(axis=-1, keepdims=True))))[..., 1],  # noqa: E731
                           np.zeros(L.shape[:-1]))
        ax.plot([0, 1], [0, 0], color="0.3", lw=1.0)
        ax.set_xlabel(f"P({labels[1]})")
        ax.set_yticks([])
        ax.set_xlim(-0.02, 1.02)
    x0, y0 = to_xy(start)
    ax.plot([x0], [y0], marker="o", color="black", ms=6, zorder=3, label="base distribution")
    for i, (step, name) in enumerate(zip(steps_clr, names)):
        x, y = to_xy(start + t * step)
        ax.plot(x, y, color=colours(i % 10), lw=2.0, label=name)
        ax.annotate("", xy=(x[-1], y[-1]), xytext=(x[-2], y[-2]),
                    arrowprops={"arrowstyle": "-|>", "color": colours(i % 10), "lw": 1.5})
        start = start + step
    x1, y1 = to_xy(start)
    ax.plot([x1], [y1], marker="*", color="black", ms=11, zorder=3, label="prediction f(x)")
    # below the triangle, not beside it: the figure stays as narrow as a phone shows it
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False, fontsize=9)
    return ax
