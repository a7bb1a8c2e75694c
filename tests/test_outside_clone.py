"""The notebooks run outside a clone of the repository (issue 39): a downloaded notebook, or Colab.

The two distributions are built (their wheels, by ``tools/release.py``'s ``wheels``, as for a
release) and a fresh virtual environment is made in a temporary folder, away from the clone,
with ``lib``'s dependencies at the pinned versions (``requirements.txt`` as constraints, so the
stored outputs can match) and nbval, but neither ``lib``, ``compendium`` nor myst-nb. Then, there:

1. the first code cell of a notebook (``tools/install_cell.py``) installs ``lib`` and ``compendium`` (two
   wheels: the methods, and the machinery with the stored results): they are missing, and
   ``SHAPLEY_BOOK_LIB`` names the folder of the wheels just built instead of the release's (no network);
   with the network to the release and the repository cut off (a proxy that refuses every
   connection) and no ``SHAPLEY_BOOK_LIB``, the cell of a page of a release ends in its one message,
   run by IPython as a notebook runs it, with no traceback; so does a data set's fetch from its source
   (``compendium.data``), naming ``SHAPLEY_BOOK_DATA_MIRROR``;
2. ``compendium.data`` loads a data set that is not in the (empty) data cache: it fetches it, from a
   local mirror of the book's data (``SHAPLEY_BOOK_DATA_MIRROR``), checks its sha256 and uses it;
   ``python -m compendium.data fetch all`` fills the rest;
3. the cheapest notebook of each chapter, copied into a folder of its own, passes strict nbval:
   the install cell does nothing and prints nothing, the stored results come from the package,
   and what the notebook writes goes to the book folder outside the clone (``SHAPLEY_BOOK_HOME``),
   not into the clone, whose ``git status`` stays clean.

A notebook runs there as it is: none imports myst-nb (not installed outside a clone; its glue is
``compendium.page.glue``), which a test of every notebook checks.
The whole test takes a few minutes (the wheels come from pip's cache).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import install_cell  # noqa: E402 - the repository's tools, on the path above
import release  # noqa: E402

#: the cheapest notebook of each chapter (measured: each reruns in 8-20 s here)
NOTEBOOKS = [
    "notebooks/00-foundations/02-data.ipynb",
    "notebooks/01-naive-bayes/05-speed.ipynb",
    "notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb",
    "notebooks/03-same-decision-probability/01-lucas-network.ipynb",
    "notebooks/04-typical-value-contributions/04-verdict.ipynb",
    "notebooks/05-coalitional-explanations/05-authors-code.ipynb",
]
#: what the test environment adds to lib's own dependencies
TOOLS = ["pytest", "nbval", "ipykernel"]


def _run(cmd: list[str], *, env: dict[str, str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_no_notebook_imports_myst_nb() -> None:
    """myst-nb is not installed outside a clone: a notebook glues through compendium.page.glue."""
    users = [str(nb.relative_to(ROOT)) for nb in sorted((ROOT / "notebooks").glob("*/*.ipynb"))
             if any("myst_nb" in "".join(c["source"]) for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]
                    if c["cell_type"] == "code")]
    assert users == []


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A fresh environment outside the clone with lib and compendium installed by a notebook's first cell."""
    base = tmp_path_factory.mktemp("outside-clone")
    assert not base.resolve().is_relative_to(ROOT)
    wheel, _ = release.wheels(base / "wheel")      # both distributions, as a release builds them
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SHAPLEY_BOOK_", "VIRTUAL_ENV", "PYTHON", "JUPYTER", "IPYTHON"))}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               SHAPLEY_BOOK_HOME=str(base / "home"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = base / "constraints.txt"     # requirements.txt's pins (its editable lines are no constraints)
    pins.write_text("".join(ln + "\n" for ln in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
                            if not ln.startswith("-")), encoding="utf-8")
    deps = _run([str(python), "-m", "pip", "install", "--quiet", "--no-compile", "-c", str(pins),
                 *project["dependencies"], *TOOLS], env=env, cwd=base)
    assert deps.returncode == 0, deps.stderr[-3000:]
    absent = _run([str(python), "-c", "import importlib.util as u; "
                   "print(u.find_spec('lib'), u.find_spec('compendium'), u.find_spec('myst_nb'))"], env=env, cwd=base)
    assert absent.stdout.split() == ["None", "None", "None"], absent.stdout + absent.stderr
    # 1. a notebook's first code cell installs lib and compendium where they are missing, from the folder of
    # the release's wheels that SHAPLEY_BOOK_LIB names
    cell = install_cell.source(ROOT)
    first = _run([str(python), "-c", cell], env={**env, install_cell.ENV_VAR: str(base / "wheel")}, cwd=base)
    assert first.returncode == 0, first.stdout + first.stderr
    where = _run([str(python), "-c", "import lib, compendium.data as d; print(lib.__file__); print(d.in_clone()); "
                  "print(d.REPO_ROOT); print(d.data_dir())"], env=env, cwd=base)
    assert where.returncode == 0, where.stderr
    lib_file, clone, book, cache = where.stdout.split("\n")[:4]
    assert Path(lib_file).is_relative_to(venv) and clone == "False"
    version = wheel.name.split("-")[1]                  # the wheel's version, setuptools-scm's of this checkout
    assert Path(book) == base / "home" / version and Path(cache) == base / "home" / "data"
    installed = _run([str(python), "-m", "pip", "list", "--format=freeze"], env=env, cwd=base).stdout
    assert f"shapley-book-lib=={version}" in installed and f"shapley-book-compendium=={version}" in installed
    # every package of lib/ and compendium/ is in the wheels (a subpackage missing fails only on import)
    shipped = _run([str(python), "-c", "import pkgutil, lib, compendium; print(*sorted(m.name for p in (lib, compendium) "
                    "for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.') if m.ispkg))"], env=env, cwd=base)
    packages = {".".join(p.parent.relative_to(ROOT).parts) for top in ("lib", "compendium")
                for p in (ROOT / top).rglob("__init__.py")}
    packages -= {"lib", "compendium"} | {p for p in packages if ".tests" in p or "._repository" in p}
    assert packages <= set(shipped.stdout.split()), (sorted(packages - set(shipped.stdout.split())), shipped.stderr)
    # ... and then does nothing, and prints nothing
    again = _run([str(python), "-c", cell], env={**env, install_cell.ENV_VAR: "no-such-package-is-installed"}, cwd=base)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    return {"base": base, "python": python, "env": env, "book": Path(book), "cache": Path(cache), "venv": venv}


#: every route out cut: a proxy on a port where nothing listens refuses every connection (pip, git, urllib)
CUT = {name: "http://127.0.0.1:9" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
                                                "https_proxy", "all_proxy")}


def _ipython(outside: dict[str, object], code: str, env: dict[str, str]) -> str:
    """Run ``code`` as a notebook cell (IPython shows an exception as a notebook does); stdout and stderr."""
    run = _run([str(outside["python"]), "-m", "IPython", "--no-banner", "--colors=NoColor", "-c", code],
               env={**outside["env"], **env}, cwd=outside["base"], timeout=600)
    return run.stdout + run.stderr


def test_the_install_cell_ends_in_its_message_when_the_release_is_cut_off(outside: dict[str, object]) -> None:
    """A fresh environment without lib, the network cut: the release's wheel and the repository at the commit
    cannot be reached, and the cell of a release's page stops with its message, no traceback."""
    venv = Path(str(outside["venv"]))
    assert _run([str(outside["python"]), "-m", "pip", "uninstall", "-y", "-q", "shapley-book-lib",
                 "shapley-book-compendium"], env=outside["env"], cwd=outside["base"]).returncode == 0
    try:
        commit = "0123456789abcdef0123456789abcdef01234567"
        cell = install_cell.fill(install_cell.source(ROOT, peers=True), "0.2.0", commit)
        out = _ipython(outside, cell, CUT)
        assert "Traceback" not in out and "Error" not in out.split("\n")[0], out[-3000:]
        lines = [ln for ln in out.splitlines() if ln.strip()]
        assert lines[0] == ("lib and compendium, the book's library and its machinery, are not installed here and "
                            "could not be installed:"), out
        assert lines[1].startswith("  the release v0.2.0: ") and lines[2].startswith(
            "  the repository at commit 0123456789ab: "), out
        assert lines[3].startswith("Two ways on: set SHAPLEY_BOOK_LIB to the wheels") and len(lines) == 4, out
        assert not list(venv.glob("lib/python*/site-packages/lib")) + list(venv.glob("lib/python*/site-packages/compendium"))
    finally:    # lib and compendium back, for the notebooks
        back = _run([str(outside["python"]), "-m", "pip", "install", "-q", "--no-deps",
                     *map(str, sorted((outside["base"] / "wheel").glob("*.whl")))], env=outside["env"], cwd=outside["base"])
        assert back.returncode == 0, back.stderr


def test_a_data_fetch_ends_in_its_message_when_the_source_is_cut_off(outside: dict[str, object],
                                                                     tmp_path: Path) -> None:
    """Outside a clone a missing data set is fetched from its source; cut off, the load stops with one message
    naming SHAPLEY_BOOK_DATA_MIRROR, and no traceback."""
    empty = tmp_path / "empty-cache"
    out = _ipython(outside, "import compendium.data as d\nX, y = d.load('lucas0')", {**CUT, "SHAPLEY_BOOK_DATA": str(empty)})
    assert "Traceback" not in out, out[-3000:]
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) == 2, out
    assert lines[0].startswith("compendium.data: the data set 'lucas0' is not in the data cache") and \
        "could not be fetched: lucas/lucas0_train.csv from " in lines[0], out
    assert lines[1].startswith("Two ways on: set SHAPLEY_BOOK_DATA_MIRROR") and "SHAPLEY_BOOK_DATA " in lines[1], out
    assert not any(empty.rglob("*.csv")), "a file was put in the cache"


def test_data_are_fetched_and_checked_outside_the_clone(outside: dict[str, object]) -> None:
    from compendium import data

    source = data.data_dir()
    if not (source / "lucas" / "lucas0_train.csv").is_file():
        pytest.fail(f"the data cache {source} is not filled: run `python -m compendium.data fetch all` first")
    env = {**outside["env"], data.MIRROR_VAR: source.as_uri()}
    python, base, cache = outside["python"], outside["base"], outside["cache"]
    load = _run([str(python), "-c", "import compendium.data as d; X, y = d.load('lucas0'); print(X.shape)"], env=env, cwd=base)
    assert load.returncode == 0, load.stderr
    assert "compendium.data: fetched  lucas/lucas0_train.csv (sha256 verified)" in load.stderr
    assert (cache / "lucas" / "lucas0_train.csv").read_bytes() == (source / "lucas" / "lucas0_train.csv").read_bytes()
    fetched = _run([str(python), "-m", "compendium.data", "fetch", "all"], env=env, cwd=base)
    assert fetched.returncode == 0, fetched.stdout[-2000:] + fetched.stderr[-2000:]
    check = _run([str(python), "-m", "compendium.data", "verify"], env=outside["env"], cwd=base)
    assert check.returncode == 0 and "FAIL" not in check.stdout, check.stdout[-2000:]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[Path(n).parent.name[:2] for n in NOTEBOOKS])
def test_a_notebook_of_each_chapter_passes_nbval_outside_the_clone(outside: dict[str, object], notebook: str) -> None:
    if not (outside["cache"] / "lucas" / "lucas0_train.csv").is_file():
        pytest.fail("the data cache outside the clone is empty: test_data_are_fetched_and_checked_outside_the_clone "
                    "fills it first (run the whole file)")
    source = ROOT / notebook
    folder = outside["base"] / "work" / source.parent.name
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / source.name
    copy.write_bytes(source.read_bytes())
    before = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True).stdout
    # a data folder of the reader's own, as the stored outputs were made with one (SHAPLEY_BOOK_DATA)
    env = {**outside["env"], "SHAPLEY_BOOK_DATA": str(outside["cache"])}
    # nbval reads a check's value at the level of rounding noise as one token, as in the clone (conftest.py)
    from compendium.page import NBVAL_SANITIZE

    (folder / "sanitize.cfg").write_text(NBVAL_SANITIZE, encoding="utf-8")
    run = _run([str(outside["python"]), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
                "--nbval-current-env", "--nbval-sanitize-with", str(folder / "sanitize.cfg"), str(copy)],
               env=env, cwd=folder)
    after = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True).stdout
    assert after == before, "running the notebook outside the clone changed files of the clone"
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert re.search(r"\d+ passed", run.stdout) and "failed" not in run.stdout
