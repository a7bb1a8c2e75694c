"""lib.side_env: pinned side environments are reused while their pins match, and bad requests fail clearly."""

from __future__ import annotations

import pytest

from lib import side_env


def _fake_env(root, name, pins):
    folder = root / name
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").write_text("")
    (folder / "pins.txt").write_text("\n".join(pins) + "\n")
    return folder


def test_an_environment_with_the_same_pins_is_reused(tmp_path):
    pins = ["scikit-learn==1.3.2", "numpy==1.26.4"]
    folder = _fake_env(tmp_path, "sk", pins)
    # no interpreter to build from: reuse is the only way this can succeed
    assert side_env.side_python("sk", None, pins, root=tmp_path) == folder / "bin" / "python"


def test_other_pins_or_rebuild_need_an_interpreter(tmp_path):
    _fake_env(tmp_path, "sk", ["scikit-learn==1.3.2"])
    with pytest.raises(side_env.SideEnvError, match="no interpreter"):
        side_env.side_python("sk", None, ["scikit-learn==1.3.1"], root=tmp_path)
    with pytest.raises(side_env.SideEnvError, match="no interpreter"):
        side_env.side_python("sk", None, ["scikit-learn==1.3.2"], rebuild=True, root=tmp_path)


@pytest.mark.parametrize("pins", [[], ["scikit-learn"], ["numpy>=1.26"]])
def test_pins_must_be_exact(tmp_path, pins):
    with pytest.raises(ValueError, match="exact pins"):
        side_env.side_python("sk", None, pins, root=tmp_path)
