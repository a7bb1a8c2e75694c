"""What the book's tests share (imported as ``compendium.tests.helpers``)."""

from __future__ import annotations


def chapters() -> dict[str, str]:
    """The book's chapters, read from ``_toc.yml`` (the one list of them): the notebooks' folder
    (``"01-naive-bayes"``) → the chapter's landing page (``"book/01-naive-bayes"``), in book order.
    A sixth chapter is one more part of ``_toc.yml``; the tests that run per chapter read it here."""
    import yaml

    from compendium.data import REPO_ROOT

    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for part in toc["parts"]:
        for chapter in part.get("chapters", []):
            folders = {s["file"].split("/")[1] for s in chapter.get("sections", []) if s["file"].startswith("notebooks/")}
            if len(folders) == 1:
                found[folders.pop()] = chapter["file"]
    return found
