"""Commands quoted in the notebooks, the book's pages and the README are checked against
``compendium.regenerate``'s registry (issue 36, item 6): they were retyped in eighteen places with nothing
checking them.

* ``python scripts/X.py ...`` and ``python benchmarks/X.py ...``: the script is the command of a
  registered result (or stores nothing, :data:`STORES_NOTHING`), every option it quotes is one the
  script defines, and a command that names its output (``--out data/derived/F``) is exactly the
  registered command that writes F.
* ``python -m compendium.regenerate ...``: every option is one of its command line, every name selects
  registered results.
"""

from __future__ import annotations

import json
import re
import shlex

import pytest

from compendium.data import REPO_ROOT
from compendium.regenerate.figures import PREFIX as FIGURE_PREFIX, select_figures
from compendium.regenerate.registry import REGISTRY, select

#: scripts quoted in the book whose runs store nothing in data/derived/ (they print)
STORES_NOTHING = {"benchmarks/first_call.py"}
COMMAND = re.compile(r"python (?:-m compendium\.regenerate|(?:scripts|benchmarks)/[a-z_]+\.py)(?:[ \t]+[^\s`\"<#\\]+)*")


def _texts() -> list[tuple[str, str]]:
    out = [("README.md", (REPO_ROOT / "README.md").read_text(encoding="utf-8"))]
    out += [(str(p.relative_to(REPO_ROOT)), p.read_text(encoding="utf-8")) for p in sorted((REPO_ROOT / "book").glob("*.md"))]
    for nb in sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells)
        # what a cell prints (the command that regenerates a stored result)
        text += "\n".join("".join(o.get("text", "")) for c in cells for o in c.get("outputs", ()) if "text" in o)
        out.append((str(nb.relative_to(REPO_ROOT)), text))
    return out


def _quoted() -> list[tuple[str, list[str]]]:
    found = []
    for where, text in _texts():
        for m in COMMAND.finditer(text):
            found.append((where, shlex.split(m.group(0).replace("'", ""))[1:]))
    return found


QUOTED = _quoted()
text_of = dict(_texts())
#: the options every script that takes compendium.parallel's arguments shares (add_parallel_arguments)
PARALLEL = (REPO_ROOT / "compendium" / "parallel.py").read_text(encoding="utf-8")


def test_the_book_quotes_commands():
    assert len(QUOTED) >= 18
    assert any(cmd[0] == "-m" for _, cmd in QUOTED)


@pytest.mark.parametrize("where, command", QUOTED, ids=[f"{w}: {' '.join(c)}" for w, c in QUOTED])
def test_a_quoted_command_is_a_registered_one(where, command):
    if command[:2] == ["-m", "compendium.regenerate"]:
        cli = (REPO_ROOT / "compendium" / "regenerate" / "cli.py").read_text(encoding="utf-8") + PARALLEL
        args = command[2:]
        for i, a in enumerate(args):
            if a.startswith("--"):
                assert f'"{a}"' in cli, f"{where}: python -m compendium.regenerate has no option {a}"
            elif a == FIGURE_PREFIX:  # figure:<name>, the placeholder of the command's form
                assert "<" in text_of[where], f"{where}: {a!r} names no figure"
            elif a.startswith(FIGURE_PREFIX):
                assert select_figures([a], REPO_ROOT), f"{where}: {a!r} selects no figure of book/figures"
            elif not (i and args[i - 1] in ("--n-jobs", "--backend", "--scheduler", "--local-cluster", "--scratch",
                                            "--at-once", "--out")):
                assert select([a]), f"{where}: {a!r} selects no registered result"
        return
    script, args = command[0], command[1:]
    registered = [r.command for r in REGISTRY if r.command[0] == script]
    assert registered or script in STORES_NOTHING, f"{where}: {script} is the command of no registered result"
    source = (REPO_ROOT / script).read_text(encoding="utf-8") + PARALLEL
    for a in args:
        if a.startswith("--"):
            assert f'"{a}"' in source or f"'{a}'" in source, f"{where}: {script} has no option {a}"
    if "--out" in args:
        out = args[args.index("--out") + 1]
        writers = [r.command for r in REGISTRY if r.command[0] == script and "--out" in r.command
                   and r.command[r.command.index("--out") + 1] == out]
        assert writers, f"{where}: no registered result writes {out} with {script}"
        assert sorted(command) in [sorted(w) for w in writers], (
            f"{where} quotes `python {' '.join(command)}`; the registry runs `python {' '.join(writers[0])}`")


@pytest.mark.parametrize("command", [
    ["benchmarks/nb_speed.py", "--repeats", "5", "--out", "data/derived/benchmark-nb-speed.csv"],  # not the registry's
    ["scripts/coal_grid.py", "--no-such-option"],
    ["scripts/not_a_script.py"],
    ["-m", "compendium.regenerate", "--check", "no-such-result"],
    ["-m", "compendium.regenerate", "--check", "figure:no-such-figure"],
])
def test_a_command_the_registry_does_not_run_fails(command):
    with pytest.raises((AssertionError, SystemExit, FileNotFoundError)):
        test_a_quoted_command_is_a_registered_one("here", command)
