"""compendium.page: checks print their number, bound and verdict and fail loudly; glue records without myst-nb."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from compendium import page
from compendium.page import NBSP, NOISE, CheckFailed, MaxError, check, check_all, check_close, check_line, check_table, glue


def _plain(text: str) -> str:
    """A printed line with its no-break spaces as spaces (what a reader sees)."""
    return text.replace(NBSP, " ")


def test_the_label_then_the_number_bound_and_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    check("difference from the paper", 0.0012, 0.005)
    assert capsys.readouterr().out == f"difference from the paper ={NBSP}0.0012{NBSP}≤{NBSP}0.005{NBSP}✓\n"


def test_the_value_bound_and_verdict_never_break_apart() -> None:
    # a narrow screen wraps the label, never between the value, the bound and the verdict: they are
    # the line's last word (joined by no-break spaces)
    for args, kwargs, last in [(("e", 3e-16, 1e-10), {}, "≈ 3.0e-16 ≤ 1e-10 ✓"), (("e", 0.5, 1.0), {}, "= 0.5 ≤ 1 ✓"),
                               (("n", 3, 3), {"op": "=="}, "expected 3 ✓"), (("m", 0.2, 0.0), {"op": ">"}, "= 0.2 > 0 ✓"),
                               (("e", 3e-16, 1e-10), {"stored": True}, "noise) ≤ 1e-10 ✓")]:
        text, _ = check_line(*args, **kwargs)
        assert _plain(text.split(" ")[-1]) == last, text


def test_noise_under_the_floor_prints_its_value_after_an_approximately_sign() -> None:
    # rounding noise (the same on no two CPUs) is shown as measured, after ≈; nbval reads it as one token
    for noise, shown in ((0.0, "0.0e+00"), (3.1e-16, "3.1e-16"), (4.4e-16, "4.4e-16"), (9.9e-13, "9.9e-13"),
                         (-2e-17, "-2.0e-17")):
        text, ok = check_line("max |error|", noise, 1e-10)
        assert (_plain(text), ok) == (f"max |error| ≈ {shown} ≤ 1e-10 ✓", True)
        assert re.sub(NOISE, "~noise", text) == f"max |error| ~noise{NBSP}≤{NBSP}1e-10{NBSP}✓"
    assert _plain(check_line("max |error|", 2.5e-11, 1e-10)[0]) == "max |error| = 2.5e-11 ≤ 1e-10 ✓"
    assert _plain(check_line("e", 3e-16, 1e-10, floor=0)[0]) == "e = 3e-16 ≤ 1e-10 ✓"
    assert _plain(check_line("e", 3e-15, 1e-10, floor=1e-14)[0]) == "e ≈ 3.0e-15 ≤ 1e-10 ✓"
    assert _plain(check_line("e", 3e-14, 1e-10, floor=1e-14)[0]) == "e = 3e-14 ≤ 1e-10 ✓"
    # noise is shown in one width (one decimal, scientific notation) whatever fmt says (fmt is for meaningful values)
    assert _plain(check_line("gap", -1.3e-17, 1e-9, fmt=".3f")[0]) == "gap ≈ -1.3e-17 ≤ 1e-09 ✓"


def test_a_value_over_its_floor_is_never_read_as_noise() -> None:
    # the comparison of a rerun fails when a value leaves the noise: '=' is not sanitized
    for value in (2e-12, 5e-11, 0.5):
        assert re.search(NOISE, check_line("e", value, 1e-10)[0]) is None
    assert re.search(NOISE, check_line("e", 1e-20, 0.0, op=">=")[0]) is None


def test_a_stored_text_is_the_same_on_any_machine() -> None:
    # data/derived holds no machine-dependent digits: noise is written as under its floor
    for noise in (0.0, 3.1e-16, 4.4e-16):
        assert _plain(check_line("max |error|", noise, 1e-10, stored=True)[0]) == \
            "max |error| < 1e-12 (rounding noise) ≤ 1e-10 ✓"
    assert _plain(check_line("max |error|", 2.5e-11, 1e-10, stored=True)[0]) == "max |error| = 2.5e-11 ≤ 1e-10 ✓"


def test_the_sanitize_file_nbval_reads() -> None:
    from nbval.plugin import get_sanitize_patterns

    assert page.NBVAL_SANITIZE.isascii()   # read the same in any locale
    (regex, replace), = get_sanitize_patterns(page.NBVAL_SANITIZE)
    assert regex == NOISE and replace == "~noise"
    for a, b in [(3.1e-16, 4.4e-16), (0.0, 9e-13), (-1e-17, 2e-16)]:
        assert re.sub(regex, replace, check_line("e", a, 1e-10)[0]) == re.sub(regex, replace, check_line("e", b, 1e-10)[0])
    assert re.sub(regex, replace, check_line("e", 1e-16, 1e-10)[0]) != re.sub(regex, replace, check_line("e", 2e-12, 1e-10)[0])


def test_conftest_hands_the_sanitize_file_to_nbval() -> None:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    probe = ("import sys, pytest\nclass P:\n    def pytest_configure(self, config):\n"
             "        print('SANITIZE', open(config.option.nbval_sanitize_with).read() if config.option.nbval_sanitize_with else None)\n"
             "pytest.main(['--co', '-q', '-p', 'no:cacheprovider', '-n', '0', 'conftest.py'], plugins=[P()])\n")
    run = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=300)
    assert page.NBVAL_SANITIZE in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]


def test_a_failed_check_prints_and_raises(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(CheckFailed, match=f"max \\|error\\| ={NBSP}0\\.002{NBSP}≤{NBSP}0\\.001{NBSP}✗"):
        check("max |error|", 0.002, 0.001)
    assert _plain(capsys.readouterr().out) == "max |error| = 0.002 ≤ 0.001 ✗\n"
    assert issubclass(CheckFailed, AssertionError)


def test_a_failing_value_is_never_hidden_under_the_floor() -> None:
    # -1e-20 is under the floor in size but fails a lower-bound check; a failing upper check shows its value
    assert (_plain(check_line("margin", -1e-20, 0.0, op=">=")[0]), check_line("margin", -1e-20, 0.0, op=">=")[1]) \
        == ("margin = -1e-20 ≥ 0 ✗", False)
    assert _plain(check_line("e", 5e-3, 1e-3, op="<")[0]) == "e = 0.005 < 0.001 ✗"


@pytest.mark.parametrize(("op", "value", "bound", "text", "ok"), [
    ("<", 1, 2, "n = 1 < 2 ✓", True),
    (">=", 0.31, 0.0, "n = 0.31 ≥ 0 ✓", True),
    (">", 0.0, 0.0, "n = 0 > 0 ✗", False),
    ("==", 0, 0, "n = 0, expected 0 ✓", True),
    ("==", np.int64(3), 4, "n = 3, expected 4 ✗", False),
])
def test_comparisons(op: str, value: object, bound: object, text: str, ok: bool) -> None:
    got, verdict = check_line("n", value, bound, op=op)
    assert (_plain(got), verdict) == (text, ok)


def test_nan_fails() -> None:
    got, ok = check_line("max |error|", float("nan"), 1.0)
    assert (_plain(got), ok) == ("max |error| = NaN ≤ 1 ✗", False)
    with pytest.raises(CheckFailed):
        check_close("x", [1.0, np.nan], [1.0, 1.0], 1e-9)


def test_booleans_arrays_and_bad_ops_are_refused() -> None:
    with pytest.raises(TypeError, match="not True or False"):
        check("holds", True, 1)
    with pytest.raises(TypeError, match="one number"):
        check("errors", np.zeros(3), 1e-9)
    with pytest.raises(ValueError, match="op must be"):
        check("e", 0.1, 1, op="=<")
    with pytest.raises(ValueError, match="upper-bound"):
        check("e", 0.1, 1, op=">=", floor=1e-3)


def test_check_close_measures_the_largest_error(capsys: pytest.CaptureFixture[str]) -> None:
    check_close("closure", [0.2, 0.3], [0.2, 0.3 + 2e-3], 1e-2, fmt=".1g")
    assert _plain(capsys.readouterr().out) == "closure, max |error| = 0.002 ≤ 0.01 ✓\n"
    with pytest.raises(ValueError, match="broadcast"):
        check_close("x", np.zeros(3), np.zeros(2), 1e-9)


def test_check_all_prints_every_line_before_raising(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(CheckFailed, match=f"b ={NBSP}0.5"):
        check_all({"a": 0.0, "b": 0.5, "c": 1e-20}, 1e-10)
    assert _plain(capsys.readouterr().out).splitlines() == [
        "a ≈ 0.0e+00 ≤ 1e-10 ✓", "b = 0.5 ≤ 1e-10 ✗", "c ≈ 1.0e-20 ≤ 1e-10 ✓"]
    with pytest.raises(ValueError, match="empty"):
        check_all({}, 1.0)


def test_max_error_keeps_the_largest_absolute_error() -> None:
    errors = MaxError()
    errors["law"] = np.array([0.1, -0.3])
    errors["law"] = np.array([0.2])
    errors["other"] = 0.0
    assert errors == {"law": 0.3, "other": 0.0}
    errors["law"] = np.array([np.nan])
    errors["law"] = np.array([1.0])
    assert math.isnan(errors["law"])


@given(st.floats(min_value=0, max_value=1e-3, allow_nan=False), st.floats(min_value=1e-12, max_value=1.0))
def test_the_verdict_is_the_comparison(value: float, bound: float) -> None:
    text, ok = check_line("e", value, bound)
    assert ok == (value <= bound)
    assert text.endswith("✓" if ok else "✗")


def test_glue_outside_ipython_records_nothing_and_checks_its_value() -> None:
    glue("found-x", 0.5)   # no IPython shell here: nothing to record into, no error
    with pytest.raises(TypeError, match="boolean"):
        glue("found-holds", True)
    with pytest.raises(ValueError, match="finite"):
        glue("found-x", float("inf"))
    glue("found-x", 0.5, display=False)   # myst-nb's call reads the same
    with pytest.raises(ValueError, match="shows nothing"):
        glue("found-x", 0.5, display=True)


def test_glue_records_what_myst_nb_reads() -> None:
    """Inside a kernel, the display output is myst-nb's own (through ``compendium.stable.glue``, the one
    implementation): its prefix and the key in its metadata, with the value's text as IPython formats
    it after compendium.page's rules (a float rounded, an integer as ``int``)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from myst_nb.ext.glue import GLUE_PREFIX

    InteractiveShell.instance()
    with capture_output(display=True) as captured:
        glue("found-x", np.float64(0.123456789))
        glue("found-n", np.int64(7))
        glue("found-word", "reproduced")
    shown = [(out.data, out.metadata) for out in captured.outputs]
    assert [d for d, _ in shown] == [
        {GLUE_PREFIX + "text/plain": "0.123457"},
        {GLUE_PREFIX + "text/plain": "7"},
        {GLUE_PREFIX + "text/plain": "'reproduced'"},
    ]
    assert all(m["scrapbook"] == {"name": k, "mime_prefix": GLUE_PREFIX}
               for (_, m), k in zip(shown, ["found-x", "found-n", "found-word"]))


def test_max_error_checks_each_law(capsys: pytest.CaptureFixture[str]) -> None:
    errors = MaxError()
    for shift in (1e-17, 3e-16):
        errors["x ⊖ x = uniform"] = np.array([shift, -shift])
    errors.check(1e-10, op="<")
    assert _plain(capsys.readouterr().out) == "x ⊖ x = uniform, max |error| ≈ 3.0e-16 < 1e-10 ✓\n"


def test_check_table_shows_each_number_and_verdict() -> None:
    import pandas as pd

    errors = pd.DataFrame({"isometry": [1e-15, 2e-10], "linear": [0.0, 3e-16]}, index=["N=3", "N=10"])
    shown = check_table(errors, 1e-9, op="<")
    assert shown.map(_plain).to_dict() == {"isometry": {"N=3": "≈ 1.0e-15 ✓", "N=10": "2e-10 ✓"},
                                           "linear": {"N=3": "≈ 0.0e+00 ✓", "N=10": "≈ 3.0e-16 ✓"}}
    with pytest.raises(CheckFailed, match="N=10 / isometry"):
        check_table(errors, 1e-10)
    with pytest.raises(TypeError):
        check_table(pd.DataFrame(), 1.0)


def test_check_cell_shows_the_number_and_its_verdict() -> None:
    from compendium.page import check_cell

    assert _plain(check_cell(2e-10, 1e-9)) == "2e-10 ✓"
    assert _plain(check_cell(4.4e-16, 1e-9)) == "≈ 4.4e-16 ✓"
    # rounding noise takes one width whatever its value, so a table's column is as wide on every CPU (its digits
    # are read as one token by nbval; pandas pads the column to its widest cell); an exponent of three digits
    # (below 1e-99) would add one character
    assert len({len(check_cell(x, 1e-9)) for x in (0.0, 2e-16, 4.4e-16, 9.9e-13, 1.2e-30)}) == 1
    assert _plain(check_cell(7, 5, op=">=")) == "7 ✓"
    with pytest.raises(CheckFailed, match="0.002"):
        check_cell(0.002, 0.001)
    with pytest.raises(TypeError, match="boolean"):
        check_cell(True, 1)
