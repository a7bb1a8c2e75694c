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
``python -m compendium.data list``
    Every data set, its size and whether its files are in the cache.
``python -m compendium.data verify [NAME ...]``
    Check the sha256 of every file (of all data sets, or of those named); the
    exit status is 1 if any file is missing or corrupted.
``python -m compendium.data fetch NAME [NAME ...]``
    Download the missing files of the data sets named into the cache (needs a
    network, as on Binder), from the exact sources of the manifest's
    ``downloads`` section, and verify them before they are put in place
    (:func:`fetch`). ``fetch all`` fetches every data set. Binder runs
    ``fetch all`` when it builds the image (``postBuild`` at the repository root).

Outside a clone
---------------
Installed from its wheel, away from the repository (a notebook run in Colab or downloaded), ``lib``
keeps the book's files in ``$SHAPLEY_BOOK_HOME`` (default ``~/shapley-book``): the stored results and
the manifest, copied from the package, in a folder per version that stands in for the repository
(:data:`REPO_ROOT`), and the data cache in ``data/`` beside them; a loader fetches a missing data set
from its exact source and checks it before use (:func:`verify`).

Mirror
------
If the environment variable ``SHAPLEY_BOOK_DATA_MIRROR`` holds a URL
(``http://``, ``https://`` or ``file://``), :func:`fetch` downloads every file
from ``<mirror>/<path in the cache>`` instead of its manifest source: a mirror
is a copy of a filled cache served as it is (for instance
``python -m http.server`` in a folder that has the data). Everything else is
unchanged: the manifest's sha256 is checked before a file is put in place, at
the same path of the cache.

The package, one concept per module (every name below is also a name of ``compendium.data``):

``cache``
    The cache folder (:func:`data_dir`), the manifest (:func:`manifest`, :func:`names`,
    :func:`info`), the sha256 of a file (:func:`sha256`) and the errors; where the book's
    folders are, in a clone or outside one (:func:`in_clone`, :func:`book_root`, :func:`home`).
``fetching``
    Filling the cache from the exact sources or a mirror (:func:`fetch`, :func:`mirror`), and the
    check of a data set's files (:func:`verify`: their sha256, a missing one fetched outside a clone).
``parsing``
    Typed frames from the files (:func:`read_kdic`).
``nb_paper``, ``lucas``, ``keel``, ``bundled``
    One loader per source: the naive Bayes paper's ten data sets in their Khiops form, LUCAS0,
    the KEEL sets, and those that need no file (scikit-learn's iris and digits, a generated
    twonorm, :func:`make_twonorm`).
``loaders``
    Any data set by name (:func:`load`) and its summary (:func:`profile`).
``cli``
    The command line (:func:`main`, ``python -m compendium.data``).
"""

from __future__ import annotations

from compendium.data.bundled import TWONORM_A, load_digits, load_iris, load_twonorm_generated, make_twonorm
from compendium.data.cache import (
    DEFAULT_DATA_DIR,
    ENV_VAR,
    MANIFEST_PATH,
    REPO_ROOT,
    ChecksumError,
    DataFileNotFoundError,
    UnknownDatasetError,
    HOME_VAR,
    book_root,
    data_dir,
    file_path,
    home,
    in_clone,
    info,
    manifest,
    names,
    sha256,
)
from compendium.data.cli import main
from compendium.data.fetching import MIRROR_VAR, fetch, mirror, verify
from compendium.data.keel import load_keel
from compendium.data.loaders import load, profile
from compendium.data.lucas import load_lucas0
from compendium.data.nb_paper import (
    load_adult,
    load_breast_wisconsin,
    load_cervical,
    load_crx,
    load_german_numeric,
    load_ionosphere,
    load_spambase,
    load_telco,
    load_tic_tac_toe,
    load_twonorm,
)
from compendium.data.parsing import read_kdic

__all__ = [
    "REPO_ROOT",
    "DEFAULT_DATA_DIR",
    "MANIFEST_PATH",
    "TWONORM_A",
    "ENV_VAR",
    "HOME_VAR",
    "MIRROR_VAR",
    "ChecksumError",
    "DataFileNotFoundError",
    "UnknownDatasetError",
    "data_dir",
    "book_root",
    "home",
    "in_clone",
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
