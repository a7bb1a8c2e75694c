"""The reproduction report's registry: which comparison tables the book stores, and how each is judged.

``data/derived/reproduction.yaml`` names the papers; each chapter's ``data/derived/reproduction/<chapter>.yaml``
lists its tables (schema: ``CONTRIBUTING.md`` §1). This module reads and validates them
(:func:`load_registry`, :class:`TableSpec`), reads the evidence a cell stored (:class:`Evidence`, a measured
:class:`Tolerance`, a demonstrated :class:`Explanation`) and checks that every verdict can be followed to a
labelled cell (:func:`check_evidence`). The reasons a set-up is not the paper's, and their checks, are
:mod:`compendium.reasons`'s (re-exported here). :mod:`compendium.report` classifies what it describes, and
re-exports it.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from compendium.reasons import (  # re-exported: the reasons, their facts and their checks
    MODEL_WORDS,
    REASON_FACTS,
    REASONS,
    attempt_fetch,
    fact_keys,
    reason_fact_text,
    reason_problems,
)

__all__ = [
    "AIM",
    "DERIVATION",
    "ERRATUM",
    "MODEL_WORDS",
    "REASONS",
    "REASON_FACTS",
    "REGISTRY",
    "REGISTRY_DIR",
    "SETUPS",
    "SETUP_RULE",
    "fact_keys",
    "Evidence",
    "Explanation",
    "SetUp",
    "TableSpec",
    "Tolerance",
    "ClaimEntry",
    "LeftOut",
    "Untested",
    "Anchor",
    "anchor_problems",
    "attempt_fetch",
    "notebook_anchors",
    "check_evidence",
    "last_digit_tolerance",
    "load_authors_code",
    "load_claim_entries",
    "load_left_out",
    "load_papers",
    "load_registry",
    "load_theses",
    "load_untested",
    "matches",
    "notebook_labels",
    "read_table",
    "reason_fact_text",
    "reason_problems",
    "repo_root",
    "truthy",
]

#: The papers' names (BibTeX key -> short name), in the book's order.
REGISTRY = Path("data") / "derived" / "reproduction.yaml"
#: One registry file per chapter (``00-foundations.yaml``, ``01-naive-bayes.yaml``, ...).
REGISTRY_DIR = Path("data") / "derived" / "reproduction"
#: The rule, stated once for every chapter, of what "the paper's set-up" is.
SETUP_RULE = (
    "The paper's set-up is what the paper states and what the authors' own code, data dictionaries and demos "
    "fix, wherever the repository holds them (read from their files, or run beside the book's code): a claim "
    "tested on it holds or fails. Anything the book had to choose or could not have is a substitute, which can "
    "neither confirm nor refute a claim."
)
#: The status of a row that cannot fail: an identity, a consequence of the book's own
#: definitions (efficiency of an exact computation, an angle fixed by the basis), or a count of
#: coalitions or model rows (a cost by construction, never a measurement). Shown apart, with the
#: reason, and never counted as evidence.
DERIVATION = "derivation check"
#: The status of a claims-table row stating an erratum of the paper (a printed formula or
#: caption that the paper's own numbers, or an exact computation, prove wrong). Every chapter
#: treats errata alike: shown apart, with the proof, and collected on the errata page, never
#: counted as a verdict (a wrong published *number* proved by the paper's own numbers stays an
#: "explained deviation" of its table). Issue 20, §4.
ERRATUM = "erratum"
#: The status of a row whose paper cell is an aim or a recommendation of the paper ("We want to ...", "we
#: suggest ..."): it cannot fail, so it is shown apart with why, never scored (the registry's ``aims``).
AIM = "aim, not scored"
#: ``identified``: the paper's protocol and model; ``guessed``: the paper's instance or set-up is
#: not identified and ours was chosen; ``model-differs``: the protocol is the paper's but the
#: model is not (another version of the paper's tool that cannot be run here). Under the last
#: two, agreement is "consistent" at most and a failed claim is "not reproduced".
SETUPS = ("identified", "guessed", "model-differs")
_LABEL = re.compile(r"^\(([A-Za-z0-9][\w.:-]*)\)=\s*$", re.MULTILINE)


def repo_root() -> Path:
    """The repository's root (outside a clone, the book folder that stands in for it: :func:`compendium.data.book_root`)."""
    from compendium.data.cache import REPO_ROOT

    return REPO_ROOT


def matches(item: str, pattern: str) -> bool:
    return item == pattern or fnmatch.fnmatchcase(item, pattern)


def truthy(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    raise ValueError(f"cannot read {value!r} as true or false")


def read_table(root: Path, name: str, needed_by: str) -> pd.DataFrame:
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
            cache[self.csv] = read_table(root, self.csv, "evidence")
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
class SetUp:
    """Whose set-up a table's rows (or some of them) are on: the paper's (``identified``) or a
    substitute the book chose (``guessed``, ``model-differs``), why the paper's own could not be
    used (``reason``, one of ``REASONS``), what was chosen (``note``), and the facts of the
    repository that make the reason true (``fact``, the keys ``REASON_FACTS`` names)."""

    setup: str = "identified"
    reason: str = ""
    note: str = ""
    fact: Mapping[str, str] = field(default_factory=dict)

    @property
    def reasons(self) -> list[str]:
        """The reasons, one or several (``"tool version; other machine"``)."""
        return [r.strip() for r in self.reason.split(";") if r.strip()]

    def check(self, where: str) -> None:
        if self.setup not in SETUPS:
            raise ValueError(f"{where}: setup must be one of {SETUPS}, got {self.setup!r}")
        if self.setup != "identified" and not self.note.strip():
            raise ValueError(f"{where}: a {self.setup} set-up needs a 'setup_note' saying what differs and why")
        if self.setup != "identified" and (not self.reasons or any(r not in REASONS for r in self.reasons)):
            raise ValueError(f"{where}: a {self.setup} set-up needs a 'reason', why the paper's own could not "
                             f"be tested here: one of {sorted(REASONS)} (several: 'a; b'); got {self.reason!r}")
        if self.setup == "identified" and (self.reason or self.fact):
            raise ValueError(f"{where}: an identified set-up has no 'reason' (it is the paper's own)")
        if self.fact and set(self.fact) != set(fact_keys(self.reasons)):
            raise ValueError(f"{where}: the facts of the reason {self.reason!r} are {list(fact_keys(self.reasons))}, "
                             f"got {sorted(self.fact)}")


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
    index_column: bool = False
    reason: str = ""
    mathematical: tuple[str, ...] = ()
    thresholds: Mapping[str, str] = field(default_factory=dict)
    fact: Mapping[str, str] = field(default_factory=dict)
    rows: Mapping[str, SetUp] = field(default_factory=dict)
    aims: Mapping[str, str] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in ("numeric", "claims"):
            raise ValueError(f"{self.csv}: kind must be 'numeric' or 'claims', got {self.kind!r}")
        if not self.key:
            raise ValueError(f"{self.csv}: 'key' must name at least one column")
        SetUp(self.setup, self.reason, self.setup_note, self.fact).check(self.csv)
        for pattern, own in self.rows.items():
            own.check(f"{self.csv}, rows {pattern!r}")
        if self.kind == "numeric" and (self.rows or self.aims):
            raise ValueError(f"{self.csv}: 'rows' and 'aims' name rows of a claims table")
        if self.kind == "numeric" and (self.mathematical or self.thresholds):
            raise ValueError(f"{self.csv}: 'mathematical' and 'thresholds' name rows of a claims table")
        if self.kind == "numeric" and self.tolerance is None:
            raise ValueError(f"{self.csv}: a numeric table needs a tolerance")
        if self.kind == "claims" and (self.tolerance is not None or self.explained):
            raise ValueError(
                f"{self.csv}: a claims table has no tolerance and no explained deviations "
                "(a claim holds, or it is contradicted)"
            )

    def setup_of(self, item: str) -> SetUp:
        """The set-up of one row: the table's, unless the registry's ``rows`` gives that row its own."""
        own = next((u for p, u in self.rows.items() if matches(item, p)), None)
        return own or SetUp(self.setup, self.reason, self.setup_note, self.fact)

    def setups(self) -> list[SetUp]:
        """Every set-up of the table's rows (the table's own first)."""
        return [SetUp(self.setup, self.reason, self.setup_note, self.fact), *self.rows.values()]

    def name(self, claim: str) -> str:
        """The name of a claim in words (the registries' ``claims``), or ``""``."""
        return next((n for p, n in self.names.items() if matches(claim, p)), "")

    def explanation(self, item: str) -> Explanation | None:
        return next((e for p, e in self.explained.items() if matches(item, p)), None)

    def hypothesis(self, item: str) -> str | None:
        return next((str(h) for p, h in self.hypotheses.items() if matches(item, p)), None)

    def excluded(self, item: str) -> bool:
        return any(matches(item, pattern) for pattern in self.exclude)

    def apart(self, item: str) -> tuple[str, str, str] | None:
        """``(status, pattern, reason)`` if the registry lists ``item`` as a derivation check, an erratum or an aim."""
        for status, mapping in ((DERIVATION, self.derivation), (ERRATUM, self.errata), (AIM, self.aims)):
            for pattern, why in mapping.items():
                if matches(item, pattern):
                    return status, pattern, str(why)
        return None

    def nature(self, item: str) -> str:
        return "mathematical" if any(matches(item, p) for p in self.mathematical) else "empirical"

    def threshold(self, item: str) -> str | None:
        """Why the threshold deciding ``item`` is ours (the registry's ``thresholds``), if one does."""
        return next((str(w) for p, w in self.thresholds.items() if matches(item, p)), None)

    def cells(self) -> list[str]:
        """The labels of every cell this table's verdicts rest on."""
        cells = [self.tolerance.cell] if self.tolerance is not None and self.tolerance.cell else []
        return cells + [e.cell for e in self.explained.values()]


_SPEC_FIELDS = set(TableSpec.__dataclass_fields__) - {"chapter", "names"}


def _read_yaml(path: Path) -> Any:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _papers(root: Path, which: str = "papers") -> dict[str, str]:
    raw = _read_yaml(root / REGISTRY)
    if not isinstance(raw, dict) or not isinstance(raw.get("papers"), dict):
        raise ValueError(f"{REGISTRY}: expected a mapping 'papers' from BibTeX key to a name")
    if not set(raw) <= {"papers", "short", "thesis", "code"}:
        raise ValueError(f"{REGISTRY}: holds only 'papers' (their 'short' names, their 'thesis', the authors' 'code'); "
                         f"tables go in "
                         f"{REGISTRY_DIR}/<chapter>.yaml")
    names = {str(k): str(v) for k, v in raw["papers"].items()}
    if which == "short":
        short = {str(k): str(v) for k, v in (raw.get("short") or {}).items()}
        return {k: short.get(k, v.split(":")[0]) for k, v in names.items()}
    if which == "thesis":
        thesis = {str(k): str(v) for k, v in (raw.get("thesis") or {}).items()}
        return {k: thesis.get(k, "") for k in names}
    return names


def load_papers(root: str | Path | None = None, *, short: bool = False) -> dict[str, str]:
    """The papers: BibTeX key -> name (``short=True``: the short name of narrow tables), in the book's order."""
    return _papers(Path(root) if root is not None else repo_root(), "short" if short else "papers")


def load_theses(root: str | Path | None = None) -> dict[str, str]:
    """What each paper claims, in one line of our words (the registry's ``thesis``; ``""`` where none is given),
    by BibTeX key, in the book's order: the landing page opens with it."""
    return _papers(Path(root) if root is not None else repo_root(), "thesis")


def _parse_spec(entry: Mapping[str, Any], chapter: str, where: str, names: Mapping[str, str]) -> TableSpec:
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
    entry["mathematical"] = tuple(str(p) for p in (entry.get("mathematical") or ()))
    entry["thresholds"] = {str(p): str(w) for p, w in (entry.get("thresholds") or {}).items()}
    for pattern, why in entry["thresholds"].items():
        if not why.strip():
            raise ValueError(f"{name}: threshold {pattern!r} needs what it bounds and why it is ours")
    entry["fact"] = {str(k): str(v) for k, v in (entry.get("fact") or {}).items()}
    rows = {}
    for pattern, raw in (entry.get("rows") or {}).items():
        unknown = set(raw) - {"setup", "reason", "setup_note", "fact"} if isinstance(raw, Mapping) else {"?"}
        if unknown:
            raise ValueError(f"{name}: rows {pattern!r}: give setup, reason, setup_note and fact, got {raw!r}")
        rows[str(pattern)] = SetUp(str(raw.get("setup", "identified")), str(raw.get("reason", "")),
                                   str(raw.get("setup_note", "")), {str(k): str(v) for k, v in (raw.get("fact") or {}).items()})
    entry["rows"] = rows
    entry["aims"] = {str(p): str(w) for p, w in (entry.get("aims") or {}).items()}
    for pattern, why in entry["aims"].items():
        if not why.strip():
            raise ValueError(f"{name}: aim {pattern!r} needs why it is an aim or a recommendation, not a claim")
    entry["errata"] = {str(p): str(w) for p, w in (entry.get("errata") or {}).items()}
    for pattern, why in entry["errata"].items():
        if not why.strip():
            raise ValueError(f"{name}: erratum {pattern!r} needs what proves it")
    return TableSpec(chapter=chapter, names=names, **entry)


#: The top-level keys of a chapter's registry file.
_CHAPTER_KEYS = {"tables", "claims", "untested", "left_out"}
#: The fields of an entry of ``claims`` (``claim`` and ``name`` required).
_CLAIM_FIELDS = {"claim", "name", "cell", "split"}


@dataclass(frozen=True)
class ClaimEntry:
    """A claim's entry under ``claims:`` in a chapter's registry: the claim (its quote or table title, or the
    start of it with a trailing ``*``), its ``name`` in words, the ``cell`` that decides it (the MyST label of
    a visible cell or figure in a notebook: the report links to it) and, for a clause of a sentence that holds
    several claims, ``split``: why this clause is a claim of its own (the sub-claims of one sentence can differ)."""

    claim: str
    name: str
    cell: str = ""
    split: str = ""
    chapter: str = ""


@dataclass(frozen=True)
class Untested:
    """A claim of a paper with no evidence at all (``untested:`` in a chapter's registry): its quote, where it
    is, its name, the cell that shows why, and the reason, with the facts a test checks
    (:func:`~compendium.reasons.reason_problems`)."""

    paper: str
    claim: str
    where: str
    name: str
    cell: str
    reason: str
    fact: Mapping[str, str] = field(default_factory=dict)
    chapter: str = ""

    def setup(self) -> SetUp:
        return SetUp("guessed", self.reason, f"no evidence: {self.name}", self.fact)


@dataclass(frozen=True)
class LeftOut:
    """A sentence of a paper that states a result and is not registered as a claim (``left_out:``), and why."""

    paper: str
    sentence: str
    where: str
    why: str
    chapter: str = ""


def _chapter_files(root: Path) -> list[tuple[Path, dict[str, Any], str]]:
    out = []
    for path in sorted((root / REGISTRY_DIR).glob("*.yaml")):
        raw = _read_yaml(path)
        where = f"{REGISTRY_DIR / path.name}"
        if not isinstance(raw, dict) or not isinstance(raw.get("tables"), list) or set(raw) - _CHAPTER_KEYS:
            raise ValueError(f"{where}: expected a mapping with a list under 'tables' (and 'claims', their names; "
                             f"'untested', claims with no evidence; 'left_out', sentences not registered)")
        out.append((path, raw, where))
    return out


def load_claim_entries(root: str | Path | None = None) -> list[ClaimEntry]:
    """Every chapter's ``claims:`` entries (the claims' names, the cells that decide them, their splits)."""
    root = Path(root) if root is not None else repo_root()
    entries: list[ClaimEntry] = []
    seen: set[str] = set()
    for path, raw, where in _chapter_files(root):
        for named in raw.get("claims") or []:
            if (not isinstance(named, Mapping) or not {"claim", "name"} <= set(named) or set(named) - _CLAIM_FIELDS
                    or not str(named["name"]).strip()):
                raise ValueError(f"{where}: each entry of 'claims' is {{claim: <the quote, or its start with *>, "
                                 f"name: <what it says, in words>, cell: <the label of the cell that decides it>, "
                                 f"split: <why a clause is a claim of its own> (optional)}}, got {named!r}")
            if str(named["claim"]) in seen:
                raise ValueError(f"{where}: the claim {str(named['claim'])[:60]!r} is named twice")
            seen.add(str(named["claim"]))
            entries.append(ClaimEntry(str(named["claim"]), str(named["name"]).strip(), str(named.get("cell") or ""),
                                      str(named.get("split") or "").strip(), path.stem))
    return entries


def load_untested(root: str | Path | None = None) -> list[Untested]:
    """Every chapter's ``untested:`` claims (no evidence at all), validated: a reason of
    :data:`~compendium.reasons.REASONS` with its facts."""
    root = Path(root) if root is not None else repo_root()
    papers = _papers(root)
    out: list[Untested] = []
    fields = {"paper", "claim", "where", "name", "cell", "reason", "fact"}
    for path, raw, where in _chapter_files(root):
        for entry in raw.get("untested") or []:
            if not isinstance(entry, Mapping) or set(entry) != fields:
                raise ValueError(f"{where}: each entry of 'untested' gives {sorted(fields)}, got {entry!r}")
            item = Untested(str(entry["paper"]), str(entry["claim"]), str(entry["where"]), str(entry["name"]).strip(),
                            str(entry["cell"]), str(entry["reason"]),
                            {str(k): str(v) for k, v in (entry.get("fact") or {}).items()}, path.stem)
            if item.paper not in papers:
                raise ValueError(f"{where}: untested claim of {item.paper!r}, which is not under 'papers'")
            item.setup().check(f"{where}, untested {item.claim[:40]!r}")
            if not item.fact:
                raise ValueError(f"{where}, untested {item.claim[:40]!r}: its reason needs its facts "
                                 f"{list(fact_keys(item.setup().reasons))}")
            out.append(item)
    return out


def load_left_out(root: str | Path | None = None) -> list[LeftOut]:
    """Every chapter's ``left_out:`` sentences (results the registry does not test), each with why."""
    root = Path(root) if root is not None else repo_root()
    papers = _papers(root)
    out: list[LeftOut] = []
    fields = {"paper", "sentence", "where", "why"}
    for path, raw, where in _chapter_files(root):
        for entry in raw.get("left_out") or []:
            if not isinstance(entry, Mapping) or set(entry) != fields or not str(entry["why"]).strip():
                raise ValueError(f"{where}: each entry of 'left_out' gives {sorted(fields)}, got {entry!r}")
            if str(entry["paper"]) not in papers:
                raise ValueError(f"{where}: left-out sentence of {entry['paper']!r}, which is not under 'papers'")
            out.append(LeftOut(str(entry["paper"]), str(entry["sentence"]), str(entry["where"]),
                               str(entry["why"]).strip(), path.stem))
    return out


def load_authors_code(root: str | Path | None = None) -> dict[str, list[str]]:
    """The authors' own repositories of each paper (``code:`` in the papers' registry: BibTeX key -> ``owner/name``
    of GitHub repositories): what the book reads or runs of them is part of the paper's set-up."""
    root = Path(root) if root is not None else repo_root()
    raw = _read_yaml(root / REGISTRY)
    return {str(k): [str(r) for r in (v or [])] for k, v in (raw.get("code") or {}).items()}


def load_registry(root: str | Path | None = None) -> list[TableSpec]:
    """Every chapter's registry (``data/derived/reproduction/*.yaml``, in file-name order)."""
    root = Path(root) if root is not None else repo_root()
    papers = _papers(root)
    specs: list[TableSpec] = []
    names = {e.claim: e.name for e in load_claim_entries(root)}
    for path, raw, where in _chapter_files(root):
        specs += [_parse_spec(entry, path.stem, where, names) for entry in raw["tables"]]
    csvs = [s.csv for s in specs]
    twice = sorted({n for n in csvs if csvs.count(n) > 1})
    if twice:
        raise ValueError(f"{REGISTRY_DIR}: CSV(s) registered twice: {twice}")
    unnamed = sorted({s.paper for s in specs} - set(papers))
    if unnamed:
        raise ValueError(f"{REGISTRY}: paper(s) {unnamed} used by a table but missing under 'papers'")
    return specs


# --------------------------------------------------------------------------- evidence checks
def notebook_labels(root: str | Path | None = None) -> dict[str, str]:
    """Every MyST target ``(label)=`` in a markdown cell of a notebook: label -> notebook."""
    root = Path(root) if root is not None else repo_root()
    found: dict[str, str] = {}
    for path in sorted((root / "notebooks").glob("*/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                for label in _LABEL.findall("".join(cell["source"])):
                    found[label] = path.relative_to(root).with_suffix("").as_posix()
    return found


_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\s*(?:\{(?P<name>[\w:-]+)\})?(?P<rest>.*)$")
_FOLDING = {"dropdown", "toggle", "details"}
_HIDDEN_TAGS = {"remove-cell", "hide-cell", "remove-input"}
_HIDDEN_OUTPUT_TAGS = {"remove-cell", "hide-cell", "remove-output", "hide-output"}
_NAME_OPTION = re.compile(r"^\s*:name:\s*(\S+)\s*$")


@dataclass(frozen=True)
class Anchor:
    """Where a label stands: its notebook, and why it is out of sight when the page opens at it ("" if visible)."""

    notebook: str
    hidden: str = ""


def _anchors_in(source: str) -> list[tuple[str, str, bool]]:
    """``(label, folded-by, ends the cell)`` for every MyST target and every directive ``:name:`` of a markdown cell."""
    lines = source.splitlines()
    stack: list[tuple[str, bool]] = []   # open fences, and whether each folds its content
    out = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        fence = _FENCE.match(stripped)
        if fence:
            closes = (stack and fence["name"] is None and not fence["rest"].strip()
                      and fence["fence"][0] == stack[-1][0][0] and len(fence["fence"]) >= len(stack[-1][0]))
            if closes:
                stack.pop()
            else:
                stack.append((fence["fence"], (fence["name"] or "").lower() in _FOLDING))
            continue
        if stack and re.match(r"^\s*:class:.*\b(dropdown|toggle)\b", line):
            stack[-1] = (stack[-1][0], True)
        label = _LABEL.match(stripped) or _NAME_OPTION.match(line)
        if label:
            folded = any(f for _, f in stack)
            rest = "\n".join(lines[i + 1:]).strip()
            out.append((label[1], "inside a folded directive (dropdown or toggle)" if folded else "", not rest))
    return out


def notebook_anchors(root: str | Path | None = None) -> dict[str, Anchor]:
    """Every label a reader can be sent to in a notebook — a MyST target ``(label)=`` or a figure's ``:name:`` in
    a markdown cell — with why it is out of sight when the page opens at it: its cell removed or folded
    (``remove-cell``, ``hide-cell``, ``remove-input`` tags), the label inside a dropdown or toggle, or, for a
    label that ends its cell, the code cell right after it (the one that decides) removed or its output
    folded (``remove-output``, ``hide-output``)."""
    root = Path(root) if root is not None else repo_root()
    found: dict[str, Anchor] = {}
    for path in sorted((root / "notebooks").glob("*/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        page = path.relative_to(root).with_suffix("").as_posix()
        for index, cell in enumerate(cells):
            if cell["cell_type"] != "markdown":
                continue
            tags = set(cell.get("metadata", {}).get("tags", []))
            for label, folded, last in _anchors_in("".join(cell["source"])):
                hidden = f"its cell is tagged {sorted(tags & _HIDDEN_TAGS)}" if tags & _HIDDEN_TAGS else folded
                if not hidden and last:
                    after = next((c for c in cells[index + 1:]), None)
                    if after is not None and after["cell_type"] == "code":
                        shut = set(after.get("metadata", {}).get("tags", [])) & _HIDDEN_OUTPUT_TAGS
                        if shut:
                            hidden = f"the code cell after it is tagged {sorted(shut)}"
                found[label] = Anchor(page, hidden)
    return found


def anchor_problems(root: str | Path | None = None, claims_table: pd.DataFrame | None = None) -> list[str]:
    """Claims a reader cannot follow in one click: every claim (``claims_table``: :func:`compendium.report.claims`, with
    its ``cell``) names the label of the cell or figure that decides it, which exists in a notebook and is in
    sight when the page opens at it (:func:`notebook_anchors`). An empty list when every claim has one."""
    root = Path(root) if root is not None else repo_root()
    anchors = notebook_anchors(root)
    problems = []
    for claim in (claims_table.to_dict("records") if claims_table is not None else []):
        what = f"{claim['paper']}: claim {claim['name'] or claim['claim'][:50]!r}"
        label = str(claim.get("cell") or "")
        if not label:
            problems.append(f"{what}: no 'cell' names the cell that decides it (the registry's claims: entry)")
        elif label not in anchors:
            problems.append(f"{what}: its cell {label!r} is not a label (a MyST target or a figure's :name:) in a notebook")
        elif anchors[label].hidden:
            problems.append(f"{what}: its cell {label!r} ({anchors[label].notebook}) is out of sight when the page "
                            f"opens at it: {anchors[label].hidden}")
    return problems


def check_evidence(specs: Sequence[TableSpec] | None = None, root: str | Path | None = None) -> list[str]:
    """Problems with the evidence behind the verdicts (an empty list when every verdict has it).

    Every ``shown_in`` notebook exists; every cell a tolerance or an explanation names is a
    labelled markdown cell of a notebook; a measured tolerance's CSV is not the compared table
    itself; every registered CSV exists.
    """
    root = Path(root) if root is not None else repo_root()
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

