"""Pinned side environments for tools that cannot join the book's environment.

Some comparisons need a package at a version the book's pins exclude (ACV needs Python 3.9
and numpy < 1.22; the compositions authors ran scikit-learn 1.3).  A script then creates a
virtual environment under ``.side-envs/<name>/`` (git-ignored) from a given interpreter,
installs exact pins into it, runs its worker there and stores the results in
``data/derived/``; the notebooks read only those files.  The environment is reused while
its recorded pins (``pins.txt``) equal the requested ones, and rebuilt otherwise.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from lib.data import REPO_ROOT

__all__ = ["SIDE_ENVS", "SideEnvError", "side_python"]

#: Where side environments live (listed in .gitignore).
SIDE_ENVS = REPO_ROOT / ".side-envs"


class SideEnvError(RuntimeError):
    """A side environment could not be created (no interpreter, or pip failed)."""


def side_python(name: str, base: str | Path | None, pins: Sequence[str], *, rebuild: bool = False,
                root: Path = SIDE_ENVS) -> Path:
    """The interpreter of side environment ``name``, created from ``base`` with ``pins`` if missing,
    built with other pins, or ``rebuild`` is set.

    ``base`` is the interpreter to build from (``None``: none was found, which is an error only if
    the environment has to be built).  Every pin must be exact (``package==version``).
    """
    pins = list(pins)
    if not pins or any("==" not in p for p in pins):
        raise ValueError(f"side environments take exact pins (package==version), got {pins}")
    folder = root / name
    python = folder / "bin" / "python"
    stamp = folder / "pins.txt"
    if not rebuild and python.exists() and stamp.exists() and stamp.read_text().split() == pins:
        return python
    if base is None:
        raise SideEnvError(f"no interpreter to build the side environment {name!r} from")
    if folder.exists():
        shutil.rmtree(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(base), "-m", "venv", str(folder)], check=True)
    log = folder / "pip.log"
    with open(log, "w") as handle:
        done = subprocess.run([str(python), "-m", "pip", "install", *pins], stdout=handle, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise SideEnvError(f"installing {pins} into {folder} failed; see {log}")
    stamp.write_text("\n".join(pins) + "\n")
    return python
