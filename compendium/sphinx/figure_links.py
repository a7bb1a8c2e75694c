"""Every figure is shown sharp and opens at full size, and no image is fetched before the reader scrolls near it.

Each image of a page's body (not one already inside a link) is wrapped in a link that opens the
figure's SVG at full size (``book/figures/<name>.svg``, copied beside the built pages), or the
image itself where no SVG exists. The SVG of an image is found by its file name (the Figures
page shows ``book/figures/<name>.png``) or by its alternative text: a notebook's output of a
figure carries the description ``compendium.plotting.save_figure`` wrote into ``<name>.png``
(``compendium/sphinx/accessibility.py`` makes it the image's ``alt``).

A figure is shown from its SVG (``src`` is the SVG, at the PNG's pixel size): the notebook's PNG
is drawn at 1× (about 471 px across, shown about 350 px wide on a phone whose screen has two or
three pixels per CSS pixel), so it looked blurrier than the text beside it. The SVG is as sharp
as the text at any zoom and, served compressed as static hosts serve text, lighter than the PNG.
The single page the PDF is printed from keeps the PNG (the PDF's figures are images with their
alternative text, ``tests/test_pdf.py``).

The Figures page (:data:`GALLERY`), which shows all of the book's figures one after another, shows
each from a raster (:func:`phone_raster`): the figure's stored PNG, drawn at 150 dpi (two pixels or
more to each CSS pixel of a phone's 352 px), as a lossless WebP of its 256 most used colours. Its
SVGs weigh 3.6 MB together (text drawn as paths), the rasters 1.5 MB (at an effort of 4 of 6: two
seconds for all of them, where 6 takes two minutes and saves under 3 %), so the page keeps its budget
counted as stored. (A host that compresses SVGs, as GitHub Pages does, sends them in about 1 MB:
less than the rasters; the budgets count bytes as stored.) Each still opens its SVG.

Every image also gets ``loading="lazy"`` (except on the single page the PDF is printed from) and
``decoding="async"``, and its pixel size as
``width``/``height`` (the theme scales it to the column, keeping that aspect ratio), so that an
image not yet loaded already takes its place: a lazy image of height 0 would sit on the first
screen and be fetched at once.
"""

from __future__ import annotations

import html
import posixpath
import re
import shutil
from pathlib import Path
from typing import Any

_IMG = re.compile(r"<img\b[^>]*>")
#: the page that shows every figure (``compendium.sphinx.figures``), from rasters
GALLERY = "book/figures"
#: the colours a figure's raster keeps (its most used, by median cut; no dithering: a line stays one colour)
RASTER_COLOURS = 256
_LINK_OPEN = re.compile(r"<a\b")
FIGURES = Path("book") / "figures"


def _attr(tag: str, name: str) -> str | None:
    match = re.search(rf'\b{name}="([^"]*)"', tag)
    return html.unescape(match[1]) if match else None


def figure_descriptions(folder: Path) -> dict[str, str]:
    """Description of each figure of ``folder`` (the PNG's ``Description`` text chunk, spaces
    collapsed) -> the figure's name, for the figures that have an SVG beside the PNG."""
    from PIL import Image

    found: dict[str, str] = {}
    for png in sorted(folder.glob("*.png")):
        if not png.with_suffix(".svg").is_file():
            continue
        with Image.open(png) as image:
            text = getattr(image, "text", {}).get("Description")
        if isinstance(text, str) and text.strip():
            found.setdefault(" ".join(text.split()), png.stem)
    return found


def figure_of(src: str, alt: str, stems: set[str], described: dict[str, str]) -> str | None:
    """The name of the figure an image shows (``None`` if it is no figure of ``book/figures``):
    its file's name, else its alternative text's description."""
    stem = posixpath.splitext(posixpath.basename(src.split("?")[0]))[0]
    if stem in stems:
        return stem
    return described.get(" ".join(alt.split()))


def _inside_link(body: str, position: int) -> bool:
    before = body[:position]
    opened = max((m.start() for m in _LINK_OPEN.finditer(before)), default=-1)
    return opened > before.rfind("</a>")


def phone_raster(png: Path) -> bytes:
    """The figure of ``png`` (a stored PNG of ``book/figures``) as the Figures page shows it: a lossless
    WebP of the image's :data:`RASTER_COLOURS` most used colours, at the PNG's own pixel size (the same
    bytes from the same PNG)."""
    import io

    from PIL import Image

    with Image.open(png) as image:
        kept = image.convert("RGB").quantize(colors=RASTER_COLOURS, method=Image.Quantize.MEDIANCUT,
                                             dither=Image.Dither.NONE)
    out = io.BytesIO()
    kept.save(out, format="WEBP", lossless=True, quality=80, method=4)
    return out.getvalue()


def link_figures(body: str, svg_href: Any, sizes: dict[str, tuple[int, int]], stems: set[str],
                 described: dict[str, str], *, lazy: bool = True, sharp: bool = True,
                 shown_href: Any = None) -> str:
    """``body`` with each image lazy (unless ``lazy`` is false), sized, shown from its figure's
    SVG (unless ``sharp`` is false) and (unless already in a link) linked to its full size.

    ``svg_href(name)`` is the page's relative address of figure ``name``'s SVG; ``shown_href(name)``,
    if given, the address a figure is shown from instead (the Figures page's rasters); ``sizes`` maps an
    image's ``src`` to its pixel size, where known."""
    out: list[str] = []
    last = 0
    for match in _IMG.finditer(body):
        tag = match[0]
        src = _attr(tag, "src") or ""
        new = tag
        extra = []
        if lazy and _attr(tag, "loading") is None:
            extra.append('loading="lazy"')
        if _attr(tag, "decoding") is None:
            extra.append('decoding="async"')
        size = sizes.get(src)
        if size and _attr(tag, "width") is None and _attr(tag, "height") is None:
            extra.append(f'width="{size[0]}" height="{size[1]}"')
        if extra:
            new = re.sub(r"\s*/?>$", " " + " ".join(extra) + " />", tag, count=1)
        name = figure_of(src, _attr(tag, "alt") or "", stems, described) if src else None
        if sharp and name:
            shown = (shown_href or svg_href)(name)
            new = re.sub(r'\bsrc="[^"]*"', lambda _: f'src="{html.escape(shown)}"', new, count=1)
        if not _inside_link(body, match.start()) and src:
            href = svg_href(name) if name else src
            kind = "the figure's SVG" if name else "the image"
            new = (f'<a class="reference external figure-full" href="{html.escape(href)}" '
                   f'title="Open {kind} at full size">{new}</a>')
        out.append(body[last:match.start()])
        out.append(new)
        last = match.end()
    out.append(body[last:])
    return "".join(out)


class _Figures:
    """What the pages need to know about ``book/figures``, read once per build."""

    def __init__(self, srcdir: Path) -> None:
        folder = srcdir / FIGURES
        self.stems = {p.stem for p in folder.glob("*.svg")} if folder.is_dir() else set()
        self.described = figure_descriptions(folder) if folder.is_dir() else {}


def _image_sizes(app: Any, body: str, pagename: str) -> dict[str, tuple[int, int]]:
    """``src`` of each image of ``body`` -> its pixel size, read from the source file."""
    from PIL import Image

    by_output = {name: source for source, name in getattr(app.builder, "images", {}).items()}
    sizes: dict[str, tuple[int, int]] = {}
    for match in _IMG.finditer(body):
        src = _attr(match[0], "src") or ""
        source = by_output.get(posixpath.basename(src.split("?")[0]))
        if source is None:
            continue
        path = Path(app.srcdir) / source
        try:
            with Image.open(path) as image:
                sizes[src] = image.size
        except OSError:
            continue
    return sizes


def _link_page(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if "body" not in context or "<img" not in context["body"]:
        return
    figures = getattr(app, "_compendium_figures", None)
    if figures is None:
        figures = app._compendium_figures = _Figures(Path(app.srcdir))
    pathto = context["pathto"]
    context["body"] = link_figures(
        context["body"],
        lambda name: pathto(f"{FIGURES.as_posix()}/{name}.svg", 1),
        _image_sizes(app, context["body"], pagename),
        figures.stems,
        figures.described,
        # the single page the PDF is printed from loads every image before it prints, and keeps
        # the PNGs (the PDF's figures are images with their alternative text)
        lazy=app.builder.name != "singlehtml",
        sharp=app.builder.name != "singlehtml",
        shown_href=(lambda name: pathto(f"{FIGURES.as_posix()}/{name}.webp", 1)) if pagename == GALLERY else None,
    )


def copy_svgs(app: Any, exception: Exception | None) -> None:
    """Copy every SVG of ``book/figures`` to the same path in the built site (the links' targets), and
    write beside it the raster the Figures page shows (:func:`phone_raster`; rewritten only when its PNG
    is newer)."""
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    source = Path(app.srcdir) / FIGURES
    target = Path(app.outdir) / FIGURES
    target.mkdir(parents=True, exist_ok=True)
    for svg in sorted(source.glob("*.svg")):
        shutil.copyfile(svg, target / svg.name)
        png, raster = svg.with_suffix(".png"), target / f"{svg.stem}.webp"
        if png.is_file() and (not raster.is_file() or raster.stat().st_mtime < png.stat().st_mtime):
            raster.write_bytes(phone_raster(png))


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _link_page, priority=950)
    app.connect("build-finished", copy_svgs)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
