"""The reproduction report: every published number the book compares, with its verdict.

The chapters write their comparison tables (the paper's numbers beside ours) as CSV files
under ``data/derived/``. Each chapter's registry, ``data/derived/reproduction/<chapter>.yaml``,
says for each table which paper it belongs to, which columns hold the paper's value and ours,
whether the paper's set-up is identified, the tolerance (and the cell that measured the spread
it comes from), and the causes of deviations that a cell demonstrates. This module reads the
registries and the CSV files and classifies every number; the book's report page, the
chapters' results boxes and the tests call it, so no verdict is ever typed.

The five classes (:data:`STATUSES`, rules stated in ``CONTRIBUTING.md`` §1):

``reproduced``
    the set-up is identified and ``|ours - paper| <= tolerance``, the tolerance being the
    paper's printed precision (deterministic numbers) or read from a CSV written by the cell
    that measured the spread; for a claim: it holds on our numbers;
``consistent``
    as "reproduced", but the paper's set-up or instance is not identified (``setup: guessed``),
    or the model is not the paper's (``setup: model-differs``): the numbers agree, nothing is
    reproduced;
``explained deviation``
    outside the tolerance, and a cell demonstrates the cause: changing that one thing recovers
    the paper's number within the tolerance (``recovered``), or the paper's own numbers prove an
    erratum (``erratum``);
``not reproduced``
    outside the tolerance with no demonstrated cause (an untested or unconfirmed cause is kept
    as a note), or ours missing;
``contradicted``
    a claim of the paper that is false on our numbers.
"""

from __future__ import annotations

import fnmatch
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

__all__ = [
    "REGISTRY",
    "REGISTRY_DIR",
    "STATUSES",
    "BOOK_INFERENCE",
    "APART",
    "DERIVATION",
    "ERRATUM",
    "NOT_A_CLAIM",
    "NOT_SCORED",
    "Evidence",
    "Explanation",
    "TableSpec",
    "Tolerance",
    "check_evidence",
    "claim_summary",
    "claims",
    "classify",
    "is_paper_claim",
    "last_digit_tolerance",
    "load_papers",
    "load_registry",
    "notebook_labels",
    "reproduction_report",
    "summary",
    "table_rows",
]

#: The papers' names (BibTeX key -> short name), in the book's order.
REGISTRY = Path("data") / "derived" / "reproduction.yaml"
#: One registry file per chapter (``00-foundations.yaml``, ``01-naive-bayes.yaml``, ...).
REGISTRY_DIR = Path("data") / "derived" / "reproduction"
STATUSES = ("reproduced", "consistent", "explained deviation", "not reproduced", "contradicted")
#: Paper cells of a claims table meaning the paper states no claim there (the row is skipped).
#: A cell equal to one of these, or beginning with one of them followed by a space, a colon or a
#: parenthesis ("not claimed: ..."), is not a claim of the paper.
NOT_A_CLAIM = ("", "not claimed", "assumption")
#: Paper cells beginning with this word are the book's own inference from the paper ("implied
#: (§3): ..."), never a sentence of the paper: such a row is shown in its chapter but never scored
#: as the paper's claim (issue 20, §3).
BOOK_INFERENCE = "implied"
#: What a notebook shows for a row of its claims table that the report does not score.
NOT_SCORED = "not scored (not a claim of the paper)"
#: The status of a row that cannot fail: an identity, or a consequence of the book's own
#: definitions (efficiency of an exact computation, an angle fixed by the basis). Shown apart,
#: with the reason, and never counted as reproduced or consistent (issue 20, §2).
DERIVATION = "derivation check"
#: The status of a claims-table row stating an erratum of the paper (a printed formula or
#: caption that the paper's own numbers, or an exact computation, prove wrong). Every chapter
#: treats errata alike: shown apart, with the proof, and collected on the errata page, never
#: counted as a verdict (a wrong published *number* proved by the paper's own numbers stays an
#: "explained deviation" of its table). Issue 20, §4.
ERRATUM = "erratum"
#: Statuses shown apart from the verdicts, never counted in them.
APART = (DERIVATION, ERRATUM)
#: Worst first: a claim tested by several rows takes the worst status among them.
_SEVERITY = ("contradicted", "not reproduced", "explained deviation", "consistent", "reproduced")
#: ``identified``: the paper's protocol and model; ``guessed``: the paper's instance or set-up is
#: not identified and ours was chosen; ``model-differs``: the protocol is the paper's but the
#: model is not (another version of the paper's tool that cannot be run here). Under the last
#: two, agreement is "consistent" at most and a failed claim is "not reproduced".
SETUPS = ("identified", "guessed", "model-differs")
REPORT_COLUMNS = [
    "paper",
    "table",
    "item",
    "paper value",
    "ours",
    "difference",
    "tolerance",
    "status",
    "note",
    "evidence",
    "claim",
    "setup",
    "setup note",
    "cause",
]
_LABEL = re.compile(r"^\(([A-Za-z0-9][\w.:-]*)\)=\s*$", re.MULTILINE)


def _repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def _matches(item: str, pattern: str) -> bool:
    return item == pattern or fnmatch.fnmatchcase(item, pattern)


def is_paper_claim(paper_cell: str) -> bool:
    """Whether the paper cell of a claims-table row states a claim of the paper.

    False for an empty cell, for :data:`NOT_A_CLAIM` ("not claimed", "assumption", alone or
    followed by a reason) and for a book inference (:data:`BOOK_INFERENCE`, "implied ..."): the
    report scores the paper's own sentences only.
    """
    text = str(paper_cell).strip().lower()
    if text == "":
        return False
    for word in NOT_A_CLAIM[1:] + (BOOK_INFERENCE,):
        if text == word or (text.startswith(word) and text[len(word)] in " :;,(—-"):
            return False
    return True


def _truthy(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    raise ValueError(f"cannot read {value!r} as true or false")


def _read_csv(root: Path, name: str, needed_by: str) -> pd.DataFrame:
    path = root / "data" / "derived" / name
    if not path.is_file():
        raise FileNotFoundError(f"{needed_by}: data/derived/{name} does not exist; run the notebook that writes it")
    return pd.read_csv(path, dtype=str, keep_default_na=False)


# --------------------------------------------------------------------------- evidence
@dataclass(frozen=True)
class Evidence:
    """A value a notebook cell computed and stored: column ``column`` of ``data/derived/<csv>``.

    With ``key`` columns, the row is the one whose key values equal the compared item's
    values in the same columns; without, the CSV must have exactly one row.
    """

    csv: str
    column: str
    key: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Any, where: str) -> Evidence:
        if not isinstance(raw, Mapping) or not {"csv", "column"} <= set(raw):
            raise ValueError(f"{where}: evidence needs 'csv' and 'column', got {raw!r}")
        unknown = set(raw) - {"csv", "column", "key", "cell"}
        if unknown:
            raise ValueError(f"{where}: unknown evidence field(s) {sorted(unknown)}")
        return cls(csv=str(raw["csv"]), column=str(raw["column"]), key=tuple(raw.get("key", ())))

    def lookup(self, root: Path, row: Mapping[str, str], cache: dict[str, pd.DataFrame]) -> str:
        if self.csv not in cache:
            cache[self.csv] = _read_csv(root, self.csv, "evidence")
        frame = cache[self.csv]
        if self.column not in frame.columns:
            raise ValueError(f"{self.csv}: no column {self.column!r} (has {list(frame.columns)})")
        if self.key:
            missing = [k for k in self.key if k not in frame.columns or k not in row]
            if missing:
                raise ValueError(f"{self.csv}: key column(s) {missing} missing in the evidence or the table")
            mask = np.ones(len(frame), dtype=bool)
            for k in self.key:
                mask &= (frame[k] == str(row[k])).to_numpy()
            hits = frame.loc[mask, self.column]
            what = ", ".join(f"{k} = {row[k]!r}" for k in self.key)
        else:
            hits, what = frame[self.column], "the only row"
        if len(hits) != 1:
            raise ValueError(f"{self.csv}: expected one row for {what}, found {len(hits)}")
        return str(hits.iloc[0])


@dataclass(frozen=True)
class Tolerance:
    """How far ours may be from the paper's number.

    ``rule="last-digit"``: one unit of the paper's last printed digit (0 for an integer), for
    deterministic quantities. Otherwise ``source`` is the CSV column written by the cell
    labelled ``cell``, which measured the spread the tolerance is derived from.
    """

    rule: str | None = None
    source: Evidence | None = None
    cell: str | None = None

    @classmethod
    def parse(cls, raw: Any, where: str) -> Tolerance:
        if not isinstance(raw, Mapping):
            raise ValueError(
                f"{where}: the tolerance must be {{rule: last-digit}} or {{csv, column, cell}} "
                f"(a measured spread), not a typed number ({raw!r})"
            )
        if "rule" in raw:
            if raw["rule"] != "last-digit" or len(raw) != 1:
                raise ValueError(f"{where}: the only tolerance rule is 'last-digit', got {dict(raw)!r}")
            return cls(rule="last-digit")
        if not raw.get("cell"):
            raise ValueError(f"{where}: a measured tolerance must name the cell that measures it ('cell')")
        return cls(source=Evidence.parse(raw, where), cell=str(raw["cell"]))

    def value(self, paper_text: str, row: Mapping[str, str], root: Path, cache: dict[str, pd.DataFrame]) -> float:
        if self.rule == "last-digit":
            return last_digit_tolerance(paper_text)
        assert self.source is not None
        value = float(self.source.lookup(root, row, cache))
        if not value >= 0:
            raise ValueError(f"{self.source.csv}: tolerance must be >= 0, got {value}")
        return value


@dataclass(frozen=True)
class Explanation:
    """The cause of a deviation and the evidence that demonstrates it."""

    cause: str
    cell: str
    recovered: Evidence | None = None
    erratum: Evidence | None = None

    @classmethod
    def parse(cls, raw: Any, where: str) -> Explanation:
        if not isinstance(raw, Mapping):
            raise ValueError(
                f"{where}: an explanation needs 'cause', 'cell' and 'recovered' or 'erratum' evidence; "
                f"an untested cause goes under 'hypotheses' ({raw!r})"
            )
        unknown = set(raw) - {"cause", "cell", "recovered", "erratum"}
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {sorted(unknown)}")
        if not raw.get("cause") or not raw.get("cell"):
            raise ValueError(f"{where}: an explanation needs a 'cause' and the 'cell' that demonstrates it")
        kinds = [k for k in ("recovered", "erratum") if k in raw]
        if len(kinds) != 1:
            raise ValueError(f"{where}: give exactly one of 'recovered' (the paper's number recovered) or 'erratum'")
        return cls(
            cause=str(raw["cause"]),
            cell=str(raw["cell"]),
            recovered=Evidence.parse(raw["recovered"], where) if "recovered" in raw else None,
            erratum=Evidence.parse(raw["erratum"], where) if "erratum" in raw else None,
        )


def last_digit_tolerance(paper_text: str) -> float:
    """One unit of the last printed digit of ``paper_text`` (``"0.5550"`` -> 1e-4; ``"14"`` -> 0)."""
    text = str(paper_text).strip()
    mantissa = text.lower().split("e")[0]
    if "." not in mantissa:
        return 0.0
    decimals = len(mantissa.split(".", 1)[1])
    exponent = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    return 10.0 ** (exponent - decimals)


# --------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class TableSpec:
    """How to read and judge one comparison table (one entry of a chapter's registry)."""

    csv: str
    paper: str
    table: str
    shown_in: str
    key: tuple[str, ...]
    chapter: str = ""
    kind: str = "numeric"
    setup: str = "identified"
    setup_note: str = ""
    paper_column: str = "paper"
    ours_column: str = "ours"
    holds_column: str = "holds"
    tolerance: Tolerance | None = None
    explained: Mapping[str, Explanation] = field(default_factory=dict)
    hypotheses: Mapping[str, str] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    derivation: Mapping[str, str] = field(default_factory=dict)
    errata: Mapping[str, str] = field(default_factory=dict)
    claims_by: str = "sentence"
    index_column: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("numeric", "claims"):
            raise ValueError(f"{self.csv}: kind must be 'numeric' or 'claims', got {self.kind!r}")
        if not self.key:
            raise ValueError(f"{self.csv}: 'key' must name at least one column")
        if self.setup not in SETUPS:
            raise ValueError(f"{self.csv}: setup must be one of {SETUPS}, got {self.setup!r}")
        if self.setup != "identified" and not self.setup_note.strip():
            raise ValueError(f"{self.csv}: a {self.setup} set-up needs a 'setup_note' saying what differs and why")
        if self.claims_by not in ("sentence", "row"):
            raise ValueError(f"{self.csv}: claims_by must be 'sentence' or 'row', got {self.claims_by!r}")
        if self.kind == "numeric" and self.tolerance is None:
            raise ValueError(f"{self.csv}: a numeric table needs a tolerance")
        if self.kind == "claims" and (self.tolerance is not None or self.explained):
            raise ValueError(
                f"{self.csv}: a claims table has no tolerance and no explained deviations "
                "(a claim holds, or it is contradicted)"
            )

    def explanation(self, item: str) -> Explanation | None:
        return next((e for p, e in self.explained.items() if _matches(item, p)), None)

    def hypothesis(self, item: str) -> str | None:
        return next((str(h) for p, h in self.hypotheses.items() if _matches(item, p)), None)

    def excluded(self, item: str) -> bool:
        return any(_matches(item, pattern) for pattern in self.exclude)

    def apart(self, item: str) -> tuple[str, str, str] | None:
        """``(status, pattern, reason)`` if the registry lists ``item`` as a derivation check or an erratum."""
        for status, mapping in ((DERIVATION, self.derivation), (ERRATUM, self.errata)):
            for pattern, why in mapping.items():
                if _matches(item, pattern):
                    return status, pattern, str(why)
        return None

    def cells(self) -> list[str]:
        """The labels of every cell this table's verdicts rest on."""
        cells = [self.tolerance.cell] if self.tolerance is not None and self.tolerance.cell else []
        return cells + [e.cell for e in self.explained.values()]


_SPEC_FIELDS = set(TableSpec.__dataclass_fields__) - {"chapter"}


def _read_yaml(path: Path) -> Any:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _papers(root: Path) -> dict[str, str]:
    raw = _read_yaml(root / REGISTRY)
    if not isinstance(raw, dict) or not isinstance(raw.get("papers"), dict):
        raise ValueError(f"{REGISTRY}: expected a mapping 'papers' from BibTeX key to a short name")
    if set(raw) != {"papers"}:
        raise ValueError(f"{REGISTRY}: holds only 'papers'; tables go in {REGISTRY_DIR}/<chapter>.yaml")
    return {str(k): str(v) for k, v in raw["papers"].items()}


def load_papers(root: str | Path | None = None) -> dict[str, str]:
    """The papers: BibTeX key -> short name, in the book's order."""
    return _papers(Path(root) if root is not None else _repo_root())


def _parse_spec(entry: Mapping[str, Any], chapter: str, where: str) -> TableSpec:
    entry = dict(entry)
    unknown = set(entry) - _SPEC_FIELDS
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {sorted(unknown)} in entry {entry.get('csv')!r}")
    name = f"{where} ({entry.get('csv')})"
    entry["key"] = tuple(entry.get("key", ()))
    entry["exclude"] = tuple(entry.get("exclude", ()))
    if "tolerance" in entry:
        entry["tolerance"] = Tolerance.parse(entry["tolerance"], name)
    entry["explained"] = {
        str(p): Explanation.parse(e, f"{name}, explained {p!r}") for p, e in (entry.get("explained") or {}).items()
    }
    entry["hypotheses"] = {str(p): str(h) for p, h in (entry.get("hypotheses") or {}).items()}
    entry["derivation"] = {str(p): str(w) for p, w in (entry.get("derivation") or {}).items()}
    for pattern, why in entry["derivation"].items():
        if not why.strip():
            raise ValueError(f"{name}: derivation check {pattern!r} needs the reason it cannot fail")
    entry["errata"] = {str(p): str(w) for p, w in (entry.get("errata") or {}).items()}
    for pattern, why in entry["errata"].items():
        if not why.strip():
            raise ValueError(f"{name}: erratum {pattern!r} needs what proves it")
    return TableSpec(chapter=chapter, **entry)


def load_registry(root: str | Path | None = None) -> list[TableSpec]:
    """Every chapter's registry (``data/derived/reproduction/*.yaml``, in file-name order)."""
    root = Path(root) if root is not None else _repo_root()
    papers = _papers(root)
    specs: list[TableSpec] = []
    for path in sorted((root / REGISTRY_DIR).glob("*.yaml")):
        raw = _read_yaml(path)
        where = f"{REGISTRY_DIR / path.name}"
        if not isinstance(raw, dict) or not isinstance(raw.get("tables"), list) or set(raw) - {"tables"}:
            raise ValueError(f"{where}: expected a mapping with a list under 'tables' (and nothing else)")
        specs += [_parse_spec(entry, path.stem, where) for entry in raw["tables"]]
    names = [s.csv for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"{REGISTRY_DIR}: CSV(s) registered twice: {twice}")
    unnamed = sorted({s.paper for s in specs} - set(papers))
    if unnamed:
        raise ValueError(f"{REGISTRY}: paper(s) {unnamed} used by a table but missing under 'papers'")
    return specs


# --------------------------------------------------------------------------- classification
def classify(
    paper: float,
    ours: float,
    tolerance: float,
    *,
    setup: str = "identified",
    recovered: float | None = None,
    erratum: bool | None = None,
) -> str:
    """Verdict on one published number (module docstring; ``CONTRIBUTING.md`` §1).

    ``recovered`` is our number with the named cause changed (it explains the deviation when
    it is within ``tolerance`` of ``paper``); ``erratum`` is true when the paper's own numbers
    prove it wrong. A row with a demonstrated cause (``erratum``, or ``recovered`` within the
    tolerance) is an explained deviation even if ours also falls within the tolerance: the cause
    accounts for the paper's number, and the match of ours is chance.
    """
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    if setup not in SETUPS:
        raise ValueError(f"setup must be one of {SETUPS}, got {setup!r}")
    if paper is None or (isinstance(paper, float) and math.isnan(paper)):
        raise ValueError("the paper's value is missing: such a row is not a published number")

    def close(value: float | None) -> bool:
        return value is not None and not math.isnan(float(value)) and abs(float(value) - float(paper)) <= tolerance * (1 + 1e-9) + 1e-12

    if erratum or close(recovered):
        # a demonstrated cause accounts for the paper's number (its own numbers prove it wrong, or
        # changing the named cause recovers it): a match of ours as well would be chance
        return "explained deviation"
    if close(ours):
        return "reproduced" if setup == "identified" else "consistent"
    return "not reproduced"


def _float(text: str) -> float:
    text = str(text).strip()
    return float(text) if text != "" else float("nan")


def _evidence_links(spec: TableSpec, explanation: Explanation | None) -> str:
    links = []
    if spec.tolerance is not None and spec.tolerance.cell:
        links.append(f"tolerance:{spec.tolerance.cell}")
    if explanation is not None:
        links.append(f"cause:{explanation.cell}")
    return " ".join(links)


def table_rows(spec: TableSpec, root: str | Path | None = None) -> pd.DataFrame:
    """One registered table in the report's long form (one row per published number).

    Rows whose paper value is empty (or, in a claims table, not a claim) are skipped: the paper
    did not publish that number. The ``evidence`` column names the labelled cells the verdict
    rests on (``tolerance:<label>``, ``cause:<label>``).
    """
    root = Path(root) if root is not None else _repo_root()
    frame = _read_csv(root, spec.csv, f"registered table (shown in {spec.shown_in})")
    if spec.index_column:
        frame = frame.rename(columns={frame.columns[0]: spec.key[0]})
    needed = list(spec.key) + [spec.paper_column, spec.ours_column]
    needed += [spec.holds_column] if spec.kind == "claims" else []
    missing = [c for c in dict.fromkeys(needed) if c not in frame.columns]
    if missing:
        raise ValueError(f"{spec.csv}: missing column(s) {missing}; it has {list(frame.columns)}")
    cache: dict[str, pd.DataFrame] = {}
    records = []
    used: set[str] = set()
    for _, row in frame.iterrows():
        item = " / ".join(str(row[k]) for k in spec.key if str(row[k]) != "")
        if spec.excluded(item):
            continue
        values = {c: str(row[c]) for c in frame.columns}
        note = spec.setup_note if spec.setup != "identified" else ""
        apart = spec.apart(item)
        if apart is not None:
            status, pattern, why = apart
            used.add(pattern)
            records.append(dict(item=item, **{"paper value": row[spec.paper_column]}, ours=row[spec.ours_column],
                                difference="", tolerance="", status=status, note=why, evidence="", cause=""))
            continue
        if spec.kind == "claims":
            if not is_paper_claim(row[spec.paper_column]):
                continue
            holds = _truthy(row[spec.holds_column])
            status = (("reproduced" if holds else "contradicted") if spec.setup == "identified"
                      else ("consistent" if holds else "not reproduced"))  # nor can a guessed set-up or another model
            records.append(dict(item=item, **{"paper value": row[spec.paper_column]}, ours=row[spec.ours_column],
                                difference="", tolerance="", status=status, note=note, evidence="", cause=""))
            continue
        paper_text = row[spec.paper_column].strip()
        if paper_text == "":
            continue
        paper, ours = float(paper_text), _float(row[spec.ours_column])
        assert spec.tolerance is not None
        tol = spec.tolerance.value(paper_text, values, root, cache)
        explanation = spec.explanation(item)
        recovered = erratum = None
        if explanation is not None and explanation.recovered is not None:
            recovered = _float(explanation.recovered.lookup(root, values, cache))
        if explanation is not None and explanation.erratum is not None:
            erratum = _truthy(explanation.erratum.lookup(root, values, cache))
        status = classify(paper, ours, tol, setup=spec.setup, recovered=recovered, erratum=erratum)
        notes = [note] if note else []
        if status == "explained deviation" and explanation is not None:
            notes.append(explanation.cause)
        elif status == "not reproduced":
            if explanation is not None:
                shown = f"{recovered:.4g}" if recovered is not None else "not proved"
                notes.append(f"cause not confirmed ({shown}): {explanation.cause}")
            hypothesis = spec.hypothesis(item)
            if hypothesis:
                notes.append(f"hypothesis, untested: {hypothesis}")
        records.append(dict(item=item, **{"paper value": paper}, ours=ours, difference=ours - paper,
                            tolerance=tol, status=status, note="; ".join(notes),
                            evidence=_evidence_links(spec, explanation if status == "explained deviation" else None),
                            cause=explanation.cause if status == "explained deviation" and explanation else ""))
    unused = [p for p in [*spec.derivation, *spec.errata] if p not in used]
    if unused:
        raise ValueError(f"{spec.csv}: derivation check or erratum pattern(s) {unused} match no row")
    if not records:
        raise ValueError(f"{spec.csv}: no published number found (every paper value is empty)")
    out = pd.DataFrame.from_records(records)
    # the claim each row tests (see claims()): a numeric table is one claim; a claims table's rows
    # testing one sentence are one claim, unless the registry says each row is its own
    if spec.kind == "numeric":
        out["claim"] = spec.table
    elif spec.claims_by == "row":
        out["claim"] = out["item"].astype(str)
    else:
        out["claim"] = out["paper value"].astype(str)
    out["setup"] = spec.setup
    out["setup note"] = spec.setup_note.strip() if spec.setup != "identified" else ""
    out.insert(0, "table", spec.table)
    out.insert(0, "paper", spec.paper)
    return out[REPORT_COLUMNS]


def reproduction_report(specs: Sequence[TableSpec] | None = None, root: str | Path | None = None) -> pd.DataFrame:
    """Every registered published number, classified; columns :data:`REPORT_COLUMNS`."""
    specs = load_registry(root=root) if specs is None else specs
    return pd.concat([table_rows(s, root) for s in specs], ignore_index=True)


def summary(report: pd.DataFrame, papers: Sequence[str] | None = None) -> pd.DataFrame:
    """Number-level counts of each status per paper (in ``papers`` order if given) and a total row.

    Derivation checks (:data:`DERIVATION`) and errata (:data:`ERRATUM`) are not published numbers
    the book tests: they are counted in their own columns, outside ``published numbers``.
    """
    unknown = set(report["status"]) - set(STATUSES) - set(APART)
    if unknown:
        raise ValueError(f"unknown status value(s): {sorted(unknown)}")
    counts = (
        pd.crosstab(report["paper"], pd.Categorical(report["status"], categories=STATUSES + APART),
                    dropna=False)
        .reindex(columns=list(STATUSES + APART), fill_value=0)
        .rename_axis(index="paper", columns=None)
    )
    order = [p for p in (papers or dict.fromkeys(report["paper"])) if p in counts.index]
    counts = counts.reindex(order)
    counts["published numbers"] = counts[list(STATUSES)].sum(axis=1)
    counts = counts.rename(columns={DERIVATION: "derivation checks", ERRATUM: "errata"})
    counts = counts[list(STATUSES) + ["published numbers", "derivation checks", "errata"]]
    counts.loc["all papers"] = counts.sum(axis=0)
    return counts.astype(int)


def claims(report: pd.DataFrame) -> pd.DataFrame:
    """The report at the level of claims: one row per claim, with the worst status of its rows.

    A claim is one sentence of a paper (the ``paper value`` of a claims table: every row testing
    the same sentence is one claim; with ``claims_by: row`` in the registry each row is its own
    claim) or one published table (all its numbers are one claim: the table's message, which a
    sentence of the paper relies on); :func:`table_rows` writes it in the ``claim`` column. A claim takes the worst status of
    its rows (contradicted, not reproduced, explained deviation, consistent, reproduced): it holds
    only where all its numbers do. Derivation checks and errata are not claims and are left out. Columns:
    ``paper``, ``table``, ``claim``, ``setup`` (identified, guessed, model-differs), ``status``,
    ``numbers`` (how many rows test it) and ``agree`` (how many of them are reproduced or consistent).
    """
    rows = report[~report["status"].isin(APART)]
    frame = rows.assign(rank=rows["status"].map(_SEVERITY.index),
                        agree=rows["status"].isin(("reproduced", "consistent")))
    grouped = frame.groupby(["paper", "table", "claim", "setup"], sort=False)
    out = grouped.agg(rank=("rank", "min"), numbers=("status", "size"), agree=("agree", "sum")).reset_index()
    out["status"] = [_SEVERITY[int(r)] for r in out["rank"]]
    return out[["paper", "table", "claim", "setup", "status", "numbers", "agree"]].astype(
        {"numbers": int, "agree": int})


def claim_summary(report: pd.DataFrame, papers: Sequence[str] | None = None) -> pd.DataFrame:
    """Claim-level counts of each status per paper (see :func:`claims`), and a total row.

    The last column, ``not the paper's set-up``, counts the claims tested on a set-up we chose
    (``guessed``) or with another model (``model-differs``): what could not be tested here as the
    paper did it, and so can be at most consistent, never reproduced or contradicted.
    """
    table = claims(report)
    counts = (
        pd.crosstab(table["paper"], pd.Categorical(table["status"], categories=STATUSES), dropna=False)
        .reindex(columns=list(STATUSES), fill_value=0)
        .rename_axis(index="paper", columns=None)
    )
    order = [p for p in (papers or dict.fromkeys(table["paper"])) if p in counts.index]
    counts = counts.reindex(order)
    counts["claims"] = counts[list(STATUSES)].sum(axis=1)
    other = table[table["setup"] != "identified"].groupby("paper").size()
    counts["not the paper's set-up"] = other.reindex(counts.index, fill_value=0)
    counts.loc["all papers"] = counts.sum(axis=0)
    return counts.astype(int)


def causes(report: pd.DataFrame) -> pd.DataFrame:
    """Independent causes, each counted once, with how many claims and numbers each accounts for.

    Two kinds (issue 20, §5): a **demonstrated cause** of explained deviations (the registry's
    ``cause`` of an explanation, which a cell demonstrates), and a **set-up that is not the
    paper's** (the ``setup_note`` of a guessed or model-differs table: why those claims could not
    be tested as the paper did). Rows naming the same cause, in one table or several, are one
    cause: one cause behind 56 numbers is one finding, not 56. Columns: ``kind``, ``cause``,
    ``papers``, ``tables``, ``claims`` (distinct claims with at least one such row) and
    ``numbers``; the largest first.
    """
    rows = report[~report["status"].isin(APART)]
    parts = [
        ("demonstrated cause of a deviation", rows[rows["cause"] != ""], "cause"),
        ("set-up not the paper's", rows[rows["setup note"] != ""], "setup note"),
    ]
    records = []
    for kind, frame, column in parts:
        for cause, group in frame.groupby(column, sort=False):
            records.append(dict(
                kind=kind, cause=str(cause), papers=int(group["paper"].nunique()),
                tables=int(group["table"].nunique()),
                claims=int(group[["paper", "table", "claim"]].drop_duplicates().shape[0]),
                numbers=int(len(group))))
    out = pd.DataFrame.from_records(records, columns=["kind", "cause", "papers", "tables", "claims", "numbers"])
    order = {kind: i for i, (kind, _, _) in enumerate(parts)}
    out = out.assign(_k=out["kind"].map(order)).sort_values(["_k", "claims", "numbers", "cause"],
                                                            ascending=[True, False, False, True], kind="stable")
    return out.drop(columns="_k").reset_index(drop=True)


# --------------------------------------------------------------------------- evidence checks
def notebook_labels(root: str | Path | None = None) -> dict[str, str]:
    """Every MyST target ``(label)=`` in a markdown cell of a notebook: label -> notebook."""
    root = Path(root) if root is not None else _repo_root()
    found: dict[str, str] = {}
    for path in sorted((root / "notebooks").glob("*/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                for label in _LABEL.findall("".join(cell["source"])):
                    found[label] = path.relative_to(root).with_suffix("").as_posix()
    return found


def check_evidence(specs: Sequence[TableSpec] | None = None, root: str | Path | None = None) -> list[str]:
    """Problems with the evidence behind the verdicts (an empty list when every verdict has it).

    Every ``shown_in`` notebook exists; every cell a tolerance or an explanation names is a
    labelled markdown cell of a notebook; a measured tolerance's CSV is not the compared table
    itself; every registered CSV exists.
    """
    root = Path(root) if root is not None else _repo_root()
    specs = load_registry(root=root) if specs is None else specs
    labels = notebook_labels(root)
    problems = []
    for spec in specs:
        if not (root / f"{spec.shown_in}.ipynb").is_file():
            problems.append(f"{spec.csv}: shown_in {spec.shown_in} is not a notebook")
        if not (root / "data" / "derived" / spec.csv).is_file():
            problems.append(f"{spec.csv}: the table does not exist in data/derived/")
        for cell in spec.cells():
            if cell not in labels:
                problems.append(f"{spec.csv}: cell label {cell!r} is not a MyST target in any notebook")
        tol = spec.tolerance
        if tol is not None and tol.source is not None and tol.source.csv == spec.csv:
            problems.append(f"{spec.csv}: the tolerance must come from the cell that measured a spread, not the table")
    return problems
