"""The README's two commands work as a new reader types them: on a fresh clone, with a relative data path.

The test clones the repository's HEAD into a temporary folder, puts a data cache at the relative
path the README suggests (``../shared/data``, beside the clone, as on the book's CI machine; a
link to the cache this test run uses), exports that relative path exactly as the README writes
it, and runs the README's first command (set-up and build) literally, then its second (tests)
on a subset — the data tests and one notebook, whose kernel starts in the notebook's own folder
— since running the whole suite again would run this test again. The clone must be left with a
clean ``git status``. `.ci/run` runs both commands in full on a fresh clone; when it does (it checks that
the clone is fresh: nothing untracked or ignored before its set-up), it says so (``SHAPLEY_BOOK_README_RUN``)
and this test leaves the check to that run rather than repeat it inside it.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from compendium.data import ENV_VAR, data_dir

ROOT = Path(__file__).resolve().parent.parent
SUBSET = "compendium/tests/test_data.py notebooks/00-foundations/02-data.ipynb"


def readme_commands() -> tuple[list[str], str]:
    """The two commands of the README's first bash block, and the value it exports for the data."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)\n```", text, re.S)
    assert block, "README.md has no bash block"
    commands = [ln for ln in block.group(1).splitlines() if ln.strip()]
    export = re.search(rf"export {ENV_VAR}=(\S+?)`", text)
    assert export, f"README.md does not show how to set {ENV_VAR}"
    return commands, export.group(1)


def test_readme_starts_with_two_commands() -> None:
    commands, data_path = readme_commands()
    assert len(commands) == 2
    assert commands[0].startswith("python3 -m venv .venv") and "jupyter-book build . -W -n" in commands[0]
    assert "python -m compendium.data fetch all" in commands[0], "the set-up command must get the data where it can"
    assert commands[1].endswith("python -m pytest")
    assert not Path(data_path).is_absolute(), "the README's example data path is relative"


#: set by .ci/run when it runs on a fresh clone (nothing untracked or ignored in it before its set-up): that run
#: is this test, in full (the README's set-up and every test, then a clean git status), so this test leaves it
RUN_BY_CI = "SHAPLEY_BOOK_README_RUN"


@pytest.mark.skipif(not data_dir().is_dir(), reason=f"no data cache at {data_dir()} ({ENV_VAR})")
@pytest.mark.skipif(os.environ.get(RUN_BY_CI) == "fresh-clone",
                    reason=".ci/run is running the README's two commands on a fresh clone: this run is the test, in full")
def test_readme_commands_on_a_fresh_clone(tmp_path: Path) -> None:
    commands, data_path = readme_commands()
    clone = tmp_path / "main"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    cache = (clone / data_path).resolve()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.symlink_to(data_dir(), target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTEST_XDIST_WORKER")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)
    env[ENV_VAR] = data_path

    def run(command: str) -> None:
        done = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{command}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"

    run(commands[0])
    assert (clone / "_build" / "html" / "index.html").is_file()
    run(f"{commands[1]} -p no:cacheprovider {SUBSET}")
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True)
    assert status.stdout == "", f"the README's commands changed committed files:\n{status.stdout}"
