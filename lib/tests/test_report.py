"""Tests of lib.report: the five verdict classes, the evidence they rest on, the registry.

The rules are tested on small tables whose verdicts are known by construction; the real
registries are checked for their evidence (labelled cells, measured tolerances), which is what
a reader follows from the report page.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

import lib.report as report
from lib.data import REPO_ROOT

def _write(root: Path, tables: list[dict], csvs: dict[str, str], papers: dict | None = None,
           notebooks: dict[str, list[str]] | None = None) -> None:
    derived = root / "data" / "derived"
    (derived / "reproduction").mkdir(parents=True)
    (derived / "reproduction.yaml").write_text(yaml.safe_dump({"papers": papers or {"p1": "Paper one", "p2": "Paper two"}}))
    (derived / "reproduction" / "01-chapter.yaml").write_text(yaml.safe_dump({"tables": tables}, allow_unicode=True))
    for name, text in csvs.items():
        (derived / name).write_text(text)
    for name, markdown in (notebooks or {}).items():
        path = root / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        cells = [{"cell_type": "markdown", "metadata": {}, "source": text} for text in markdown]
        path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_classify_rules() -> None:
    assert report.classify(1.0, 1.04, 0.05) == "reproduced"
    assert report.classify(1.0, 1.05, 0.05) == "reproduced"  # the boundary counts
    assert report.classify(1.0, 1.06, 0.05) == "not reproduced"
    assert report.classify(1.0, 1.04, 0.05, setup="guessed") == "consistent"
    assert report.classify(1.0, 1.5, 0.05, setup="guessed") == "not reproduced"
    # the paper's protocol on another model (another version of the paper's tool): never reproduced
    assert report.classify(1.0, 1.0, 0.05, setup="model-differs") == "consistent"
    assert report.classify(1.0, 1.5, 0.05, setup="model-differs") == "not reproduced"
    assert report.classify(1.0, 1.5, 0.05, setup="model-differs", recovered=1.01) == "explained deviation"
    # a cause is demonstrated only when changing it recovers the paper's number
    assert report.classify(1.0, 0.5, 0.05, recovered=0.98) == "explained deviation"
    assert report.classify(1.0, 0.5, 0.05, recovered=0.7) == "not reproduced"
    assert report.classify(1.0, 0.5, 0.05, erratum=True) == "explained deviation"
    assert report.classify(1.0, 0.5, 0.05, erratum=False) == "not reproduced"
    # a demonstrated cause accounts for the paper's number: a match of ours is chance, not a reproduction
    assert report.classify(1.0, 1.01, 0.05, erratum=True) == "explained deviation"
    assert report.classify(1.0, 1.01, 0.05, recovered=0.99) == "explained deviation"
    assert report.classify(1.0, 1.01, 0.05, recovered=0.7) == "reproduced"
    assert report.classify(1.0, float("nan"), 0.05) == "not reproduced"
    assert report.classify(-2.0, -2.0, 0.0) == "reproduced"
    with pytest.raises(ValueError, match="tolerance"):
        report.classify(1.0, 1.0, -0.1)
    with pytest.raises(ValueError, match="missing"):
        report.classify(float("nan"), 1.0, 0.1)
    with pytest.raises(ValueError, match="setup"):
        report.classify(1.0, 1.0, 0.1, setup="probably")


@pytest.mark.parametrize(
    ("cell", "expected"),
    [("yes", True), ("ordinary SVs are sensitive (abstract)", True), ("implied", False),
     ("implied (§3): the swing game filters", False), ("Implied: by eq. 4", False), ("not claimed", False),
     ("not claimed: another game", False), ("assumption", False), ("", False), ("  ", False),
     ("implies a bound (§2)", True), ("not claimedly", True), ("assumptions hold (§1)", True)],
)
def test_is_paper_claim(cell: str, expected: bool) -> None:
    assert report.is_paper_claim(cell) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0.5550", 1e-4), ("14", 0.0), ("-0.837", 1e-3), ("12.5", 0.1), ("1.5e-3", 1e-4), ("3e2", 0.0)],
)
def test_last_digit_tolerance(text: str, expected: float) -> None:
    assert math.isclose(report.last_digit_tolerance(text), expected, abs_tol=1e-15)


def test_report_by_construction(tmp_path: Path) -> None:
    numeric = "name,quantity,paper,ours\n" + "\n".join(
        [
            "a,norm,1.00,1.02",  # reproduced (measured tolerance 0.05 for norm)
            "b,norm,1.00,1.20",  # not reproduced, hypothesis noted
            "c,cos,0.50,0.70",  # explained: recovered 0.52 within 0.1
            "d,cos,0.50,0.90",  # cause named, recovered 0.75: not confirmed
            "e,cos,,0.3",  # the paper publishes nothing here: skipped
            "f,cos,0.10,",  # ours missing
            "g,setting,5,5",  # excluded
        ]
    )
    tolerances = "quantity,tolerance\nnorm,0.05\ncos,0.1\n"
    causes = "name,quantity,recovered\nc,cos,0.52\nd,cos,0.75\n"
    exact = "quantity,paper,ours\ncount,14,14\nshare,0.5550,0.55507\nrate,0.25,0.27\n"
    guessed = "name,paper,ours\nx,0.30,0.31\ny,0.30,0.60\n"
    claims = ("claim,paper,ours,holds\nx,yes,yes,True\ny,yes,no,False\nw,not claimed,yes,True\nv,assumption,-,False\n"
              # the book's inference and a claim tested on a game the paper did not state: never scored,
              # whether they hold or not (a false one would otherwise count as "contradicted")
              "u,implied (§3): the book reads this into the paper,-,False\n"
              "t,\"not claimed: the paper's game is another one\",-,False\n")
    tables = [
        dict(csv="t1.csv", paper="p1", table="T1", shown_in="notebooks/ch/one", key=["name", "quantity"],
             tolerance=dict(csv="t1-spread.csv", column="tolerance", key=["quantity"], cell="one-spread"),
             explained={"c / cos": dict(cause="cause c", cell="one-c",
                                        recovered=dict(csv="t1-cause.csv", column="recovered", key=["name"])),
                        "d / cos": dict(cause="cause d", cell="one-c",
                                        recovered=dict(csv="t1-cause.csv", column="recovered", key=["name"]))},
             hypotheses={"b / *": "maybe b"}, exclude=["* / setting"]),
        dict(csv="t2.csv", paper="p1", table="T2", shown_in="notebooks/ch/one", key=["quantity"],
             tolerance={"rule": "last-digit"}, explained={"rate": dict(
                 cause="erratum: the rates add up to 1.1", cell="one-c",
                 erratum=dict(csv="t2-erratum.csv", column="proved"))}),
        dict(csv="t3.csv", paper="p2", table="T3", shown_in="notebooks/ch/two", key=["name"], setup="guessed",
             setup_note="the instance is not identified; we picked the closest",
             tolerance=dict(csv="t3-spread.csv", column="tolerance", cell="two-spread")),
        dict(csv="t4.csv", paper="p2", table="T4", shown_in="notebooks/ch/two", key=["claim"], kind="claims"),
        dict(csv="t5.csv", paper="p2", table="T5", shown_in="notebooks/ch/two", key=["claim"], kind="claims",
             setup="guessed", setup_note="the paper's model is not identified"),
    ]
    csvs = {"t1.csv": numeric, "t1-spread.csv": tolerances, "t1-cause.csv": causes, "t2.csv": exact,
            "t2-erratum.csv": "proved\nTrue\n", "t3.csv": guessed, "t3-spread.csv": "tolerance\n0.02\n",
            "t4.csv": claims, "t5.csv": claims}
    _write(tmp_path, tables, csvs, notebooks={"notebooks/ch/one": ["(one-spread)=\n## x", "(one-c)=\ntext"],
                                              "notebooks/ch/two": ["(two-spread)=\n"]})
    rep = report.reproduction_report(root=tmp_path)
    by_table = {t: dict(zip(g["item"], g["status"])) for t, g in rep.groupby("table")}
    assert by_table["T3"] == {"x": "consistent", "y": "not reproduced"}
    assert by_table["T4"] == {"x": "reproduced", "y": "contradicted"}
    # a claim false on a set-up we guessed is not reproduced: it cannot be contradicted
    assert by_table["T5"] == {"x": "consistent", "y": "not reproduced"}
    assert by_table["T1"] == {
        "a / norm": "reproduced", "b / norm": "not reproduced", "c / cos": "explained deviation",
        "d / cos": "not reproduced", "f / cos": "not reproduced",
    }
    assert by_table["T2"] == {"count": "reproduced", "share": "reproduced", "rate": "explained deviation"}
    notes = dict(zip(rep["item"] + "@" + rep["table"], rep["note"]))
    assert "maybe b" in notes["b / norm@T1"]
    assert "cause not confirmed" in notes["d / cos@T1"] and "0.75" in notes["d / cos@T1"]
    assert notes["c / cos@T1"] == "cause c"
    assert "not identified" in notes["x@T3"]
    evidence = dict(zip(rep["item"] + "@" + rep["table"], rep["evidence"]))
    assert evidence["c / cos@T1"] == "tolerance:one-spread cause:one-c"
    assert evidence["a / norm@T1"] == "tolerance:one-spread"
    assert math.isclose(rep.loc[rep["item"] == "b / norm", "tolerance"].item(), 0.05)
    assert math.isclose(rep.loc[rep["item"] == "share", "tolerance"].item(), 1e-4)
    counts = report.summary(rep, ["p1", "p2"])
    assert counts.loc["p1"].to_dict() == {
        "reproduced": 3, "consistent": 0, "explained deviation": 2, "not reproduced": 3, "contradicted": 0,
        "published numbers": 8, "derivation checks": 0, "errata": 0,
    }
    assert counts.loc["p2"].to_dict() == {
        "reproduced": 1, "consistent": 2, "explained deviation": 0, "not reproduced": 2, "contradicted": 1,
        "published numbers": 6, "derivation checks": 0, "errata": 0,
    }
    assert report.check_evidence(root=tmp_path) == []
    assert report.load_papers(root=tmp_path) == {"p1": "Paper one", "p2": "Paper two"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (dict(kind="histogram"), "kind"),
        (dict(key=[]), "key"),
        (dict(tolerance=0.05), "not a typed number"),
        (dict(tolerance={"rule": "whatever"}), "last-digit"),
        (dict(tolerance={"csv": "s.csv", "column": "t"}), "name the cell"),
        (dict(setup="guessed"), "setup_note"),
        (dict(setup="maybe"), "setup must be"),
        (dict(explained={"a": "a typed cause"}), "hypotheses"),
        (dict(explained={"a": {"cause": "c", "cell": "x"}}), "exactly one of"),
        (dict(colour="red"), "unknown field"),
        (dict(paper="p9"), "missing under 'papers'"),
    ],
)
def test_registry_errors(tmp_path: Path, entry: dict, message: str) -> None:
    base = dict(csv="t.csv", paper="p1", table="T", shown_in="nb", key=["name"], tolerance={"rule": "last-digit"})
    _write(tmp_path, [{**base, **entry}], {"t.csv": "name,paper,ours\na,1,1\n"})
    with pytest.raises(ValueError, match=message):
        report.load_registry(root=tmp_path)


def test_claims_tables_have_no_tolerance_or_deviation(tmp_path: Path) -> None:
    base = dict(csv="c.csv", paper="p1", table="C", shown_in="nb", key=["claim"], kind="claims")
    _write(tmp_path, [{**base, "tolerance": {"rule": "last-digit"}}], {})
    with pytest.raises(ValueError, match="holds, or it is contradicted"):
        report.load_registry(root=tmp_path)


def test_evidence_problems(tmp_path: Path) -> None:
    tables = [
        dict(csv="t.csv", paper="p1", table="T", shown_in="notebooks/ch/one", key=["name"],
             tolerance=dict(csv="t.csv", column="ours", cell="nowhere")),
        dict(csv="gone.csv", paper="p1", table="G", shown_in="nb/none", key=["name"], tolerance={"rule": "last-digit"}),
    ]
    _write(tmp_path, tables, {"t.csv": "name,paper,ours\na,1,1\n"}, notebooks={"notebooks/ch/one": ["no label here"]})
    problems = report.check_evidence(root=tmp_path)
    assert any("'nowhere' is not a MyST target" in p for p in problems)
    assert any("not the table" in p for p in problems)
    assert any("nb/none is not a notebook" in p for p in problems)
    assert any("gone.csv: the table does not exist" in p for p in problems)


def test_table_errors(tmp_path: Path) -> None:
    base = dict(paper="p1", table="T", shown_in="nb/x", key=["name"], tolerance={"rule": "last-digit"})
    _write(
        tmp_path,
        [dict(csv="missing.csv", **base), dict(csv="cols.csv", **base), dict(csv="empty.csv", **base),
         dict(csv="tol.csv", **{**base, "tolerance": dict(csv="s.csv", column="t", key=["name"], cell="c")}),
         dict(csv="holds.csv", **{k: v for k, v in base.items() if k != "tolerance"}, kind="claims")],
        {"cols.csv": "name,value\na,1\n", "empty.csv": "name,paper,ours\na,,1\n",
         "tol.csv": "name,paper,ours\na,1,1\n", "s.csv": "name,t\nb,0.1\n",
         "holds.csv": "name,paper,ours,holds\nc,y,y,maybe\n"},
    )
    specs = {s.csv: s for s in report.load_registry(root=tmp_path)}
    with pytest.raises(FileNotFoundError, match="nb/x"):
        report.table_rows(specs["missing.csv"], tmp_path)
    with pytest.raises(ValueError, match="missing column"):
        report.table_rows(specs["cols.csv"], tmp_path)
    with pytest.raises(ValueError, match="no published number"):
        report.table_rows(specs["empty.csv"], tmp_path)
    with pytest.raises(ValueError, match="expected one row for name = 'a', found 0"):
        report.table_rows(specs["tol.csv"], tmp_path)
    with pytest.raises(ValueError, match="true or false"):
        report.table_rows(specs["holds.csv"], tmp_path)


def test_summary_rejects_unknown_status() -> None:
    frame = pd.DataFrame({"paper": ["p"], "status": ["almost"]})
    with pytest.raises(ValueError, match="unknown status"):
        report.summary(frame)


def test_real_registry_evidence() -> None:
    """Every verdict of the book rests on evidence a reader can follow (labelled cells)."""
    specs = report.load_registry(root=REPO_ROOT)
    papers = report.load_papers(root=REPO_ROOT)
    assert specs, "the registry lists no table"
    bib = (REPO_ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    for key in papers:
        assert "{" + key + "," in bib, f"{key} is not a key of book/references.bib"
    assert report.check_evidence(specs, REPO_ROOT) == []
    for spec in specs:
        text = (REPO_ROOT / f"{spec.shown_in}.ipynb").read_text(encoding="utf-8")
        # The notebook named as the table's source writes it (its name appears in its code).
        assert spec.csv in text or spec.csv.removesuffix(".csv") in text, f"{spec.shown_in} does not mention {spec.csv}"


def test_papers_registry_holds_only_papers(tmp_path: Path) -> None:
    # the top registry names the papers; a table there (the old single registry) is refused
    papers = yaml.safe_load((REPO_ROOT / "data" / "derived" / "reproduction.yaml").read_text(encoding="utf-8"))
    assert set(papers) == {"papers"}
    _write(tmp_path, [], {})
    registry = tmp_path / "data" / "derived" / "reproduction.yaml"
    registry.write_text(yaml.safe_dump({"papers": {"p1": "Paper one"}, "tables": [{"csv": "t.csv"}]}))
    with pytest.raises(ValueError, match="holds only 'papers'"):
        report.load_registry(root=tmp_path)


def test_model_differs_setup(tmp_path: Path) -> None:
    # a number that matches and a claim that fails, on a model that is not the paper's
    tables = [
        dict(csv="n.csv", paper="p1", table="N", shown_in="notebooks/ch/one", key=["name"], setup="model-differs",
             setup_note="another version of the paper's tool", tolerance={"rule": "last-digit"}),
        dict(csv="c.csv", paper="p1", table="C", shown_in="notebooks/ch/one", key=["claim"], kind="claims",
             setup="model-differs", setup_note="another version of the paper's tool"),
    ]
    _write(tmp_path, tables, {"n.csv": "name,paper,ours\na,0.975,0.975\nb,0.975,0.98\n",
                              "c.csv": "claim,paper,ours,holds\nx,yes,yes,True\ny,yes,no,False\n"})
    rep = report.reproduction_report(root=tmp_path)
    assert dict(zip(rep["item"] + "@" + rep["table"], rep["status"])) == {
        "a@N": "consistent", "b@N": "not reproduced", "x@C": "consistent", "y@C": "not reproduced"}
    assert (rep["note"] == "another version of the paper's tool").all()
    assert (report.claims(rep)["setup"] == "model-differs").all()
    assert report.claim_summary(rep, ["p1"]).loc["p1", "not the paper's set-up"] == 2  # table N, sentence 'yes'
    # the set-up must say what differs
    tables[0]["setup_note"] = ""
    (tmp_path / "data" / "derived" / "reproduction" / "01-chapter.yaml").write_text(
        yaml.safe_dump({"tables": tables}, allow_unicode=True))
    with pytest.raises(ValueError, match="model-differs set-up needs a 'setup_note'"):
        report.load_registry(root=tmp_path)


def test_derivation_checks_and_claims(tmp_path: Path) -> None:
    # a tautology among the claims: shown apart, with its reason, never counted
    claims = ("claim,paper,ours,holds\n"
              "sum,the bias makes the sum exact,exact,True\n"
              "a1,RevVIF is more precise,yes,True\n"
              "a2,RevVIF is more precise,yes,True\n"
              "a3,RevVIF is more precise,no,False\n"
              "b,PCA is fast,yes,True\n"
              "e,the printed ratio,inverted,False\n")
    numbers = "name,paper,ours\nx,0.50,0.50\ny,0.50,0.70\n"
    tables = [
        dict(csv="c.csv", paper="p1", table="C", shown_in="notebooks/ch/one", key=["claim"], kind="claims",
             derivation={"sum": "the bias is defined as the residual"},
             errata={"e": "brute force contradicts the printed form"}),
        dict(csv="n.csv", paper="p1", table="N", shown_in="notebooks/ch/one", key=["name"],
             tolerance={"rule": "last-digit"}),
    ]
    _write(tmp_path, tables, {"c.csv": claims, "n.csv": numbers})
    rep = report.reproduction_report(root=tmp_path)
    status = dict(zip(rep["item"], rep["status"]))
    assert status["sum"] == report.DERIVATION
    assert rep.loc[rep["item"] == "sum", "note"].item() == "the bias is defined as the residual"
    # an erratum of the paper: shown apart like a derivation check, never "contradicted"
    assert status["e"] == report.ERRATUM
    counts = report.summary(rep, ["p1"]).loc["p1"]
    assert counts["derivation checks"] == 1 and counts["errata"] == 1 and counts["published numbers"] == 6
    assert counts["reproduced"] == 4 and counts["contradicted"] == 1
    # claims: one sentence tested three times is one claim, false where one of its rows is; a table is one claim
    table = report.claims(rep).set_index("claim")
    assert table.loc["RevVIF is more precise", ["status", "numbers", "agree"]].tolist() == ["contradicted", 3, 2]
    assert table.loc["PCA is fast", "status"] == "reproduced"
    assert table.loc["N", ["status", "numbers", "agree"]].tolist() == ["not reproduced", 2, 1]
    assert "the bias makes the sum exact" not in table.index
    per_paper = report.claim_summary(rep, ["p1"]).loc["p1"]
    assert per_paper["claims"] == 3 and per_paper["contradicted"] == 1 and per_paper["reproduced"] == 1
    assert per_paper["not the paper's set-up"] == 0
    # each row its own claim when the registry says so
    tables[0]["claims_by"] = "row"
    _rewrite = tmp_path / "data" / "derived" / "reproduction" / "01-chapter.yaml"
    _rewrite.write_text(yaml.safe_dump({"tables": tables}, allow_unicode=True))
    assert len(report.claims(report.reproduction_report(root=tmp_path))) == 5
    # a derivation pattern that matches nothing, or without its reason, is refused
    tables[0]["derivation"] = {"nothing like this": "why"}
    _rewrite.write_text(yaml.safe_dump({"tables": tables}, allow_unicode=True))
    with pytest.raises(ValueError, match="match no row"):
        report.reproduction_report(root=tmp_path)
    tables[0]["derivation"] = {"sum": " "}
    _rewrite.write_text(yaml.safe_dump({"tables": tables}, allow_unicode=True))
    with pytest.raises(ValueError, match="needs the reason"):
        report.load_registry(root=tmp_path)


def test_independent_causes_counted_once(tmp_path: Path) -> None:
    # one demonstrated cause behind three numbers of two tables is one cause; a second cause is another;
    # two tables with the same set-up note are one difference of set-up, a third note another
    numbers = "name,paper,ours\na,0.50,0.90\nb,0.50,0.90\nc,0.50,0.90\n"
    recovered = "name,recovered\na,0.50\nb,0.50\nc,0.50\n"
    same = dict(cause="the paper prints the other class", cell="one-c",
                recovered=dict(csv="r.csv", column="recovered", key=["name"]))
    other = dict(same, cause="the paper rounds before summing")
    claims = "claim,paper,ours,holds\nx,yes,yes,True\ny,no,no,False\n"
    tables = [
        dict(csv="n1.csv", paper="p1", table="N1", shown_in="notebooks/ch/one", key=["name"],
             tolerance={"rule": "last-digit"}, explained={"a": same, "b": same, "c": other}),
        dict(csv="n2.csv", paper="p2", table="N2", shown_in="notebooks/ch/one", key=["name"],
             tolerance={"rule": "last-digit"}, explained={"a": same}, exclude=["b", "c"]),
        dict(csv="c1.csv", paper="p1", table="C1", shown_in="notebooks/ch/one", key=["claim"], kind="claims",
             setup="guessed", setup_note="the instance is not identified"),
        dict(csv="c2.csv", paper="p1", table="C2", shown_in="notebooks/ch/one", key=["claim"], kind="claims",
             setup="guessed", setup_note="the instance is not identified"),
        dict(csv="c3.csv", paper="p2", table="C3", shown_in="notebooks/ch/one", key=["claim"], kind="claims",
             setup="model-differs", setup_note="another version of the tool"),
    ]
    _write(tmp_path, tables, {"n1.csv": numbers, "n2.csv": numbers, "r.csv": recovered, "c1.csv": claims,
                              "c2.csv": claims, "c3.csv": claims},
           notebooks={"notebooks/ch/one": ["(one-c)=\ntext"]})
    rep = report.reproduction_report(root=tmp_path)
    assert (rep["status"].isin(["explained deviation", "consistent", "not reproduced"])).all()
    found = report.causes(rep).set_index("cause")
    assert list(found.index) == ["the paper prints the other class", "the paper rounds before summing",
                                 "the instance is not identified", "another version of the tool"]
    assert found.loc["the paper prints the other class", ["papers", "tables", "claims", "numbers"]].tolist() == [2, 2, 2, 3]
    assert found.loc["the paper rounds before summing", ["claims", "numbers"]].tolist() == [1, 1]
    # a claim is each distinct sentence of each table: 'yes' and 'no' in C1 and C2
    assert found.loc["the instance is not identified", ["tables", "claims", "numbers"]].tolist() == [2, 4, 4]
    assert found.loc["another version of the tool", "kind"] == "set-up not the paper's"
    assert found.loc["the paper prints the other class", "kind"] == "demonstrated cause of a deviation"
    # the set-up causes account for exactly the claims the summary counts as not on the paper's set-up
    setups = found[found["kind"] == "set-up not the paper's"]
    assert setups["claims"].sum() == report.claim_summary(rep).loc["all papers", "not the paper's set-up"]
