"""The API reference pages, book/api.md and its three sections book/api-methods.md,
book/api-machinery.md and book/api-infrastructure.md (issue 32): every public module of lib is on one of them, with a
table of its functions and classes and their book equations, and the docstrings' ``Book:`` lines
become links to the equations."""

from __future__ import annotations

import importlib

import compendium
import lib
from compendium.data import REPO_ROOT
from compendium.sphinx import api_pages

api_docs = importlib.import_module("compendium.sphinx.api_docs")


def test_every_public_module_has_its_table_and_its_documentation() -> None:
    pages = [(REPO_ROOT / page).read_text(encoding="utf-8") for page in api_pages.PAGES]
    page = "\n".join(pages)
    modules = [f"lib.{name}" for name in lib.__all__] + [f"compendium.{name}" for name in compendium.__all__
                                                          if f"compendium.{name}" not in api_pages.NOT_DOCUMENTED]
    missing = [m for m in modules if f"```{{api-table}} {m}\n" not in page or f".. automodule:: {m}\n" not in page]
    assert missing == [], f"public modules missing from book/api*.md: {missing}"
    twice = [m for m in modules if page.count(f".. automodule:: {m}\n") != 1]
    assert twice == [], f"modules documented on more than one API page: {twice}"
    assert ".. automodule:: compendium.experiments" not in page
    # the first page lists every module, each a link to its documentation wherever it is
    assert all(f"   {m}\n" in pages[0] for m in modules)


def test_the_pages_list_the_packages_modules_as_generated() -> None:
    """Each page's list of modules is what compendium.sphinx.api_pages generates from lib.MODULES and
    compendium.MODULES: a module is on one page or declared undocumented, never typed twice."""
    placed = [f"{package}.{name.rstrip('/')}" for package, _, names in api_pages.PAGES.values() for name in names]
    assert len(placed) == len(set(placed)), "a module on two API pages"
    public = {f"lib.{n}" for n in lib.MODULES} | {f"compendium.{n}" for n in compendium.MODULES}
    assert set(placed) | set(api_pages.NOT_DOCUMENTED) == public, (
        f"modules on no API page: {sorted(public - set(placed) - set(api_pages.NOT_DOCUMENTED))}; "
        f"named but not public: {sorted((set(placed) | set(api_pages.NOT_DOCUMENTED)) - public)}")
    stale = [page for page in api_pages.PAGES
             if api_pages.render((REPO_ROOT / page).read_text(encoding="utf-8"), page)
             != (REPO_ROOT / page).read_text(encoding="utf-8")]
    assert stale == [], f"{stale}: run python -m compendium.sphinx.api_pages --write"


def test_a_new_module_of_a_package_shown_with_its_modules_appears_by_itself() -> None:
    """lib.sampling is shown with its own modules: every estimator module is on the page without a
    line of its own in the list (a new estimator is one module and its test)."""
    from lib.sampling.registry import estimator_modules

    page = (REPO_ROOT / "book" / "api.md").read_text(encoding="utf-8")
    assert all(f".. automodule:: {m}\n" in page for m in estimator_modules())
    assert "lib.sampling.strata" not in repr(api_pages.PAGES)


def test_every_public_function_is_listed_once_under_its_own_module() -> None:
    seen: dict[str, str] = {}
    for name in api_pages.documented():
        module = importlib.import_module(name)
        for member in api_docs.public_names(module):
            obj = getattr(module, member)
            assert obj.__module__ == module.__name__
            assert f"{obj.__module__}.{member}" not in seen
            seen[f"{obj.__module__}.{member}"] = name.rsplit(".", 1)[-1]
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


def test_the_conformance_table_is_the_stored_run_of_every_entry_point(tmp_path) -> None:
    # issue 44: the API page shows the conformance suite's outcomes, one row per declared entry point,
    # read from the stored run; a run that lacks an entry point stops the build with the command to rerun
    import shutil

    import pytest

    from lib.entry_points import CONFORMANCE_TABLE, entry_points

    page = (REPO_ROOT / "book" / "api-machinery.md").read_text(encoding="utf-8")   # lib.entry_points' page
    assert page.count("```{conformance-table}\n```") == 1
    cases, rows = api_docs.conformance_rows(REPO_ROOT)
    assert list(rows) == list(entry_points()) and len(cases) >= 26
    assert {v for row in rows.values() for v in row.values()} <= set(api_docs.OUTCOME_MARKS)
    (tmp_path / CONFORMANCE_TABLE).parent.mkdir(parents=True)
    stored = (REPO_ROOT / CONFORMANCE_TABLE).read_text(encoding="utf-8").splitlines()
    (tmp_path / CONFORMANCE_TABLE).write_text("\n".join(stored[:-1]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lacks the entry points .*python -m lib.tests.conformance"):
        api_docs.conformance_rows(tmp_path)
    shutil.rmtree(tmp_path / "lib")
