"""Every labelled equation one hop from its code, both ways (``CONTRIBUTING.md`` §6).

One map, read by the build and by the tests: a labelled display equation of the book
(``$$ … $$ (eq-…)`` in a notebook's markdown or in ``book/*.md``) is *implemented* by every
function, class or method of ``lib`` whose docstring names its label on its ``Book:`` paragraph,
``Book: :ref:`eq-…` (<file that derives it>).``

- :func:`equation_labels`: label -> the file that holds the display equation;
- :func:`docstrings`: every docstring of ``lib`` (its tests excepted), with where it is;
- :func:`implementations`: label -> the :class:`Code` that computes it (from the ``Book:`` lines);
- :func:`show_code` (Sphinx, ``doctree-resolved``): beside every implemented equation's number a
  small line, ``code: shapley_values``, links each function that computes it to its source in the
  repository (:func:`source_url`: ``_config.yml``'s ``repository.url``,
  ``/blob/<ref>/lib/…#L<first>-L<last>``, at the commit or release tag the book is built
  from: ``compendium/sphinx/citation.py``). It is not a sentence of the prose: the page reads
  as its ideas, and the way to the code is one tap beside the number.

``compendium/tests/test_equation_links.py`` checks the map (every label cited exists and names its file,
every labelled equation is implemented or listed with the reason it is not) and
``tests/test_built_book.py`` checks that the built pages show it.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The repository's root (``compendium/sphinx/`` is three levels down).
ROOT = Path(__file__).resolve().parents[2]

_DISPLAY = re.compile(r"\$\$.*?\$\$\s*\((eq-[A-Za-z0-9_-]+)\)", re.S)
CITED = re.compile(r"\beq-[a-z0-9]+(?:-[a-z0-9]+)*")
_BOOK_LINE = re.compile(r"^\s*Book: (.*?)(?=^\s*$|\Z)", re.S | re.M)
_ENTRY = re.compile(r"((?::ref:`eq-[a-z0-9-]+`(?:,\s*)?)+)\s*\(([^)]+)\)")

#: CSS class of the small line beside an equation's number that links to its code.
CSS_CLASS = "equation-code"


@dataclass(frozen=True)
class Code:
    """A module, class, function or method of ``lib``: its qualified name and where its source is."""

    name: str        # lib.naive_bayes.shapley_values
    module: str      # lib.naive_bayes
    path: str        # lib/naive_bayes.py (repository path)
    first: int       # first line of its definition (decorators included)
    last: int        # its last line

    @property
    def is_module(self) -> bool:
        return self.name == self.module

    @property
    def short(self) -> str:
        """The name within its module (``shapley_values``, ``NaiveBayesTables.predict``)."""
        return self.name.removeprefix(self.module + ".")


def equation_labels(root: Path = ROOT) -> dict[str, str]:
    """Every labelled display equation: label -> the repository path of the file that holds it."""
    found: dict[str, str] = {}

    def add(text: str, path: Path) -> None:
        for label in _DISPLAY.findall(text):
            if label in found:
                raise ValueError(f"{label} is the label of two display equations ({found[label]}, {path})")
            found[label] = path.relative_to(root).as_posix()

    for path in sorted((root / "notebooks").glob("*/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        add("\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown"), path)
    for path in sorted((root / "book").glob("*.md")):
        add(path.read_text(encoding="utf-8"), path)
    return found


def lib_sources(root: Path = ROOT) -> list[Path]:
    """The modules of ``lib`` and its packages, and the experiments of ``compendium`` (the book's
    protocols, which may compute an equation of their own), tests excepted."""
    return sorted([p for p in (root / "lib").rglob("*.py") if "tests" not in p.relative_to(root / "lib").parts]
                  + list((root / "compendium" / "experiments").rglob("*.py")))


def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def docstrings(root: Path = ROOT) -> dict[str, tuple[str, Code]]:
    """Every docstring of ``lib`` (modules, classes, functions, methods): qualified name -> (text, where)."""
    out: dict[str, tuple[str, Code]] = {}
    for path in lib_sources(root):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        rel = path.relative_to(root).as_posix()
        module = _module_name(path, root)
        if ast.get_docstring(tree):
            out[module] = (ast.get_docstring(tree) or "", Code(module, module, rel, 1, len(text.splitlines())))

        def visit(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}.{child.name}"
                    doc = ast.get_docstring(child)
                    if doc:
                        first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                        out[name] = (doc, Code(name, module, rel, first, child.end_lineno or child.lineno))
                    visit(child, name)

        visit(tree, module)
    return out


def cited_labels(docs: dict[str, str]) -> dict[str, set[str]]:
    """Label -> the qualified names whose docstring mentions it (anywhere)."""
    cited: dict[str, set[str]] = {}
    for name, doc in docs.items():
        for label in CITED.findall(doc):
            cited.setdefault(label, set()).add(name)
    return cited


def book_lines(doc: str) -> list[tuple[str, str]]:
    """The ``(label, file)`` pairs of a docstring's ``Book:`` paragraph."""
    pairs = []
    for block in _BOOK_LINE.findall(doc):
        for labels, path in _ENTRY.findall(" ".join(block.split())):
            pairs += [(label, path) for label in re.findall(r"eq-[a-z0-9-]+", labels)]
    return pairs


def implementations(root: Path = ROOT) -> dict[str, list[Code]]:
    """Label -> the functions, classes and methods whose ``Book:`` paragraph cites it, by name."""
    found: dict[str, list[Code]] = {}
    for _, (doc, code) in sorted(docstrings(root).items()):
        if code.is_module:
            continue  # a module's docstring may mention a label in passing; it computes nothing
        for label, _ in book_lines(doc):
            if code not in found.setdefault(label, []):
                found[label].append(code)
    return {label: sorted(codes, key=_reading_order) for label, codes in found.items()}


def _reading_order(code: Code) -> tuple[bool, bool, str]:
    """Public maths modules first, then the experiments, then private modules; by name within each."""
    parts = code.module.split(".")
    return any(p.startswith("_") for p in parts), "experiments" in parts, code.name


def source_url(repository: str, branch: str, code: Code) -> str:
    """The page of the repository that shows ``code``'s lines."""
    return f"{repository.rstrip('/')}/blob/{branch}/{code.path}#L{code.first}-L{code.last}"


# ----------------------------------------------------------------------------- Sphinx
_CACHE: dict[Path, dict[str, list[Code]]] = {}


def _repository(app: Any) -> tuple[str, str]:
    """The repository and the ref its links name: the commit (or release tag) the book is built from,
    which the ``citation`` extension puts in the theme's ``repository_branch``; never a branch."""
    from compendium.sphinx import citation

    return citation.repository(app), citation.info(app).ref


def _note(codes: list[Code], repository: str, branch: str) -> Any:
    """The small line beside an equation's number: ``code: perturb · power``, each name a link to
    its source (its qualified name, file and lines in the link's title)."""
    from docutils import nodes

    para = nodes.paragraph(classes=[CSS_CLASS])
    para += nodes.inline(text="code:", classes=[f"{CSS_CLASS}-label"])
    for i, code in enumerate(codes):
        para += nodes.Text(" " if i == 0 else " · ")
        name = nodes.literal(text=code.short)
        if repository:
            link = nodes.reference("", "", internal=False, refuri=source_url(repository, branch, code),
                                   reftitle=f"{code.name}: source, {code.path} lines {code.first}-{code.last}")
            link += name
            para += link
        else:
            para += name
    return para


def show_code(app: Any, doctree: Any, docname: str) -> None:
    """Beside the number of every labelled equation some ``lib`` function computes, a small line
    linking to it (:func:`_note`), placed right after the equation (``compendium.css`` sets it
    under the number)."""
    from docutils import nodes

    root = Path(app.confdir)
    if root not in _CACHE:
        _CACHE[root] = implementations(root)
    cache = _CACHE[root]
    repository, branch = _repository(app)
    for node in list(doctree.findall(nodes.math_block)):
        label = node.get("label")
        codes = cache.get(label or "")
        if not codes:
            continue
        node.parent.insert(node.parent.index(node) + 1, _note(codes, repository, branch))
