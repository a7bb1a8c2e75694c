"""The API reference pages (a page per module, ``book/api/<module>.md``): ``lib``'s docstrings rendered by Sphinx's autodoc, with
the book equation each function implements as a link.

- ``{api-table} lib.<module>`` lists the module's public functions and classes (its ``__all__``,
  the names it defines) with their summary line and the book equations their docstring's
  ``Book:`` paragraph names, each a link to the equation, numbered as the book numbers it.
- Docstrings are rewritten for the page as they are read (``autodoc-process-docstring``): the
  ``Book:`` paragraph's ``:ref:`eq-…``` (the form ``compendium/tests/test_equation_links.py`` reads)
  becomes ``:eq:`eq-…``` (a link to the equation, printed ``(L10)``) and the file after it a
  ``:doc:`` link; a role naming a private object (``:func:`_greedy_picks```,
  ``:mod:`lib._shapley_games```), which the page does not document, becomes code text.

Registered in ``_config.yml`` (``sphinx: local_extensions``) beside autodoc, autosummary and
napoleon (``sphinx: extra_extensions``).
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.util.nodes import nested_parse_with_titles

_BOOK = re.compile(r"^(\s*)Book: ")
_ENTRY = re.compile(r"((?::ref:`eq-[a-z0-9-]+`(?:,\s*)?)+)\s*\(([^)]+)\)")
_PRIVATE_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj):`~?((?:[\w.]*\.)?_[\w.]*)`")


def _docname(path: str) -> str:
    """``notebooks/01-x/02-y.ipynb`` -> ``/notebooks/01-x/02-y`` (a :doc: target)."""
    return "/" + re.sub(r"\.(ipynb|md)$", "", path.strip())


def book_entries(text: str) -> list[tuple[list[str], str]]:
    """The ``(labels, file)`` entries of a ``Book:`` paragraph's text."""
    return [(re.findall(r"eq-[a-z0-9-]+", labels), path) for labels, path in _ENTRY.findall(text)]


def _book_line(entries: list[tuple[list[str], str]]) -> str:
    parts = [", ".join(f":eq:`{label}`" for label in labels) + f" in :doc:`{_docname(path)}`"
             for labels, path in entries]
    return "**Book:** " + "; ".join(parts) + "."


#: an equation named by its label in code quotes in a docstring's prose ("book eq. ``eq-found-shapley``"),
#: which the page prints as the equation's number, linked ("Eq. (0.2)")
_LITERAL_LABEL = re.compile(r"(?:(?:[Bb]ook|[Cc]hapter) )?(?:[Ee]q\. )?``(?P<label>eq-[a-z0-9]+(?:-[a-z0-9]+)*)``")


def process_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Rewrite a docstring's lines in place for the page (see the module docstring)."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = _BOOK.match(lines[i])
        if match:
            block = [lines[i]]
            i += 1
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            entries = book_entries(" ".join(part.strip() for part in block))
            out.append(match.group(1) + _book_line(entries) if entries else block[0])
            continue
        line = _PRIVATE_ROLE.sub(lambda m: f"``{m.group(1).lstrip('~')}``", lines[i])
        out.append(_LITERAL_LABEL.sub(lambda m: f"Eq. :eq:`{m['label']}`", line))
        i += 1
    lines[:] = out


_TITLE = re.compile(r"^(\s*)(\S.*?)\s*$")
_UNDERLINE = re.compile(r"^\s*([-=~^])\1{2,}\s*$")


def section_titles_as_rubrics(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Before napoleon: a module docstring's section titles (``Conventions`` over ``-----``)
    become rubrics, which several modules on one page may share; an attribute's or property's
    first line with a colon gets an empty type in front, so napoleon does not read the words
    before the colon as a type."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if what == "module" and i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]) and lines[i].strip() \
                and not _UNDERLINE.match(lines[i]):
            indent, title = _TITLE.match(lines[i]).groups()
            out += [f"{indent}.. rubric:: {title}", ""]
            i += 2
            continue
        out.append(lines[i])
        i += 1
    if what in ("data", "attribute", "property") and out and ": " in out[0] and not out[0].lstrip().startswith(":"):
        out[0] = ": " + out[0]
    lines[:] = out


def skip_foreign_members(app: Any, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """Skip what a class of ``lib`` inherits or gets generated from elsewhere (scikit-learn's
    metadata-routing methods): the page documents ``lib``."""
    module = getattr(obj, "__module__", None)
    if what == "class" and callable(obj) and isinstance(module, str) and not module.startswith(("lib", "compendium")):
        return True
    return None


def undocumented_reference(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """A Python reference to something of ``lib`` the page does not document — a private name,
    an experiment, an attribute of the current class or a name of the current module outside its
    ``__all__`` — is printed as code text (as it reads in the docstring), not as a broken link.
    Anything else stays unresolved, and ``-n`` reports it."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    module_name, class_name = node.get("py:module") or "", node.get("py:class") or ""
    private = target.startswith("_") or "._" in target
    experiment = target.startswith("compendium.experiments")
    local = False
    if target.startswith(("lib.", "compendium.")) and not (private or experiment):
        parent, _, last = target.rpartition(".")
        try:
            owner_module = importlib.import_module(parent)
        except ImportError:
            owner_module = None
        if owner_module is not None and hasattr(owner_module, last) and last not in getattr(owner_module, "__all__", []):
            return nodes.literal(target, target)          # a name of a module outside its __all__
    if "." not in target and module_name.startswith(("lib", "compendium")):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            module = None
        owner = getattr(module, class_name, None) if class_name else module
        fields = getattr(owner, "__dataclass_fields__", {}) if owner is not None else {}
        doc = inspect.getdoc(owner) or "" if owner is not None else ""
        try:
            source = inspect.getsource(owner) if inspect.isclass(owner) else ""
        except (OSError, TypeError):
            source = ""
        local = owner is not None and (hasattr(owner, target) or target in fields
                                       or re.search(rf"^\s*{re.escape(target)}\b", doc, re.M) is not None
                                       or f"self.{target} =" in source)
    if private or experiment or local:
        return nodes.literal(target, target)
    return None


def _summary(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(first.split())


def _equations(obj: Any) -> list[tuple[list[str], str]]:
    doc = inspect.getdoc(obj) or ""
    match = re.search(r"^\s*Book: (.*?)(?=^\s*$|\Z)", doc, re.S | re.M)
    return book_entries(" ".join(match.group(1).split())) if match else []


def public_names(module: Any) -> list[str]:
    """The names of ``module.__all__`` that the module defines (re-exports are documented where
    they are defined)."""
    names = []
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
            names.append(name)
    return names


class ApiTable(Directive):
    """``{api-table} lib.module``: one row per public function or class, its summary and equations.

    The table is reStructuredText inside MyST's ``eval-rst`` (the docstrings are reST), after a
    ``currentmodule`` so that the summaries' short references resolve in the module.
    """

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        module = importlib.import_module(self.arguments[0])
        names = public_names(module)
        rst = [f".. currentmodule:: {module.__name__}", ""]
        if names:
            rst += [".. list-table::", "   :header-rows: 1", "   :widths: 28 52 20", "",
                    "   * - name", "     - what it does", "     - book equations"]
            for name in names:
                obj = getattr(module, name)
                equations = "; ".join(", ".join(f":eq:`{label}`" for label in labels) for labels, _ in _equations(obj))
                summary = _summary(obj).replace("|", "\\|") or "—"
                link = f":py:obj:`~{module.__name__}.{name}`" if inspect.getdoc(obj) else f"``{name}``"
                rst += [f"   * - {link}", f"     - {summary}", f"     - {equations or '—'}"]
        else:
            rst.append("No function or class of its own: the names it exports are documented where they are defined.")
        lines = ["```{eval-rst}", *rst, "```"]
        container = nodes.container(classes=["api-table"])
        nested_parse_with_titles(self.state, StringList(lines, source=self.arguments[0]), container)
        return [container]


#: The outcomes of the conformance suite as the page prints them, and what each means.
OUTCOME_MARKS = {"same": "=", "refused": "err", "n/a": "–"}


def conformance_rows(root: Any) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The stored outcomes of the conformance suite (``lib.entry_points.CONFORMANCE_TABLE``): the cases,
    and each declared entry point's outcome of each; an entry point or a case the stored run lacks is
    an error that names the command that writes the table again."""
    import csv
    from pathlib import Path

    from lib.entry_points import CONFORMANCE_TABLE, entry_points

    with open(Path(root) / CONFORMANCE_TABLE, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        rows = {row[0]: dict(zip(header[1:], row[1:])) for row in reader}
    missing = [name for name in entry_points() if name not in rows]
    unknown = sorted({v for row in rows.values() for v in row.values()} - set(OUTCOME_MARKS))
    if missing or unknown:
        raise ValueError(f"{CONFORMANCE_TABLE} lacks the entry points {missing} or holds outcomes {unknown}: run "
                         "python -m lib.tests.conformance")
    return header[1:], {name: rows[name] for name in entry_points()}


class ConformanceTable(Directive):
    """``{conformance-table}``: every entry point of ``lib`` that takes a model and rows (one row each, from
    ``lib.entry_points``) against every case of the conformance suite (one column each, numbered; the
    legend names them), with the outcome its stored run found (:func:`conformance_rows`)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from compendium.sphinx.pages import root_of
        from lib.entry_points import CONFORMANCE_TABLE

        root = root_of(self)
        self.state.document.settings.env.note_dependency(str(root / CONFORMANCE_TABLE))
        try:
            cases, rows = conformance_rows(root)
        except (OSError, ValueError) as err:
            raise self.error(str(err)) from None
        counts = {kind: sum(row[c] == kind for row in rows.values() for c in cases) for kind in OUTCOME_MARKS}
        rst = [f"{len(rows)} entry points × {len(cases)} cases: {counts['same']} give the clean call's numbers "
               f"(``=``), {counts['refused']} are refused with the row, the column and a remedy that the suite "
               f"follows and that works (``err``), {counts['n/a']} do not apply (``–``: no background, no "
               "budget, no randomness, or a model the method reads without calling it).", "",
               ".. list-table::", "   :header-rows: 1", "   :class: conformance-table", "",
               "   * - entry point", *[f"     - {k}" for k in range(1, len(cases) + 1)]]
        for name, row in rows.items():
            short = name.removeprefix("lib.")
            rst += [f"   * - :py:obj:`{short} <{name}>`", *[f"     - {OUTCOME_MARKS[row[c]]}" for c in cases]]
        rst += ["", "Cases: " + "; ".join(f"{k} {case}" for k, case in enumerate(cases, 1)) + "."]
        lines = ["```{eval-rst}", *rst, "```"]
        container = nodes.container(classes=["conformance-table"])
        nested_parse_with_titles(self.state, StringList(lines, source="conformance-table"), container)
        return [container]


#: a row's first cell holding a name (a link to it, or its code alone) in a table of the API pages
_NAME_CELL = re.compile(r'(<tr class="row-\w+"><td><p>(?:<a [^>]*>)?<code [^>]*><span class="pre">)([^<]+)(</span>)')
#: the API pages' tables of names: a module's functions and classes (``{api-table}``), a section's modules
#: (autosummary)
_NAME_TABLE = re.compile(r'<div class="api-table[^"]*">.*?</table>|<table class="autosummary[^"]*">.*?</table>', re.S)
#: a module page's title, the module's name (``# `lib.naive_bayes_compositions```), breaks there too
_NAME_TITLE = re.compile(r'(<h1><code [^>]*><span class="pre">)([^<]+)(</span>)')
#: a dot, or an underscore between two words, in a name: where a name too long for its column breaks
_NAME_BREAK = re.compile(r"(?<=[A-Za-z0-9])([._])(?=[A-Za-z])")


def break_names(body: str) -> str:
    """``body`` with a ``<wbr>`` after each dot and each underscore between two words of the names in
    the first column of the API pages' tables and in a module page's title (``book/_static/api.css`` keeps them from breaking
    elsewhere): on a phone ``lib.naive_bayes_compositions`` breaks as ``lib.naive_bayes_`` /
    ``compositions``, not ``lib.nai`` / ``ve_baye`` / ``s``. What a reader copies is unchanged."""
    def table(match: re.Match[str]) -> str:
        return _NAME_CELL.sub(lambda m: m[1] + _NAME_BREAK.sub(r"\1<wbr>", m[2]) + m[3], match[0])

    body = _NAME_TITLE.sub(lambda m: m[1] + _NAME_BREAK.sub(r"\1<wbr>", m[2]) + m[3], body)
    return _NAME_TABLE.sub(table, body)


def _break_names(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if "body" in context and ("api-table" in context["body"] or "autosummary" in context["body"]):
        context["body"] = break_names(context["body"])


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _break_names)
    app.connect("autodoc-process-docstring", section_titles_as_rubrics, priority=400)  # before napoleon
    app.connect("autodoc-process-docstring", process_docstring)
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("missing-reference", undocumented_reference)
    app.add_directive("api-table", ApiTable)
    app.add_directive("conformance-table", ConformanceTable)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
