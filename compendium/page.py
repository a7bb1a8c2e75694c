"""What a notebook page prints and pastes: checks that show their number, values glued into the prose.

A page shows the method's calls and the reader's check; the publishing plumbing stays out of
sight (``CONTRIBUTING.md`` §5). This module holds the two things a page's cells print or record
for the reader:

- **Checks.** :func:`check` prints the number a verdict is decided on, its bound and the verdict,
  the number first, and raises :class:`CheckFailed` (an ``AssertionError``) when the verdict is
  ✗ (an example below). :func:`check_close` measures ``max |got − want|`` itself, :func:`check_all` prints one line per
  entry of a mapping and raises after printing them all (a :class:`MaxError` keeps the largest
  error of each law over a loop, and checks them), :func:`check_table` checks a table of errors
  and returns it as the page shows it, :func:`check_cell` one number of a table's column. A check
  prints a number, never a bare ``True``.
- **Glue.** :func:`glue` records a value under a key for the prose (``{glue:text}`key```), as
  myst-nb's ``glue(key, value, display=False)`` does, without importing myst-nb: the notebook
  runs wherever ``lib`` is installed. Outside IPython it records nothing.

A check as a page writes it, and the line it prints::

    check("x ⊕ y against the closed product, max |error|", err, 1e-10)
    # x ⊕ y against the closed product, max |error| ≈ 2.2e-16 ≤ 1e-10 ✓

**The label, then the measured value, the bound and the verdict.** ``=`` separates the label from
the value (``coalitions = 254, expected 254 ✓``), and the value, the bound and the verdict are
joined by no-break spaces, so that a narrow screen wraps the label and never leaves a ``✓`` alone
on a line.

**Rounding noise.** An error at the level of rounding noise (``2.2e-16`` here, ``4.4e-16`` on another
CPU, with another BLAS or SIMD kernel) is printed as measured, after ``≈`` instead of ``=``:
``max |error| ≈ 2.2e-16 ≤ 1e-10 ✓``, always one decimal in scientific notation, so that it takes one width
(pandas pads a table's column to its widest cell). A value is at that level when it is under its *floor* (by
default a hundredth of an upper bound). Its digits depend on the machine, so the notebook tests
compare everything of the line but them: :data:`NOISE` is the pattern they read as one token
(``conftest.py`` hands :data:`NBVAL_SANITIZE` to nbval), and a value that is no longer under its
floor on a rerun prints ``=`` and fails the comparison, as a changed verdict does. Values above
the floor are printed with two significant digits (``fmt`` for another format) and compared as
they are. The verdict is always decided on the exact value.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from compendium import stable

__all__ = ["NBVAL_SANITIZE", "NOISE", "CheckFailed", "MaxError", "check", "check_all", "check_cell", "check_close",
           "check_line", "check_table", "glue"]

#: comparison -> (its sign as printed, the test)
_OPS = {
    "<=": ("≤", lambda v, b: v <= b),
    "<": ("<", lambda v, b: v < b),
    ">=": ("≥", lambda v, b: v >= b),
    ">": (">", lambda v, b: v > b),
    "==": ("=", lambda v, b: v == b),
}
PASS, FAIL = "✓", "✗"
#: joins the value, the bound and the verdict: a narrow screen never breaks between them
NBSP = "\u00a0"
#: a value at the level of rounding noise as a check prints it (``≈ 2.2e-16``, ``≈ 0.0e+00``: one width, so that a
#: table's columns align alike on every CPU), followed by the bound's sign or the verdict: the digits nbval does not
#: compare
NOISE = r"\u2248\u00a0-?[0-9][0-9.]*(?:e[-+]?[0-9]+)?(?=\u00a0(?:[<\u2264]|\u2713))"
#: nbval's sanitize file (``--nbval-sanitize-with``): every :data:`NOISE` value reads as one token
#: (ASCII, so that it reads the same in any locale)
NBVAL_SANITIZE = f"[compendium.page: a check's value at the level of rounding noise]\nregex: {NOISE}\nreplace: ~noise\n"


class CheckFailed(AssertionError):
    """A check whose verdict is ✗; its message is the printed line."""


def _number(value: Any, what: str) -> int | float:
    """``value`` as a Python int or float; a boolean or an array of several values is refused."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} is a boolean: a check prints the number its verdict is decided on "
                        "(an error, a count, a margin), not True or False")
    array = np.asarray(value)
    if array.size != 1:
        raise TypeError(f"{what} must be one number, got an array of shape {array.shape} "
                        "(reduce it first: its maximum error, its count)")
    item = array.reshape(()).item()
    if isinstance(item, numbers.Integral):
        return int(item)
    if isinstance(item, numbers.Real):
        return float(item)
    raise TypeError(f"{what} must be a real number, got {type(value).__name__}")


def _text(x: int | float, fmt: str) -> str:
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "NaN"
    return format(x, fmt)


def _measure(v: int | float, b: int | float, op: str, floor: float | None, fmt: str,
             stored: bool) -> tuple[str, str, bool]:
    """(the value as printed, with its ``=`` or ``≈``; the bound's sign and the bound; the verdict)."""
    if op not in _OPS:
        raise ValueError(f"op must be one of {sorted(_OPS)}, got {op!r}")
    sign, test = _OPS[op]
    ok = not (isinstance(v, float) and math.isnan(v)) and bool(test(v, b))
    if floor is None:
        floor = b / 100 if op in ("<=", "<") and b > 0 and isinstance(v, float) else 0.0
    elif op not in ("<=", "<"):
        raise ValueError(f"a floor is for upper-bound checks (op '<=' or '<'), not {op!r}")
    noise = bool(floor) and ok and not math.isnan(v) and abs(v) < floor
    if noise and stored:
        shown = f"<{NBSP}{_text(float(floor), 'g')} (rounding noise)"
    elif noise:   # one width for any noise (2.0e-16, 4.4e-16, 0.0e+00): a table's columns align alike everywhere
        shown = f"≈{NBSP}{float(v):.1e}"
    else:
        shown = f"={NBSP}{_text(v, fmt)}"
    bound = f", expected{NBSP}{_text(b, 'g')}" if op == "==" else f"{NBSP}{sign}{NBSP}{_text(b, 'g')}"
    return shown, bound, ok


def check_line(label: str, value: Any, bound: Any, *, op: str = "<=", floor: float | None = None,
               fmt: str = ".2g", stored: bool = False) -> tuple[str, bool]:
    """The line :func:`check` prints, and its verdict (``True`` for ✓); nothing is printed or raised.

    ``floor`` (upper-bound checks only; default a hundredth of a positive bound when the value is a
    float, ``0`` for none): a value under it is rounding noise, printed after ``≈`` with two
    significant digits (see the module's docstring). ``stored=True`` gives the text for a table
    stored in ``data/derived``, which must be the same bytes on any machine: a value under its
    floor is written ``< floor (rounding noise)`` there.
    """
    v = _number(value, "the value")
    b = _number(bound, "the bound")
    shown, bound_text, ok = _measure(v, b, op, floor, fmt, stored)
    body = f"{shown}{bound_text}{NBSP}{PASS if ok else FAIL}"
    return (f"{label} {body}" if label else body), ok


def check(label: str, value: Any, bound: Any, *, op: str = "<=", floor: float | None = None,
          fmt: str = ".2g") -> None:
    """Print ``"<label> = <value> <op> <bound> ✓"`` and raise :class:`CheckFailed` if the verdict is ✗.

    ``label`` says what is measured (``"efficiency, max |error|"``); ``value`` is the number the
    verdict is decided on (an error, a count, a margin: never a boolean); ``op`` one of ``<=``,
    ``<``, ``>=``, ``>``, ``==`` (printed ``"<label> = <value>, expected <bound> ✓"``). Integers
    are printed exactly, floats with ``fmt`` (two significant digits), an upper-bound value under
    ``floor`` after ``≈`` (rounding noise). Returns nothing, so a cell ending in a check shows only
    its line.
    """
    text, ok = check_line(label, value, bound, op=op, floor=floor, fmt=fmt)
    print(text)
    if not ok:
        raise CheckFailed(text)


def check_close(label: str, got: Any, want: Any, tol: float, *, floor: float | None = None,
                fmt: str = ".2g") -> None:
    """Check ``max |got − want| ≤ tol`` (element-wise, shapes broadcast), printing the largest error.

    ``"<label>, max |error| = <error> ≤ <tol> ✓"``; a NaN in either side fails.
    """
    a, b = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    try:
        diff = np.abs(np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)) - b)
    except ValueError as err:
        raise ValueError(f"{label}: got and want have shapes {a.shape} and {b.shape}, which do not broadcast") from err
    error = float(np.nan) if np.isnan(diff).any() else float(diff.max(initial=0.0))
    check(f"{label}, max |error|" if label else "max |error|", error, tol, floor=floor, fmt=fmt)


def check_all(values: Mapping[str, Any], bound: Any, *, op: str = "<=", floor: float | None = None,
              fmt: str = ".2g") -> None:
    """One :func:`check` line per ``label: value`` of ``values``, all printed before any failure raises."""
    if not values:
        raise ValueError("nothing to check: the mapping is empty")
    failed = []
    for label, value in values.items():
        text, ok = check_line(label, value, bound, op=op, floor=floor, fmt=fmt)
        print(text)
        if not ok:
            failed.append(text)
    if failed:
        raise CheckFailed("; ".join(failed))


def _cell(v: int | float, b: int | float, op: str, floor: float | None, fmt: str) -> tuple[str, str, bool]:
    value_text, bound_text, ok = _measure(v, b, op, floor, fmt, False)
    return f"{value_text.removeprefix('=' + NBSP)}{NBSP}{PASS if ok else FAIL}", f"{value_text}{bound_text}", ok


def check_cell(value: Any, bound: Any, *, op: str = "<=", floor: float | None = None, fmt: str = ".2g") -> str:
    """A table cell that checks one number: the number and its verdict (``"2e-10 ✓"``, ``"≈ 4.4e-16 ✓"``
    for rounding noise), for a column whose header states the bound (``"max |error| ≤ 1e-10"``), in
    place of a column of True/False. Raises :class:`CheckFailed` if the verdict is ✗."""
    text, line, ok = _cell(_number(value, "the value"), _number(bound, "the bound"), op, floor, fmt)
    if not ok:
        raise CheckFailed(f"{line} {FAIL}")
    return text


def check_table(values: Any, bound: Any, *, op: str = "<=", floor: float | None = None,
                fmt: str = ".2g") -> Any:
    """Check every number of a table (a DataFrame: one error per row and column) and return the
    table as the page shows it: each cell as :func:`check_cell` shows it (the page states the
    bound). Raises :class:`CheckFailed`, naming the failing cells, if any fails.
    """
    import pandas as pd

    if not isinstance(values, pd.DataFrame) or values.empty:
        raise TypeError("check_table takes a non-empty DataFrame of numbers")
    failed = []
    shown = pd.DataFrame(index=values.index, columns=values.columns, dtype=object)
    b = _number(bound, "the bound")
    for row in values.index:
        for column in values.columns:
            text, line, ok = _cell(_number(values.at[row, column], f"cell {row} / {column}"), b, op, floor, fmt)
            shown.at[row, column] = text
            if not ok:
                failed.append(f"{row} / {column}: {line} {FAIL}")
    if failed:
        raise CheckFailed("; ".join(failed))
    return shown


class MaxError(dict):
    """The largest absolute error of each law over a loop: ``errors[label] = array`` keeps the
    maximum of ``|array|`` seen so far under ``label`` (a NaN stays NaN, so that it fails), and
    :meth:`check` prints one line per law.

    For example::

        errors = MaxError()
        for N in range(2, 7):
            errors["x ⊖ x = uniform"] = sx.difference(X, X) - 1 / N
        errors.check(1e-10)        # x ⊖ x = uniform, max |error| ≈ 1.1e-16 ≤ 1e-10 ✓
    """

    def check(self, bound: Any, *, op: str = "<=", floor: float | None = None, fmt: str = ".2g") -> None:
        """:func:`check_all` of the laws, each labelled ``"<law>, max |error|"``."""
        check_all({f"{law}, max |error|": value for law, value in self.items()}, bound, op=op, floor=floor, fmt=fmt)

    def __setitem__(self, label: str, value: Any) -> None:
        diff = np.abs(np.asarray(value, dtype=float))
        new = float(np.nan) if np.isnan(diff).any() else float(diff.max(initial=0.0))
        old = self.get(label, 0.0)
        super().__setitem__(label, math.nan if math.isnan(new) or math.isnan(old) else max(old, new))


def glue(key: str, value: Any, *, digits: int = 6, display: bool = False) -> None:
    """Record ``value`` under ``key`` for the prose (``{glue:text}`key```), without myst-nb.

    What myst-nb's ``glue(key, value, display=False)`` records (a display output whose mime
    types carry its prefix, and the key in its metadata), so the book's build reads it the same
    way. A float is rounded to ``digits`` decimals as a Python ``float`` (``compendium.stable.glue_number``'s
    rule: a numpy scalar's repr, or the last digits of a BLAS result, never reach the stored
    output); an integer is glued as a Python ``int``; a text as it is. A boolean is refused: glue
    the word the prose shows. Outside IPython (a script) nothing is recorded. ``display`` is
    there so that myst-nb's ``glue(key, value, display=False)`` reads the same: a glued value is
    never shown (``display=True`` is refused; print it, or show it in a cell of its own).
    """
    if display:
        raise ValueError(f"glue {key!r}: compendium.page.glue records a value for the prose and shows nothing")
    if not isinstance(key, str) or not key:
        raise ValueError(f"a glue key is a non-empty text, got {key!r}")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"glue {key!r}: a boolean; glue the word the prose shows (a verdict, 'yes')")
    if isinstance(value, (numbers.Integral, np.integer)):
        value = int(value)
    elif isinstance(value, (numbers.Real, np.floating)):
        value = round(float(value), digits)
        if not math.isfinite(value):
            raise ValueError(f"glue {key!r}: {value} is not a finite number; say in words why it is missing")
    # one way to store a value for the prose, without myst-nb: compendium.stable.glue
    stable.glue(key, value, display=False)
