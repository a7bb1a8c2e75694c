"""The fast path's compiled loops are cached where a folder can be written (issue 32, item 6).

``lib._shapley_fast`` caches its numba loops on disk so that a new process loads them instead
of compiling them again; a Binder image has a read-only package folder.  Each case runs a fresh
process on a copy of ``lib`` whose ``__pycache__`` cannot be created, with ``NUMBA_CACHE_DIR``
naming a folder that cannot be written either (a path under a file: unwritable even for root,
who ignores permissions), and checks that ``exact_shapley`` gives the same values as here:

* with a writable user cache folder (``XDG_CACHE_HOME``) the loops are cached there;
* with nothing writable they are compiled in memory, with a warning that says so.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np

from lib import shapley as sh

REPO_ROOT = Path(__file__).resolve().parents[2]  # the repository's root (lib never imports the book's machinery)

_CHILD = """
import json, sys, tempfile, warnings
if sys.argv[1] == "nothing writable":
    tempfile.tempdir = sys.argv[2]          # the temporary directory too
import numpy as np
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from lib import shapley
    rng = np.random.default_rng(0)
    X, bg = rng.integers(0, 3, (3, 5)), rng.integers(0, 3, (20, 5))
    res = shapley.exact_shapley(lambda Z: np.sin(Z @ np.arange(1.0, 6.0)), X, bg)
import numba
print(json.dumps({"values": res.values.tobytes().hex(), "cache": numba.config.CACHE_DIR,
                  "warnings": [str(w.message) for w in caught], "lib": shapley.__file__}))
"""


def _read_only_copy(tmp_path: Path) -> Path:
    """A copy of ``lib`` (no tests) whose folders are read-only and whose ``__pycache__`` is a file."""
    root = tmp_path / "package"
    shutil.copytree(REPO_ROOT / "lib", root / "lib", ignore=shutil.ignore_patterns("__pycache__", "tests"))
    for folder in (root / "lib", root / "lib" / "sampling"):
        (folder / "__pycache__").write_text("not a folder\n")
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    return root


def _run(root: Path, case: str, env: dict[str, str], tmp_path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, case, str(tmp_path / "a-file" / "tmp")],
                          cwd=root, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env},
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_read_only_package_caches_elsewhere_or_compiles_in_memory(tmp_path):
    root = _read_only_copy(tmp_path)
    (tmp_path / "a-file").write_text("a file, not a folder\n")
    unwritable = tmp_path / "a-file" / "numba"
    rng = np.random.default_rng(0)
    X, bg = rng.integers(0, 3, (3, 5)), rng.integers(0, 3, (20, 5))
    here = sh.exact_shapley(lambda Z: np.sin(Z @ np.arange(1.0, 6.0)), X, bg).values.tobytes().hex()
    try:
        user_cache = tmp_path / "user-cache"
        cached = _run(root, "user cache", {"NUMBA_CACHE_DIR": str(unwritable), "XDG_CACHE_HOME": str(user_cache)},
                      tmp_path)
        assert Path(cached["lib"]).is_relative_to(root)                  # the read-only copy ran
        assert cached["values"] == here
        assert cached["cache"] == str(user_cache / "shapley-book-numba")
        assert any(p.suffix == ".nbi" for p in (user_cache / "shapley-book-numba").rglob("*"))
        assert not any("compiled in memory" in w for w in cached["warnings"])
        # again: the loops are loaded from that cache
        assert _run(root, "user cache", {"NUMBA_CACHE_DIR": str(unwritable), "XDG_CACHE_HOME": str(user_cache)},
                    tmp_path)["values"] == here

        nothing = _run(root, "nothing writable",
                       {"NUMBA_CACHE_DIR": str(unwritable), "XDG_CACHE_HOME": str(tmp_path / "a-file" / "cache")},
                       tmp_path)
        assert nothing["values"] == here
        assert any("compiled in memory" in w for w in nothing["warnings"])
        assert not (root / "lib" / "__pycache__").is_dir()
    finally:
        for folder in (root / "lib", root / "lib" / "sampling"):
            folder.chmod(stat.S_IRWXU)
