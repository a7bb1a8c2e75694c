"""ReScience C's criteria, paper by paper, computed from the reproduction report (:mod:`compendium.report`):
what was replicated, what was not, what could not be here and why, and whether it reruns. The report page
prints them (``compendium/sphinx/report.py``); nothing in them is typed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from compendium.registry import REASONS, load_papers, load_registry, repo_root
from compendium.report import (
    FAILS,
    HOLDS,
    SUBSTITUTE,
    SUBSTITUTE_OUTCOMES,
    UNTESTED,
    as_markdown,
    chapter_papers,
    claims,
    reproduction_report,
    share,
    why_not,
)

__all__ = ["RESCIENCE_CRITERIA", "rescience"]


def _list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _reasons(text: str) -> list[str]:
    return [t.strip() for t in str(text).split(";")] if str(text).strip() else []

#: ReScience C's review criteria (rescience.github.io): what :func:`rescience` states for each paper
RESCIENCE_CRITERIA = ("replicated", "not replicated", "could not be replicated here", "rerunnable")


def rescience(report: pd.DataFrame | None = None, root: str | Path | None = None) -> dict[str, dict[str, str]]:
    """ReScience C's criteria, paper by paper, computed from the report's claims (never typed): what was
    **replicated** (the claims that hold on the paper's own set-up, its mathematical claims marked), what was
    **not replicated** (the claims that fail there, with what disagrees), what **could not be replicated
    here** and why (the claims decided on a substitute, or with no evidence at all, grouped by their declared reason,
    :data:`compendium.reasons.REASONS`), and whether the work is **rerunnable**: the figure files and stored results
    of the paper's chapter that ``codecheck.yml`` lists with their sha256 and the command that makes each
    (the tests re-execute every notebook and compare its outputs). Markdown sentences, keyed by
    :data:`RESCIENCE_CRITERIA`; a criterion with nothing to say says so."""
    import yaml

    root = Path(root) if root is not None else repo_root()
    report = reproduction_report(root=root) if report is None else report
    table = claims(report)
    chapters = {paper: chapter for chapter, paper in chapter_papers(load_registry(root=root)).items()}
    config = root / "codecheck.yml"
    listed = (yaml.safe_load(config.read_text(encoding="utf-8")) or {}).get("manifest") or [] if config.is_file() else []
    out: dict[str, dict[str, str]] = {}
    for paper in load_papers(root=root):
        mine = table[table["paper"] == paper]
        if mine.empty:
            continue
        named = {c: as_markdown(n or c) for c, n in zip(mine["claim"], mine["name"])}
        holds = mine[mine["outcome"] == HOLDS].sort_values("nature", ascending=False, kind="stable")
        replicated = _list([named[c] + (" (maths)" if n == "mathematical" else "")
                            for c, n in zip(holds["claim"], holds["nature"])]) if len(holds) else ""
        failed = ["{}: {}{}".format(named[c["claim"]], share(c), f" — {why_not(c)}" if why_not(c) else "")
                  for c in mine[mine["outcome"] == FAILS].to_dict("records")]
        elsewhere = []
        substitute = mine[mine["outcome"].isin((*SUBSTITUTE_OUTCOMES, UNTESTED))]
        for reason in dict.fromkeys(substitute["reasons"]):
            these = substitute[substitute["reasons"] == reason]
            why = "; ".join(REASONS[r] for r in _reasons(reason)) or "no reason declared"
            said = [named[c] + (" (consistent on the substitute)" if o == SUBSTITUTE else
                                " (no evidence at all)" if o == UNTESTED else " (not on the substitute either)")
                    for c, o in zip(these["claim"], these["outcome"])]
            elsewhere.append(f"{_list(said)}, since {why}")
        chapter = chapters.get(paper, "")
        figures = sum(1 for i in listed if chapter and f"saved by notebooks/{chapter}/" in str(i.get("comment")))
        results = sum(1 for i in listed if chapter and f"notebooks/{chapter}/" in str(i.get("comment"))
                      and str(i.get("file", "")).startswith("data/derived/"))
        rerun = (f"every notebook of its chapter is stored executed and re-executed by the tests, its outputs compared; "
                 f"`codecheck.yml` lists its {figures} figure files and {results} stored results, each with its "
                 "sha256, the command that makes it and the one that reruns it and compares"
                 if chapter else "its claims are tested in notebooks the tests re-execute")
        out[paper] = {
            "replicated": replicated or "no claim holds on the paper's own set-up",
            "not replicated": "; ".join(failed) or "no claim fails on the paper's own set-up",
            "could not be replicated here": "; ".join(elsewhere) or "every claim was tested on the paper's own set-up",
            "rerunnable": rerun,
        }
    return out
