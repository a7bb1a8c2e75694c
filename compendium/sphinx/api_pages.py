"""The API pages' lists of modules, generated from the packages' own lists (issue 48).

``lib.MODULES`` and ``compendium.MODULES`` are the one list of each package's public modules;
:data:`PAGES` only says which page shows which of them, in what order, and :data:`NOT_DOCUMENTED`
the modules no page shows, with why.  Every page ``book/api*.md`` holds, between its markers, what
:func:`generated` writes: on ``book/api.md`` the summary of every module documented, and on every
page one section per module (its ``{api-table}`` and its ``automodule``), a package's own modules
(``lib.sampling.strata``, ...) found in its folder and shown after it, one level down, where the
page names the package with a trailing ``/``.  A module
added to a package appears on its page once it is given one here, and
``compendium/tests/test_api_page.py`` fails until it is (or until the pages are rewritten):

    python -m compendium.sphinx.api_pages --write
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: page -> (package, heading level of its modules, the package's modules it shows, in order; a name
#: ending in ``/`` is a package shown with each of its own modules after it)
PAGES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "book/api.md": ("lib", "###", ("models", "shapley", "formula", "games", "result", "sampling/")),
    "book/api-methods.md": ("lib", "##", ("compositions", "naive_bayes_compositions", "naive_bayes",
                                          "naive_bayes_sklearn", "sdp", "sdp_estimation", "typical_value",
                                          "coalitional", "grouping")),
    "book/api-machinery.md": ("lib", "##", ("simplex", "bayesnet", "pyagrum_bridge", "khiops_nb",
                                            "kernel_comparison", "ranks", "validation", "entry_points", "counting",
                                            "permutation_sampling")),
    "book/api-infrastructure.md": ("compendium", "##", ("data", "stable", "page", "plotting", "report", "verdicts",
                                                        "rescience", "registry", "reasons", "claims", "regenerate",
                                                        "parallel", "side_env")),
}

#: modules of the packages that no API page documents, and why
NOT_DOCUMENTED: dict[str, str] = {
    "compendium.experiments": "one module per paper's protocol: shown by the notebooks that run them",
    "compendium.sphinx": "the book's Sphinx extensions: how the pages are built, not an API",
}

#: what a module's section says after its table of functions (before its full documentation)
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


def submodules(name: str) -> list[str]:
    """A package's public modules, in name order (none for a module)."""
    module = importlib.import_module(name)
    if not hasattr(module, "__path__"):
        return []
    return [f"{name}.{info.name}" for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name)
            if not info.name.startswith("_") and info.name != "tests"]


def documented() -> list[str]:
    """Every module the API pages document, in page order (a package, then its own modules)."""
    out = []
    for package, _, names in PAGES.values():
        for name in names:
            full = f"{package}.{name.rstrip('/')}"
            out += [full, *(submodules(full) if name.endswith("/") else [])]
    return out


def _section(name: str, level: str) -> list[str]:
    lines = [f"{level} `{name}`", "", f"```{{api-table}} {name}", "```", ""]
    if name in EXTRA:
        lines += [EXTRA[name].strip(), ""]
    return lines + ["```{eval-rst}", f".. automodule:: {name}", "   :members:", "```", ""]


def generated(page: str) -> dict[tuple[str, str], str]:
    """What ``page`` holds between each pair of its markers."""
    package, level, names = PAGES[page]
    body: list[str] = []
    for name in names:
        full = f"{package}.{name.rstrip('/')}"
        body += _section(full, level)
        for sub in submodules(full) if name.endswith("/") else []:
            body += _section(sub, level + "#")
    out = {MODULES: "\n".join(body).rstrip() + "\n"}
    if page == "book/api.md":
        out[SUMMARY] = "\n".join(["```{eval-rst}", ".. autosummary::", "", *(f"   {m}" for m in documented()
                                                                            if m.count(".") == 1), "```"]) + "\n"
    return out


def render(text: str, page: str) -> str:
    """``text`` (a page) with what lies between its markers replaced by :func:`generated`."""
    for (begin, end), content in generated(page).items():
        if begin not in text or end not in text:
            raise ValueError(f"{page} has no {begin} ... {end}")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{begin}\n{content}{end}{tail}"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compendium.sphinx.api_pages", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the pages (default: say which differ)")
    args = parser.parse_args(argv)
    stale = []
    for page in PAGES:
        path = ROOT / page
        text = path.read_text(encoding="utf-8")
        new = render(text, page)
        if new != text:
            stale.append(page)
            if args.write:
                path.write_text(new, encoding="utf-8")
    print(("rewritten: " if args.write else "out of date: ") + (", ".join(stale) or "none"))
    return 0 if args.write or not stale else 1


if __name__ == "__main__":
    raise SystemExit(main())
