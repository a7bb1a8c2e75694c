"""Same bytes on any machine: the helpers every notebook and script writes its results through.

A result computed in floating point carries rounding noise in its last digits, which changes with
the BLAS kernel, numpy's SIMD loops and the thread count. What the book stores and shows must not:

- :func:`write_derived` writes a table to ``data/derived/`` at a fixed precision, with ``\\n`` line ends;
- :func:`ranked` and :func:`stable_order` sort by values rounded to 10 places, ties broken by a label;
- :func:`glue_number` pastes a number into the prose rounded, as a plain Python ``float`` or ``int``
  whose text a format spec can read (``CONTRIBUTING.md`` §2), through :func:`glue`, which stores a
  value for the prose as myst-nb's ``glue`` does, without needing myst-nb: a notebook runs anywhere
  (Colab, a downloaded copy), and the book's build pastes what it stored.

Outside a clone of the repository (``lib`` installed from its wheel), :data:`REPO_ROOT` is the book
folder that stands in for it (:func:`compendium.data.book_root`, ``~/shapley-book/<version>`` by default):
:func:`write_derived` writes there.

Ties in rank *statistics* of attributions are :mod:`lib.ranks`'; figures are :mod:`compendium.plotting`'s.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# The repository's root: ``data/derived/`` is under it (outside a clone, the book folder that stands
# in for it: compendium.data.book_root); one definition, in compendium.data.
from compendium.data.cache import REPO_ROOT

__all__ = ["GLUE_PREFIX", "REPO_ROOT", "glue", "glue_number", "ranked", "replace_file", "stable_order", "write_derived"]

#: The MIME-type prefix of a value stored for the prose and not shown (the notebook convention of
#: scrapbook and papermill, which myst-nb reads).
GLUE_PREFIX = "application/papermill.record/"


def glue(key: str, value: Any, *, display: bool = True) -> None:
    """Store ``value`` under ``key`` for the prose (``{glue:text}`key```), and show it if ``display``.

    The notebook's output is what myst-nb's ``glue`` writes, byte for byte — the value's display
    formats, prefixed with :data:`GLUE_PREFIX` unless shown, and the ``scrapbook`` metadata that
    names it — so the book's build pastes it and nbval compares it as before; but it needs only
    IPython, which runs the notebook, not myst-nb: a notebook that glues runs anywhere. Outside
    IPython (a script) it does nothing. A number is glued through :func:`glue_number`.
    """
    try:
        from IPython import get_ipython
        from IPython.core.formatters import format_display_data
        from IPython.display import display as show
    except ImportError:
        return
    if get_ipython() is None:
        return
    mimebundle, metadata = format_display_data(value)
    prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = {"name": key, "mime_prefix": prefix}
    show({prefix + k: v for k, v in mimebundle.items()}, raw=True, metadata=metadata)


def glue_number(key: str, value: Any, *, digits: int = 6) -> None:
    """Glue a number for the prose (``{glue:text}`key:.3f```), the same text on every CPU.

    The value is glued as a Python ``float`` rounded to ``digits`` decimals, so that neither
    numpy's ``np.float64(...)`` repr nor the last digits of a BLAS result reach the stored output
    that nbval compares. A count is glued as it is, ``glue(key, int(n), display=False)``.
    Returns nothing, so that a cell ending in a glue shows no output. Through :func:`glue`, so
    without myst-nb.
    """
    number = round(float(value), digits)
    if not math.isfinite(number):
        raise ValueError(f"glue {key!r}: {number} is not a finite number; say in words why it is missing")
    glue(key, number, display=False)


def replace_file(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` at once: into a hidden file beside it, then renamed over it
    (``os.replace``), so that nothing reading the folder meanwhile (``git status`` in a test that
    runs while a notebook rewrites its stored outputs) sees the file half written. Text is written
    as UTF-8, its line ends as given."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_derived(
    frame: pd.DataFrame,
    name: str,
    *,
    digits: int | None = None,
    index: bool = False,
    float_format: str | None = None,
    root: str | Path | None = None,
) -> str:
    """Write ``frame`` to ``data/derived/<name>`` reproducibly; return the repository-relative path.

    Floats are rounded to ``digits`` decimals (if given), or printed with ``float_format`` (a
    ``%`` format, e.g. ``"%.4f"``), and written with ``\\n`` line ends, so that the file's bytes
    do not depend on rounding noise in the last digits (a BLAS kernel, a thread count) and the test
    run leaves ``git status`` clean.
    """
    root = Path(root) if root is not None else REPO_ROOT
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"write_derived takes a DataFrame, got {type(frame).__name__}")
    if "/" in name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or not name.endswith(".csv"):
        raise ValueError(f"name must be a file name ending in .csv (a sub-folder is allowed), got {name!r}")
    out = frame.copy()
    if digits is not None:
        floats = out.select_dtypes(include="floating").columns
        out[floats] = out[floats].round(digits)
        out[floats] = out[floats].where(out[floats] != 0, 0.0)  # no "-0.0"
    path = root / "data" / "derived" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, out.to_csv(index=index, lineterminator="\n", float_format=float_format))
    return path.relative_to(root).as_posix()


def ranked(values: pd.DataFrame | pd.Series, by: str | None = None, *, ascending: bool = False,
           decimals: int = 10) -> pd.DataFrame | pd.Series:
    """Rows sorted by a value, the same order on every CPU.

    Two values equal in exact arithmetic (two features with the same Shapley value) come
    out of floating point a few ulps apart, in an order that depends on the BLAS kernel.
    The sort key is therefore the value rounded to ``decimals`` places; ties are broken
    by the index labels (as strings, ascending), whichever way the values are sorted.
    ``by`` names the column of a DataFrame; a Series is sorted by its values.
    """
    if isinstance(values, pd.DataFrame):
        if by is None or by not in values.columns:
            raise ValueError(f"name the column to rank by (one of {list(values.columns)}), got {by!r}")
        key = values[by]
    elif isinstance(values, pd.Series):
        if by is not None:
            raise ValueError("a Series is ranked by its values; do not pass `by`")
        key = values
    else:
        raise TypeError(f"rank a pandas DataFrame or Series, got {type(values).__name__}")
    v = pd.to_numeric(key, errors="raise").to_numpy(dtype=float)
    labels = np.array([str(i) for i in values.index])
    return values.iloc[stable_order(v, ascending=ascending, decimals=decimals, tie_break=labels)]


def stable_order(values: Any, *, ascending: bool = True, decimals: int = 10,
                 tie_break: Any | None = None) -> np.ndarray:
    """Indices that sort ``values`` (1-D), the same on every CPU: see :func:`ranked`.

    Values are compared rounded to ``decimals`` places; ties keep the order of
    ``tie_break`` (ascending) if given, else their positions.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"need a 1-D array of values, got shape {v.shape}")
    if np.isnan(v).any():
        raise ValueError("cannot rank NaN values")
    rounded = np.round(v, decimals)
    second = np.arange(v.size) if tie_break is None else np.asarray(tie_break)
    if second.shape != v.shape:
        raise ValueError(f"tie_break must have the shape of values {v.shape}, got {second.shape}")
    return np.lexsort((second, rounded if ascending else -rounded))
