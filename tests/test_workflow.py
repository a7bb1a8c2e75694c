"""The GitHub Actions workflow: valid against GitHub's schema, and it does what README says.

`check-jsonschema` carries GitHub's workflow schema (``vendor.github-workflows``), so the
check runs offline.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def test_workflow_is_valid_against_githubs_schema() -> None:
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    run = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_workflow_runs_ci_and_publishes_the_built_book() -> None:
    wf = yaml.safe_load(WORKFLOW.read_text())
    jobs = wf["jobs"]
    build = jobs["test-and-build"]
    steps = build["steps"]
    assert any(s.get("run") == ".ci/run" for s in steps), "the workflow must run the project's CI script"
    upload = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-pages-artifact@")]
    assert upload and upload[0]["with"]["path"] == "book/_build/html"
    deploy = jobs["deploy"]
    assert deploy["needs"] == "test-and-build"
    assert any(str(s.get("uses", "")).startswith("actions/deploy-pages@") for s in deploy["steps"])
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    # .ci/run reads the data from ../shared/data beside the clone: the checkout goes into a
    # folder with `shared/` beside it, as on the development machines.
    assert steps[0]["with"]["path"] == "book"
    assert build["timeout-minutes"] <= 90
