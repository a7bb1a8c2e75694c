"""Tests of compendium.report: the five verdict classes, the three outcomes of a claim, the evidence, the registry.

The rules are tested on small tables whose verdicts are known by construction; the real
registries are checked for their evidence (labelled cells, measured tolerances), which is what
a reader follows from the report page, and every scored quote is checked against the papers'
text (``../shared/papers`` beside the repository; the test is skipped, saying so, without it).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from pathlib import Path

import pandas as pd
import pytest
import yaml

import compendium.report as report
from compendium.data import REPO_ROOT

def _write(root: Path, tables: list[dict], csvs: dict[str, str], papers: dict | None = None,
           notebooks: dict[str, list[str]] | None = None) -> None:
    derived = root / "data" / "derived"
    (derived / "reproduction").mkdir(parents=True, exist_ok=True)
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
             setup_note="the instance is not identified; we picked the closest", reason="set-up not identified",
             tolerance=dict(csv="t3-spread.csv", column="tolerance", cell="two-spread")),
        dict(csv="t4.csv", paper="p2", table="T4", shown_in="notebooks/ch/two", key=["claim"], kind="claims"),
        dict(csv="t5.csv", paper="p2", table="T5", shown_in="notebooks/ch/two", key=["claim"], kind="claims",
             setup="guessed", setup_note="the paper's model is not identified", reason="set-up not identified"),
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
        "published numbers": 8, "derivation checks": 0, "erratum rows": 0, "aims": 0,
    }
    assert counts.loc["p2"].to_dict() == {
        "reproduced": 1, "consistent": 2, "explained deviation": 0, "not reproduced": 2, "contradicted": 1,
        "published numbers": 6, "derivation checks": 0, "erratum rows": 0, "aims": 0,
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
        (dict(setup="guessed", setup_note="a guess"), "needs a 'reason'"),
        (dict(setup="guessed", setup_note="a guess", reason="bad luck"), "needs a 'reason'"),
        (dict(reason="hardware"), "identified set-up has no 'reason'"),
        (dict(claims_by="row"), "unknown field"),
        (dict(mathematical=["*"]), "name rows of a claims table"),
        (dict(thresholds={"a": " "}), "why it is ours"),
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
    assert set(papers) == {"papers", "short", "thesis", "code"} and set(papers["short"]) == set(papers["papers"])
    assert set(papers["code"]) == set(papers["papers"])   # the authors' repositories, per paper (possibly none)
    # what each paper claims, in one line of our words: the landing page opens with it (never a count or verdict)
    assert set(papers["thesis"]) == set(papers["papers"]) and all(papers["thesis"].values())
    assert report.load_theses(REPO_ROOT) == {k: papers["thesis"][k] for k in papers["papers"]}
    assert not any(re.search(r"\d|hold|fail|consistent", t) for t in papers["thesis"].values())
    _write(tmp_path, [], {})
    registry = tmp_path / "data" / "derived" / "reproduction.yaml"
    registry.write_text(yaml.safe_dump({"papers": {"p1": "Paper one"}, "tables": [{"csv": "t.csv"}]}))
    with pytest.raises(ValueError, match="holds only 'papers'"):
        report.load_registry(root=tmp_path)


def test_model_differs_setup(tmp_path: Path) -> None:
    # a number that matches and a claim that fails, on a model that is not the paper's
    tables = [
        dict(csv="n.csv", paper="p1", table="N", shown_in="notebooks/ch/one", key=["name"], setup="model-differs",
             setup_note="another version of the paper's tool", reason="tool version", tolerance={"rule": "last-digit"}),
        dict(csv="c.csv", paper="p1", table="C", shown_in="notebooks/ch/one", key=["claim"], kind="claims",
             setup="model-differs", setup_note="another version of the paper's tool", reason="tool version"),
    ]
    _write(tmp_path, tables, {"n.csv": "name,paper,ours\na,0.975,0.975\nb,0.975,0.98\n",
                              "c.csv": "claim,paper,ours,holds\nx,yes,yes,True\ny,yes,no,False\n"})
    rep = report.reproduction_report(root=tmp_path)
    assert dict(zip(rep["item"] + "@" + rep["table"], rep["status"])) == {
        "a@N": "consistent", "b@N": "not reproduced", "x@C": "consistent", "y@C": "not reproduced"}
    assert (rep["note"] == "another version of the paper's tool").all()
    assert (rep["setup"] == "model-differs").all() and (rep["reason"] == "tool version").all()
    # both claims (table N, sentence 'yes') have a disagreement on a model that is not the paper's: neither
    # fails, both are inconsistent on a substitute, for the table's reason (they were tested: never "untested")
    outcome = report.claims(rep).set_index("claim")
    assert outcome.loc["N", ["outcome", "reasons", "numbers", "agree"]].tolist() == [report.INCONSISTENT, "tool version", 2, 1]
    assert outcome.loc["yes", "outcome"] == report.INCONSISTENT
    summary = report.claim_summary(rep, ["p1"]).set_index("paper").loc["p1"]
    assert summary[[report.FAILS, report.INCONSISTENT, report.UNTESTED]].tolist() == [0, 2, 0]
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
    assert counts["derivation checks"] == 1 and counts["erratum rows"] == 1 and counts["published numbers"] == 6
    assert counts["reproduced"] == 4 and counts["contradicted"] == 1
    # claims: one sentence tested three times is one claim, failing where one of its rows does; a table is one
    # claim, failing on one number outside its tolerance, its share of agreeing numbers shown beside it
    table = report.claims(rep).set_index("claim")
    assert table.loc["RevVIF is more precise", ["outcome", "numbers", "agree"]].tolist() == [report.FAILS, 3, 2]
    assert table.loc["PCA is fast", "outcome"] == report.HOLDS
    assert table.loc["N", ["outcome", "numbers", "agree", "where"]].tolist() == [report.FAILS, 2, 1, "N"]
    assert "the bias makes the sum exact" not in table.index and "the printed ratio" not in table.index
    per_paper = report.claim_summary(rep, ["p1"]).set_index("paper").loc["p1"]
    assert per_paper[["claims", report.HOLDS, report.FAILS, report.UNTESTED]].tolist() == [3, 1, 2, 0]
    _rewrite = tmp_path / "data" / "derived" / "reproduction" / "01-chapter.yaml"
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
             setup="guessed", setup_note="the instance is not identified", reason="set-up not identified"),
        dict(csv="c2.csv", paper="p1", table="C2", shown_in="notebooks/ch/one", key=["claim"], kind="claims",
             setup="guessed", setup_note="the instance is not identified", reason="set-up not identified"),
        dict(csv="c3.csv", paper="p2", table="C3", shown_in="notebooks/ch/one", key=["claim"], kind="claims",
             setup="model-differs", setup_note="another version of the tool", reason="tool version"),
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
    # a claim is a sentence of a paper, whatever table tests it: 'yes' and 'no' in C1 and C2 are two claims
    assert found.loc["the instance is not identified", ["tables", "claims", "numbers", "reason"]].tolist() == [
        2, 2, 4, "set-up not identified"]
    assert found.loc["another version of the tool", "kind"] == "set-up not the paper's"
    assert found.loc["the paper prints the other class", "kind"] == "demonstrated cause of a deviation"
    # the claims resting only on set-ups that are not the paper's: 'no' (p1) and 'no' (p2) are inconsistent on a
    # substitute, 'yes' agrees on them: consistent on a substitute, never "holds"; and none fails
    outcomes = report.claims(rep).set_index(["paper", "claim"])["outcome"]
    assert outcomes[("p1", "no")] == outcomes[("p2", "no")] == report.INCONSISTENT
    assert outcomes[("p1", "yes")] == report.SUBSTITUTE and (outcomes != report.FAILS).all()
    assert not outcomes.loc[[("p1", "yes"), ("p1", "no"), ("p2", "yes"), ("p2", "no")]].isin(report.OWN_OUTCOMES).any()


# --------------------------------------------------------------------------- claims: sentences, outcomes, thresholds
def _claims_registry(tmp_path: Path, tables: list[dict], csvs: dict[str, str]) -> pd.DataFrame:
    _write(tmp_path, tables, csvs)
    return report.reproduction_report(root=tmp_path)


def _claims_spec(csv: str, table: str, **extra) -> dict:
    return dict(csv=csv, paper="p1", table=table, shown_in="notebooks/ch/one", key=["claim"], kind="claims", **extra)


def test_a_sentence_split_over_tables_is_one_claim(tmp_path: Path) -> None:
    # the counter-example: one sentence tested by three tables, counted once, with each table's rows as evidence
    sentence = "The RevVIF is clearly more precise than the other two, but at a cost of greatly increased computation time."
    rows = lambda *holds: "claim,paper,ours,holds\n" + "".join(f"t{i},\"{sentence}\",x,{h}\n" for i, h in enumerate(holds))
    guess = dict(setup="guessed", setup_note="stand-in data", reason="set-up not identified")
    rep = _claims_registry(tmp_path, [_claims_spec("a.csv", "A", **guess), _claims_spec("b.csv", "B", **guess),
                                      _claims_spec("c.csv", "C", **guess)],
                           {"a.csv": rows(True, True), "b.csv": rows(True), "c.csv": rows(True, True, True)})
    table = report.claims(rep)
    assert len(table) == 1
    # every row agrees, on set-ups the book chose: consistent on a substitute, not "holds"
    assert table.iloc[0][["outcome", "tables", "numbers", "agree"]].tolist() == [report.SUBSTITUTE, 3, 6, 6]
    assert report.claim_summary(rep).set_index("paper").loc["p1", "claims"] == 1
    per_table = report.evidence(rep)
    assert per_table["table"].tolist() == ["A", "B", "C"] and per_table["numbers"].tolist() == [2, 1, 3]


def test_an_untestable_claim_is_not_a_failure(tmp_path: Path) -> None:
    # the counter-example: a claim that fails on a set-up that is not the paper's is counted apart, with its reason
    guess = dict(setup="model-differs", setup_note="Khiops 11, not Khiops 10", reason="tool version")
    csv = "claim,paper,ours,holds\nx,The sentence tested here.,x,False\ny,Another sentence.,y,False\n"
    rep = _claims_registry(tmp_path, [_claims_spec("a.csv", "A", **guess), _claims_spec("b.csv", "B")],
                           {"a.csv": csv, "b.csv": "claim,paper,ours,holds\nz,A third sentence.,z,False\n"})
    table = report.claims(rep).set_index("claim")
    assert table.loc["The sentence tested here.", ["outcome", "reasons"]].tolist() == [report.INCONSISTENT, "tool version"]
    assert table.loc["A third sentence.", "outcome"] == report.FAILS   # the paper's own set-up: it fails
    counts = report.claim_summary(rep).set_index("paper").loc["p1"]
    assert counts[list(report.OUTCOMES)].tolist() == [0, 1, 0, 2, 0]
    why = report.glance(rep).set_index("paper").loc["p1", "why"]
    assert why == "fails: A third sentence.; substitute: tool version"
    # what the substitute found is kept beside "inconsistent on a substitute": its rows, and how many agree
    assert table.loc["The sentence tested here.", ["substitute numbers", "substitute agree"]].tolist() == [1, 0]


def test_one_passage_one_verdict(tmp_path: Path) -> None:
    # the counter-example: one passage tested in two chapters, holding in one and failing in the other, has one
    # outcome, decided by the evidence on the paper's own set-up when there is some
    passage = "We want to optimally distribute the samples over the d features."
    one = f"claim,paper,where,ours,holds\niris,{passage},App. D,0.92,True\n"
    other = f"claim,paper,where,ours,holds\nbook games,{passage},App. D,1.81,False\n"
    rep = _claims_registry(tmp_path, [_claims_spec("a.csv", "A"), _claims_spec("b.csv", "B")], {"a.csv": one, "b.csv": other})
    table = report.claims(rep)
    assert len(table) == 1 and table.iloc[0][["outcome", "numbers", "agree", "where"]].tolist() == [report.FAILS, 2, 1, "App. D"]
    # tested on the paper's set-up (holds) and on a guessed one (fails): the paper's set-up decides
    guess = dict(setup="guessed", setup_note="our games", reason="set-up not identified")
    (tmp_path / "data").rename(tmp_path / "old")
    rep = _claims_registry(tmp_path, [_claims_spec("a.csv", "A"), _claims_spec("b.csv", "B", **guess)],
                           {"a.csv": one, "b.csv": other})
    assert report.claims(rep).iloc[0]["outcome"] == report.HOLDS


def test_mathematical_claims_are_counted_apart(tmp_path: Path) -> None:
    csv = ("claim,paper,ours,holds\nenumeration,Equation 10 provides the exact analytical expression.,1e-15,True\n"
           "tau,The two methods are very close.,0.9,True\n")
    rep = _claims_registry(tmp_path, [_claims_spec("a.csv", "A", mathematical=["enumeration"])], {"a.csv": csv})
    summary = report.claim_summary(rep)
    assert summary[["paper", "nature", "claims", report.HOLDS]].values.tolist() == [
        ["p1", "empirical", 1, 1], ["all papers", "empirical", 1, 1],
        ["p1", "mathematical", 1, 1], ["all papers", "mathematical", 1, 1]]


def test_a_table_claim_shows_its_share_and_the_rule_decides(tmp_path: Path) -> None:
    # 37 of 40 numbers within tolerance, one explained, two not: the claim fails on the paper's set-up, and its
    # share of agreeing numbers is part of the claim's record, not hidden by the worst number
    rows = [f"n{i},1.0,1.0" for i in range(37)] + ["e,1.0,2.0", "x,1.0,2.0", "y,1.0,2.0"]
    spec = dict(csv="n.csv", paper="p1", table="Table 1: the data", shown_in="notebooks/ch/one", key=["name"],
                tolerance={"rule": "last-digit"},
                explained={"e": dict(cause="erratum: proved", cell="c", erratum=dict(csv="e.csv", column="proved"))})
    rep = _claims_registry(tmp_path, [spec], {"n.csv": "name,paper,ours\n" + "\n".join(rows) + "\n",
                                              "e.csv": "proved\nTrue\n"})
    claim = report.claims(rep).iloc[0]
    assert claim[["outcome", "numbers", "agree", "explained", "disagree", "where"]].tolist() == [
        report.FAILS, 40, 37, 1, 2, "Table 1"]
    assert report.share(claim) == "37 of 40 numbers agree, 1 explained, 2 do not"
    assert claim["against"] == "x: 2 against the paper's 1\ny: 2 against the paper's 1"
    assert "fails: Table 1" in report.glance(rep).set_index("paper").loc["p1", "why"]
    # the two numbers explained too: the claim holds, every number accounted for
    spec["explained"] = {p: spec["explained"]["e"] for p in ("e", "x", "y")}
    (tmp_path / "data").rename(tmp_path / "old")
    rep = _claims_registry(tmp_path, [spec], {"n.csv": "name,paper,ours\n" + "\n".join(rows) + "\n",
                                              "e.csv": "proved\nTrue\n"})
    assert report.claims(rep).iloc[0][["outcome", "agree", "explained"]].tolist() == [report.HOLDS, 37, 3]


@pytest.mark.parametrize(
    ("measure", "holds_when", "holds", "low", "high", "flips"),
    [(0.0353, "at most", False, -math.inf, 0.0353, True),   # Ionosphere's "very close" at t = 0.02
     (0.167, "at most", True, 0.167, math.inf, True),       # "almost zero" at 0.25 x max: holds above 0.167
     (0.005, "at most", True, 0.005, math.inf, False),
     (4.7, "at least", True, -math.inf, 4.7, False),        # "greatly increased" at 2x: holds up to 4.7
     (1.0, "at least", False, 1.0, math.inf, False),       # VIF's time rank 1, "long" at rank >= 4: far off
     (3.0, "at least", False, 3.0, math.inf, True)],
)
def test_threshold_range(measure: float, holds_when: str, holds: bool, low: float, high: float, flips: bool) -> None:
    value = {0.0353: 0.02, 0.167: 0.25, 0.005: 0.02, 4.7: 2.0, 1.0: 4.0, 3.0: 4.0}[measure]
    t = report.Threshold("x <= t", value, measure, holds_when)
    assert (t.holds, t.low, t.high, t.flips_within_2) == (holds, low, high, flips)


def test_a_threshold_verdict_without_its_range_is_refused(tmp_path: Path) -> None:
    # the counter-example: a verdict decided by a threshold of ours, registered, with no range recorded
    why = {"*": "the paper gives no number for 'very close': ours is 0.02"}
    bare = "claim,paper,ours,holds\nx,The models are very close.,0.0353,False\n"
    _write(tmp_path, [_claims_spec("a.csv", "A", thresholds=why)], {"a.csv": bare})
    with pytest.raises(ValueError, match="registered without the range of thresholds"):
        report.reproduction_report(root=tmp_path)
    # a range recorded for a threshold the registry does not declare is refused too
    t = report.Threshold("max |train - CV| <= t", 0.02, 0.0353)
    table = report.claims_table([report.Claim("x", "The models are very close.", "fn. 5", "0.0353", t.holds, (t,))])
    (tmp_path / "data" / "derived" / "a.csv").write_text(table.to_csv(index=False))
    (tmp_path / "data" / "derived" / "reproduction" / "01-chapter.yaml").write_text(
        yaml.safe_dump({"tables": [_claims_spec("a.csv", "A")]}))
    with pytest.raises(ValueError, match="not registered"):
        report.reproduction_report(root=tmp_path)
    # declared and recorded: read, and the claim carries the range of thresholds over which it stands
    (tmp_path / "data" / "derived" / "reproduction" / "01-chapter.yaml").write_text(
        yaml.safe_dump({"tables": [_claims_spec("a.csv", "A", thresholds=why)]}))
    stands = report.claims(report.reproduction_report(root=tmp_path)).iloc[0]["thresholds"]
    assert stands == [dict(threshold="max |train - CV| <= t", value=0.02, low=-math.inf, high=0.0353, flips_within_2=True,
                           a_row_flips_within_2=True)]


def test_a_claims_range_comes_from_its_rows(tmp_path: Path) -> None:
    # footnote 5's shape: ten data sets at t = 0.02, three fail; the claim fails for every t below the largest
    # failing measure (0.085) and holds above it: the claim's verdict stands far beyond a factor of two
    measures = [0.0053, 0.0103, 0.0353, 0.0058, 0.0850, 0.0255, 0.0055, 0.0011, 0.0051, 0.0057]
    rows = []
    for i, m in enumerate(measures):
        t = report.Threshold("max |train - CV| <= t", 0.02, m)
        rows.append(report.Claim("very close", "The models are very close.", "fn. 5", f"{m}", t.holds, (t,)))
    table = report.claims_table(rows, keys={"data set": [f"d{i}" for i in range(len(rows))]})
    assert table["holds"].tolist() == [m <= 0.02 for m in measures]
    spec = _claims_spec("a.csv", "A", thresholds={"*": "ours"}, setup="model-differs", setup_note="Khiops 11",
                        reason="tool version")
    spec["key"] = ["data set"]
    rep = _claims_registry(tmp_path, [spec], {"a.csv": table.to_csv(index=False)})
    claim = report.claims(rep).iloc[0]
    assert claim["outcome"] == report.INCONSISTENT and (claim["numbers"], claim["agree"]) == (10, 7)
    assert claim["thresholds"] == [dict(threshold="max |train - CV| <= t", value=0.02, low=-math.inf, high=0.085,
                                        flips_within_2=False, a_row_flips_within_2=True)]


def test_claims_table_refuses_bad_rows() -> None:
    t = report.Threshold("x <= t", 0.02, 0.5)
    with pytest.raises(ValueError, match=r"row 0 .*holds must be a boolean"):
        report.claims_table([report.Claim("a", "A sentence.", "§1", "x", "yes")])
    with pytest.raises(ValueError, match=r"row 1 .*the paper's words"):
        report.claims_table([report.Claim("a", "A sentence.", "§1", "x", True), report.Claim("b", " ", "§1", "x", True)])
    with pytest.raises(ValueError, match=r"row 0 .*compute holds from the threshold"):
        report.claims_table([report.Claim("a", "A sentence.", "§1", "x", True, (t,))])
    with pytest.raises(ValueError, match=r"rows \[0, 1\] test the same thing"):
        report.claims_table([report.Claim("a", "A sentence.", "§1", "x", True), report.Claim("a", "B.", "§2", "y", True)])
    with pytest.raises(ValueError, match="positive value"):
        report.Threshold("x <= t", 0, 0.5)
    with pytest.raises(ValueError, match="without ';'"):
        report.Threshold("x; y", 1, 0.5)
    shown = repr(report.show_claims(report.claims_table([report.Claim("a", "A sentence " + "long " * 20, "§1", "x",
                                                                      t.holds, (t,))])))
    assert "long long" in shown and "..." not in shown and "below 0.5" in shown


def test_a_shown_claims_table_puts_the_verdict_after_the_test() -> None:
    # on a phone a wide table scrolls sideways: its first screen must hold the test and its outcome
    table = report.claims_table([report.Claim("a", "A sentence.", "§1", "x", True),
                                 report.Claim("b", "Another sentence.", "§2", "y", False)])
    shown = report.show_claims(table, verdict=["reproduced", "contradicted"]).frame
    assert list(shown.columns) == ["test", "verdict", "holds", "ours", "the paper's words"]
    assert shown["the paper's words"].tolist() == ["A sentence. (§1)", "Another sentence. (§2)"]
    # whether it holds in a mark and a word, not a bare True/False
    assert [h.replace("\u00a0", " ") for h in shown["holds"]] == ["✓ yes", "✗ no"]
    # one claim reads down, as a list of its fields, not as a one-row table a phone pans across
    one = report.show_claims(table.iloc[:1])
    assert one._repr_html_().startswith('<dl class="claims-table claims-record"><dt>test</dt><dd>a</dd>')
    assert "<table" not in one._repr_html_() and repr(one).splitlines()[0] == "test: a"
    with pytest.raises(ValueError, match="extra column 'verdict': 1 values for 2 claims"):
        report.show_claims(table, verdict=["reproduced"])
    with pytest.raises(ValueError, match="key column 'data set': 3 values for 2 claims"):
        report.claims_table([report.Claim("a", "A sentence.", "§1", "x", True),
                             report.Claim("b", "B.", "§2", "y", False)], keys={"data set": ["p", "q", "r"]})


# --------------------------------------------------------------------------- the papers' words, in the papers
PAPERS = REPO_ROOT.parent / "shared" / "papers"
PAPER_TEXTS = {
    "lemaire2023naive": "lemaire-naive-bayes-shapley.txt",
    "anonymous_shapley_compositions": "shapley-compositions-simplex.txt",
    "amoukou_brunel_game_changers": "amoukou-swing-shapley-sdp.txt",
    "anonymous_typical_value": "unbalanced-typical-value-contributions.txt",
    "ferrettini2020improving": "ferrettini-coalitional-explanation.txt",
}
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_ABBREVIATIONS = re.compile(r"\b(et al|e\.g|i\.e|i\.e\.|Fig|Figs|Eq|Eqs|resp|vs|cf|al|Sect|No)\.$")


def normalise(text: str) -> str:
    """The text as quoted: footnote marks, emphasis and typography dropped, spaces collapsed."""
    text = re.sub(f"[{_SUPERSCRIPTS}]+", "", text)
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "*": None}))
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s+([,.;:)])", r"\1", text).replace("( ", "(").strip()


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence of a normalised text (a full stop, then a capital; paragraphs)."""
    spans, start = [], 0
    for match in re.finditer(r"(?<=[.!?])\s+(?=[A-Z(\\])|\n\s*\n", text):
        if _ABBREVIATIONS.search(text[start:match.start()]):
            continue
        spans.append((start, match.start()))
        start = match.end()
    return spans + [(start, len(text))]


def locate(quote: str, text: str) -> tuple[int, int] | None:
    """Where a quote stands in a normalised text (an ellipsis "…" stands for words left out of one sentence)."""
    parts = [p.strip() for p in normalise(quote).split("...") if p.strip()]  # NFKC writes "…" as "..."
    first = parts[0]
    for head in dict.fromkeys((first, first[:1].swapcase() + first[1:])):
        for match in re.finditer(re.escape(head), text):
            end, ok = match.end(), True
            for part in parts[1:]:
                nxt = text.find(part, end)
                if nxt == -1 or nxt - end > 200:
                    ok = False
                    break
                end = nxt + len(part)
            if ok:
                return match.start(), end
    return None


_CAPTION = re.compile(r"^(?:Fig\.|Figure|Table) \d+[:.]")


def paper_paragraphs(raw: str) -> str:
    """A paper's text as quoted, paragraph by paragraph: a paragraph that starts in lower case continues the
    sentence the page, or a figure's caption set between, interrupted (the PDF's text breaks it there), so it is
    joined to the last paragraph before it that is not a caption."""
    paragraphs: list[str] = []
    for part in raw.split("\n\n"):
        text = normalise(part)
        if not text:
            continue
        if paragraphs and text[:1].islower():
            j = len(paragraphs) - 1
            while j > 0 and _CAPTION.match(paragraphs[j]):
                j -= 1
            paragraphs[j] += " " + text
        else:
            paragraphs.append(text)
    return "\n\n".join(paragraphs)


def quote_problems(rep: pd.DataFrame, specs, papers: Path, entries=(), left=()) -> list[str]:
    """Scored quotes (and quotes of claims with no evidence, and sentences left out) not found verbatim in the
    paper, and distinct quotes of one sentence that the registry does not split on purpose (a clause that can
    differ from the others, ``split:``): one sentence, one claim, unless its clauses are claims of their own."""
    kinds = {s.table: s.kind for s in specs}
    rows = rep[((rep["table"].map(kinds) == "claims") & ~rep["status"].isin(report.APART))
               | (rep["status"] == report.NO_EVIDENCE)]
    split = [e.claim for e in entries if e.split]
    problems, spans = [], {}
    quotes = {(p, q): "claim" for p, q in rows[["paper", "claim"]].drop_duplicates().itertuples(index=False)}
    quotes.update({(e.paper, e.sentence): "left out" for e in left})
    for paper in sorted({p for p, _ in quotes}):
        text = paper_paragraphs((papers / PAPER_TEXTS[paper]).read_text(encoding="utf-8"))
        bounds = sentences(text)
        for (mine, quote), kind in quotes.items():
            if mine != paper:
                continue
            where = locate(quote, text)
            if where is None:
                problems.append(f"{paper}: not the paper's words ({kind}): {quote!r}")
                continue
            sentence = next((i for i, (a, b) in enumerate(bounds) if a <= where[0] < b), None)
            spans.setdefault((paper, sentence), []).append((quote, kind))
    for (p, _), found in spans.items():
        if len(found) < 2:
            continue
        if any(kind == "left out" for _, kind in found):
            problems.append(f"{p}: a sentence both left out and registered: {[q for q, _ in found]}")
        unsplit = [q for q, _ in found if not any(report.matches(q, pattern) for pattern in split)]
        if unsplit:
            problems.append(f"{p}: one sentence counted as {len(found)} claims, {len(unsplit)} of them not split on "
                            f"purpose ('split:' in the registry's claims): {unsplit}")
    return problems


def test_the_quote_checker_finds_what_it_must() -> None:
    text = normalise("We observe that all the features have the same Swing-SV for low values of π (below 0.7). "
                     "For higher probability π , the three expected variables stand out. The *RevVIF* is clearly "
                     "more precise than the other two, but at a cost⁸ of greatly increased computation time. "
                     "See Fig. 2 for it.")
    assert locate("all the features have the same Swing-SV for low values of π (below 0.7)", text)
    assert locate("for higher probability π, the three expected variables stand out.", text)   # a capital dropped
    assert locate("The RevVIF is clearly more precise … but at a cost of greatly increased computation time.", text)
    assert locate("the RevVIF motivates Algorithm 2", text) is None                              # a paraphrase
    assert len(sentences(text)) == 4                                                             # "Fig. 2" is no end
    a = locate("The RevVIF is clearly more precise than the other two", text)
    b = locate("but at a cost of greatly increased computation time", text)
    bounds = sentences(text)
    assert [next(i for i, (s, e) in enumerate(bounds) if s <= x[0] < e) for x in (a, b)] == [2, 2]
    # a sentence the PDF's text breaks at a page, with figure captions set between, is still one sentence
    broken = paper_paragraphs("It is large. This\n\nFig. 3: Group sizes\n\nphenomenon can explain it.\n\nNext one.")
    assert locate("This phenomenon can explain it.", broken)
    assert locate("Group sizes phenomenon", broken) is None
    assert len(sentences(broken)) == 4   # 'It is large.', 'This phenomenon ...', the caption, 'Next one.'


def test_every_scored_quote_is_the_papers_words_and_one_claim_per_sentence() -> None:
    if not PAPERS.is_dir():
        pytest.skip(f"the papers' text is not beside the repository ({PAPERS.name} of ../shared): quotes unchecked")
    specs = report.load_registry(root=REPO_ROOT)
    problems = quote_problems(report.reproduction_report(specs, REPO_ROOT), specs, PAPERS,
                              report.load_claim_entries(REPO_ROOT), report.load_left_out(REPO_ROOT))
    assert not problems, "\n".join(problems)


def test_the_real_registry_reads_at_claim_level() -> None:
    specs = report.load_registry(root=REPO_ROOT)
    rep = report.reproduction_report(specs, REPO_ROOT)
    table = report.claims(rep)
    assert set(table["outcome"]) <= set(report.OUTCOMES)
    # one passage, one outcome: no claim appears twice, and every claim that could not be tested says why
    assert not table.duplicated(["paper", "claim"]).any()
    assert (table.loc[table["outcome"] == report.UNTESTED, "reasons"] != "").all()
    # every threshold of ours that decides a claim comes with its range
    for thresholds in table["thresholds"]:
        for t in thresholds:
            assert t["low"] <= t["value"] <= t["high"]
    # counts of coalitions or model rows are derivation checks, never evidence
    costs = rep[rep["ours"].astype(str).str.contains(r"^(?:model rows|coalitions) RevVIF", regex=True)]
    assert len(costs) and (costs["status"] == report.DERIVATION).all()
    glance = report.glance(rep, list(report.load_papers(root=REPO_ROOT)))
    assert (glance["claims"] == glance[list(report.OUTCOMES)].sum(axis=1)).all() and (glance["why"] != "").all()


# --------------------------------------------------------------------------- issue 37: symmetric outcomes, true reasons, one count
def _paper_text(paper: str) -> str | None:
    path = PAPERS / PAPER_TEXTS[paper]
    return path.read_text(encoding="utf-8") if path.is_file() else None


def test_a_claim_on_a_set_up_the_book_chose_never_holds_nor_fails() -> None:
    rep = report.reproduction_report(root=REPO_ROOT)
    table = report.claims(rep)
    own = rep[~rep["status"].isin(report.APART)].groupby(["paper", "claim"])["setup"].apply(
        lambda s: (s == "identified").any())
    decided_own = table.set_index(["paper", "claim"])["outcome"].isin(report.OWN_OUTCOMES)
    assert (decided_own == own.reindex(decided_own.index)).all(), (
        "a claim holds or fails only on the paper's own set-up, and every claim tested there does")
    # what a substitute found is always kept: its rows, and how many agree
    sub = table[table["outcome"].isin(report.SUBSTITUTE_OUTCOMES)]
    assert (sub["substitute numbers"] > 0).all() and (sub["reasons"] != "").all()
    assert (sub.loc[sub["outcome"] == report.SUBSTITUTE, "substitute agree"]
            == sub.loc[sub["outcome"] == report.SUBSTITUTE, "substitute numbers"]).all()


def test_every_declared_reason_has_a_check() -> None:
    assert set(report.REASON_FACTS) == set(report.REASONS)


def test_every_reason_a_table_gives_is_true_by_the_repository() -> None:
    """Each substitute set-up, and each claim with no evidence, declares the facts that make its reason true; the
    paper's text (when beside the repository), the tool installed here, the authors' files pinned in the data
    manifest, an attempted fetch, the authors' repositories and the stored benchmark must bear them out."""
    problems = []
    setups = [(spec.csv, spec.paper, own) for spec in report.load_registry(root=REPO_ROOT) for own in spec.setups()]
    setups += [(f"untested {u.claim[:40]!r}", u.paper, u.setup()) for u in report.load_untested(REPO_ROOT)]
    for where, paper, own in setups:
        if own.setup == "identified":
            continue
        if not own.fact:
            problems.append(f"{where}: the reason {own.reason!r} declares no fact")
            continue
        found = report.reason_problems(own, _paper_text(paper), REPO_ROOT, paper=paper)
        problems += [f"{where}: {p}" for p in found]
        assert report.reason_fact_text(own, REPO_ROOT)
    assert not problems, "\n".join(sorted(set(problems)))


@pytest.mark.parametrize(
    ("reason", "fact", "text", "message"),
    [
        # data the manifest holds (UCI) is no offline-build reason
        ("data offline", {"names": "https://archive.ics.uci.edu/dataset/27/credit+approval"},
         "see https://archive.ics.uci.edu/dataset/27/credit+approval", "the build can have it"),
        # the paper does not say what the reason quotes
        ("data offline", {"names": "https://www.openml.org/s/107/tasks"}, "our data come from KEEL.", "does not say"),
        # the authors' file is not one the data manifest pins: its version is not a fact of the repository
        ("tool version", {"names": "Khiops", "pinned": "khiops-core", "authors": "crx/Crx.txt.kdic"},
         "we used the Khiops software", "not a file of the data manifest"),
        # a tool the environment does not have, and requirements.txt does not pin
        ("tool version", {"names": "Khiops", "pinned": "no-such-package", "authors": "telco-churn/Telco.kdic"},
         "we used the Khiops software", "not installed here"),
        # the book's call is not cheaper when the columns say otherwise
        ("cheaper model", {"names": "the output of the classifier", "benchmark": "benchmark-nb-speed.csv", "row": "crx",
                           "ours": "khiops interpret+deploy all rows s (best)",
                           "paper's tool": "numpy gather alone s (best)", "output": "kernel output"},
         "the value function used is the output of the classifier", "is not cheaper"),
        # a section that names its model identifies it
        ("set-up not identified", {"section": "3.2 A graphical model"},
         "3.2 A graphical model\nWe explain a random forest classifier trained on LUCAS.\n4 Next\n", "names a model"),
        # the paper names no CPU
        ("other machine", {"cpu": "Intel(R) Core(TM) i7-10875H", "benchmark": "benchmark-nb-speed.csv"},
         "timed on a laptop", "does not name the CPU"),
    ],
)
def test_a_reason_the_repository_contradicts_is_caught(reason: str, fact: dict, text: str, message: str) -> None:
    own = report.SetUp("guessed", reason, "a substitute", fact)
    problems = report.reason_problems(own, text, REPO_ROOT, fetch=False)
    assert any(message in p for p in problems), problems


def test_a_tool_version_is_read_from_the_tool_and_the_authors_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the reason is two versions read independently of any result: the one the installed tool reports, and the
    # one the authors' own file (pinned in the manifest) names; the same major version makes it false
    import hashlib
    from importlib import metadata

    installed = metadata.version("pyyaml")
    major = installed.split(".")[0]
    cache = tmp_path / "cache"
    (cache / "x").mkdir(parents=True)
    for name, header in (("same.kdic", f"#PyYAML {installed}\n"), ("older.kdic", "#PyYAML 1.0\n")):
        (cache / "x" / name).write_text(header)
    files = [{"path": f"x/{n}", "role": "dictionary", "sha256": hashlib.sha256((cache / "x" / n).read_bytes()).hexdigest()}
             for n in ("same.kdic", "older.kdic")]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "MANIFEST.yaml").write_text(yaml.safe_dump({"datasets": {"x": {"files": files}}}))
    (tmp_path / "requirements.txt").write_text(f"pyyaml=={installed}\n")
    monkeypatch.setenv("SHAPLEY_BOOK_DATA", str(cache))
    same = report.SetUp("model-differs", "tool version", "another version",
                        {"names": "PyYAML", "pinned": "pyyaml", "authors": "x/same.kdic"})
    assert any("same major version" in p for p in report.reason_problems(same, "we used PyYAML", tmp_path))
    older = report.SetUp("model-differs", "tool version", "another version",
                         {"names": "PyYAML", "pinned": "pyyaml", "authors": "x/older.kdic"})
    assert major != "1" and report.reason_problems(older, "we used PyYAML", tmp_path) == []
    # requirements.txt pinning another version than the installed one is caught too
    (tmp_path / "requirements.txt").write_text("pyyaml==0.1\n")
    assert any("requirements.txt pins 0.1" in p for p in report.reason_problems(older, "we used PyYAML", tmp_path))
    # a file changed since the manifest pinned it is not read
    (cache / "x" / "older.kdic").write_text("#PyYAML 2.0\n")
    assert any("sha256" in p for p in report.reason_problems(older, "we used PyYAML", tmp_path))


def test_data_offline_is_a_fetch_that_fails(tmp_path: Path) -> None:
    # the counter-example: data an attempted fetch gets are not offline (a local server stands in for the host)
    import functools
    import http.server
    import threading

    (tmp_path / "table.csv").write_text("a,b\n1,2\n")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/table.csv"
        assert report.attempt_fetch(url) == ""
        own = report.SetUp("guessed", "data offline", "stand-in data", {"names": url})
        assert any("was fetched here" in p for p in report.reason_problems(own, f"our data: {url}", REPO_ROOT))
        gone = url.replace("table.csv", "none.csv")
        assert "HTTPError" in report.attempt_fetch(gone)
        assert report.reason_problems(report.SetUp("guessed", "data offline", "x", {"names": gone}),
                                      f"our data: {gone}", REPO_ROOT) == []
    finally:
        server.shutdown()
        server.server_close()


def test_set_up_not_identified_fails_where_the_authors_code_is_used(tmp_path: Path) -> None:
    # the paper names no model, but the repository runs the authors' own demo: their set-up is the paper's
    _write(tmp_path, [], {})
    registry = tmp_path / "data" / "derived" / "reproduction.yaml"
    registry.write_text(yaml.safe_dump({"papers": {"p1": "Paper one"}, "code": {"p1": ["someone/their-demo"]}}))
    (tmp_path / "data" / "MANIFEST.yaml").write_text("datasets: {}\n")
    own = report.SetUp("guessed", "set-up not identified", "our model", {"section": "3.2 Figure"})
    text = "3.2 Figure\nThe three variables stand out.\n4 Next\n"
    assert report.reason_problems(own, text, tmp_path, paper="p1") == []
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "demo.py").write_text("# runs the notebook of github.com/someone/their-demo\n")
    problems = report.reason_problems(own, text, tmp_path, paper="p1")
    assert any("someone/their-demo in scripts/demo.py" in p for p in problems), problems


def test_other_machine_is_read_from_the_benchmark(tmp_path: Path) -> None:
    _write(tmp_path, [], {"bench.csv": "data set,cpu\ncrx,Intel(R) Core(TM) i7-10875H CPU\n",
                          "other.csv": "data set,cpu\ncrx,AMD EPYC 7B13\n", "none.csv": "data set,seconds\ncrx,1\n"})
    text = "The computer: Intel(R) Core(TM) i7-10875H (16 threads)"
    fact = lambda csv: report.SetUp("guessed", "other machine", "our machine", {"cpu": "i7-10875H", "benchmark": csv})
    assert any("the paper's" in p for p in report.reason_problems(fact("bench.csv"), text, tmp_path))
    assert report.reason_problems(fact("other.csv"), text, tmp_path) == []
    assert any("no column 'cpu'" in p for p in report.reason_problems(fact("none.csv"), text, tmp_path))


def test_several_reasons_need_every_fact() -> None:
    both = report.SetUp("guessed", "tool version; other machine", "Khiops 11 on two cores",
                        {"names": "Khiops", "pinned": "khiops-core", "authors": "telco-churn/Telco.kdic", "cpu": "x"})
    with pytest.raises(ValueError, match="the facts of the reason"):
        both.check("here")
    assert both.reasons == ["tool version", "other machine"]
    assert report.fact_keys(both.reasons) == ("names", "pinned", "authors", "cpu", "benchmark")


_AIMS = re.compile(r"^(?:we want|we wish|we aim|our (?:aim|goal)|we suggest|we recommend|we propose|it is recommended)\b",
                   re.IGNORECASE)


def test_aims_and_recommendations_are_never_scored() -> None:
    rep = report.reproduction_report(root=REPO_ROOT)
    scored = rep[~rep["status"].isin(report.APART)]
    kinds = {s.table: s.kind for s in report.load_registry(root=REPO_ROOT)}
    quotes = set(scored.loc[scored["table"].map(kinds) == "claims", "claim"])
    assert not [q for q in quotes if _AIMS.search(q.strip())], "an aim or a recommendation is scored as a claim"
    assert (rep["status"] == report.AIM).any()   # Appendix D's aim: shown apart
    # the counter-example: a row quoting an aim and not registered under 'aims' would be scored
    assert _AIMS.search("We want to optimally distribute the m_{\\max} drawn samples over the d features.")


def test_every_claim_is_named_by_what_it_says_and_apart() -> None:
    table = report.claims(report.reproduction_report(root=REPO_ROOT))
    assert (table["name"] != "").all(), table.loc[table["name"] == "", "claim"].tolist()
    assert not table.duplicated(["paper", "name"]).any()
    # no name is a table label alone ("Table 1"): the two Table 1 claims of Lemaire et al. are named apart
    assert not table["name"].str.fullmatch(r"(?:Table|Figure|Fig\.|§)\s*[\w.]+").any()
    tables_1 = table[(table["paper"] == "lemaire2023naive") & table["claim"].str.startswith("Table 1")]
    assert len(tables_1) == 2 and tables_1["name"].nunique() == 2


def test_one_count_for_every_page() -> None:
    counts = report.counts(root=REPO_ROOT)
    papers = [p for p in counts.index if p != "all papers"]
    assert (counts.loc[papers].sum() == counts.loc["all papers"]).all()
    assert (counts["claims"] == counts[list(report.OUTCOMES)].sum(axis=1)).all()
    assert (counts["maths claims"] == counts[[f"maths {o}" for o in report.OUTCOMES]].sum(axis=1)).all()
    # errata are the Erratum admonitions the notebooks and chapter pages state, each owned by one paper
    errata = report.errata(REPO_ROOT)
    assert len(errata) == counts.loc["all papers", "errata"] > 0 and (errata["paper"] != "").all()
    stated = 0
    for path in sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                stated += len(re.findall(r"^(?:`{3,}|:{3,})\{admonition\}\s*Erratum", "".join(cell["source"]), re.M))
    assert stated == len(errata)
    # README quotes the counts from compendium.report, never typed
    assert report.counts_markdown(REPO_ROOT) in (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def test_findings_are_sentences_from_the_claims() -> None:
    rep = report.reproduction_report(root=REPO_ROOT)
    table = report.claims(rep)
    found = report.findings(rep, REPO_ROOT)
    assert set(found) == set(table["paper"])
    for paper, sentences in found.items():
        text = " ".join(sentences)
        mine = table[table["paper"] == paper]
        for claim in mine.to_dict("records"):   # every claim, by its name, under its own outcome's sentence
            lead = {report.HOLDS: "**Holds**", report.FAILS: "**Fails**", report.SUBSTITUTE: "**Consistent on a substitute**",
                    report.INCONSISTENT: "**Inconsistent on a substitute**",
                    report.UNTESTED: "**Could not be tested**"}[claim["outcome"]]
            assert any(s.startswith(lead) and report.as_markdown(claim["name"]) in s for s in sentences), (paper, claim["name"])
        assert "\\(" not in text


@pytest.mark.parametrize(
    ("text", "shown"),
    [("The feature with the largest \\( \\log f_{-i} \\) value is the most significant.",
      "The feature with the largest $\\log f_{-i}$ value is the most significant."),
     ("We want to optimally distribute the m_{\\max} drawn samples over the d features.",
      "We want to optimally distribute the $m_{\\max}$ drawn samples over the d features."),
     ("\\tilde{p}_3 compares the probability for the class 0", "$\\tilde{p}_3$ compares the probability for the class 0"),
     ("the angles are $\\approx 109.5^\\circ$.", "the angles are $\\approx 109.5^\\circ$."),
     ("P(\\text{Lung\\_cancer}) and Lung\\_cancer", "P($\\text{Lung_cancer}$) and Lung_cancer"),
     ("no maths at all: RevVIF, p-values, 3 of 5", "no maths at all: RevVIF, p-values, 3 of 5")],
)
def test_maths_in_a_quote_is_shown_as_maths(text: str, shown: str) -> None:
    assert report.as_markdown(text) == shown


def test_no_quote_shows_raw_tex() -> None:
    table = report.claims(report.reproduction_report(root=REPO_ROOT))
    for quote in table["claim"]:
        outside = re.sub(r"\$[^$]*\$", "", report.as_markdown(quote))
        assert not re.search(r"\\[A-Za-z(]|_\{|\^\{", outside), quote


# --------------------------------------------------------------------------- issue 45: five outcomes, one click, splits
def _chapter(tmp_path: Path, extra: dict) -> None:
    path = tmp_path / "data" / "derived" / "reproduction" / "01-chapter.yaml"
    raw = yaml.safe_load(path.read_text())
    raw.update(extra)
    path.write_text(yaml.safe_dump(raw, allow_unicode=True))


def test_could_not_be_tested_means_no_evidence_at_all(tmp_path: Path) -> None:
    # a claim with no evidence at all is "could not be tested", for a reason with its facts; a claim tested only on
    # a substitute that disagrees is "inconsistent on a substitute", never "could not be tested"
    guess = dict(setup="guessed", setup_note="stand-in data", reason="data offline",
                 fact={"names": "https://example.invalid/data"})
    csv = "claim,paper,ours,holds\nx,A sentence tested.,x,False\n"
    _write(tmp_path, [_claims_spec("a.csv", "A", **guess)], {"a.csv": csv})
    untested = {"paper": "p1", "claim": "A sentence with nothing to compare.", "where": "§2", "name": "nothing compared",
                "cell": "why-none", "reason": "data offline", "fact": {"names": "https://example.invalid/data"}}
    _chapter(tmp_path, {"untested": [untested]})
    rep = report.reproduction_report(root=tmp_path)
    table = report.claims(rep).set_index("claim")
    assert table.loc["A sentence tested.", "outcome"] == report.INCONSISTENT
    none = table.loc["A sentence with nothing to compare."]
    assert none[["outcome", "reasons", "numbers", "tables", "cell", "name"]].tolist() == [
        report.UNTESTED, "data offline", 0, 0, "why-none", "nothing compared"]
    assert report.summary(rep).loc["p1", "published numbers"] == 1    # no number behind an untested claim
    assert report.counts(root=tmp_path).loc["p1", [report.INCONSISTENT, report.UNTESTED, "numbers"]].tolist() == [1, 1, 1]
    assert any(s.startswith("**Could not be tested**") for s in report.findings(rep, tmp_path)["p1"])
    # the counter-example: a claim with compared numbers filed "untested" is refused
    _chapter(tmp_path, {"untested": [dict(untested, claim="A sentence tested.")]})
    with pytest.raises(ValueError, match="never 'could not be tested'"):
        report.claims(report.reproduction_report(root=tmp_path))
    # an untested claim needs a reason of the list, with its facts
    _chapter(tmp_path, {"untested": [dict(untested, reason="no time")]})
    with pytest.raises(ValueError, match="needs a 'reason'"):
        report.load_untested(tmp_path)
    _chapter(tmp_path, {"untested": [dict(untested, fact={})]})
    with pytest.raises(ValueError, match="needs its facts"):
        report.load_untested(tmp_path)


def test_sentences_left_out_are_listed_with_why(tmp_path: Path) -> None:
    _write(tmp_path, [_claims_spec("a.csv", "A")], {"a.csv": "claim,paper,ours,holds\nx,A sentence.,x,True\n"})
    _chapter(tmp_path, {"left_out": [{"paper": "p1", "sentence": "Results in other publications vary.", "where": "fn. 9",
                                      "why": "about other publications, which the book does not hold"}]})
    assert report.left_out(tmp_path).to_dict("records") == [
        {"paper": "p1", "sentence": "Results in other publications vary.", "where": "fn. 9",
         "why": "about other publications, which the book does not hold"}]
    _chapter(tmp_path, {"left_out": [{"paper": "p1", "sentence": "x", "where": "fn. 9", "why": " "}]})
    with pytest.raises(ValueError, match="left_out"):
        report.load_left_out(tmp_path)


def test_every_claim_has_one_click_to_a_visible_cell(tmp_path: Path) -> None:
    # a claim names the label of the cell that decides it; the label must exist, and be in sight when the page
    # opens at it: not in a dropdown, not in a removed or folded cell, its deciding code cell's output shown
    md = lambda text, tags=(): {"cell_type": "markdown", "metadata": {"tags": list(tags)}, "source": text}
    code = lambda tags=(): {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": "x", "outputs": [],
                            "execution_count": None}
    cells = [md("(open)=\n## The verdict\n\nIt holds."), md("(ends)=\n"), code(),
             md(":::{dropdown} Details\n(folded)=\nText\n:::"), md("(removed)=\nText", ["remove-cell"]),
             md("(output-hidden)=\n"), code(["hide-output"]), md("```{figure} f.png\n:name: a-figure\n```"),
             md("```{admonition} Note\n:class: dropdown\n(in-toggle)=\n```"), md("```python\n(code-line)=\n```\n(after-code)=\nx")]
    path = tmp_path / "notebooks" / "ch" / "one.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    anchors = report.notebook_anchors(tmp_path)
    hidden = {k: bool(a.hidden) for k, a in anchors.items()}
    assert hidden == {"open": False, "ends": False, "folded": True, "removed": True, "output-hidden": True,
                      "a-figure": False, "in-toggle": True, "code-line": False, "after-code": False}
    table = pd.DataFrame({"paper": ["p1"] * 4, "claim": ["a", "b", "c", "d"], "name": ["a", "b", "c", "d"],
                          "cell": ["open", "", "nowhere", "folded"]})
    problems = report.anchor_problems(tmp_path, table)
    assert len(problems) == 3 and "no 'cell'" in problems[0] and "not a label" in problems[1] and "out of sight" in problems[2]


def test_the_real_claims_each_link_to_a_visible_cell() -> None:
    table = report.claims(report.reproduction_report(root=REPO_ROOT))
    problems = report.anchor_problems(REPO_ROOT, table)
    assert not problems, "\n".join(problems)


def test_a_split_sentence_is_several_claims_only_on_purpose(tmp_path: Path) -> None:
    text = normalise("The results show that our proposal is in fair agreement with the WoE and with KernelShap's "
                     "Shapley values, but with a much lower algorithmic complexity. Next sentence.")
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / PAPER_TEXTS["lemaire2023naive"]).write_text(text)
    quotes = ["our proposal is in fair agreement with the WoE", "our proposal is in fair agreement with … KernelShap's Shapley values"]
    rep = pd.DataFrame({"paper": ["lemaire2023naive"] * 2, "table": ["T", "T"], "status": ["reproduced"] * 2,
                        "claim": quotes})
    spec = type("Spec", (), {"table": "T", "kind": "claims"})()
    assert any("not split on purpose" in p for p in quote_problems(rep, [spec], papers))
    entries = [report.ClaimEntry(q, f"name {i}", "c", "the two agreements can differ") for i, q in enumerate(quotes)]
    assert quote_problems(rep, [spec], papers, entries) == []
    # a sentence left out cannot be registered too
    left = [report.LeftOut("lemaire2023naive", "but with a much lower algorithmic complexity", "§6", "why")]
    assert any("both left out and registered" in p for p in quote_problems(rep, [spec], papers, entries, left))


def test_a_table_counts_the_claims_it_tests(tmp_path: Path) -> None:
    csv = "claim,paper,ours,holds\nx,One.,x,True\ny,Two.,y,False\nz,Two.,z,True\n"
    rep = _claims_registry(tmp_path, [_claims_spec("a.csv", "A"), _claims_spec("b.csv", "B")],
                           {"a.csv": csv, "b.csv": "claim,paper,ours,holds\nw,Three.,w,True\n"})
    counted = report.table_counts(rep, report.load_registry(tmp_path))
    assert counted.loc[("p1", "a.csv"), ["claims", report.HOLDS, report.FAILS]].tolist() == [2, 1, 1]
    assert counted.loc[("p1", "b.csv"), "claims"] == 1


def test_rescience_criteria_are_the_claims_outcomes_paper_by_paper() -> None:
    """ReScience C's criteria on the report page come from the claims: each claim is named under the criterion
    its outcome gives (holds: replicated; fails: not replicated; decided on a substitute: could not be
    replicated here, with its declared reason), and the rerunnable counts are codecheck.yml's."""
    import yaml

    from compendium.rescience import RESCIENCE_CRITERIA, rescience

    rep = report.reproduction_report(root=REPO_ROOT)
    table = report.claims(rep)
    criteria = rescience(rep, root=REPO_ROOT)
    assert set(criteria) == set(table["paper"])
    where = {report.HOLDS: "replicated", report.FAILS: "not replicated",
             report.SUBSTITUTE: "could not be replicated here", report.INCONSISTENT: "could not be replicated here",
             report.UNTESTED: "could not be replicated here"}
    for claim in table.to_dict("records"):
        said = criteria[claim["paper"]]
        name = report.as_markdown(claim["name"] or claim["claim"])
        assert name in said[where[claim["outcome"]]], (claim["paper"], claim["name"], claim["outcome"])
        others = [k for k in RESCIENCE_CRITERIA if k not in (where[claim["outcome"]], "rerunnable")]
        assert not any(said[k].startswith(name) or f", {name}" in said[k] or f"; {name}" in said[k] for k in others)
        for reason in filter(None, claim["reasons"].split("; ")):
            assert report.REASONS[reason] in said["could not be replicated here"]
    listed = yaml.safe_load((REPO_ROOT / "codecheck.yml").read_text(encoding="utf-8"))["manifest"]
    chapter = {p: c for c, p in report.chapter_papers(report.load_registry(root=REPO_ROOT)).items()}
    for paper, said in criteria.items():
        figures = sum(f"saved by notebooks/{chapter[paper]}/" in i["comment"] for i in listed)
        assert f"lists its {figures} figure files" in said["rerunnable"]
