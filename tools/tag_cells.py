"""Tag the notebooks' set-up cells so that a page shows its findings, not its machinery.

    python tools/tag_cells.py                 # tag every notebook, report shown cells over 40 lines
    python tools/tag_cells.py --check         # change nothing; exit 1 if a cell would be tagged or is too long
    python tools/tag_cells.py --split NB ...  # also split the set-up statements out of mixed cells
    python tools/tag_cells.py notebooks/05-coalitional-explanations/*.ipynb
    python tools/tag_cells.py --format NB ... # also format the shown cells with a line over 79 characters
    python tools/tag_cells.py --plumbing NB . # also move glue and derived writes out of shown cells

Jupyter Book reads a code cell's tags (``remove-input``: the page shows the output only;
``hide-input``: the code is folded behind a click; nbval still runs every cell). This script
gives a tag to every code cell that has none and whose code a reader does not need to read:

* ``remove-input`` to a cell whose every statement only sets up: imports, warning filters,
  ``glue``/``glue_number`` calls (and loops of them), pandas and numpy display options,
  matplotlib ``rcParams``, ``write_derived`` and ``save_figure`` calls, ``plt.show()``, and
  ``print`` of a "written: ..." line;
* ``hide-input`` to a cell that draws and saves a figure (it calls ``save_figure``): the page
  shows the figure, and the plotting code one click away.

A cell that already has one of ``remove-input``, ``hide-input``, ``remove-cell``, ``hide-cell``
or ``show-input`` (the author's choice: shown on purpose) is left as it is, so the script can be
re-run after merges and keeps every decision taken by hand.

``--split`` (run on chosen notebooks, then read the diff) also moves, out of a cell that mixes
set-up with computation, its leading imports and warning filters into a new cell before it,
and its top-level ``glue`` statements into a new cell after it, when no later statement of the
cell rebinds or mutates a name the glue reads. Cells that build a claims table or compute a
threshold range (another author's) are not split, only tagged.

``--plumbing`` moves, out of every shown cell, its top-level glue calls and derived-file writes
into a new ``remove-input`` cell right after it, and drops its "written …" prints, when no later
statement of the cell changes what they read (otherwise the cell is listed, to split by hand).

``--format`` formats every cell shown on a page (not removed, not folded) that has a line over
``LINE_LENGTH`` characters with ruff (pinned in ``requirements.txt``) at that line length: 79
characters, of the 88 the book's code column shows at 1400 px (on a phone, about 39, long lines
wrap). Cells whose lines all fit are left as they are (the tool can be re-run after merges); a
cell that is not plain Python (IPython magics) is left alone and listed.

Finally it lists every code cell still shown on a page that is longer than ``MAX_SHOWN_LINES``
(``compendium/tests/test_book.py`` fails on them): split it by hand, or move its logic into ``lib``, and
every shown line still over ``LINE_LENGTH`` (a long string: split it in two literals).

A page's code cells, by their tags (the convention of issue 38):

* the **import cell** at the top, shown and tagged ``show-input``: every name the page's shown or
  folded code uses is imported there (``import numpy as np``, ``from lib import simplex as sx``,
  ``from compendium.page import check``), so that no alias on the page is undefined;
* **set-up** (options, styles, warning filters, imports only set-up uses) ``remove-input``; set-up
  of data and models a reader may want to see (a split, a fitted model) ``hide-input``, folded;
* the method's calls and the reader's checks, shown (checks through ``compendium.page.check``);
* **publishing plumbing** (``compendium.page.glue``, ``compendium.stable.glue_number``, ``write_derived``) in a
  ``remove-input`` cell after the cell that computes what it publishes;
* a **figure** cell ``hide-input``: the figure shown, its code (with ``save_figure``) folded.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
MAX_SHOWN_LINES = 40
#: the longest line of shown code, in characters (the desk column shows 88 at 1400 px)
LINE_LENGTH = 79
VISIBILITY = ("remove-input", "hide-input", "remove-cell", "hide-cell", "show-input")

SETUP_CALLS = {"glue", "glue_number", "filterwarnings", "simplefilter", "set_option", "set_printoptions",
               "write_derived", "save_figure", "show", "close", "seterr"}
GLUE_CALLS = {"glue", "glue_number"}
MUTATORS = {"append", "extend", "update", "pop", "insert", "remove", "clear", "sort", "setdefault",
            "add", "discard", "popitem", "reverse"}
# cells of another author (the claims tables, the threshold ranges): tagged, never split
NOT_SPLIT = re.compile(r"claims|\bholds\b|compendium\.report|threshold|tolerance")


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _call_name(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return _dotted(stmt.value.func).rsplit(".", 1)[-1]
    return ""


def is_glue(stmt: ast.stmt) -> bool:
    """A ``glue``/``glue_number`` call, a loop of them, or the import of either."""
    if _call_name(stmt) in GLUE_CALLS:
        return True
    if isinstance(stmt, ast.For) and not stmt.orelse:
        return all(is_glue(s) for s in stmt.body)
    if isinstance(stmt, ast.ImportFrom):
        return all(a.name in GLUE_CALLS for a in stmt.names)
    return False


def is_setup(stmt: ast.stmt) -> bool:
    """A statement that only sets up: it computes nothing a reader of the page needs to see."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    if is_glue(stmt):
        return True
    name = _call_name(stmt)
    if name in SETUP_CALLS:
        return True
    if name == "print":
        args = stmt.value.args  # type: ignore[attr-defined]
        first = args[0] if args else None
        text = ""
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            text = first.value
        elif isinstance(first, ast.JoinedStr) and first.values and isinstance(first.values[0], ast.Constant):
            text = str(first.values[0].value)
        return text.lower().startswith(("written", "wrote"))
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = _dotted(stmt.value.func)
        if func.endswith("rcParams.update"):
            return True
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and \
            _dotted(stmt.value.func).rsplit(".", 1)[-1] in {"write_derived", "save_figure"}:
        return True
    if isinstance(stmt, ast.Assign) and all(
            isinstance(t, ast.Subscript) and _dotted(t.value).endswith("rcParams") for t in stmt.targets):
        return True
    if isinstance(stmt, ast.For) and not stmt.orelse:
        return all(is_setup(s) for s in stmt.body)
    return False


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:          # IPython magics: treated as computation
        return None


def classify(source: str) -> str | None:
    """``"remove-input"``, ``"hide-input"`` or ``None`` (shown) for a code cell's source."""
    if not source.strip():
        return "remove-input"
    tree = _parse(source)
    if tree is None:
        return None
    if "NBVAL_IGNORE_OUTPUT" in source:
        return None if not all(is_setup(s) for s in tree.body) else "remove-input"
    if all(is_setup(s) for s in tree.body):
        return "remove-input"
    if any(isinstance(n, ast.Call) and _dotted(n.func).rsplit(".", 1)[-1] == "save_figure" for n in ast.walk(tree)):
        return "hide-input"
    return None


def _spans(source: str, tree: ast.Module) -> list[tuple[int, int]]:
    """Line ranges ``[start, end)`` (0-based) of each top-level statement: from the end of the
    statement before (so the comments and blank lines above it go with it) to its last line; the
    last one runs to the end of the cell."""
    spans = []
    previous_end = 0
    for stmt in tree.body:
        end = stmt.end_lineno or stmt.lineno
        spans.append((previous_end, end))
        previous_end = end
    if spans:
        spans[-1] = (spans[-1][0], len(source.splitlines()))
    return spans


def _comprehension_names(stmt: ast.stmt) -> set[str]:
    """Names bound by the comprehensions of a statement (local to them)."""
    return {n.id for c in ast.walk(stmt) if isinstance(c, ast.comprehension)
            for n in ast.walk(c.target) if isinstance(n, ast.Name)}


def _names_read(stmt: ast.stmt) -> set[str]:
    loads = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loads - _comprehension_names(stmt)


def _root(node: ast.AST) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _names_changed(stmt: ast.stmt) -> set[str]:
    """Names a statement binds, or may mutate (item/attribute stores, mutating methods, inplace=)."""
    changed = set()
    for n in ast.walk(stmt):
        if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            changed.add(_root(n))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            if n.func.attr in MUTATORS or any(k.arg == "inplace" for k in n.keywords):
                changed.add(_root(n.func.value))
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            changed.add(n.name)
    return changed - _comprehension_names(stmt)


def split(source: str) -> tuple[str, str, str] | None:
    """``(before, middle, after)``: the cell's leading set-up statements, the rest, and its
    movable glue statements; ``None`` when there is nothing to split or it is not safe."""
    tree = _parse(source)
    if tree is None or NOT_SPLIT.search(source) or len(tree.body) < 2:
        return None
    if all(is_setup(s) for s in tree.body) or not any(is_setup(s) for s in tree.body):
        return None
    lines = source.splitlines()
    spans = _spans(source, tree)
    body = tree.body
    # imports and warning filters move before the cell (an import only if nothing above it in
    # the cell reads or binds a name it binds)
    lead = []
    for k, stmt in enumerate(body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            bound = {(a.asname or a.name).split(".")[0] for a in stmt.names}
            if not any(bound & (_names_read(s) | _names_changed(s)) for s in body[:k]):
                lead.append(k)
        elif k == len(lead) and is_setup(stmt) and not is_glue(stmt):
            lead.append(k)
    rest = [k for k in range(len(body)) if k not in lead]
    moved: list[int] = []
    for k in rest:
        if not is_glue(body[k]):
            continue
        later = [body[j] for j in rest if j > k and j not in moved]
        if any(_names_read(body[k]) & _names_changed(s) for s in later):
            continue
        moved.append(k)
    kept = [k for k in rest if k not in moved]
    # a bare expression that was not last must not become the cell's displayed value
    if kept and isinstance(body[kept[-1]], ast.Expr) and _call_name(body[kept[-1]]) != "print" \
            and kept[-1] != len(body) - 1:
        moved = [k for k in moved if k < kept[-1]]
        kept = [k for k in rest if k not in moved]
    if not kept or not (lead or moved):
        return None

    def text(indices: list[int]) -> str:
        return "\n".join("\n".join(lines[spans[k][0]:spans[k][1]]) for k in indices).strip("\n")

    return text(lead), text(kept), text(moved)


def long_lines(source: str, limit: int = LINE_LENGTH) -> list[str]:
    """The lines of ``source`` longer than ``limit`` characters."""
    return [line for line in source.splitlines() if len(line) > limit]


def ruff() -> str:
    """The ruff executable beside this Python (the book's environment), or on PATH."""
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if found is None:
        raise RuntimeError("ruff is not installed: pip install -r requirements.txt")
    return found


def format_source(source: str, limit: int = LINE_LENGTH) -> str | None:
    """``source`` formatted by ruff at line length ``limit`` (no trailing newline, as a cell keeps
    it), or ``None`` if it is not plain Python (IPython magics, a syntax error)."""
    if _parse(source) is None:
        return None
    done = subprocess.run([ruff(), "format", "--isolated", f"--line-length={limit}", "--stdin-filename", "cell.py", "-"],
                          input=source, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return None
    return done.stdout.rstrip("\n")


PLUMBING_CALLS = GLUE_CALLS | {"write_derived"}


def is_plumbing(stmt: ast.stmt) -> bool:
    """A glue call or a derived-file write (a call, an assignment of one, a loop of them)."""
    if _call_name(stmt) in PLUMBING_CALLS:
        return True
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and \
            _dotted(stmt.value.func).rsplit(".", 1)[-1] in PLUMBING_CALLS:
        return True
    if isinstance(stmt, ast.For) and not stmt.orelse:
        return all(is_plumbing(s) or _is_written(s) for s in stmt.body)
    return False


def _is_written(stmt: ast.stmt) -> bool:
    """A ``print`` of a "written data/derived/…" line."""
    return _call_name(stmt) == "print" and is_setup(stmt)


def move_plumbing(source: str) -> tuple[str, str] | None:
    """``(kept, moved)``: the cell without its top-level glue calls and derived-file writes (and
    without its "written …" prints), and those calls, for a removed cell after it; ``None`` when
    there is nothing to move, or when a statement after one of them changes a name it reads (then
    the cell is split by hand)."""
    tree = _parse(source)
    if tree is None or len(tree.body) < 2:
        return None
    body = tree.body
    moved = [k for k, stmt in enumerate(body) if is_plumbing(stmt)]
    dropped = [k for k, stmt in enumerate(body) if _is_written(stmt)]
    if not moved:
        return None
    for k in moved:
        if any(_names_read(body[k]) & _names_changed(body[j]) for j in range(k + 1, len(body)) if j not in moved):
            return None
    kept = [k for k in range(len(body)) if k not in moved and k not in dropped]
    if not kept:
        return None
    # a bare expression that was not last must not become the cell's displayed value
    last = kept[-1]
    if isinstance(body[last], ast.Expr) and _call_name(body[last]) not in ("print", "") \
            and last != len(body) - 1:
        return None
    lines = source.splitlines()
    spans = _spans(source, tree)

    def text(indices: list[int]) -> str:
        return "\n".join("\n".join(lines[spans[k][0]:spans[k][1]]) for k in indices).strip("\n")

    moved_text = text(moved)
    # a removed cell shows its output: a write ending the cell must not display the path it
    # returns (an assignment displays nothing, under every runner; a trailing ';' does not)
    last = body[moved[-1]]
    if isinstance(last, ast.Expr) and _call_name(last) == "write_derived":
        start = spans[moved[-1]][0]
        block = moved_text.splitlines()
        offset = len(block) - (spans[moved[-1]][1] - start)
        for j in range(max(offset, 0), len(block)):
            if block[j].strip() and not block[j].lstrip().startswith("#"):
                block[j] = block[j][:last.col_offset] + "_ = " + block[j][last.col_offset:]
                break
        moved_text = "\n".join(block)
    return text(kept), moved_text


def _tag(cell: nbformat.NotebookNode, tag: str) -> None:
    cell.metadata.setdefault("tags", [])
    cell.metadata["tags"].append(tag)


def shown(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and not set(cell.metadata.get("tags", [])) & set(VISIBILITY[:4])


def process(path: Path, *, do_split: bool, write: bool, do_format: bool = False,
            do_plumbing: bool = False) -> tuple[list[str], list[str]]:
    """Changes made (or needed) to the notebook, and its shown cells over the limits."""
    nb = nbformat.read(path, as_version=4)
    changes: list[str] = []
    cells = []
    for cell in nb.cells:
        if do_plumbing and cell.cell_type == "code" and shown(cell):
            parts = move_plumbing(cell.source)
            if parts is not None:
                cell.source, moved = parts
                cells.append(cell)
                new = nbformat.v4.new_code_cell(moved)
                _tag(new, "remove-input")
                cells.append(new)
                changes.append(f"cell {len(cells) - 2}: its glue and derived-file writes moved to a removed cell")
                continue
        if do_split and cell.cell_type == "code" and shown(cell) and not cell.metadata.get("tags"):
            parts = split(cell.source)
            if parts is not None:
                before, middle, after = parts
                if before:
                    new = nbformat.v4.new_code_cell(before)
                    _tag(new, "remove-input")
                    cells.append(new)
                cell.source = middle
                cells.append(cell)
                if after:
                    new = nbformat.v4.new_code_cell(after)
                    _tag(new, "remove-input")
                    cells.append(new)
                changes.append(f"split cell {len(cells) - 1 - bool(after)}")
                continue
        cells.append(cell)
    nb.cells = cells
    long = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        if not set(tags) & set(VISIBILITY):
            tag = classify(cell.source)
            if tag is not None:
                _tag(cell, tag)
                changes.append(f"cell {i}: {tag}")
        if do_format and shown(cell) and long_lines(cell.source):
            formatted = format_source(cell.source)
            if formatted is None:
                long.append(f"cell {i}: not plain Python, not formatted")
            elif formatted != cell.source:
                cell.source = formatted
                changes.append(f"cell {i}: formatted")
        n = len(cell.source.splitlines())
        if shown(cell) and n > MAX_SHOWN_LINES:
            long.append(f"cell {i}: {n} lines shown")
        if shown(cell) and _parse(cell.source) is not None and any(
                is_plumbing(s) for s in ast.walk(_parse(cell.source)) if isinstance(s, ast.stmt)):
            long.append(f"cell {i}: shown, and glues or writes a derived file (--plumbing, or by hand)")
        if shown(cell):
            for line in long_lines(cell.source):
                long.append(f"cell {i}: a line of {len(line)} characters shown: {line.strip()[:60]}")
    if write and changes:
        nbformat.write(nb, path)
    return changes, long


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebooks/*/*.ipynb")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 on any finding")
    parser.add_argument("--split", action="store_true", help="also split set-up statements out of mixed cells")
    parser.add_argument("--plumbing", action="store_true",
                        help="also move glue calls and derived-file writes out of shown cells, into removed cells after them")
    parser.add_argument("--format", action="store_true",
                        help=f"also format shown cells with a line over {LINE_LENGTH} characters (ruff)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*/*.ipynb"))
    failed = False
    for path in paths:
        changes, long = process(path, do_split=args.split and not args.check, write=not args.check,
                                do_format=args.format and not args.check,
                                do_plumbing=args.plumbing and not args.check)
        name = path.resolve().relative_to(ROOT).as_posix()
        for line in changes:
            print(f"{name}: {'would tag ' if args.check else ''}{line}")
        for line in long:
            print(f"{name}: {line} (split it, move its logic into lib, or format it: --format)")
        failed |= bool(long) or (args.check and bool(changes))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
