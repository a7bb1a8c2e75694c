"""The command line of :mod:`compendium.data`: ``python -m compendium.data list | verify [NAME ...] | fetch NAME ... | fetch all``."""

from __future__ import annotations

import argparse
import subprocess
import sys
import urllib.error
from collections.abc import Sequence

from compendium.data.cache import (
    ENV_VAR,
    ChecksumError,
    DataFileNotFoundError,
    UnknownDatasetError,
    data_dir,
    dataset_entry,
    names,
)
from compendium.data.fetching import MIRROR_VAR, fetch, mirror, verify

__all__ = ["main"]


def _status(name: str) -> str:
    files = dataset_entry(name).get("files", [])
    if not files:
        return dataset_entry(name)["source"]
    present = [(data_dir() / f["path"]).is_file() for f in files]
    if all(present):
        return "present"
    return "absent" if not any(present) else "partial"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``python -m compendium.data``).

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
        prog="python -m compendium.data",
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
                    f"data/MANIFEST.yaml), then run `python -m compendium.data verify`.",
                    file=sys.stderr,
                )
                return 1
            except (DataFileNotFoundError, ChecksumError, OSError) as exc:
                print(f"FAIL  {n}: {exc}", file=sys.stderr)
                return 1
            nfiles = len(dataset_entry(n).get("files", []))
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
            e = dataset_entry(n)
            print(f"{n:<{width}}  {e['rows']:>6} rows  {e['columns']:>3} cols  {_status(n)}")
        return 0

    todo = args.names or names()
    failed = 0
    for n in todo:
        try:
            verify(n, fetch_missing=False)
        except UnknownDatasetError as exc:
            print(f"ERROR  {exc}", file=sys.stderr)
            return 2
        except (DataFileNotFoundError, ChecksumError) as exc:
            failed += 1
            print(f"FAIL  {n}: {exc}")
        else:
            nfiles = len(dataset_entry(n).get("files", []))
            print(f"ok    {n} ({nfiles} file{'s' if nfiles != 1 else ''})")
    return 1 if failed else 0
