"""Binder's build step (``postBuild``) fills the data cache, tested without a network.

Binder (repo2docker) runs ``postBuild`` at the repository root after installing
``environment.yml``. Here the real script runs the real ``python -m compendium.data fetch all``
against a local HTTP server (``http.server`` on 127.0.0.1) that serves a filled data cache:
``SHAPLEY_BOOK_DATA_MIRROR`` points the fetch code at it. The download code, the sha256
checks against ``data/MANIFEST.yaml`` and the cache layout are the real ones; only the
address differs.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from compendium import data

ROOT = Path(__file__).resolve().parent.parent
POSTBUILD = ROOT / "postBuild"


class _Server:
    """A local HTTP server of one folder that records the paths it was asked for."""

    def __init__(self, folder: Path) -> None:
        self.requests: list[str] = []
        requests = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
                requests.append(f"{self.command} {self.path} {args[1] if len(args) > 1 else ''}".strip())

        handler = functools.partial(Handler, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@contextmanager
def _serve(folder: Path) -> Iterator[_Server]:
    server = _Server(folder)
    try:
        yield server
    finally:
        server.close()


def _env(cache: Path, mirror: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    env[data.ENV_VAR] = str(cache)
    env[data.MIRROR_VAR] = mirror
    # `python` in postBuild is this environment's interpreter, as on Binder
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _files() -> dict[str, str]:
    """Every file of the manifest and its sha256 (read from data/MANIFEST.yaml, not from the code)."""
    import yaml

    manifest = yaml.safe_load((ROOT / "data" / "MANIFEST.yaml").read_text(encoding="utf-8"))
    return {f["path"]: f["sha256"] for entry in manifest["datasets"].values() for f in entry.get("files", [])}


@pytest.fixture(scope="module")
def source() -> Path:
    """The filled data cache the tests run with; it is what the local server serves."""
    folder = data.data_dir()
    missing = [rel for rel in _files() if not (folder / rel).is_file()]
    assert not missing, f"the data cache {folder} lacks {missing[:3]}...: run `python -m compendium.data fetch all` first"
    return folder


def test_postbuild_is_where_binder_runs_it() -> None:
    assert POSTBUILD.is_file() and os.access(POSTBUILD, os.X_OK)
    assert (ROOT / "environment.yml").is_file()
    # repo2docker ignores the root's configuration files when a binder/ or .binder/ folder exists
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()
    assert "python -m compendium.data fetch all" in POSTBUILD.read_text(encoding="utf-8")


def test_postbuild_fills_an_empty_cache_from_a_local_server(source: Path, tmp_path: Path) -> None:
    files = _files()
    assert len(files) > 40
    cache = tmp_path / "cache"
    with _serve(source) as server:
        run = subprocess.run(["bash", str(POSTBUILD)], cwd=ROOT, env=_env(cache, server.url),
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
        first = list(server.requests)
        again = subprocess.run(["bash", str(POSTBUILD)], cwd=ROOT, env=_env(cache, server.url),
                               capture_output=True, text=True, timeout=600)
        assert again.returncode == 0, again.stdout + again.stderr
        assert server.requests == first, "a second run downloaded files already in the cache"

    # every file of the manifest came over HTTP, once, at its cache path, and nothing else was asked for
    assert sorted(first) == sorted(f"GET /{rel} 200" for rel in files)
    # ...and sits in the cache at the manifest's path with the manifest's sha256
    written = sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())
    assert written == sorted(files)
    for rel, digest in files.items():
        assert hashlib.sha256((cache / rel).read_bytes()).hexdigest() == digest, rel
    assert f"mirror: {server.url}" in run.stdout
    assert f"data cache complete: 0 file(s) already present and verified, {len(files)} fetched" in run.stdout
    assert f"data cache complete: {len(files)} file(s) already present and verified, 0 fetched" in again.stdout
    # and `python -m compendium.data verify`, which the loaders' checks share, accepts the whole cache
    check = subprocess.run([sys.executable, "-m", "compendium.data", "verify"], cwd=ROOT, env=_env(cache, ""),
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and "FAIL" not in check.stdout, check.stdout


def test_a_corrupted_file_on_the_server_is_refused(source: Path, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    rel = "lucas/lucas0_train.csv"
    (mirror / "lucas").mkdir(parents=True)
    payload = bytearray((source / rel).read_bytes())
    payload[100] ^= 1
    (mirror / rel).write_bytes(bytes(payload))
    cache = tmp_path / "cache"
    with _serve(mirror) as server:
        run = subprocess.run([sys.executable, "-m", "compendium.data", "fetch", "lucas0"], cwd=ROOT,
                             env=_env(cache, server.url), capture_output=True, text=True, timeout=120)
    assert server.requests == [f"GET /{rel} 200"]
    assert run.returncode == 1
    assert "sha256" in run.stderr and rel in run.stderr and "nothing was put in the cache" in run.stderr
    assert not (cache / rel).exists()


def test_a_file_missing_on_the_server_is_a_clear_failure(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with _serve(tmp_path / "empty") as server:
        run = subprocess.run([sys.executable, "-m", "compendium.data", "fetch", "crx"], cwd=ROOT,
                             env=_env(tmp_path / "cache", server.url), capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert f"FAIL  crx: cannot download {server.url}crx/" in run.stderr and "HTTP 404" in run.stderr
    assert not (tmp_path / "cache" / "crx").exists()


@pytest.mark.parametrize("value", ["127.0.0.1:8000", "ftp://example.org/data", "http://"])
def test_a_mirror_that_is_not_a_url_is_refused(value: str, tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "compendium.data", "fetch", "crx"], cwd=ROOT,
                         env=_env(tmp_path, value), capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert data.MIRROR_VAR in run.stderr and "not a URL" in run.stderr
    assert not any(tmp_path.iterdir())


def test_without_a_mirror_the_manifest_sources_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(data.MIRROR_VAR, raising=False)
    assert data.mirror() is None
    monkeypatch.setenv(data.MIRROR_VAR, "http://127.0.0.1:1/data")
    assert data.mirror() == "http://127.0.0.1:1/data/"
