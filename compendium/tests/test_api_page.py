"""The API reference pages, book/api.md and its three sections book/api-methods.md,
book/api-machinery.md and book/api-infrastructure.md (issue 32): every public module of lib is on one of them, with a
table of its functions and classes and their book equations, and the docstrings' ``Book:`` lines
become links to the equations."""

from __future__ import annotations

import importlib

import lib
from compendium.data import REPO_ROOT

api_docs = importlib.import_module("compendium.sphinx.api_docs")


def test_every_public_module_has_its_table_and_its_documentation() -> None:
    pages = [(REPO_ROOT / "book" / f"{name}.md").read_text(encoding="utf-8")
             for name in ("api", "api-methods", "api-machinery", "api-infrastructure")]
    page = "\n".join(pages)
    modules = [name for name in lib.__all__ if name != "experiments"]
    missing = [m for m in modules if f"```{{api-table}} lib.{m}\n" not in page or f".. automodule:: lib.{m}\n" not in page]
    assert missing == [], f"public modules of lib missing from book/api*.md: {missing}"
    twice = [m for m in modules if page.count(f".. automodule:: lib.{m}\n") != 1]
    assert twice == [], f"modules documented on more than one API page: {twice}"
    assert ".. automodule:: compendium.experiments" not in page
    # the first page lists every module, each a link to its documentation wherever it is
    assert all(f"   lib.{m}\n" in pages[0] for m in modules)


def test_every_public_function_is_listed_once_under_its_own_module() -> None:
    seen: dict[str, str] = {}
    for name in lib.__all__:
        if name == "experiments":
            continue
        module = importlib.import_module(f"lib.{name}")
        for member in api_docs.public_names(module):
            obj = getattr(module, member)
            assert obj.__module__ == module.__name__
            assert f"{obj.__module__}.{member}" not in seen
            seen[f"{obj.__module__}.{member}"] = name
    assert "lib.models.as_model" in seen and "lib.shapley.exact_shapley" in seen
    assert "lib.shapley.check_inputs" not in seen          # a re-export: listed where it is defined
    assert seen["lib.validation.check_inputs"] == "validation"


def test_book_lines_become_equation_and_page_links() -> None:
    lines = [
        "Exact Shapley values.",
        "",
        "Book: :ref:`eq-found-shapley` (book/foundations.md); :ref:`eq-nb-shapley`,",
        "    :ref:`eq-nb-efficiency` (notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes.ipynb).",
        "",
        "Uses :func:`_greedy_picks` and :mod:`lib._shapley_games`, and :func:`exact_shapley`.",
    ]
    api_docs.process_docstring(None, "function", "f", None, None, lines)
    assert lines[2] == ("**Book:** :eq:`eq-found-shapley` in :doc:`/book/foundations`; :eq:`eq-nb-shapley`, "
                        ":eq:`eq-nb-efficiency` in :doc:`/notebooks/01-naive-bayes/01-shapley-values-of-naive-bayes`.")
    assert lines[4] == "Uses ``_greedy_picks`` and ``lib._shapley_games``, and :func:`exact_shapley`."


def test_module_section_titles_become_rubrics_and_attribute_colons_no_type() -> None:
    lines = ["Summary.", "", "Conventions", "-----------", "Text."]
    api_docs.section_titles_as_rubrics(None, "module", "m", None, None, lines)
    assert lines == ["Summary.", "", ".. rubric:: Conventions", "", "Text."]
    lines = ["The grouping methods by the names of the paper's figures: PCA, VIF."]
    api_docs.section_titles_as_rubrics(None, "data", "m.X", None, None, lines)
    assert lines[0].startswith(": The grouping")


def test_an_equation_named_by_its_label_in_prose_becomes_its_number() -> None:
    lines = ["The interventional game (book eq. ``eq-found-interventional``), and ``eq-nb-shapley``."]
    api_docs.process_docstring(None, "function", "f", None, None, lines)
    assert lines == ["The interventional game (Eq. :eq:`eq-found-interventional`), and Eq. :eq:`eq-nb-shapley`."]
