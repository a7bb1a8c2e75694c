"""The API pages, generated from the packages' own lists of modules (issues 48 and 46).

``lib.MODULES`` and ``compendium.MODULES`` are the one list of each package's public modules;
:data:`PAGES` only says which section of the reference shows which of them, in what order, and
:data:`NOT_DOCUMENTED` the modules no page shows, with why.  Every module documented has a page
of its own, ``book/api/<module>.md`` (its ``{api-table}`` and its ``automodule``; a package's own
modules, ``lib.sampling.strata``, ..., found in its folder where a section names the package with
a trailing ``/``, each on a page of its own under the package's), so that no page is long on a
phone (issue 46: the four pages that held every module ran to 94-141 phone screens).  The four
pages of :data:`PAGES` are the sections' landing pages: between their markers, what
:func:`generated` writes, a table of the section's modules with one line each (and on
``book/api.md``, the first, the other sections' modules too); ``_toc.yml`` lists the module pages
under their sections, between its markers.  A module added to a package appears once it is
given a section here, and ``compendium/tests/test_api_page.py`` fails until it is (or until the
pages are rewritten):

    python -m compendium.sphinx.api_pages --write
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: section (its landing page) -> (package, the package's modules it shows, in order; a name ending
#: in ``/`` is a package shown with each of its own modules after it, on pages under its own)
PAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "book/api.md": ("lib", ("models", "shapley", "formula", "games", "result", "sampling/")),
    "book/api-methods.md": ("lib", ("compositions", "naive_bayes_compositions", "naive_bayes", "naive_bayes_sklearn",
                                    "sdp", "sdp_estimation", "typical_value", "coalitional", "grouping")),
    "book/api-machinery.md": ("lib", ("simplex", "bayesnet", "pyagrum_bridge", "khiops_nb", "kernel_comparison",
                                      "ranks", "validation", "entry_points", "counting", "permutation_sampling")),
    "book/api-infrastructure.md": ("compendium", ("data", "stable", "page", "plotting", "report", "verdicts",
                                                  "rescience", "registry", "reasons", "claims", "regenerate",
                                                  "parallel", "side_env")),
}

#: the folder of the module pages, one per module: ``book/api/lib.models.md``
MODULE_PAGES = "book/api"

#: modules of the packages that no API page documents, and why
NOT_DOCUMENTED: dict[str, str] = {
    "compendium.experiments": "one module per paper's protocol: shown by the notebooks that run them",
    "compendium.sphinx": "the book's Sphinx extensions: how the pages are built, not an API",
}

#: what a module's page says after its table of functions (before its full documentation)
EXTRA: dict[str, str] = {
    "lib.entry_points": """
Every entry point of the table is run by the conformance suite (`lib/tests/test_conformance.py`)
through the same cases: the same numbers as the clean call, or an error that names what is wrong,
where, and a remedy that works when followed. The table is the stored run of the suite's examples
(a test keeps it equal to a fresh run).

```{conformance-table}
```
""",
}

SUMMARY = ("<!-- api-summary: begin (python -m compendium.sphinx.api_pages --write) -->",
           "<!-- api-summary: end -->")
MODULES = ("<!-- api-modules: begin (python -m compendium.sphinx.api_pages --write) -->", "<!-- api-modules: end -->")
TOC = ("# api-pages: begin (python -m compendium.sphinx.api_pages --write)", "# api-pages: end")
#: the first line of every module page
HEADER = ("% Written by python -m compendium.sphinx.api_pages --write: edit the module's docstring or "
          "compendium/sphinx/api_pages.py, not this page.")


def submodules(name: str) -> list[str]:
    """A package's public modules, in name order (none for a module)."""
    module = importlib.import_module(name)
    if not hasattr(module, "__path__"):
        return []
    return [f"{name}.{info.name}" for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name)
            if not info.name.startswith("_") and info.name != "tests"]


def sections(page: str) -> list[tuple[str, list[str]]]:
    """The modules a section shows, in order, each with the modules of its own shown under it."""
    package, names = PAGES[page]
    return [(f"{package}.{name.rstrip('/')}", submodules(f"{package}.{name.rstrip('/')}") if name.endswith("/") else [])
            for name in names]


def documented() -> list[str]:
    """Every module the API pages document, in page order (a package, then its own modules)."""
    return [m for page in PAGES for name, subs in sections(page) for m in (name, *subs)]


def module_page(name: str) -> str:
    """The page of a module documented: ``book/api/lib.models.md``."""
    return f"{MODULE_PAGES}/{name}.md"


def _summary(names: list[str]) -> list[str]:
    """An autosummary of ``names`` (each a link to its module's page, with its docstring's first line),
    read outside any module (a module's page sets its own before)."""
    return ["```{eval-rst}", ".. currentmodule:: None", "", ".. autosummary::", "", *(f"   {m}" for m in names), "```"]


def module_text(name: str) -> str:
    """The whole of a module's page: its table of functions and classes, what :data:`EXTRA` adds, the
    modules of its own (each on its page), and its full documentation."""
    lines = [HEADER, f"# `{name}`", "", f"```{{api-table}} {name}", "```", ""]
    if name in EXTRA:
        lines += [EXTRA[name].strip(), ""]
    subs = [s for page in PAGES for top, found in sections(page) if top == name for s in found]
    if subs:
        lines += ["Its modules, a page each:", "", *_summary(subs), ""]
    return "\n".join(lines + ["```{eval-rst}", f".. automodule:: {name}", "   :members:", "```"]) + "\n"


#: on a landing page, a link into the page that held every module of its section before each had a
#: page of its own (``book/api.html#lib.shapley.exact_shapley``, ``#module-lib.shapley``, the heading's
#: ``#lib-shapley``) goes on to the module's page, at the same object (``MODULE_NAMES``: every module
#: documented, the longest first, so that a package's own modules are tried before it)
FORWARD = """<script>
(function () {
  var id = decodeURIComponent(location.hash.slice(1)).replace(/^module-/, "");
  var modules = MODULE_NAMES;
  for (var i = 0; id && i < modules.length; i++) {
    var m = modules[i], heading = m.replace(/[._]/g, "-");
    if (id === m || id.indexOf(m + ".") === 0 || id === heading) {
      location.replace("api/" + m + ".html" + (id === heading ? "" : location.hash));
      return;
    }
  }
})();
</script>"""


def _forward() -> list[str]:
    names = sorted(documented(), key=lambda m: (-len(m), m))
    return ["```{raw} html", FORWARD.replace("MODULE_NAMES", "[" + ", ".join(f'"{m}"' for m in names) + "]"), "```"]


def generated(page: str) -> dict[tuple[str, str], str]:
    """What a section's landing page ``page`` holds between each pair of its markers: the table of its
    modules (a package's own after it), and :data:`FORWARD`; on the first page, the other sections'
    modules, each section's a table after a link to its page."""
    out = {MODULES: "\n".join(_summary([m for name, subs in sections(page) for m in (name, *subs)])
                              + ["", *_forward()]) + "\n"}
    if page == next(iter(PAGES)):
        body: list[str] = []
        for other in list(PAGES)[1:]:
            body += [f"{{doc}}`/{other.removesuffix('.md')}`:", "",
                     *_summary([name for name, _ in sections(other)]), ""]
        out[SUMMARY] = "\n".join(body).rstrip() + "\n"
    return out


def toc_entries(indent: str) -> str:
    """The lines of ``_toc.yml`` between its markers: the module pages under their sections (the first
    section's directly under the reference's first page, the others under their own landing pages)."""
    lines: list[str] = []

    def entries(pad: str, modules: list[tuple[str, list[str]]]) -> None:
        for name, subs in modules:
            lines.append(f"{pad}- file: {module_page(name).removesuffix('.md')}")
            if subs:
                lines.append(f"{pad}  sections:")
                lines.extend(f"{pad}    - file: {module_page(s).removesuffix('.md')}" for s in subs)

    first, *others = PAGES
    entries(indent, sections(first))
    for page in others:
        lines += [f"{indent}- file: {page.removesuffix('.md')}", f"{indent}  sections:"]
        entries(indent + "    ", sections(page))
    return "\n".join(lines) + "\n"


def _between(text: str, begin: str, end: str, content: str, where: str) -> str:
    """``text`` with what lies between the line holding ``begin`` and the line holding ``end`` replaced
    by ``content`` (the markers' lines kept)."""
    if begin not in text or end not in text:
        raise ValueError(f"{where} has no {begin} ... {end}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    indent = head[head.rfind("\n") + 1:]
    return f"{head}{begin}\n{content}{indent}{end}{tail}"


def render(text: str, page: str) -> str:
    """``text`` (a landing page) with what lies between its markers replaced by :func:`generated`."""
    for (begin, end), content in generated(page).items():
        text = _between(text, begin, end, content, page)
    return text


def render_toc(text: str) -> str:
    """``_toc.yml``'s ``text`` with the module pages between its markers (:func:`toc_entries`)."""
    if TOC[0] not in text:
        raise ValueError(f"_toc.yml has no {TOC[0]} ... {TOC[1]}")
    line = text[:text.index(TOC[0])].rsplit("\n", 1)[-1]
    return _between(text, *TOC, toc_entries(line), "_toc.yml")


def wanted(root: Path = ROOT) -> dict[str, str]:
    """Every generated file (the landing pages, the module pages, ``_toc.yml``) -> the text it should hold."""
    out = {page: render((root / page).read_text(encoding="utf-8"), page) for page in PAGES}
    out.update({module_page(name): module_text(name) for name in documented()})
    out["_toc.yml"] = render_toc((root / "_toc.yml").read_text(encoding="utf-8"))
    return out


def stale(root: Path = ROOT) -> tuple[dict[str, str], list[str]]:
    """The generated files whose text differs from :func:`wanted` (-> their text), and the module pages
    in ``book/api/`` no module has (to delete)."""
    want = wanted(root)
    differ = {path: text for path, text in want.items()
              if not (root / path).is_file() or (root / path).read_text(encoding="utf-8") != text}
    extra = sorted(str(p.relative_to(root)) for p in (root / MODULE_PAGES).glob("*.md")
                   if str(p.relative_to(root)) not in want)
    return differ, extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compendium.sphinx.api_pages", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the pages (default: say which differ)")
    args = parser.parse_args(argv)
    differ, extra = stale()
    if args.write:
        (ROOT / MODULE_PAGES).mkdir(exist_ok=True)
        for path, text in differ.items():
            (ROOT / path).write_text(text, encoding="utf-8")
        for path in extra:
            (ROOT / path).unlink()
    names = [*differ, *(f"{path} (no such module)" for path in extra)]
    print(("rewritten: " if args.write else "out of date: ") + (", ".join(names) or "none"))
    return 0 if args.write or not names else 1


if __name__ == "__main__":
    raise SystemExit(main())
