"""One click to the evidence (issue 45): every claim on the built reproduction report links to the cell or
figure that decides it, in a notebook's page, and that cell is in sight when the page opens at it.

The registry names each claim's cell (``cell:`` under ``claims:``, a MyST label); ``compendium.registry.anchor_problems``
checks the notebooks' sources. These tests read the built HTML: the report's link for each claim points at
the label on the notebook's page, and there the element with that id stands in no closed ``<details>`` (a
dropdown, a toggle, a folded input or output), and, when it is a target before a code cell, that cell's output
is shown (the notebooks' sources are checked for it too). Checked first on pages made to fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

import compendium.report as report

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"

built = pytest.mark.skipif(
    not (HTML / "index.html").is_file(),
    reason="the book is not built (run the README's first command); CI always builds it first",
)


def out_of_sight(page: str | BeautifulSoup, label: str) -> str:
    """Why the element ``label`` of a built page (its HTML, or the page parsed) is out of sight when the page
    opens at it ("" when in sight)."""
    soup = page if isinstance(page, BeautifulSoup) else BeautifulSoup(page, "html.parser")
    target = soup.find(id=label)
    if target is None:
        return "no element has this id"
    for parent in target.parents:
        if isinstance(parent, Tag) and parent.name == "details" and not parent.has_attr("open"):
            return f"inside a closed <details> ({' '.join(parent.get('class', []))})"
    # a target right before a code cell (nothing in between): that cell's output must not be folded
    after = target.find_next_sibling()
    if after is not None and "cell" in after.get("class", []) and "tag_hide-output" in after.get("class", []):
        return "the code cell after it folds its output"
    return ""


def test_out_of_sight_finds_what_it_must() -> None:
    page = ('<section id="open"><p>x</p></section>'
            '<details class="sd-dropdown"><summary>More</summary><span id="folded"></span></details>'
            '<details open><span id="opened"></span></details>'
            '<span id="before-hidden"></span><div class="cell tag_hide-output"><div class="cell_output">1</div></div>')
    assert out_of_sight(page, "open") == "" and out_of_sight(page, "opened") == ""
    assert "closed <details>" in out_of_sight(page, "folded")
    assert "folds its output" in out_of_sight(page, "before-hidden")
    assert out_of_sight(page, "nowhere") == "no element has this id"


@pytest.fixture(scope="module")
def claims() -> list[dict]:
    return report.claims(report.reproduction_report(root=ROOT)).to_dict("records")


@built
def test_every_claim_lands_on_a_visible_cell(claims: list[dict]) -> None:
    anchors = report.notebook_anchors(ROOT)
    problems = []
    parsed: dict[Path, BeautifulSoup] = {}  # each page parsed once (a notebook's page is ~1 MB of HTML)
    for claim in claims:
        label = claim["cell"]
        what = f"{claim['paper']}: {claim['name']!r}"
        if not label or label not in anchors:
            problems.append(f"{what}: no labelled cell ({label!r})")
            continue
        page = HTML / f"{anchors[label].notebook}.html"
        if not page.is_file():
            problems.append(f"{what}: {page.relative_to(HTML)} is not built")
            continue
        if page not in parsed:
            parsed[page] = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        why = out_of_sight(parsed[page], label)
        if why:
            problems.append(f"{what}: #{label} on {page.relative_to(HTML)}: {why}")
    assert not problems, "\n".join(problems)


@built
def test_the_report_links_each_claim_to_its_cell(claims: list[dict]) -> None:
    text = (HTML / "book" / "reproduction-report.html").read_text(encoding="utf-8")
    anchors = report.notebook_anchors(ROOT)
    missing = [f"{c['paper']}: {c['name']!r} -> #{c['cell']}" for c in claims
               if not c["cell"] or c["cell"] not in anchors
               or f'{anchors[c["cell"]].notebook.split("/")[-1]}.html#{c["cell"]}"' not in text]
    assert not missing, "the report does not link these claims to their cells:\n" + "\n".join(missing)
