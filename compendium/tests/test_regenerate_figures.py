"""Every figure has one command that regenerates it and compares it byte for byte (issue 39).

``compendium.regenerate.figures`` reads from the notebooks' sources which notebook saves which figure of
``book/figures``; ``python -m compendium.regenerate --check figure:NAME`` reruns that notebook in a
scratch copy and compares the PNG and the SVG with the stored ones. Every stored figure must have
a notebook that saves it (and every figure a notebook saves must be stored), and the Figures page
of the built book must print the command under each. One command is run for real (a cheap
notebook with two figures): identical; against a stored file with one byte changed, the same check
must say which file differs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compendium.data import REPO_ROOT
from compendium.regenerate import figures
from compendium.regenerate.runner import environment, make_scratch

CHEAP = "notebooks/02-shapley-compositions/01-aitchison-geometry.ipynb"   # about 10 s, two figures


def test_every_stored_figure_has_a_notebook_and_a_command(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = figures.stored_figures(REPO_ROOT)
    owners = figures.figure_notebooks(REPO_ROOT)
    # each command resolved below reads these owners, scanned once (a scan reads every notebook)
    monkeypatch.setattr(figures, "figure_notebooks", lambda root: dict(owners))
    assert len(stored) > 40
    assert sorted(set(stored) - set(owners)) == [], "figures of book/figures that no notebook saves"
    assert sorted(set(owners) - set(stored)) == [], "figures a notebook saves that are not stored"
    for name in stored:
        assert (REPO_ROOT / figures.FIGURES / f"{name}.png").is_file() and \
            (REPO_ROOT / figures.FIGURES / f"{name}.svg").is_file(), f"{name}: PNG and SVG are both stored"
        command = figures.command(name)
        assert command == f"python -m compendium.regenerate --check figure:{name}"
        # the command's argument is one compendium.regenerate resolves to the notebook that saves the figure
        chosen = figures.select_figures([command.rsplit(" ", 1)[1]], REPO_ROOT)
        assert chosen == {owners[name]: [name]}
        assert (REPO_ROOT / owners[name]).is_file()


def test_the_figures_page_prints_each_figures_command() -> None:
    page = REPO_ROOT / "_build" / "html" / "book" / "figures.html"
    if not page.is_file():
        pytest.skip("the book is not built (run the README's first command); CI always builds it first")
    text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
    missing = [n for n in figures.stored_figures(REPO_ROOT) if figures.command(n) not in text]
    assert missing == [], f"figures whose regeneration command the Figures page does not print: {missing}"


def test_figure_names_are_read_from_the_code() -> None:
    code = ('save_figure(fig, "a-one", description="x")\nplotting.save_figure(fig2, name="b-two", description="y")\n'
            'save_figure(fig, "a-one", description="again")\n')
    assert figures.notebook_figures(code) == ["a-one", "b-two"]
    with pytest.raises(ValueError, match="line 1.*not a literal"):
        figures.notebook_figures('save_figure(fig, f"c-{k}", description="z")')
    with pytest.raises(SystemExit, match="no figure"):
        figures.select_figures(["figure:no-such-figure"], REPO_ROOT)
    assert figures.select_figures(["figure:comp-helmert-*"], REPO_ROOT) == {CHEAP: ["comp-helmert-tree"]}


def test_check_a_figure_identical_and_a_changed_file_differs(tmp_path: Path) -> None:
    names = figures.figure_notebooks(REPO_ROOT)
    two = [n for n, nb in names.items() if nb == CHEAP]
    assert len(two) == 2
    # the command itself, as the Figures page prints it
    run = subprocess.run([sys.executable, "-m", "compendium.regenerate", "--check", f"figure:{two[0]}", f"figure:{two[1]}",
                          "--scratch", str(tmp_path / "scratch")], cwd=REPO_ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "2 figures, 1 notebooks; 2 identical to the stored files, 0 not" in run.stdout
    # a stored PNG with one byte changed: the check says which file differs, and the other is identical
    root = tmp_path / "stored"
    shutil.copytree(REPO_ROOT / figures.FIGURES, root / figures.FIGURES)
    png = root / figures.FIGURES / f"{two[0]}.png"
    payload = bytearray(png.read_bytes())
    payload[-20] ^= 1
    png.write_bytes(bytes(payload))
    repo = make_scratch(REPO_ROOT, tmp_path / "again")
    rows = figures.check_figures(CHEAP, two, root, repo, tmp_path / "log.txt", environment(repo, True))
    status = {r["name"]: (r["status"], r["detail"]) for r in rows}
    assert status[f"figure:{two[0]}"] == ("differs", f"{two[0]}.png differs")
    assert status[f"figure:{two[1]}"] == ("identical", "")
