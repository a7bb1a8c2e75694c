"""Tests of lib.report: the classification of published numbers and the registry.

The report over the real stored tables is computed by the book build (the
``{reproduction-report}`` directive fails the build on any inconsistency); here the rules
are tested on small tables whose statuses are known by construction, and the real registry
is checked for what can be checked without reading files the notebooks rewrite while the
test suite runs.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

import lib.report as report
from lib.data import REPO_ROOT


def _write(root: Path, tables: list[dict], csvs: dict[str, str], papers: dict | None = None) -> None:
    derived = root / "data" / "derived"
    derived.mkdir(parents=True)
    registry = {"papers": papers or {"p1": "Paper one", "p2": "Paper two"}, "tables": tables}
    (derived / "reproduction.yaml").write_text(yaml.safe_dump(registry, allow_unicode=True))
    for name, text in csvs.items():
        (derived / name).write_text(text)


def test_classify_rules() -> None:
    assert report.classify(1.0, 1.04, 0.05) == "reproduced"
    assert report.classify(1.0, 1.05, 0.05) == "reproduced"  # the boundary counts
    assert report.classify(1.0, 1.06, 0.05) == "not reproduced"
    assert report.classify(1.0, 0.5, 0.05, "a stated cause") == "explained deviation"
    assert report.classify(1.0, float("nan"), 0.05) == "not reproduced"
    assert report.classify(-2.0, -2.0, 0.0) == "reproduced"
    with pytest.raises(ValueError, match="tolerance"):
        report.classify(1.0, 1.0, -0.1)
    with pytest.raises(ValueError, match="missing"):
        report.classify(float("nan"), 1.0, 0.1)


def test_report_counts_by_construction(tmp_path: Path) -> None:
    numeric = "name,quantity,paper,ours,difference\n" + "\n".join(
        [
            "a,norm,1.00,1.02,0.02",  # reproduced (norm tol 0.05)
            "b,norm,1.00,1.20,0.20",  # not reproduced
            "c,cos,0.50,0.70,0.20",  # explained (prefix rule)
            "d,cos,0.50,,",  # ours missing: not reproduced
            "e,cos,,0.3,",  # the paper publishes nothing here: skipped
            "f,cos,0.10,0.19,0.09",  # reproduced (cos tol 0.1)
            "g,setting,5,5,0",  # excluded: a protocol setting, not a result
        ]
    )
    claims = "claim,paper,ours,holds\nx,yes,yes,True\ny,yes,no,False\nz,yes,partly,False\nw,not claimed,yes,True\n"
    tables = [
        dict(csv="t1.csv", paper="p1", table="T1", shown_in="nb/one", key=["name", "quantity"],
             tolerance={"norm": 0.05, "cos": 0.1}, tolerance_by="quantity", explained={"c*": "cause c"},
             exclude=["* / setting"]),
        dict(csv="t2.csv", paper="p2", table="T2", shown_in="nb/two", key=["claim"], kind="claims",
             explained={"z": "cause z"}),
    ]
    _write(tmp_path, tables, {"t1.csv": numeric, "t2.csv": claims})
    rep = report.reproduction_report(root=tmp_path)
    status = dict(zip(rep["item"], rep["status"]))
    assert status == {
        "a / norm": "reproduced",
        "b / norm": "not reproduced",
        "c / cos": "explained deviation",
        "d / cos": "not reproduced",
        "f / cos": "reproduced",
        "x": "reproduced",
        "y": "not reproduced",
        "z": "explained deviation",
    }
    assert rep.loc[rep["item"] == "c / cos", "note"].item() == "cause c"
    assert math.isclose(rep.loc[rep["item"] == "b / norm", "difference"].item(), 0.2)
    counts = report.summary(rep)
    assert counts.loc["p1"].to_dict() == {
        "reproduced": 2, "explained deviation": 1, "not reproduced": 2, "published numbers": 5
    }
    assert counts.loc["p2", "published numbers"] == 3
    assert counts.loc["all papers", "published numbers"] == 8
    assert report.load_papers(root=tmp_path) == {"p1": "Paper one", "p2": "Paper two"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (dict(kind="histogram"), "kind"),
        (dict(key=[]), "key"),
        (dict(tolerance={"norm": 0.1}), "tolerance_by"),
        (dict(tolerance=-1.0), ">= 0"),
        (dict(colour="red"), "unknown field"),
        (dict(paper="p9"), "missing under 'papers'"),
    ],
)
def test_registry_errors(tmp_path: Path, entry: dict, message: str) -> None:
    base = dict(csv="t.csv", paper="p1", table="T", shown_in="nb", key=["name"])
    _write(tmp_path, [{**base, **entry}], {"t.csv": "name,paper,ours\na,1,1\n"})
    with pytest.raises(ValueError, match=message):
        report.load_registry(root=tmp_path)


def test_table_errors(tmp_path: Path) -> None:
    base = dict(paper="p1", table="T", shown_in="nb/x", key=["name"])
    _write(
        tmp_path,
        [dict(csv="missing.csv", **base), dict(csv="cols.csv", **base), dict(csv="empty.csv", **base),
         dict(csv="tol.csv", **base, tolerance={"norm": 0.1}, tolerance_by="quantity"),
         dict(csv="holds.csv", **{**base, "key": ["claim"]}, kind="claims")],
        {"cols.csv": "name,value\na,1\n", "empty.csv": "name,paper,ours\na,,1\n",
         "tol.csv": "name,quantity,paper,ours\na,angle,1,1\n", "holds.csv": "claim,paper,ours,holds\nc,y,y,maybe\n"},
    )
    specs = {s.csv: s for s in report.load_registry(root=tmp_path)}
    with pytest.raises(FileNotFoundError, match="run nb/x"):
        report.table_rows(specs["missing.csv"], tmp_path)
    with pytest.raises(ValueError, match="missing column"):
        report.table_rows(specs["cols.csv"], tmp_path)
    with pytest.raises(ValueError, match="no published number"):
        report.table_rows(specs["empty.csv"], tmp_path)
    with pytest.raises(ValueError, match="no tolerance for quantity = 'angle'"):
        report.table_rows(specs["tol.csv"], tmp_path)
    with pytest.raises(ValueError, match="true or false"):
        report.table_rows(specs["holds.csv"], tmp_path)


def test_summary_rejects_unknown_status() -> None:
    frame = pd.DataFrame({"paper": ["p"], "status": ["almost"]})
    with pytest.raises(ValueError, match="unknown status"):
        report.summary(frame)


def test_real_registry_points_at_existing_tables_and_notebooks() -> None:
    specs = report.load_registry(root=REPO_ROOT)
    papers = report.load_papers(root=REPO_ROOT)
    assert specs, "the registry lists no table"
    bib = (REPO_ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    for key in papers:
        assert "{" + key + "," in bib, f"{key} is not a key of book/references.bib"
    for spec in specs:
        assert (REPO_ROOT / "data" / "derived" / spec.csv).is_file(), spec.csv
        assert (REPO_ROOT / f"{spec.shown_in}.ipynb").is_file(), spec.shown_in
        # The notebook named as the table's source writes it (its name appears in its code).
        assert spec.csv in (REPO_ROOT / f"{spec.shown_in}.ipynb").read_text(encoding="utf-8") or (
            spec.csv.removesuffix(".csv") in (REPO_ROOT / f"{spec.shown_in}.ipynb").read_text(encoding="utf-8")
        ), f"{spec.shown_in} does not mention {spec.csv}"
