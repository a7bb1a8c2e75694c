"""The verdicts' words and rules: the five classes of a published number and the five outcomes of a claim.

**Numbers and rows** take one of five classes (:data:`STATUSES`, :func:`classify`): ``reproduced``,
``consistent``, ``explained deviation``, ``not reproduced``, ``contradicted``. **Claims** take one of five
outcomes (:data:`OUTCOMES`) by one rule (:data:`CLAIM_RULE`, :data:`ROLL_UP`). Only a paper's own sentences are
scored (:func:`is_paper_claim`); derivation checks, errata and aims are shown apart (:data:`APART`).
:mod:`compendium.report` applies them to every registered table, and re-exports these names.
"""

from __future__ import annotations

import math

from compendium.registry import AIM, DERIVATION, ERRATUM, SETUPS

__all__ = [
    "APART",
    "BOOK_INFERENCE",
    "CLAIM_RULE",
    "FAILS",
    "HOLDS",
    "INCONSISTENT",
    "NATURES",
    "NOT_A_CLAIM",
    "NOT_SCORED",
    "NO_EVIDENCE",
    "OUTCOMES",
    "OWN_OUTCOMES",
    "ROLL_UP",
    "SET_UP_CHECK",
    "STATUSES",
    "SUBSTITUTE",
    "SUBSTITUTE_OUTCOMES",
    "UNTESTED",
    "classify",
    "is_paper_claim",
]

#: The five classes of a published number, or of one row of a claims table.
STATUSES = ("reproduced", "consistent", "explained deviation", "not reproduced", "contradicted")
HOLDS, FAILS = "holds", "fails"
SUBSTITUTE, INCONSISTENT = "consistent on a substitute", "inconsistent on a substitute"
UNTESTED = "could not be tested"
#: The five outcomes of a claim (:func:`compendium.report.claims`): two on the paper's own set-up
#: (:data:`~compendium.registry.SETUP_RULE`), two on a
#: set-up the book chose (a substitute), which can neither confirm nor refute the claim, and one for a claim
#: with no evidence at all.
OUTCOMES = (HOLDS, FAILS, SUBSTITUTE, INCONSISTENT, UNTESTED)
#: Outcomes decided on the paper's own set-up, and on a substitute only.
OWN_OUTCOMES, SUBSTITUTE_OUTCOMES = (HOLDS, FAILS), (SUBSTITUTE, INCONSISTENT)
#: The status of the one row a claim with no evidence at all has in the report (the registry's ``untested``):
#: never a published number, never counted in the classes.
NO_EVIDENCE = "no evidence"
#: The rule, declared once, that turns a claim's evidence into its outcome (:func:`compendium.report.claims`).
CLAIM_RULE = (
    "When the paper's own set-up is among a claim's evidence, that evidence alone decides: the claim holds "
    "when none of its numbers or rows disagrees (each is reproduced, or an explained deviation: a cause a cell "
    "demonstrates accounts for the paper's number), and fails when one is not reproduced or contradicted. "
    "A claim tested only on a set-up the book chose (a substitute) can neither hold nor fail: it is consistent "
    "on a substitute when every number or row agrees, and inconsistent on a substitute when one does not, for "
    "the reason its tables give. A claim could not be tested only when there is no evidence at all, for a reason "
    "a test checks; a claim with compared numbers never is. The share of its numbers or rows that agree is "
    "always shown beside the outcome."
)
#: How the five classes of a number roll up into a claim's outcome, in one sentence.
ROLL_UP = (
    "A claim holds when every one of its numbers or rows on the paper's own set-up is reproduced or an "
    "explained deviation, and fails when one is not reproduced or contradicted; a claim tested only on a "
    "substitute is consistent on a substitute when every one is consistent, and inconsistent on a substitute "
    "when one is not reproduced; a claim with no number or row at all could not be tested."
)
#: ``mathematical``: a theorem or closed form of the paper, checked against an independent
#: computation (an enumeration of the game); counted apart from the ``empirical`` claims.
NATURES = ("empirical", "mathematical")
#: Paper cells of a claims table meaning the paper states no claim there (the row is skipped).
#: A cell equal to one of these, or beginning with one of them followed by a space, a colon or a
#: parenthesis ("not claimed: ..."), is not a claim of the paper.
SET_UP_CHECK = "set-up check"
NOT_A_CLAIM = ("", "not claimed", "assumption", SET_UP_CHECK)
#: Paper cells beginning with this word are the book's own inference from the paper ("implied
#: (§3): ..."), never a sentence of the paper: such a row is shown in its chapter but never scored
#: as the paper's claim (issue 20, §3).
BOOK_INFERENCE = "implied"
#: What a notebook shows for a row of its claims table that the report does not score.
NOT_SCORED = "not scored (not a claim of the paper)"
#: Statuses shown apart from the verdicts, never counted in them.
APART = (DERIVATION, ERRATUM, AIM)


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
