"""The reproduction report's registry: which comparison tables the book stores, and how each is judged.

``data/derived/reproduction.yaml`` names the papers; each chapter's ``data/derived/reproduction/<chapter>.yaml``
lists its tables (schema: ``CONTRIBUTING.md`` §1). This module reads and validates them
(:func:`load_registry`, :class:`TableSpec`), reads the evidence a cell stored (:class:`Evidence`, a measured
:class:`Tolerance`, a demonstrated :class:`Explanation`) and checks that every verdict can be followed to a
labelled cell (:func:`check_evidence`). :mod:`compendium.report` classifies what it describes, and re-exports it.
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
    "AIM",
    "DERIVATION",
    "ERRATUM",
    "MODEL_WORDS",
    "REASONS",
    "REASON_FACTS",
    "REGISTRY",
    "REGISTRY_DIR",
    "SETUPS",
    "Evidence",
    "Explanation",
    "SetUp",
    "TableSpec",
    "Tolerance",
    "check_evidence",
    "last_digit_tolerance",
    "load_papers",
    "load_registry",
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
#: Why a claim could not be tested here: the registry's ``reason`` of a table whose set-up is not
#: the paper's (short name -> what it means). Never counted as a failure.
REASONS = {
    "tool version": "the paper's version of its tool cannot be installed here",
    "data offline": "the paper's data come from a source the book's offline build cannot fetch",
    "cheaper model": "the book's substitute model is cheaper to call than the paper's",
    "set-up not identified": "the paper does not name its model or instance",
}
#: What the repository holds that makes each reason true: the keys of a table's ``fact`` (all
#: required), checked by :func:`reason_problems` against the paper's text, the data manifest and the
#: stored benchmark. A reason with no check cannot be declared.
REASON_FACTS = {
    "tool version": ("names", "pinned", "differs"),
    "data offline": ("names",),
    "cheaper model": ("names", "benchmark", "row", "ours", "paper's tool", "output"),
    "set-up not identified": ("section",),
}
#: Words that name a model: a section that identifies its model uses one of them.
MODEL_WORDS = ("classifier", "forest", "xgboost", "lightgbm", "boosting", "neural", "logistic", "svm",
               "trained", "naive bayes", "decision tree")
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

    def check(self, where: str) -> None:
        if self.setup not in SETUPS:
            raise ValueError(f"{where}: setup must be one of {SETUPS}, got {self.setup!r}")
        if self.setup != "identified" and not self.note.strip():
            raise ValueError(f"{where}: a {self.setup} set-up needs a 'setup_note' saying what differs and why")
        if self.setup != "identified" and self.reason not in REASONS:
            raise ValueError(f"{where}: a {self.setup} set-up needs a 'reason', why the paper's own could not "
                             f"be tested here: one of {sorted(REASONS)}; got {self.reason!r}")
        if self.setup == "identified" and (self.reason or self.fact):
            raise ValueError(f"{where}: an identified set-up has no 'reason' (it is the paper's own)")
        if self.fact and set(self.fact) != set(REASON_FACTS[self.reason]):
            raise ValueError(f"{where}: the facts of the reason {self.reason!r} are {list(REASON_FACTS[self.reason])}, "
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


def load_registry(root: str | Path | None = None) -> list[TableSpec]:
    """Every chapter's registry (``data/derived/reproduction/*.yaml``, in file-name order)."""
    root = Path(root) if root is not None else repo_root()
    papers = _papers(root)
    specs: list[TableSpec] = []
    raws = {}
    names: dict[str, str] = {}
    for path in sorted((root / REGISTRY_DIR).glob("*.yaml")):
        raw = _read_yaml(path)
        where = f"{REGISTRY_DIR / path.name}"
        if not isinstance(raw, dict) or not isinstance(raw.get("tables"), list) or set(raw) - {"tables", "claims"}:
            raise ValueError(f"{where}: expected a mapping with a list under 'tables' (and 'claims', their names)")
        for named in raw.get("claims") or []:
            if not isinstance(named, Mapping) or set(named) != {"claim", "name"} or not str(named["name"]).strip():
                raise ValueError(f"{where}: each entry of 'claims' is {{claim: <the quote, or its start with *>, "
                                 f"name: <what it says, in words>}}, got {named!r}")
            if str(named["claim"]) in names:
                raise ValueError(f"{where}: the claim {str(named['claim'])[:60]!r} is named twice")
            names[str(named["claim"])] = str(named["name"]).strip()
        raws[path] = (raw, where)
    for path, (raw, where) in raws.items():
        specs += [_parse_spec(entry, path.stem, where, names) for entry in raw["tables"]]
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


# --------------------------------------------------------------------------- reasons, checked
def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2019", "'")).strip().lower()


def _section(text: str, heading: str) -> str | None:
    """The text of a paper's section, from the line that starts with ``heading`` to the next numbered heading."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith(heading)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^\s*(?:#+\s*)?\d+(?:\.\d+)*\.?\s+[A-Z]", lines[i])),
               len(lines))
    return "\n".join(lines[start:end])


def _pinned(root: Path, package: str) -> str | None:
    """The version ``requirements.txt`` pins for ``package`` (``package==x.y``), or None."""
    for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(rf"^\s*{re.escape(package)}\s*==\s*([^\s;#]+)", line, flags=re.I)
        if match:
            return match[1]
    return None


def _manifest_hosts(root: Path) -> set[str]:
    from urllib.parse import urlparse

    text = (root / "data" / "MANIFEST.yaml").read_text(encoding="utf-8")
    return {urlparse(u).netloc.lower() for u in re.findall(r"https?://[^\s'\"]+", text)}


def _differing(root: Path, spec: str) -> tuple[int, int]:
    """``"table.csv: pattern"``: how many rows matching the pattern have the paper's value unlike ours, of how many."""
    csv, _, pattern = spec.partition(":")
    frame = read_table(root, csv.strip(), "a reason's fact")
    keys = list(frame.columns[: list(frame.columns).index("paper")])   # the key columns come before the paper's
    items = [" / ".join(str(row[k]) for k in keys) for _, row in frame.iterrows()]
    mine = frame[[matches(i, pattern.strip()) for i in items]]
    differ = sum(_float_or_none(p) != _float_or_none(o) for p, o in zip(mine["paper"], mine["ours"]))
    return int(differ), len(mine)


def _float_or_none(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def reason_fact_text(setup: SetUp, root: str | Path | None = None) -> str:
    """What the repository holds that makes a set-up's reason true, in one line (for the report).

    Raises ``ValueError`` when the set-up declares no fact, or a stored file the fact reads is missing.
    """
    root = Path(root) if root is not None else repo_root()
    f = setup.fact
    if not f:
        raise ValueError(f"the reason {setup.reason!r} of this set-up declares no fact ({list(REASON_FACTS[setup.reason])})")
    if setup.reason == "tool version":
        differ, n = _differing(root, f["differs"])
        return (f"the paper used {f['names']} and names no version of it; the book pins {f['pinned']} "
                f"{_pinned(root, f['pinned'])}, whose model differs from the paper's on {differ} of {n} "
                f"numbers that only the model decides ({f['differs']})")
    if setup.reason == "data offline":
        from urllib.parse import urlparse

        return (f"the paper's data are at {f['names']}; no file of the data manifest (data/MANIFEST.yaml) comes "
                f"from {urlparse(f['names']).netloc}")
    if setup.reason == "cheaper model":
        row = read_table(root, f["benchmark"], "a reason's fact").set_index("data set").loc[f["row"]]
        tool = float(row[f["paper's tool"]])
        return (f"the paper: \u201c{f['names']}\u201d; the book's KernelSHAP explains the model's log odds (the "
                f"benchmark's {f['output']}: {row[f['output']]!r}) by a table look-up, {float(row[f['ours']]):.2g} s for "
                f"all {row['rows']} {f['row']} rows, where the paper's tool, Khiops, takes {tool:.2g} s for the same "
                f"rows (data/derived/{f['benchmark']})")
    if setup.reason == "set-up not identified":
        return f"§{f['section'].split()[0]} of the paper names no model (none of the words {', '.join(MODEL_WORDS)})"
    raise ValueError(f"no fact is known for the reason {setup.reason!r}")


def reason_problems(setup: SetUp, paper_text: str | None, root: str | Path | None = None) -> list[str]:
    """Why a set-up's reason is not true by the repository's facts (an empty list when it is).

    ``paper_text`` is the paper's full text (or None: the checks that read it are skipped). Each
    reason of :data:`REASONS` has its check: ``tool version``, the paper names the tool, ``requirements.txt``
    pins another version of it, and the paper's own numbers that only the model decides differ from ours;
    ``data offline``, the paper names its data's address and the data manifest holds no file from its host;
    ``cheaper model``, the paper says it explains its classifier's output, and the stored benchmark shows
    the book's look-up cheaper than the paper's tool on the same rows; ``set-up not identified``, the
    paper's section names no model.
    """
    root = Path(root) if root is not None else repo_root()
    f, problems = setup.fact, []
    if setup.reason not in REASON_FACTS:
        return [f"the reason {setup.reason!r} has no check: declare it in REASON_FACTS"]
    if set(f) != set(REASON_FACTS[setup.reason]):
        return [f"the reason {setup.reason!r} needs the facts {list(REASON_FACTS[setup.reason])}, got {sorted(f)}"]
    text = _normal(paper_text) if paper_text is not None else None
    if "names" in f and text is not None and _normal(f["names"]) not in text:
        problems.append(f"{setup.reason}: the paper does not say {f['names']!r}")
    if setup.reason == "tool version":
        if _pinned(root, f["pinned"]) is None:
            problems.append(f"tool version: requirements.txt pins no version of {f['pinned']!r}")
        elif text is not None and re.search(rf"{re.escape(f['names'].lower())}\s+v?{re.escape(_pinned(root, f['pinned']).split('.')[0])}\b", text):
            problems.append(f"tool version: the paper names the version the book pins ({_pinned(root, f['pinned'])})")
        differ, n = _differing(root, f["differs"])
        if n == 0 or differ == 0:
            problems.append(f"tool version: no number of {f['differs']} shows the model differs ({differ} of {n})")
    elif setup.reason == "data offline":
        from urllib.parse import urlparse

        host = urlparse(f["names"]).netloc.lower()
        if not host:
            problems.append(f"data offline: {f['names']!r} is not an address")
        elif host in _manifest_hosts(root):
            problems.append(f"data offline: the data manifest holds a file from {host}: the build can have it")
    elif setup.reason == "cheaper model":
        frame = read_table(root, f["benchmark"], "a reason's fact").set_index("data set")
        if f["row"] not in frame.index:
            problems.append(f"cheaper model: {f['benchmark']} has no row {f['row']!r}")
        else:
            row = frame.loc[f["row"]]
            tool = float(row[f["paper's tool"]])
            if not float(row[f["ours"]]) < tool:
                problems.append(f"cheaper model: the book's look-up ({row[f['ours']]} s) is not cheaper than the "
                                f"paper's tool ({tool} s)")
            if "classifier" in str(row[f["output"]]).lower() or "probab" in str(row[f["output"]]).lower():
                problems.append(f"cheaper model: the benchmark's KernelSHAP explains {row[f['output']]!r}, the paper's output")
    elif setup.reason == "set-up not identified" and paper_text is not None:
        section = _section(paper_text, f["section"])
        if section is None:
            problems.append(f"set-up not identified: the paper has no section {f['section']!r}")
        else:
            named = [w for w in MODEL_WORDS if re.search(rf"\b{re.escape(w)}", section.lower())]
            if named:
                problems.append(f"set-up not identified: §{f['section'].split()[0]} names a model ({', '.join(named)})")
    return problems
