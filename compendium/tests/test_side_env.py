"""compendium.side_env: pinned side environments are reused while their pins match, and bad requests fail clearly."""

from __future__ import annotations

from pathlib import Path

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


# ----------------------------------------------------------------------------- the shapiq worker's client
FAKE_WORKER = '''
import sys
import numpy as np
from compendium.side_env import receive, send
out, inp = sys.stdout.buffer, sys.stdin.buffer
while True:
    job, _ = receive(inp)
    if job["op"] == "versions":
        send(out, {"op": "versions", "versions": {"shapiq": "fake"}, "names": ["sum"]})
    elif job["op"] == "run" and job["name"] == "sum":
        coalitions = np.eye(job["n"], dtype=bool)          # asks the game for the singletons
        send(out, {"op": "game"}, coalitions)
        _, (values,) = receive(inp)
        send(out, {"op": "result"}, values * job["budget"])
    elif job["op"] == "run":
        send(out, {"op": "error", "message": "no approximator " + job["name"]})
    else:
        break
'''


def test_framed_messages_round_trip_and_a_cut_stream_names_the_log():
    import io

    import numpy as np

    buf = io.BytesIO()
    a, b = np.arange(6.0).reshape(2, 3), np.array([True, False])
    side_env.send(buf, {"op": "x", "k": 1}, a, b)
    side_env.send(buf, {"op": "y"})
    buf.seek(0)
    header, arrays = side_env.receive(buf)
    assert header == {"op": "x", "k": 1, "arrays": 2}
    np.testing.assert_array_equal(arrays[0], a)
    np.testing.assert_array_equal(arrays[1], b)
    assert side_env.receive(buf)[0]["op"] == "y"
    with pytest.raises(EOFError, match="worker.log"):
        side_env.receive(buf, log="worker.log")


def test_the_client_answers_the_workers_game_questions_and_raises_its_errors(tmp_path):
    """A fake worker (the real one's protocol, no shapiq) asks this process for the values of its
    coalitions: the client computes them with the caller's game and returns the worker's result."""
    import sys

    import numpy as np

    worker = tmp_path / "worker.py"
    worker.write_text(FAKE_WORKER)
    side = side_env.ShapiqSide(Path(sys.executable), worker, tmp_path / "logs" / "worker.log")
    try:
        assert side.versions == {"shapiq": "fake"} and side.names == ["sum"]
        asked = []

        def game(coalitions):
            asked.append(coalitions.shape)
            return coalitions.sum(axis=1) * 10.0

        np.testing.assert_array_equal(side.run("sum", 3, 2, 0, game), [20.0, 20.0, 20.0])
        assert asked == [(3, 3)]
        with pytest.raises(side_env.ShapiqError, match="no approximator nope"):
            side.run("nope", 3, 2, 0, game)
    finally:
        side.close()
    assert side.proc.returncode == 0
