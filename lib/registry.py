"""The reproduction report's registry: which comparison tables the book stores, and how each is judged.

``data/derived/reproduction.yaml`` names the papers; each chapter's ``data/derived/reproduction/<chapter>.yaml``
lists its tables (schema: ``CONTRIBUTING.md`` §1). This module reads and validates them
(:func:`load_registry`, :class:`TableSpec`), reads the evidence a cell stored (:class:`Evidence`, a measured
:class:`Tolerance`, a demonstrated :class:`Explanation`) and checks that every verdict can be followed to a
labelled cell (:func:`check_evidence`). :mod:`lib.report` classifies what it describes, and re-exports it.
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

__all__ = [
    "DERIVATION",
    "ERRATUM",
    "REASONS",
    "REGISTRY",
    "REGISTRY_DIR",
    "SETUPS",
    "Evidence",
    "Explanation",
    "TableSpec",
    "Tolerance",
    "check_evidence",
    "last_digit_tolerance",
    "load_papers",
    "load_registry",
    "matches",
    "notebook_labels",
    "read_table",
    "repo_root",
    "truthy",
]

#: The papers' names (BibTeX key -> short name), in the book's order.
REGISTRY = Path("data") / "derived" / "reproduction.yaml"
#: One registry file per chapter (``00-foundations.yaml``, ``01-naive-bayes.yaml``, ...).
REGISTRY_DIR = Path("data") / "derived" / "reproduction"
#: Why a claim could not be tested here: the registry's ``reason`` of a table whose set-up is not
#: the paper's (short name -> what it means). Never counted as a failure.
REASONS = {
    "tool version": "the paper's version of its tool cannot be installed here",
    "hardware": "the paper's times were measured on other hardware, with another model call",
    "data not public": "the paper's data are not public",
    "set-up not identified": "the paper does not give its model, instance or data in enough detail",
}
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
#: ``identified``: the paper's protocol and model; ``guessed``: the paper's instance or set-up is
#: not identified and ours was chosen; ``model-differs``: the protocol is the paper's but the
#: model is not (another version of the paper's tool that cannot be run here). Under the last
#: two, agreement is "consistent" at most and a failed claim is "not reproduced".
SETUPS = ("identified", "guessed", "model-differs")
_LABEL = re.compile(r"^\(([A-Za-z0-9][\w.:-]*)\)=\s*$", re.MULTILINE)


def repo_root() -> Path:
    """The repository's root (outside a clone, the book folder that stands in for it: :func:`lib.data.book_root`)."""
    from lib.data.cache import REPO_ROOT

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

    def __post_init__(self) -> None:
        if self.kind not in ("numeric", "claims"):
            raise ValueError(f"{self.csv}: kind must be 'numeric' or 'claims', got {self.kind!r}")
        if not self.key:
            raise ValueError(f"{self.csv}: 'key' must name at least one column")
        if self.setup not in SETUPS:
            raise ValueError(f"{self.csv}: setup must be one of {SETUPS}, got {self.setup!r}")
        if self.setup != "identified" and not self.setup_note.strip():
            raise ValueError(f"{self.csv}: a {self.setup} set-up needs a 'setup_note' saying what differs and why")
        if self.setup != "identified" and self.reason not in REASONS:
            raise ValueError(f"{self.csv}: a {self.setup} set-up needs a 'reason', why the paper's own could not "
                             f"be tested here: one of {sorted(REASONS)}; got {self.reason!r}")
        if self.setup == "identified" and self.reason:
            raise ValueError(f"{self.csv}: an identified set-up has no 'reason' (it is the paper's own)")
        if self.kind == "numeric" and (self.mathematical or self.thresholds):
            raise ValueError(f"{self.csv}: 'mathematical' and 'thresholds' name rows of a claims table")
        if self.kind == "numeric" and self.tolerance is None:
            raise ValueError(f"{self.csv}: a numeric table needs a tolerance")
        if self.kind == "claims" and (self.tolerance is not None or self.explained):
            raise ValueError(
                f"{self.csv}: a claims table has no tolerance and no explained deviations "
                "(a claim holds, or it is contradicted)"
            )

    def explanation(self, item: str) -> Explanation | None:
        return next((e for p, e in self.explained.items() if matches(item, p)), None)

    def hypothesis(self, item: str) -> str | None:
        return next((str(h) for p, h in self.hypotheses.items() if matches(item, p)), None)

    def excluded(self, item: str) -> bool:
        return any(matches(item, pattern) for pattern in self.exclude)

    def apart(self, item: str) -> tuple[str, str, str] | None:
        """``(status, pattern, reason)`` if the registry lists ``item`` as a derivation check or an erratum."""
        for status, mapping in ((DERIVATION, self.derivation), (ERRATUM, self.errata)):
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


_SPEC_FIELDS = set(TableSpec.__dataclass_fields__) - {"chapter"}


def _read_yaml(path: Path) -> Any:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _papers(root: Path, which: str = "papers") -> dict[str, str]:
    raw = _read_yaml(root / REGISTRY)
    if not isinstance(raw, dict) or not isinstance(raw.get("papers"), dict):
        raise ValueError(f"{REGISTRY}: expected a mapping 'papers' from BibTeX key to a name")
    if not set(raw) <= {"papers", "short"}:
        raise ValueError(f"{REGISTRY}: holds only 'papers' (and their 'short' names); tables go in "
                         f"{REGISTRY_DIR}/<chapter>.yaml")
    names = {str(k): str(v) for k, v in raw["papers"].items()}
    if which == "short":
        short = {str(k): str(v) for k, v in (raw.get("short") or {}).items()}
        return {k: short.get(k, v.split(":")[0]) for k, v in names.items()}
    return names


def load_papers(root: str | Path | None = None, *, short: bool = False) -> dict[str, str]:
    """The papers: BibTeX key -> name (``short=True``: the short name of narrow tables), in the book's order."""
    return _papers(Path(root) if root is not None else repo_root(), "short" if short else "papers")


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
    entry["mathematical"] = tuple(str(p) for p in (entry.get("mathematical") or ()))
    entry["thresholds"] = {str(p): str(w) for p, w in (entry.get("thresholds") or {}).items()}
    for pattern, why in entry["thresholds"].items():
        if not why.strip():
            raise ValueError(f"{name}: threshold {pattern!r} needs what it bounds and why it is ours")
    entry["errata"] = {str(p): str(w) for p, w in (entry.get("errata") or {}).items()}
    for pattern, why in entry["errata"].items():
        if not why.strip():
            raise ValueError(f"{name}: erratum {pattern!r} needs what proves it")
    return TableSpec(chapter=chapter, **entry)


def load_registry(root: str | Path | None = None) -> list[TableSpec]:
    """Every chapter's registry (``data/derived/reproduction/*.yaml``, in file-name order)."""
    root = Path(root) if root is not None else repo_root()
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
