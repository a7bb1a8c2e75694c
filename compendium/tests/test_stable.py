"""compendium.stable: what the book stores and glues comes out as the same bytes whatever the rounding noise."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium import stable


def test_write_derived_is_byte_stable(tmp_path: Path) -> None:
    (tmp_path / "data" / "derived").mkdir(parents=True)
    a = pd.DataFrame({"name": ["x", "y"], "value": [0.1 + 0.2, -1e-17]})
    b = pd.DataFrame({"name": ["x", "y"], "value": [0.3, 1e-17]})  # differs only by rounding noise
    path = stable.write_derived(a, "t.csv", digits=6, root=tmp_path)
    first = (tmp_path / path).read_bytes()
    stable.write_derived(b, "t.csv", digits=6, root=tmp_path)
    assert (tmp_path / path).read_bytes() == first == b"name,value\nx,0.3\ny,0.0\n"
    with pytest.raises(ValueError, match=".csv"):
        stable.write_derived(a, "t.txt", root=tmp_path)


def test_ranked_breaks_ties_by_label_not_by_rounding_noise():
    a = 0.1 + 0.2                                   # 0.30000000000000004
    frame = pd.DataFrame({"v": [0.3, a, 0.5, 0.1]}, index=["Genetics", "Coughing", "Smoking", "Age"])
    noisy = frame.assign(v=[a, 0.3, 0.5, 0.1])      # the two tied values the other way round
    for f in (frame, noisy):
        assert list(stable.ranked(f, "v").index) == ["Smoking", "Coughing", "Genetics", "Age"]
        assert list(stable.ranked(f, "v", ascending=True).index) == ["Age", "Coughing", "Genetics", "Smoking"]
    assert list(stable.ranked(frame["v"]).index) == ["Smoking", "Coughing", "Genetics", "Age"]
    np.testing.assert_array_equal(stable.stable_order(np.array([a, 0.3, 0.1])), [2, 0, 1])
    with pytest.raises(ValueError, match="column"):
        stable.ranked(frame, "w")
    with pytest.raises(ValueError, match="NaN"):
        stable.stable_order(np.array([1.0, np.nan]))


def test_glue_number_pastes_a_rounded_plain_float(monkeypatch: pytest.MonkeyPatch) -> None:
    glued = {}
    monkeypatch.setattr(stable, "glue", lambda key, value, display=True: glued.update({key: (value, display)}))
    assert stable.glue_number("k", np.float64(0.1) + np.float64(0.2)) is None   # a cell ending in it shows nothing
    stable.glue_number("n", np.int64(7))
    stable.glue_number("d", 1 / 3, digits=2)
    assert glued["k"] == (0.3, False) and type(glued["k"][0]) is float
    assert glued["n"] == (7.0, False) and type(glued["n"][0]) is float
    assert glued["d"] == (0.33, False)
    with pytest.raises(ValueError, match="not a finite number"):
        stable.glue_number("nan", float("nan"))
    assert json.dumps(glued["k"][0]) == "0.3"


def test_replace_file_writes_at_once_and_leaves_no_temporary_file(tmp_path) -> None:
    """A stored output is replaced whole (a hidden file renamed over it): a reader never sees it
    half written, and nothing is left beside it, also when the write fails."""
    from compendium.stable import replace_file

    target = tmp_path / "fig.svg"
    target.write_text("old", encoding="utf-8")
    before = target.stat().st_ino
    replace_file(target, "new ✓\n")
    assert target.read_bytes() == "new ✓\n".encode("utf-8") and target.stat().st_ino != before
    replace_file(target, b"\x89PNG")
    assert target.read_bytes() == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.svg"]
    with pytest.raises(TypeError):
        replace_file(target, 3)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.svg"] and target.read_bytes() == b"\x89PNG"
