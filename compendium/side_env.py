"""Pinned side environments for tools that cannot join the book's environment.

Some comparisons need a package at a version the book's pins exclude (ACV needs Python 3.9
and numpy < 1.22; the compositions authors ran scikit-learn 1.3).  A script then creates a
virtual environment under ``.side-envs/<name>/`` (git-ignored) from a given interpreter,
installs exact pins into it, runs its worker there and stores the results in
``data/derived/``; the notebooks read only those files.  The environment is reused while
its recorded pins (``pins.txt``) equal the requested ones, and rebuilt otherwise.
"""

from __future__ import annotations

import glob
import io
import json
import os
import shutil
import struct
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from compendium.data import REPO_ROOT

#: The shapiq worker's client below (send, receive, ShapiqSide, ShapiqError), which the benchmark scripts import,
#: is left out of the API pages (a benchmark's plumbing, documented in its docstrings).
__all__ = ["SHAPIQ_PINS", "SHAPIQ_PYTHON", "SIDE_ENVS", "SideEnvError", "find_python", "shapiq_python",
           "side_python"]

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
        done = subprocess.run([str(python), "-m", "pip", "install", "--no-compile", *pins], stdout=handle, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise SideEnvError(f"installing {pins} into {folder} failed; see {log}")
    stamp.write_text("\n".join(pins) + "\n")
    return python


def _is_version(exe: str, version: str) -> bool:
    """Whether ``exe`` runs and is Python ``version`` (``"3.12"``)."""
    try:
        done = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == version


def find_python(version: str) -> str | None:
    """A working interpreter of Python ``version`` (``"3.12"``): ``python3.12`` on PATH, else pyenv's
    ``versions/3.12*`` (under ``pyenv root``, ``$PYENV_ROOT`` or ``~/.pyenv``; newest first); ``None``
    if there is none."""
    candidates = [shutil.which(f"python{version}")]
    roots = []
    if shutil.which("pyenv"):
        done = subprocess.run(["pyenv", "root"], capture_output=True, text=True)
        if done.returncode == 0:
            roots.append(done.stdout.strip())
    roots += [os.environ.get("PYENV_ROOT", ""), str(Path.home() / ".pyenv")]
    for root in filter(None, roots):
        found = glob.glob(os.path.join(root, "versions", f"{version}*", "bin", f"python{version}"))
        candidates += sorted(found, key=lambda p: [int(t) if t.isdigit() else 0 for t in
                                                   Path(p).parents[1].name.split(".")], reverse=True)
    return next((c for c in candidates if c and _is_version(c, version)), None)


#: The interpreter version of the shapiq side environment: shapiq 1.5 and later need Python >= 3.12.
SHAPIQ_PYTHON = "3.12"
#: The shapiq side environment (``benchmarks/estimators.py``'s peers): shapiq 1.8.0, the newest release,
#: with the book's numpy, scipy, pandas, scikit-learn, shap and numba pins, and the surrogate back-ends
#: its Shapley-value approximators use by default (``xgboost`` for ProxySHAP and RegressionMSR, as
#: ``xgboost-cpu``, the same package without the CUDA libraries; ``lightgbm`` for OddSHAP). Not installed:
#: the extras of other options (``catboost``, ``smac`` for hyper-parameter search, ``torch`` for ShaplEIG,
#: ``sparse-transform`` and ``galois`` for SPEX). Every package installed, pinned exactly.
SHAPIQ_PINS = [
    "shapiq==1.8.0", "xgboost-cpu==3.4.1", "lightgbm==4.7.0",
    "numpy==2.4.6", "scipy==1.17.1", "pandas==3.1.1", "scikit-learn==1.8.0", "shap==0.51.0", "numba==0.68.1",
    "llvmlite==0.50.0", "joblib==1.6.0", "threadpoolctl==3.8.0", "tqdm==4.70.1", "cloudpickle==3.1.3",
    "slicer==0.0.8", "packaging==26.4", "networkx==3.7", "matplotlib==3.11.2", "contourpy==1.4.0",
    "cycler==0.12.1", "fonttools==4.68.0", "kiwisolver==1.5.1", "pillow==13.0.0", "pyparsing==3.3.3",
    "python-dateutil==4.0.0", "tzdata==2026.6", "colour==0.1.5", "narwhals==2.29.0", "requests==2.34.2",
    "certifi==2026.10.19.post1", "charset-normalizer==3.5.3", "idna==3.20", "urllib3==2.8.0",
    "typing_extensions==4.16.0",
]


def shapiq_python(*, rebuild: bool = False, root: Path = SIDE_ENVS) -> Path:
    """The interpreter of the shapiq side environment ``.side-envs/shapiq/`` (:data:`SHAPIQ_PINS` on
    Python :data:`SHAPIQ_PYTHON`), built on first use: one command, e.g.
    ``python -c "from lib import side_env; side_env.shapiq_python()"``, or any run of
    ``benchmarks/estimators.py`` with shapiq's estimators."""
    try:
        return side_python("shapiq", find_python(SHAPIQ_PYTHON), SHAPIQ_PINS, rebuild=rebuild, root=root)
    except SideEnvError as error:
        raise SideEnvError(f"{error}. shapiq 1.8 needs Python {SHAPIQ_PYTHON} (tried python{SHAPIQ_PYTHON} on "
                           f"PATH and pyenv's versions/{SHAPIQ_PYTHON}*); install one, e.g. "
                           f"`pyenv install {SHAPIQ_PYTHON}`.") from error


# ----------------------------------------------------------------------------- the shapiq worker's client
def send(stream: IO[bytes], header: dict[str, Any], *arrays: np.ndarray) -> None:
    """One message to or from ``benchmarks/_shapiq_worker.py``: a JSON header and ``len(arrays)`` arrays
    (``.npy`` bytes), each part framed by its byte length (the worker's own ``send``)."""
    parts = [json.dumps({**header, "arrays": len(arrays)}).encode()]
    for a in arrays:
        buf = io.BytesIO()
        np.save(buf, np.asarray(a), allow_pickle=False)
        parts.append(buf.getvalue())
    for p in parts:
        stream.write(struct.pack("<Q", len(p)))
        stream.write(p)
    stream.flush()


def receive(stream: IO[bytes], *, log: str = "its log") -> tuple[dict[str, Any], list[np.ndarray]]:
    """One message :func:`compendium.side_env.send` framed: its header and its arrays; ``EOFError``
    naming ``log`` where the stream ends first (the worker stopped)."""
    def frame() -> bytes:
        head = stream.read(8)
        if len(head) < 8:
            raise EOFError(f"the shapiq worker stopped (its log: {log})")
        return stream.read(struct.unpack("<Q", head)[0])
    header = json.loads(frame())
    return header, [np.load(io.BytesIO(frame()), allow_pickle=False) for _ in range(header.get("arrays", 0))]


class ShapiqError(RuntimeError):
    """An approximator raised in the side environment (e.g. a budget too small for its regression)."""


class ShapiqSide:
    """The shapiq worker (``worker``, a script run by ``python``, the side environment's interpreter:
    :func:`compendium.side_env.shapiq_python`), its stderr appended to ``log``; every value of a game
    is computed in this process, by the ``game`` the caller passes (coalitions ``(c, n)`` -> values
    ``(c,)``)."""

    def __init__(self, python: Path, worker: Path, log: Path) -> None:
        log.parent.mkdir(parents=True, exist_ok=True)
        self._where = str(log.relative_to(REPO_ROOT)) if log.is_relative_to(REPO_ROOT) else log.name
        self._log = open(log, "ab")
        self.proc = subprocess.Popen([str(python), str(worker)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._log, env={**os.environ, "OMP_NUM_THREADS": "1"})
        header, _ = self._ask({"op": "versions"}, None)
        self.versions, self.names = header["versions"], header["names"]

    def _ask(self, header: dict[str, Any], game: Callable[[np.ndarray], np.ndarray] | None,
             ) -> tuple[dict[str, Any], list[np.ndarray]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        send(self.proc.stdin, header)
        while True:
            reply, arrays = receive(self.proc.stdout, log=self._where)
            if reply["op"] == "game":
                assert game is not None
                send(self.proc.stdin, {"op": "values"}, np.asarray(game(arrays[0]), dtype=float))
            elif reply["op"] == "error":
                raise ShapiqError(reply["message"])
            else:
                return reply, arrays

    def run(self, name: str, n: int, budget: int, seed: int, game: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Approximator ``name`` on ``n`` players with ``budget`` coalitions: its ``(n,)`` values."""
        return self._ask({"op": "run", "name": name, "n": n, "budget": int(budget), "seed": int(seed)}, game)[1][0]

    def exact(self, n: int, game: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """shapiq's ``ExactComputer`` values of the game (all ``2**n`` coalitions)."""
        return self._ask({"op": "exact", "n": n}, game)[1][0]

    def close(self) -> None:
        """Ask the worker to quit, and close its log."""
        try:
            assert self.proc.stdin is not None
            send(self.proc.stdin, {"op": "quit"})
            self.proc.wait(timeout=30)
        finally:
            self._log.close()
