"""compendium.side_env: pinned side environments are reused while their pins match, and bad requests fail clearly."""

from __future__ import annotations

import pytest

from compendium import side_env


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


def test_the_shapiq_environment_pins_everything_and_shares_the_books_pins():
    from compendium.data import REPO_ROOT

    pins = dict(p.split("==") for p in side_env.SHAPIQ_PINS)
    assert len(pins) == len(side_env.SHAPIQ_PINS)  # one pin per package
    assert pins["shapiq"] == "1.8.0"
    book = dict(line.split("==") for line in (REPO_ROOT / "requirements.txt").read_text().split()
                if "==" in line and not line.startswith("#"))
    for package in ("numpy", "scipy", "pandas", "scikit-learn", "shap", "numba"):
        assert pins[package] == book[package], package


def test_find_python_returns_none_for_a_version_that_is_not_there():
    assert side_env.find_python("2.1") is None
