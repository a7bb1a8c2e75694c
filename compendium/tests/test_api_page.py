"""The API reference (issues 32, 48 and 46): book/api.md and its three sections book/api-methods.md,
book/api-machinery.md and book/api-infrastructure.md are landing pages, a table of their modules each;
every public module of lib and compendium has a page of its own, book/api/<module>.md, with a table of
its functions and classes and their book equations, and the docstrings' ``Book:`` lines become links to
the equations."""

from __future__ import annotations

import importlib
import itertools
import re

import compendium
import lib
from compendium.data import REPO_ROOT
from compendium.sphinx import api_pages

api_docs = importlib.import_module("compendium.sphinx.api_docs")


def _read(path: str) -> str:
    return (REPO_ROOT / path).read_text(encoding="utf-8")


def test_every_public_module_has_its_page_its_table_and_its_documentation() -> None:
    modules = [f"lib.{name}" for name in lib.__all__] + [f"compendium.{name}" for name in compendium.__all__
                                                          if f"compendium.{name}" not in api_pages.NOT_DOCUMENTED]
    missing = [m for m in modules if not (REPO_ROOT / api_pages.module_page(m)).is_file()
               or f"```{{api-table}} {m}\n" not in _read(api_pages.module_page(m))
               or f".. automodule:: {m}\n" not in _read(api_pages.module_page(m))]
    assert missing == [], f"public modules without their page in book/api/: {missing}"
    pages = [_read(page) for page in api_pages.PAGES] + [_read(str(p.relative_to(REPO_ROOT)))
                                                          for p in sorted((REPO_ROOT / "book" / "api").glob("*.md"))]
    twice = [m for m in api_pages.documented() if "".join(pages).count(f".. automodule:: {m}\n") != 1]
    assert twice == [], f"modules documented on more than one API page: {twice}"
    assert ".. automodule:: compendium.experiments" not in "".join(pages)
    # the first page lists every module (each a link to its page), a section's landing page its own
    assert all(f"   {m}\n" in pages[0] for m in modules)
    for page in api_pages.PAGES:
        own = [m for name, subs in api_pages.sections(page) for m in (name, *subs)]
        listed = _read(page).split(api_pages.MODULES[0], 1)[1].split(".. autosummary::", 1)[1].split("```", 1)[0]
        assert listed.split() == own, page


def test_a_link_into_a_former_page_of_modules_goes_on_to_the_module_page() -> None:
    """Every landing page forwards the anchors of the modules its section held when they shared one
    page (the browser test follows two); the modules are tried longest first, so that a package's own
    modules are matched before the package."""
    for page in api_pages.PAGES:
        script = _read(page).split("<script>", 1)[1].split("</script>", 1)[0]
        names = re.search(r"var modules = \[(.*?)\];", script).group(1).replace('"', "").split(", ")
        assert sorted(names) == sorted(api_pages.documented()), page
        assert names.index("lib.sampling.strata") < names.index("lib.sampling"), page
        assert 'location.replace("api/" + m + ".html"' in script


def test_the_pages_list_the_packages_modules_as_generated() -> None:
    """The landing pages' tables, the module pages and _toc.yml's entries are what
    compendium.sphinx.api_pages generates from lib.MODULES and compendium.MODULES: a module is in one
    section or declared undocumented, never typed twice."""
    placed = [f"{package}.{name.rstrip('/')}" for package, names in api_pages.PAGES.values() for name in names]
    assert len(placed) == len(set(placed)), "a module in two sections of the API reference"
    public = {f"lib.{n}" for n in lib.MODULES} | {f"compendium.{n}" for n in compendium.MODULES}
    assert set(placed) | set(api_pages.NOT_DOCUMENTED) == public, (
        f"modules on no API page: {sorted(public - set(placed) - set(api_pages.NOT_DOCUMENTED))}; "
        f"named but not public: {sorted((set(placed) | set(api_pages.NOT_DOCUMENTED)) - public)}")
    differ, extra = api_pages.stale(REPO_ROOT)
    assert (sorted(differ), extra) == ([], []), f"{sorted(differ)} {extra}: run python -m compendium.sphinx.api_pages --write"


def test_every_module_page_is_in_the_table_of_contents_under_its_section() -> None:
    from compendium.sphinx.pages import toc_files

    toc = [name for _, name in toc_files(REPO_ROOT)]
    pages = [api_pages.module_page(m).removesuffix(".md") for m in api_pages.documented()]
    assert [name for name in toc if name.startswith(f"{api_pages.MODULE_PAGES}/")] == pages
    sections = [page.removesuffix(".md") for page in api_pages.PAGES]
    # each section's landing page comes before its modules' pages, the next section's after them
    for page, following in itertools.pairwise(sections):
        for name, _ in api_pages.sections(f"{page}.md"):
            assert toc.index(page) < toc.index(api_pages.module_page(name).removesuffix(".md")) < toc.index(following)


def test_the_generated_files_are_caught_when_stale(tmp_path) -> None:
    """A module page edited by hand, a module page no module has, and a _toc.yml that lacks a module's
    page are each reported (planted in a copy of the generated files)."""
    import shutil

    for path in [*api_pages.PAGES, "_toc.yml"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_ROOT / path, tmp_path / path)
    shutil.copytree(REPO_ROOT / api_pages.MODULE_PAGES, tmp_path / api_pages.MODULE_PAGES)
    assert api_pages.stale(tmp_path) == ({}, [])
    page = tmp_path / api_pages.module_page("lib.models")
    page.write_text(page.read_text(encoding="utf-8") + "\nA line typed by hand.\n", encoding="utf-8")
    (tmp_path / api_pages.MODULE_PAGES / "lib.gone.md").write_text("# `lib.gone`\n", encoding="utf-8")
    toc = tmp_path / "_toc.yml"
    toc.write_text(toc.read_text(encoding="utf-8").replace("- file: book/api/lib.ranks\n", ""), encoding="utf-8")
    differ, extra = api_pages.stale(tmp_path)
    assert sorted(differ) == ["_toc.yml", api_pages.module_page("lib.models")]
    assert extra == [f"{api_pages.MODULE_PAGES}/lib.gone.md"]


def test_a_new_module_of_a_package_shown_with_its_modules_appears_by_itself() -> None:
    """lib.sampling is shown with its own modules: every estimator module has its page, listed on
    lib.sampling's page and in the table of contents under it, without a line of its own in the
    list (a new estimator is one module and its test)."""
    from lib.sampling.registry import estimator_modules

    package = _read(api_pages.module_page("lib.sampling"))
    toc = _read("_toc.yml")
    for m in estimator_modules():
        assert f".. automodule:: {m}\n" in _read(api_pages.module_page(m))
        assert f"   {m}\n" in package and f"- file: {api_pages.module_page(m).removesuffix('.md')}\n" in toc
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


def test_names_in_the_api_tables_break_after_a_dot_or_between_words() -> None:
    row = ('<tr class="row-odd"><td><p><a class="reference internal" href="x.html"><code class="xref py py-obj docutils '
           'literal notranslate"><span class="pre">{}</span></code></a></p></td><td><p>{}</p></td></tr>')
    body = (f'<table class="autosummary longtable table autosummary"><tbody>{row.format("lib.naive_bayes_sklearn", "lib.x_y")}'
            f'</tbody></table><table class="table"><tbody>{row.format("lib.other_table", "z")}</tbody></table>')
    out = api_docs.break_names(body)
    assert '<span class="pre">lib.<wbr>naive_<wbr>bayes_<wbr>sklearn</span>' in out
    assert "<p>lib.x_y</p>" in out and "lib.other_table" in out       # the summary, and another table: as they were
    assert out.replace("<wbr>", "") == body
    title = '<h1><code class="docutils literal notranslate"><span class="pre">lib.naive_bayes_sklearn</span></code></h1>'
    assert api_docs.break_names(title) == title.replace("lib.naive_bayes_sklearn", "lib.<wbr>naive_<wbr>bayes_<wbr>sklearn")


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

    page = _read(api_pages.module_page("lib.entry_points"))
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
