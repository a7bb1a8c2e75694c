"""The notebooks' results, read from their sources: which files of ``data/derived/`` each notebook writes and reads.

A notebook writes a file of ``data/derived/`` only through :func:`compendium.stable.write_derived`,
called with a literal file name (``write_derived(table, "nb-table2.csv")``): those calls are
its outputs, in the order it makes them, and nothing has to be declared elsewhere. Its inputs
are the files of ``data/derived/`` written by another result whose name appears as a literal
string in its code (``pd.read_csv(DERIVED / "nb-table3.csv")``). A notebook that writes no
file is not a result (nbval reruns it all the same).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from compendium.regenerate.result import Result

__all__ = ["literal_names", "literal_strings", "notebook_code", "notebook_results", "notebook_writes", "owners"]

NOTE = "also re-run by nbval in every test run"


def notebook_code(path: Path) -> str:
    """The code cells of a notebook as one Python text (IPython magics and shell escapes blanked)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    # IPython's magics and shell escapes are not Python
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines())


def literal_names(code: str, function: str, where: str, what: str) -> list[str]:
    """The names ``code`` passes to ``function`` as its second argument or ``name=`` (``write_derived``'s
    file, ``save_figure``'s figure), in order, each once.

    Raises
    ------
    ValueError
        A call whose name is not a literal string (the registry could not tell which ``what`` the code
        makes); the message names the line.
    """
    found: list[str] = []
    for node in sorted((n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Call)),
                       key=lambda n: (n.lineno, n.col_offset)):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name != function:
            continue
        target = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg == "name"), None)
        if not (isinstance(target, ast.Constant) and isinstance(target.value, str)):
            raise ValueError(f"{where}, line {node.lineno}: {function}(...) with a name that is not a literal "
                             f"string; write the name itself, so that compendium.regenerate can tell which notebook "
                             f"makes which {what}")
        if target.value not in found:
            found.append(target.value)
    return found


def notebook_writes(code: str, where: str = "the code") -> list[str]:
    """The files of ``data/derived/`` that ``code`` writes with ``write_derived``, in order.

    Raises
    ------
    ValueError
        A call whose file name is not a literal string (the registry could not tell which file
        it writes); the message names the line.
    """
    return literal_names(code, "write_derived", where, "file of data/derived/")


def literal_strings(code: str) -> set[str]:
    """Every literal string of ``code`` (f-strings' literal parts included), ``data/derived/`` prefix dropped."""
    out = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.add(node.value.removeprefix("data/derived/"))
    return out


def notebook_results(root: Path, others: Sequence[Result]) -> list[Result]:
    """One result per notebook that writes files of ``data/derived/`` (in the book's order).

    Its inputs are the files of ``data/derived/`` it names that another result writes (one of
    ``others`` or another notebook), in the order of the registry (``others`` first, then the
    notebooks).
    """
    paths = sorted((root / "notebooks").glob("*/*.ipynb"))
    code = {p: notebook_code(p) for p in paths}
    writes = {p: notebook_writes(code[p], p.relative_to(root).as_posix()) for p in paths}
    order: dict[str, int] = {}
    for outputs in [r.outputs for r in others] + [writes[p] for p in paths]:
        for o in outputs:
            order.setdefault(o, len(order))
    results = []
    for path in paths:
        if not writes[path]:
            continue
        rel = path.relative_to(root).as_posix()
        named = literal_strings(code[path])
        inputs = sorted((o for o in order if o in named and o not in writes[path]), key=order.__getitem__)
        name = "notebook:" + rel.removeprefix("notebooks/").removesuffix(".ipynb")
        results.append(Result(name, ("jupyter", "execute", rel), tuple(writes[path]), tuple(inputs),
                              note=NOTE, shown_in=(rel.removesuffix(".ipynb"),)))
    return results


def owners(results: Iterable[Result]) -> Mapping[str, str]:
    """Output file -> the name of the result that writes it."""
    return {o: r.name for r in results for o in r.outputs}
