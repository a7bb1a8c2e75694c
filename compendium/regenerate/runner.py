"""Running results: in place, or in a scratch copy of the repository whose files are then compared with the stored ones.

:func:`run_one` runs a result's command (a script with the engine options of
:mod:`compendium.parallel` when it takes them, a notebook through ``.ci/refresh-notebooks`` in place or
``jupyter execute`` in a scratch copy) and measures its CPU and wall seconds; :func:`check_one`
reruns it in the scratch copy made by :func:`make_scratch` and compares each of its files with the
stored one (:func:`compendium.regenerate.comparison.compare`). The scripts need no option for a scratch
copy: they write under the repository root of the ``compendium`` they import, and the scratch copy's
``lib`` and ``compendium`` are the ones imported there (``PYTHONPATH``). The state of every result run (status, CPU
seconds, commit) is kept in a JSON file of the scratch folder, so that a run stopped half way
resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compendium import data
from compendium.regenerate.comparison import compare
from compendium.regenerate.result import DERIVED, Result

__all__ = ["COPIED", "check_one", "environment", "head_commit", "load_state", "make_scratch", "results_table", "run_one",
           "save_state"]


def head_commit(root: Path) -> str:
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


COPIED = ("lib", "compendium", "scripts", "benchmarks", "notebooks", "data", "book/figures")


def make_scratch(root: Path, scratch: Path) -> Path:
    """A copy of the repository's code, notebooks and ``data/`` (stored results included) at ``scratch/repo``."""
    repo = scratch / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    for part in COPIED:
        if (root / part).exists():
            shutil.copytree(root / part, repo / part, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "*.pyc"))
    side = root / ".side-envs"
    side.mkdir(exist_ok=True)
    (repo / ".side-envs").symlink_to(side.resolve(), target_is_directory=True)
    return repo


def environment(where: Path, scratch: bool) -> dict[str, str]:
    """The environment a result runs in: one thread per process, the data cache, and in a scratch copy its
    ``lib`` and ``compendium`` first on the path."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    env[data.ENV_VAR] = str(data.data_dir().resolve())
    if scratch:
        env["PYTHONPATH"] = os.pathsep.join([str(where), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _engine_options(res: Result, args: argparse.Namespace) -> list[str]:
    if not res.engine:
        return []
    opts = []
    if args.n_jobs != 1:
        opts += ["--n-jobs", str(args.n_jobs)]
    if args.backend != "loky":
        opts += ["--backend", args.backend]
    if args.scheduler:
        opts += ["--scheduler", args.scheduler]
    if args.local_cluster:
        opts += ["--local-cluster", str(args.local_cluster)]
    return opts


def _argv(res: Result, args: argparse.Namespace, *, scratch: bool) -> list[str]:
    if res.kind == "notebook":
        if scratch:  # run, store nothing but the files it writes
            return [sys.executable, "-m", "jupyter", *res.command[1:]]
        return ["bash", ".ci/refresh-notebooks", res.command[-1]]  # the notebook's stored outputs too
    return [sys.executable, *res.command, *_engine_options(res, args)]


def run_one(res: Result, where: Path, log: Path, args: argparse.Namespace, *,
            scratch: bool) -> tuple[int, float, float]:
    """Run a result's command in ``where``; its exit code, CPU-seconds and wall seconds."""
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with log.open("w") as out:
        child = subprocess.Popen(_argv(res, args, scratch=scratch), cwd=where, env=environment(where, scratch),
                                 stdout=out, stderr=subprocess.STDOUT)
        # the child's own resource use (its processes waited for included), not the whole run's children:
        # several results may run at once (--at-once)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, usage.ru_utime + usage.ru_stime, time.perf_counter() - start


def check_one(res: Result, root: Path, repo: Path, log: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Regenerate ``res`` in the scratch copy ``repo`` and compare its outputs with the stored ones in ``root``."""
    for o in res.outputs:
        (repo / DERIVED / o).unlink(missing_ok=True)
    code, cpu, wall = run_one(res, repo, log, args, scratch=True)
    comparisons = {o: compare(root / DERIVED / o, repo / DERIVED / o, res.variable) for o in res.outputs}
    for o in res.outputs:  # the others are checked against the stored files, not against this run
        target = repo / DERIVED / o
        target.parent.mkdir(parents=True, exist_ok=True)
        if (root / DERIVED / o).is_file():
            shutil.copy2(root / DERIVED / o, target)
    if code != 0:
        status, detail = "failed", f"exit code {code}; see {log}"
    else:
        worst = next((c for c in comparisons.values() if not c.ok), None)
        if worst is not None:
            status = worst.status
            detail = "; ".join(c.detail for c in comparisons.values() if not c.ok)
        elif any(c.status == "within tolerance" for c in comparisons.values()):
            status = "within tolerance"
            detail = "; ".join(c.detail for c in comparisons.values() if c.status == "within tolerance")
        else:
            status, detail = "identical", ""
    return {"status": status, "detail": detail, "cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1),
            "files": len(res.outputs)}


def load_state(path: Path) -> dict[str, Any]:
    if path.is_file():
        return json.loads(path.read_text())
    return {}


def save_state(path: Path, state: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def results_table(rows: Sequence[tuple[str, str, float, float, str]]) -> str:
    width = max([len("result")] + [len(r[0]) for r in rows])
    lines = [f"{'result':<{width}}  {'status':<16}  {'CPU s':>8}  {'wall s':>8}  detail"]
    for name, status, cpu, wall, detail in rows:
        lines.append(f"{name:<{width}}  {status:<16}  {cpu:>8.1f}  {wall:>8.1f}  {detail}")
    return "\n".join(lines)

