"""Every labelled display equation of the book is one hop from its code, and back.

The book labels its numbered display equations (``$$ … $$ (eq-…)`` in the notebooks and in
``book/*.md``); a ``lib`` function that implements one names the label in its docstring, on a
line ``Book: :ref:`eq-…` (<notebook or page that derives it>).`` (CONTRIBUTING.md §6). This test
fails when

* a docstring cites a label that no display equation carries, or names the wrong file for it;
* a labelled equation has no function citing it and is not listed in :data:`NOT_IMPLEMENTED`
  (with the reason no function computes it);
* an entry of :data:`NOT_IMPLEMENTED` is stale (the label is gone, or a function cites it now);
* a docstring names an equation by a bare number ("eq. 10") instead of its tag ("Eq. (L10)").

The map itself (labels, docstrings, ``Book:`` lines) is read by ``compendium/sphinx/equation_links.py``,
which the build also uses to show each equation's code on its page (``tests/test_built_book.py``).
"""

from __future__ import annotations

import importlib
import re

import pytest

from compendium.data import REPO_ROOT

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
    "eq-nb-kernel-table": "shap's cost count, measured in the notebook with lib.counting.CountingModel",
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


def _links():
    """The map the build reads too (``compendium/sphinx/equation_links.py``)."""
    return importlib.import_module("compendium.sphinx.equation_links")


links = _links()
book_lines = links.book_lines
LABELS = links.equation_labels(REPO_ROOT)
WHERE = links.docstrings(REPO_ROOT)
DOCS = {name: doc for name, (doc, _) in WHERE.items()}
MODULES = {name for name, (_, code) in WHERE.items() if code.is_module}
CITED = links.cited_labels(DOCS)
_CITED = links.CITED
#: label -> the functions, classes and methods whose Book: paragraph cites it (what the page shows)
IMPLEMENTED = links.implementations(REPO_ROOT)

#: "eq. 10", "Eq. 2.1", "eq. (10)", "equation 3": an equation named by a bare number. A paper's
#: equation is named with its tag, "Eq. (L10)" (CONTRIBUTING.md §3); the book's own by its label.
_BARE_NUMBER = re.compile(r"\b[Ee]q(?:uation)?s?(?:\.\s*|\s+)\(?\d")


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
    missing = sorted(set(LABELS) - set(IMPLEMENTED) - set(NOT_IMPLEMENTED))
    assert missing == [], (
        f"labelled equations no lib docstring cites: {missing}; cite each in the function that "
        "computes it (CONTRIBUTING.md §6), or list it in NOT_IMPLEMENTED with the reason"
    )


def test_the_exceptions_are_current() -> None:
    gone = sorted(set(NOT_IMPLEMENTED) - set(LABELS))
    assert gone == [], f"NOT_IMPLEMENTED lists labels that no longer exist: {gone}"
    cited = sorted(set(NOT_IMPLEMENTED) & set(IMPLEMENTED))
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


def test_docstrings_name_a_papers_equation_by_its_tag() -> None:
    bare = sorted(f"{WHERE[name][1].path}:{WHERE[name][1].first} {name}: {m.group(0)!r}"
                  for name, doc in DOCS.items() for m in _BARE_NUMBER.finditer(doc))
    assert bare == [], (
        f"docstrings that name an equation by a bare number: {bare}; write the paper's tag, "
        "'Eq. (L10)', or the book's label (CONTRIBUTING.md §3)"
    )


@pytest.mark.parametrize("text, bare", [("Lemaire et al., eq. 10", True), ("Eq. 2.1 of the paper", True),
                                        ("eq. (10)", True), ("equation 3", True), ("eqs. 5-8", True),
                                        ("Lemaire et al., Eq. (L10)", False), ("Eq. (A2.1)", False),
                                        ("Eq. (C5)-(C8)", False), ("book eq. ``eq-nb-shapley``", False),
                                        ("naive-bayes-eq10", False)])
def test_the_bare_number_check_reads_the_forms_in_use(text: str, bare: bool) -> None:
    assert bool(_BARE_NUMBER.search(text)) is bare


def test_every_implemented_equation_is_located() -> None:
    # the build links each equation to these lines: they must hold the function's definition
    assert set(IMPLEMENTED) == set(CITED) - {label for label, names in CITED.items() if names <= MODULES}
    for label, codes in IMPLEMENTED.items():
        for code in codes:
            lines = (REPO_ROOT / code.path).read_text(encoding="utf-8").splitlines()
            head = "\n".join(lines[code.first - 1:code.last])
            assert re.search(rf"^\s*(?:async\s+)?(?:def|class)\s+{code.short.rsplit('.', 1)[-1]}\b", head, re.M), (
                f"{label}: {code.name} is not defined at {code.path}:{code.first}-{code.last}")
