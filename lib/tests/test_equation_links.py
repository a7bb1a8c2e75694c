"""Every labelled display equation of the book is one hop from its code, and back.

The book labels its numbered display equations (``$$ … $$ (eq-…)`` in the notebooks and in
``book/*.md``); a ``lib`` function that implements one names the label in its docstring, on a
line ``Book: :ref:`eq-…` (<notebook or page that derives it>).`` (CONTRIBUTING.md §6). This test
fails when

* a docstring cites a label that no display equation carries, or names the wrong file for it;
* a labelled equation has no function citing it and is not listed in :data:`NOT_IMPLEMENTED`
  (with the reason no function computes it);
* an entry of :data:`NOT_IMPLEMENTED` is stale (the label is gone, or a function cites it now).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from lib.data import REPO_ROOT

#: Labelled equations that no ``lib`` function computes, each with the reason.
NOT_IMPLEMENTED: dict[str, str] = {
    # chapter 0: the axioms are properties, checked by the hypothesis tests of test_shapley.py
    "eq-found-symmetry": "an axiom of the Shapley value, tested (property tests), not computed",
    "eq-found-null": "an axiom of the Shapley value, tested (property tests), not computed",
    "eq-found-linearity": "an axiom of the Shapley value, tested (property tests), not computed",
    # chapter 1: the steps from the game to the closed form (L10)
    "eq-nb-v-u": "derivation step: v(u) of the naive Bayes log-odds, on the way to (L10)",
    "eq-nb-v-u-m": "derivation step: v(u+m), on the way to (L10)",
    "eq-nb-marginal-contribution": "derivation step: the marginal contribution does not depend on u",
    "eq-nb-information": "a rewriting of (L10) as information quantities; nothing new to compute",
    "eq-nb-woe-def": "definition of the WoE as a difference of log-odds; (L15) is its closed form (weight_of_evidence)",
    "eq-nb-deprived": "derivation step: the factor of the removed variable sums to one",
    "eq-nb-ks-offset": "the difference of background_shapley_values and shapley_values, derived, not computed",
    "eq-nb-ks-proba": "derivation step (mean value theorem) behind the bound eq-nb-ks-bound",
    "eq-nb-ks-bound": "an inequality the notebook checks on numbers; no function computes it",
    "eq-nb-ks-logit": "an inequality (the logit of a mean is not the mean of the logits)",
    "eq-nb-kernel-table": "shap's cost count, measured in the notebook with lib.shapley.CountingModel",
    "eq-nb-multi-clr": "worked example (one-hot phi): clr of a Kronecker delta",
    "eq-nb-multi-ovo": "worked example (one-hot phi): the one-vs-one difference of two clr parts",
    # chapter 2
    "eq-comp-est-rate": "the variance rate the measured estimation errors are compared with; a statement",
    "eq-comp-nb-binary": "the two-class special case relating two cited closed forms, checked in the notebook",
    "eq-comp-nb-projection": "the projection of eq-comp-nb-shapley on a class-composition, derived and checked",
    # chapter 3
    "eq-sdp-tower": "an identity (tower property) the notebook checks between two cited games",
    "eq-sdp-acv-mixture": "ACV's estimator: computed by the acv package in its side environment (scripts/), not in lib",
    "eq-sdp-acv-ratio": "ACV's estimator: computed by the acv package in its side environment (scripts/), not in lib",
    "eq-sdp-acv-leaf": "ACV's estimator: computed by the acv package in its side environment (scripts/), not in lib",
    # chapter 4
    "eq-tv-ratio": "derivation step between eq-tv-minus-k and eq-tv-p-minus-k",
    "eq-tv-log-vs-logit": "relation between the two output scales log_and_logit returns; a derivation",
}

_DISPLAY = re.compile(r"\$\$.*?\$\$\s*\((eq-[A-Za-z0-9_-]+)\)", re.S)
_CITED = re.compile(r"\beq-[a-z0-9]+(?:-[a-z0-9]+)*")
_BOOK_LINE = re.compile(r"^\s*Book: (.*?)(?=^\s*$|\Z)", re.S | re.M)
_ENTRY = re.compile(r"((?::ref:`eq-[a-z0-9-]+`(?:,\s*)?)+)\s*\(([^)]+)\)")


def equation_labels(root: Path = REPO_ROOT) -> dict[str, str]:
    """Every labelled display equation: label -> the repository path of the file that holds it."""
    found: dict[str, str] = {}

    def add(text: str, path: Path) -> None:
        for label in _DISPLAY.findall(text):
            assert label not in found, f"{label} is the label of two display equations"
            found[label] = path.relative_to(root).as_posix()

    for path in sorted((root / "notebooks").glob("*/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        add("\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown"), path)
    for path in sorted((root / "book").glob("*.md")):
        add(path.read_text(encoding="utf-8"), path)
    return found


def docstrings(root: Path = REPO_ROOT) -> dict[str, str]:
    """Every docstring of ``lib`` and ``lib.experiments`` (modules, classes, functions, methods):
    qualified name -> text."""
    out: dict[str, str] = {}
    for path in sorted((root / "lib").glob("*.py")) + sorted((root / "lib" / "experiments").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        if ast.get_docstring(tree):
            out[module] = ast.get_docstring(tree) or ""

        def visit(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}.{child.name}"
                    doc = ast.get_docstring(child)
                    if doc:
                        out[name] = doc
                    visit(child, name)

        visit(tree, module)
    return out


def cited_labels(docs: dict[str, str]) -> dict[str, set[str]]:
    """Label -> the qualified names whose docstring cites it."""
    cited: dict[str, set[str]] = {}
    for name, doc in docs.items():
        for label in _CITED.findall(doc):
            cited.setdefault(label, set()).add(name)
    return cited


def book_lines(doc: str) -> list[tuple[str, str]]:
    """The ``(label, file)`` pairs of a docstring's ``Book:`` paragraph."""
    pairs = []
    for block in _BOOK_LINE.findall(doc):
        for labels, path in _ENTRY.findall(" ".join(block.split())):
            pairs += [(label, path) for label in re.findall(r"eq-[a-z0-9-]+", labels)]
    return pairs


LABELS = equation_labels()
DOCS = docstrings()
MODULES = {n for n in DOCS if n.rsplit(".", 1)[0] in ("lib", "lib.experiments")}
CITED = cited_labels(DOCS)


def test_the_book_has_labelled_equations_in_every_chapter() -> None:
    prefixes = {label.split("-")[1] for label in LABELS}
    assert {"found", "nb", "comp", "sdp", "tv", "coal"} <= prefixes


def test_every_cited_label_exists() -> None:
    unknown = {label: sorted(names) for label, names in CITED.items() if label not in LABELS}
    assert unknown == {}, f"docstrings cite labels no display equation carries: {unknown}"


def test_book_lines_name_the_file_that_derives_the_equation() -> None:
    wrong = []
    for name, doc in DOCS.items():
        for label, path in book_lines(doc):
            if LABELS.get(label) != path:
                wrong.append(f"{name}: {label} is in {LABELS.get(label)}, not {path}")
    assert wrong == []


def test_every_implemented_equation_is_cited_by_a_function() -> None:
    missing = sorted(set(LABELS) - set(CITED) - set(NOT_IMPLEMENTED))
    assert missing == [], (
        f"labelled equations no lib docstring cites: {missing}; cite each in the function that "
        "computes it (CONTRIBUTING.md §6), or list it in NOT_IMPLEMENTED with the reason"
    )


def test_the_exceptions_are_current() -> None:
    gone = sorted(set(NOT_IMPLEMENTED) - set(LABELS))
    assert gone == [], f"NOT_IMPLEMENTED lists labels that no longer exist: {gone}"
    cited = sorted(set(NOT_IMPLEMENTED) & set(CITED))
    assert cited == [], f"NOT_IMPLEMENTED lists labels a function now cites: {cited}"
    assert all(reason.strip() for reason in NOT_IMPLEMENTED.values())


def test_every_book_citation_follows_the_convention() -> None:
    # a function or class names each label it cites on its Book: line (module docstrings may
    # mention labels in passing)
    loose = sorted(
        f"{name}: {label}"
        for name, doc in DOCS.items()
        if name not in MODULES
        for label in set(_CITED.findall(doc)) - {lab for lab, _ in book_lines(doc)}
    )
    assert loose == [], f"labels cited outside a 'Book:' line: {loose}"


@pytest.mark.parametrize(
    "doc, problem",
    [
        ("Book: :ref:`eq-coal-coalitional` (notebooks/05-coalitional-explanations/01-definitions.ipynb).", None),
        ("Book: :ref:`eq-coal-coalitional` (notebooks/05-coalitional-explanations/02-groups.ipynb).", "file"),
        ("Book: :ref:`eq-coal-nonexistent` (notebooks/05-coalitional-explanations/01-definitions.ipynb).", "label"),
    ],
)
def test_the_checks_catch_a_wrong_citation(doc: str, problem: str | None) -> None:
    pairs = book_lines(doc)
    assert len(pairs) == 1
    label, path = pairs[0]
    assert (label in LABELS) == (problem != "label")
    assert (LABELS.get(label) == path) == (problem is None)
