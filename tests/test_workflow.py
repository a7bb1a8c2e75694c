"""The GitHub Actions workflows: valid against GitHub's schema, and they do what README says.

`check-jsonschema` carries GitHub's workflow schema (``vendor.github-workflows``), so the
check runs offline.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"
RELEASE = ROOT / ".github" / "workflows" / "release.yml"


@pytest.mark.parametrize("workflow", [WORKFLOW, RELEASE], ids=["book", "release"])
def test_workflow_is_valid_against_githubs_schema(workflow: Path) -> None:
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    run = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(workflow)],
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
    assert deploy["needs"] == ["test-and-build", "lib-on-newer-pythons"]
    # lib's tests on the newer Pythons: a job of their own (the book's Debian image has no pyenv), the same
    # script .ci/run runs where pyenv's interpreters are, with the tags setuptools-scm's version counts from
    newer = jobs["lib-on-newer-pythons"]
    assert newer["strategy"]["matrix"]["python"] == ["3.12", "3.13"]
    assert newer["steps"][-1]["run"] == ".ci/lib-tests ${{ matrix.python }}"
    assert newer["steps"][0]["with"]["fetch-depth"] == 0 and steps[0]["with"]["fetch-depth"] == 0
    ci = next(s for s in steps if s.get("run") == ".ci/run")
    assert ci["env"]["LIB_TEST_PYTHONS"] == ""
    assert any(str(s.get("uses", "")).startswith("actions/deploy-pages@") for s in deploy["steps"])
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    # .ci/run reads the data from ../shared/data beside the clone: the checkout goes into a
    # folder with `shared/` beside it, as on the development machines.
    assert steps[0]["with"]["path"] == "book"
    assert build["timeout-minutes"] <= 90


def test_a_version_tag_runs_ci_then_builds_and_publishes_the_release() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import release

    wf = yaml.safe_load(RELEASE.read_text())
    on = wf.get("on", wf.get(True))                        # YAML 1.1 reads the key `on` as True
    assert on == {"push": {"tags": ["v*"]}}, "the release runs on a version tag, and only then"
    assert wf["permissions"] == {"contents": "read"}
    (name, job), = wf["jobs"].items()
    assert job["permissions"] == {"contents": "write"}     # to publish the release, nothing more
    steps = job["steps"]
    runs = [str(s.get("run", "")) for s in steps]
    ci = runs.index(".ci/run")
    bundle = next(i for i, r in enumerate(runs) if "tools/release.py --reuse-build" in r)
    assert ci < bundle, "the bundle is built after .ci/run's checks, from the book and PDF they built"
    assert '--check-tag "$TAG"' in runs[bundle] and steps[bundle]["env"] == {"TAG": "${{ github.ref_name }}"}
    out = runs[bundle].split("--out", 1)[1].split()[0]
    publish = [s for s in steps if str(s.get("uses", "")).startswith("softprops/action-gh-release@")]
    assert len(publish) == 1 and steps.index(publish[0]) > bundle
    assert publish[0]["with"]["files"] == f"book/{out}/{release.ASSETS}/*"
    assert publish[0]["with"]["fail_on_unmatched_files"] is True
    # as book.yml: the checkout in book/ with the data cache beside it, git allowed to read it, in time
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["path"] == "book"
    assert any("safe.directory" in r for r in runs[:ci])
    book = yaml.safe_load(WORKFLOW.read_text())["jobs"]["test-and-build"]
    assert job["container"] == book["container"]
    cache = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
    assert cache and cache[0]["with"] == [s for s in book["steps"] if str(s.get("uses", "")).startswith(
        "actions/cache@")][0]["with"]
    assert job["timeout-minutes"] <= 120
