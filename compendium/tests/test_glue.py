"""``compendium.stable.glue`` stores a value for the prose as myst-nb's ``glue`` does, without myst-nb (issue 39).

A notebook that glues runs anywhere (Colab, a downloaded copy) only if gluing needs no more than
the IPython that runs it. The output must be what myst-nb writes, message for message — the
display data (with the papermill prefix when not shown) and the ``scrapbook`` metadata — since the
book's build reads it and nbval compares the stored outputs. Both are run in one IPython shell
and their published messages compared; myst-nb is then made unimportable and lib's glue must
still publish the same.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from compendium import stable

IPython = pytest.importorskip("IPython")


def _published(call: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()
    with capture_output(display=True) as captured:
        call()
    return [(out.data, out.metadata) for out in captured.outputs]


VALUES = [("k-float", 0.125), ("k-int", 3), ("k-text", "consistent"), ("k-round", round(2 / 3, 6))]


@pytest.mark.parametrize("display", [False, True])
def test_glue_publishes_what_myst_nbs_glue_publishes(display: bool) -> None:
    myst_nb = pytest.importorskip("myst_nb")
    for key, value in VALUES:
        ours = _published(lambda: stable.glue(key, value, display=display))
        theirs = _published(lambda: myst_nb.glue(key, value, display=display))
        assert ours == theirs and len(ours) == 1, (key, ours, theirs)
        data, metadata = ours[0]
        assert metadata["scrapbook"] == {"name": key, "mime_prefix": "" if display else stable.GLUE_PREFIX}
        assert all(k.startswith(stable.GLUE_PREFIX) != display for k in data)


def test_glue_number_needs_no_myst_nb(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "myst_nb", None)      # `import myst_nb` now raises ImportError
    with pytest.raises(ImportError):
        import myst_nb  # noqa: F401
    out = _published(lambda: stable.glue_number("k", 0.1 + 0.2))
    assert out == [({f"{stable.GLUE_PREFIX}text/plain": "0.3"},
                    {"scrapbook": {"name": "k", "mime_prefix": stable.GLUE_PREFIX}})]
    with pytest.raises(ValueError, match="not a finite number"):
        stable.glue_number("k", float("nan"))


def test_outside_ipython_glue_does_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess

    run = subprocess.run([sys.executable, "-c", "from lib import stable; stable.glue('k', 1.5); "
                          "stable.glue_number('k', 2.5)"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout == "" and run.stderr == "", run.stderr
