"""``codecheck.yml`` lists every output the book stores with its sha256 and the command that makes it
(issue 49, item 5; :mod:`compendium.regenerate.codecheck`), and agrees with the files: a file that drifts from
its digest, an output missing from the list or listed and gone fails here (and in ``.ci/run``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from compendium.data import REPO_ROOT
from compendium.regenerate import codecheck
from compendium.regenerate.figures import stored_figures
from compendium.regenerate.registry import REGISTRY


def test_codecheck_yml_lists_every_output_as_stored() -> None:
    assert codecheck.drift() == [], "run python -m compendium.regenerate --write-codecheck (or regenerate the file)"
    config = yaml.safe_load((REPO_ROOT / codecheck.FILE).read_text(encoding="utf-8"))
    assert (REPO_ROOT / codecheck.FILE).read_text(encoding="utf-8").startswith("---\n")   # CODECHECK: explicit document
    assert config["version"] == codecheck.SPEC and config["paper"]["title"] and config["paper"]["authors"]
    files = [item["file"] for item in config["manifest"]]
    figures = {f"book/figures/{name}{suffix}" for name in stored_figures(REPO_ROOT) for suffix in (".png", ".svg")}
    results = {f"data/derived/{out}" for res in REGISTRY for out in res.outputs}
    assert len(files) == len(set(files)) and set(files) == figures | results
    for item in config["manifest"]:
        assert not Path(item["file"]).is_absolute() and item["comment"] and item["command"] and item["check"]
    # the digests are the files' own, computed here independently of the module
    sample = [item for item in config["manifest"]][:: max(1, len(files) // 25)]
    for item in sample:
        assert hashlib.sha256((REPO_ROOT / item["file"]).read_bytes()).hexdigest() == item["sha256"], item["file"]


def test_a_drifted_file_a_missing_output_and_a_stale_one_are_named(tmp_path: Path) -> None:
    # the repository's files seen through links; only codecheck.yml is the scratch copy's own
    for name in ("book", "notebooks", "data", "CITATION.cff"):
        (tmp_path / name).symlink_to(REPO_ROOT / name)
    config = yaml.safe_load((REPO_ROOT / codecheck.FILE).read_text(encoding="utf-8"))
    items = config["manifest"]
    changed, dropped = items[0]["file"], items[-1]["file"]
    items[0]["sha256"] = "0" * 64
    del items[-1]
    items.append({"file": "book/figures/gone.png", "comment": "x", "sha256": "1" * 64, "command": "x", "check": "x"})
    (tmp_path / codecheck.FILE).write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    found = codecheck.drift(tmp_path)
    assert found == [f"{changed}: sha256 {hashlib.sha256((REPO_ROOT / changed).read_bytes()).hexdigest()[:12]}..., "
                     f"codecheck.yml says 000000000000...",
                     f"{dropped}: an output missing from codecheck.yml",
                     "book/figures/gone.png: in codecheck.yml, but not an output of the repository"]
    (tmp_path / codecheck.FILE).write_text(codecheck.text(REPO_ROOT).replace("Do not edit", "do not edit", 1), encoding="utf-8")
    assert codecheck.drift(tmp_path) == [
        "codecheck.yml is not the text python -m compendium.regenerate --write-codecheck writes"]
