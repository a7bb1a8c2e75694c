"""The data cache: where it is, the manifest of what it holds, and the sha256 of every file; and where
the book's folders are, in a clone of its repository or outside one.

``data/MANIFEST.yaml`` names every data set (its group, size, files with their sha256, source,
licence); the cache folder (:func:`data_dir`: ``$SHAPLEY_BOOK_DATA``, by default
``data/external/``) holds the files at the paths the manifest gives. :func:`verify` checks a data
set's files against their digests and says, when one is missing, where it was expected, where it
comes from and the command that fetches it.

**Outside a clone.** ``lib`` installed from its wheel (a notebook downloaded or opened in Colab,
whose first cell installs it) has no repository around it. :data:`REPO_ROOT` is then the *book
folder* :func:`book_root`, ``$SHAPLEY_BOOK_HOME/<version>`` (by default ``~/shapley-book/<version>``),
laid out like the repository: ``data/MANIFEST.yaml`` and the stored results of ``data/derived/``,
copied there once from the package (the wheel carries them), and what the notebooks write
(``data/derived/`` through :func:`compendium.stable.write_derived`, ``book/figures/`` through
:func:`compendium.plotting.save_figure`). The data cache is then ``$SHAPLEY_BOOK_HOME/data`` unless
``SHAPLEY_BOOK_DATA`` names another folder, shared by every version, and a data set missing from it
is fetched from its exact source and checked when a notebook loads it (:func:`verify`), since no
README command has filled it.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "DEFAULT_DATA_DIR",
    "ENV_VAR",
    "HOME_VAR",
    "MANIFEST_PATH",
    "REPO_ROOT",
    "ChecksumError",
    "DataFileNotFoundError",
    "UnknownDatasetError",
    "book_root",
    "data_dir",
    "download_text",
    "downloads",
    "dataset_entry",
    "file_path",
    "home",
    "in_clone",
    "info",
    "manifest",
    "missing_message",
    "names",
    "sha256",
]

#: Name of the environment variable that points at the data cache.
ENV_VAR = "SHAPLEY_BOOK_DATA"

#: Name of the environment variable that names the folder of the book's files outside a clone.
HOME_VAR = "SHAPLEY_BOOK_HOME"

#: The parent of the ``lib`` package folder: in a clone of the book's repository, its root.
_PACKAGE_PARENT = Path(__file__).resolve().parents[2]

#: What the wheel carries of the repository (``setup.py`` copies ``data/MANIFEST.yaml`` and
#: ``data/derived/`` there when it builds the package); absent in a clone.
_CARRIED = Path(__file__).resolve().parents[1] / "_repository"


def in_clone() -> bool:
    """Whether ``lib`` is imported from a clone of the book's repository (its ``data/MANIFEST.yaml`` beside it)."""
    return (_PACKAGE_PARENT / "data" / "MANIFEST.yaml").is_file()


def home() -> Path:
    """``$SHAPLEY_BOOK_HOME`` (``~`` expanded), else ``~/shapley-book``: the book's files outside a clone."""
    value = os.environ.get(HOME_VAR, "").strip()
    return (Path(value).expanduser() if value else Path.home() / "shapley-book").resolve()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("shapley-book-lib")
    except PackageNotFoundError:
        return "unknown"


def book_root() -> Path:
    """The book's folder: in a clone, the repository's root; outside one, ``<home>/<version>``.

    Outside a clone the folder is made on the first call, with ``data/MANIFEST.yaml`` and the stored
    results of ``data/derived/`` copied from the package (a file already there is kept: it may be
    one a notebook wrote), so that the code that reads and writes under the repository's root works
    unchanged.
    """
    if in_clone():
        return _PACKAGE_PARENT
    root = home() / _version()
    stamp = root / ".copied-from-package"
    if not stamp.is_file() and _CARRIED.is_dir():
        try:
            for source in sorted(_CARRIED.rglob("*")):
                target = root / source.relative_to(_CARRIED)
                if source.is_file() and not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, target)
            stamp.write_text("data/MANIFEST.yaml and data/derived/ copied from the package lib\n", encoding="utf-8")
        except OSError as err:
            raise OSError(f"lib: cannot set up the book's folder {root} outside a clone ({err}); point "
                          f"{HOME_VAR} at a writable folder") from err
    return root


#: Repository root: the parent of the ``lib`` package folder (not the cwd) in a clone; outside one,
#: the book folder that stands in for it (:func:`book_root`).
REPO_ROOT = book_root()

#: The machine-readable manifest of every data set.
MANIFEST_PATH = REPO_ROOT / "data" / "MANIFEST.yaml"

#: Default cache folder when ``SHAPLEY_BOOK_DATA`` is unset or empty: ``data/external/`` in a clone,
#: ``$SHAPLEY_BOOK_HOME/data`` outside one (every version shares it).
DEFAULT_DATA_DIR = REPO_ROOT / "data" / "external" if in_clone() else home() / "data"


# --------------------------------------------------------------------------- errors
class DataFileNotFoundError(FileNotFoundError):
    """A data file listed in the manifest is not in the cache folder.

    In a notebook (IPython, Jupyter, Binder) it is shown as its message alone,
    without a traceback: the message says what is missing, where it comes from
    and the command that fetches it.
    """

    def _render_traceback_(self) -> list[str]:  # called by IPython instead of a traceback
        return [f"{type(self).__name__}: the data this cell needs is not in the data cache.", *str(self).splitlines()]


class ChecksumError(ValueError):
    """A data file in the cache does not have the sha256 digest of the manifest."""


class UnknownDatasetError(KeyError, ValueError):
    """The data-set name is not in the manifest.

    It is both a :class:`KeyError` and a :class:`ValueError`, so that either
    ``except`` clause catches it.
    """

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0]) if self.args else ""


# --------------------------------------------------------------------------- cache and manifest
def data_dir() -> Path:
    """Return the data cache folder.

    Returns
    -------
    pathlib.Path
        ``$SHAPLEY_BOOK_DATA`` if that variable is set and not empty (``~`` is
        expanded; a relative path is taken relative to the **repository root**,
        wherever the code runs: the README's commands are typed there, and a
        notebook's kernel, which starts in the notebook's own folder, then finds the
        same cache), else ``<repository>/data/external``. The folder is not created
        and need not exist.
    """
    value = os.environ.get(ENV_VAR, "").strip()
    if value:
        path = Path(value).expanduser()
        return path if path.is_absolute() else (REPO_ROOT / path).resolve()
    return DEFAULT_DATA_DIR


@functools.cache
def _manifest() -> dict[str, Any]:
    with MANIFEST_PATH.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def downloads() -> dict[str, Any]:
    """The manifest's ``downloads`` section (not a copy): cache path -> its exact source."""
    return _manifest().get("downloads", {})


def manifest() -> dict[str, Any]:
    """Return the parsed ``data/MANIFEST.yaml``.

    Returns
    -------
    dict
        A fresh deep copy (mutating it does not affect later calls). The key
        ``"datasets"`` maps each data-set name to its entry.
    """
    return copy.deepcopy(_manifest())


def names(group: str | None = None) -> list[str]:
    """Return the data-set names, in manifest order.

    Parameters
    ----------
    group : str, optional
        Keep only the data sets of this group: ``"naive-bayes-paper"``,
        ``"causal"``, ``"keel"``, ``"scikit-learn"`` or ``"generated"``.

    Returns
    -------
    list of str
    """
    sets = _manifest()["datasets"]
    return [n for n, e in sets.items() if group is None or e["group"] == group]


def dataset_entry(name: str) -> dict[str, Any]:
    """The manifest entry of a data set (not a copy: read it, do not change it); see :func:`info`."""
    sets = _manifest()["datasets"]
    if not isinstance(name, str) or name not in sets:
        raise UnknownDatasetError(
            f"unknown data set {name!r}; known data sets: {', '.join(sets)}"
        )
    return sets[name]


def info(name: str) -> dict[str, Any]:
    """Return (a copy of) the manifest entry of one data set.

    Parameters
    ----------
    name : str
        A name from :func:`names`.

    Returns
    -------
    dict

    Raises
    ------
    UnknownDatasetError
        If ``name`` is not in the manifest (the message lists the known names).
    """
    return copy.deepcopy(dataset_entry(name))


def file_path(name: str, role: str = "data") -> Path:
    """Return the cache path of the first file of a data set with a given role.

    Parameters
    ----------
    name : str
        Data-set name.
    role : str, default ``"data"``
        ``"data"``, ``"dictionary"`` (Khiops ``.kdic``) or ``"documentation"``.

    Returns
    -------
    pathlib.Path
        The path inside :func:`data_dir`; the file is not checked.
    """
    for f in dataset_entry(name).get("files", []):
        if f["role"] == role:
            return data_dir() / f["path"]
    raise KeyError(f"data set {name!r} has no file with role {role!r}")


def sha256(path: str | os.PathLike[str]) -> str:
    """Return the hexadecimal sha256 digest of a file.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    str
        64 lowercase hexadecimal digits.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def missing_message(name: str, entry: dict[str, Any], rel: str, root: Path) -> str:
    return (
        f"data set {name!r}: file {rel!r} is not in the data cache.\n"
        f"  expected at: {root / rel}\n"
        f"  cache folder: {root} "
        f"(set by the environment variable {ENV_VAR}; default <repository>/data/external)\n"
        f"  canonical source: {entry['url']}\n"
        f"  exact file: {download_text(rel)}\n"
        f"What to do: run `python -m compendium.data fetch {name}` (in a terminal, or `!python -m compendium.data "
        f"fetch {name}` in a notebook cell), which downloads the file from that source and checks "
        f"its sha256 before putting it in the cache; or download it yourself (see data/README.md and "
        f"data/MANIFEST.yaml for its exact provenance and sha256), put it at {rel!r} inside the cache "
        f"folder, or point {ENV_VAR} at a folder that holds it, then run "
        f"`python -m compendium.data verify {name}`."
    )


def download_text(rel: str) -> str:
    """Where the file ``rel`` of the cache is downloaded from, in words."""
    source = _manifest().get("downloads", {}).get(rel)
    if source is None:
        return "no direct download is recorded; see the canonical source"
    if "url" in source:
        return source["url"]
    return f"member {source['member']} of the PyPI package {source['wheel']}"

