"""The scripts' units on a real Dask cluster give the bytes of the serial run.

Two scripts run as a user runs them, from the command line, once serially and once on a
``distributed.LocalCluster`` of two worker processes: ``scripts/nb_table1_cv.py`` (two data
sets, three folds) with ``--local-cluster 2``, which starts the cluster itself, and
``scripts/nb_table3_kernelshap.py`` (KRFCC, two seeds, 40 rows) with ``--scheduler`` pointed
at a cluster this test starts, whose scheduler must then have run the units. Each runs in a
copy of the repository's code under a temporary folder, so the stored results are not
touched. Dask is an optional extra (``requirements-cluster.txt``): without it these tests are
skipped (CI installs it); Khiops is required as in test_khiops_nb.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lib import khiops_nb as kn
from compendium.data import REPO_ROOT, data_dir

distributed = pytest.importorskip("distributed", reason="Dask is optional: pip install -r requirements-cluster.txt")


def _sandbox(root: Path) -> dict[str, str]:
    """Copy the code and the data manifest to ``root``; the environment that runs a script there."""
    if not kn.khiops_available():
        pytest.fail("khiops is not installed: `pip install khiops` (the CI installs it)", pytrace=False)
    for package in ("lib", "compendium"):
        shutil.copytree(REPO_ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    shutil.copytree(REPO_ROOT / "scripts", root / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "data").mkdir()
    shutil.copy2(REPO_ROOT / "data" / "MANIFEST.yaml", root / "data" / "MANIFEST.yaml")
    env = dict(os.environ, PYTHONPATH=str(root), SHAPLEY_BOOK_DATA=str(data_dir().resolve()))
    return env


def _run(root: Path, env: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_table1_cv_on_a_local_cluster_writes_the_serial_bytes(tmp_path: Path) -> None:
    env = _sandbox(tmp_path)
    cmd = ["scripts/nb_table1_cv.py", "--datasets", "tic-tac-toe", "ionosphere", "--folds", "3", "--force"]
    derived = tmp_path / "data" / "derived"
    _run(tmp_path, env, *cmd)
    serial = _files(derived)
    shutil.rmtree(derived)
    _run(tmp_path, env, *cmd, "--local-cluster", "2")
    cluster = _files(derived)
    assert sorted(serial) == ["nb-table1-cv.csv", "nb-table1-cv/ionosphere.csv", "nb-table1-cv/tic-tac-toe.csv"]
    assert cluster == serial
    # one unit as compendium.regenerate runs it (--no-gather): its own file, the same bytes, and no gathered file
    shutil.rmtree(derived)
    _run(tmp_path, env, "scripts/nb_table1_cv.py", "--datasets", "tic-tac-toe", "--folds", "3", "--force", "--no-gather")
    assert _files(derived) == {"nb-table1-cv/tic-tac-toe.csv": serial["nb-table1-cv/tic-tac-toe.csv"]}


def test_table3_on_a_running_scheduler_writes_the_serial_bytes(tmp_path: Path) -> None:
    env = _sandbox(tmp_path)
    cmd = ["scripts/nb_table3_kernelshap.py", "--datasets", "cervical", "--rows", "40", "--seeds", "1", "2",
           "--no-gather"]
    _run(tmp_path, env, *cmd, "--out-dir", "serial")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        _run(tmp_path, env, *cmd, "--out-dir", "cluster", "--scheduler", cluster.scheduler_address)
        # joblib's tasks (batches of run_units' calls) and the seconds the workers computed them
        ran = {name: tp.all_durations.get("compute", 0.0) for name, tp in cluster.scheduler.task_prefixes.items()}
    assert any("_indexed" in name and seconds > 0 for name, seconds in ran.items()), f"no unit ran there: {ran}"
    serial, parallel = _files(tmp_path / "serial"), _files(tmp_path / "cluster")
    assert sorted(serial) == sorted(parallel) == [f"seed-{s}/cervical.{x}" for s in (1, 2) for x in ("csv", "json")]
    for name in serial:
        if name.endswith(".csv"):
            assert parallel[name] == serial[name], name
        else:  # the summary holds wall-clock times, the only values a rerun changes
            a, b = json.loads(serial[name]), json.loads(parallel[name])
            for timing in ("seconds", "seconds per explained row"):
                a.pop(timing), b.pop(timing)
            assert a == b, name
    assert serial["seed-1/cervical.csv"] != serial["seed-2/cervical.csv"]  # the seed matters


def test_cluster_options_are_exclusive_and_a_dead_scheduler_is_named(tmp_path: Path) -> None:
    env = _sandbox(tmp_path)
    base = [sys.executable, "scripts/nb_table1_cv.py", "--datasets", "crx", "--force"]
    both = subprocess.run([*base, "--local-cluster", "2", "--scheduler", "tcp://127.0.0.1:1"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    zero = subprocess.run([*base, "--local-cluster", "0"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert zero.returncode == 2 and "at least one worker" in zero.stderr
    dead = subprocess.run([*base, "--scheduler", "tcp://127.0.0.1:9"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert dead.returncode != 0 and "--scheduler tcp://127.0.0.1:9: no Dask scheduler answers" in dead.stderr
    assert not (tmp_path / "data" / "derived" / "nb-table1-cv" / "crx.csv").exists()
