"""The number roles: ``{paper}`0.837``` (a number the paper publishes, quoted in prose) and ``{setup}`14```
(a number that defines the set-up: chosen, not found)."""

from __future__ import annotations

from typing import Any

from docutils import nodes


def paper_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
               content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    """``{paper}`0.837```: a number the paper publishes, quoted in the book's prose."""
    node = nodes.abbreviation(text, text, explanation="the paper's published number", classes=["paper-number"])
    return [node], []


def setup_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
               content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    """``{setup}`14```: a number that defines the set-up (chosen, not found), in the book's prose."""
    node = nodes.inline(text, text, classes=["setup-number"])
    return [node], []
