"""Tests of tools/tag_cells.py: which cells it takes off a page, and that its splits are safe."""

from __future__ import annotations

import ast
import importlib.util
import sys

import nbformat
import pytest

from compendium.data import REPO_ROOT


@pytest.fixture(scope="module")
def tag_cells():
    path = REPO_ROOT / "tools" / "tag_cells.py"
    spec = importlib.util.spec_from_file_location("tag_cells", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tag_cells"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("source", [
    "import numpy as np\nfrom lib import plotting",
    'glue("nb-x", 3, display=False)\nglue_number("nb-y", 0.5)',
    'for key, value in {"a": 1}.items():\n    glue(key, value, display=False)',
    'pd.set_option("display.max_colwidth", None)\nwarnings.filterwarnings("ignore")',
    'out = compendium.stable.write_derived(table, "x.csv")\nprint("written:", out)',
    "",
])
def test_set_up_cells_are_removed(tag_cells, source):
    assert tag_cells.classify(source) == "remove-input"


@pytest.mark.parametrize("source, expected", [
    ('fig, ax = plt.subplots()\nax.plot([1, 2])\nplotting.save_figure(fig, "nb-x", description="A line.")', "hide-input"),
    ("x = compute()\nprint(x)", None),
    ('print(f"the result: {x}")', None),
    ("%time x = 1", None),
])
def test_figures_are_folded_and_computation_shown(tag_cells, source, expected):
    assert tag_cells.classify(source) == expected


def test_split_moves_imports_before_and_glue_after(tag_cells):
    source = ("import numpy as np\n"
              "x = np.arange(3)\n"
              'glue("nb-x", int(x.sum()), display=False)\n'
              "print(x)")
    before, middle, after = tag_cells.split(source)
    assert before == "import numpy as np"
    assert middle == "x = np.arange(3)\nprint(x)"
    assert after == 'glue("nb-x", int(x.sum()), display=False)'


@pytest.mark.parametrize("later", [
    "x = x + 1",                 # rebinds what the glue read
    "x.append(4)",               # mutates it
    'x["a"] = 1',                # item store
    "x.sort_values(inplace=True)",
])
def test_split_keeps_a_glue_whose_names_change_later(tag_cells, later):
    source = f'x = [1, 2, 3]\nglue("nb-x", len(x), display=False)\n{later}\nprint(x)'
    assert tag_cells.split(source) is None


def test_split_never_makes_an_expression_the_displayed_value(tag_cells):
    # the expression in the middle of the cell displayed nothing; moving the glue after it would
    # make it the cell's displayed value
    source = 'x = 1\nax.set_title("t")\nglue("nb-x", x, display=False)'
    assert tag_cells.split(source) is None


def test_split_leaves_claims_cells_alone(tag_cells):
    source = 'import numpy as np\nclaims = table()\nglue("nb-n", len(claims), display=False)\nclaims'
    assert tag_cells.split(source) is None


def test_a_split_keeps_every_line_and_the_same_statements(tag_cells):
    source = ("import pandas as pd\n\n"
              "# the table\n"
              "t = pd.DataFrame({'a': [1, 2]})\n"
              "total = int(t['a'].sum())  # a comment\n"
              "glue('nb-total', total, display=False)\n\n"
              "t")
    parts = tag_cells.split(source)
    assert parts is not None
    joined = "\n".join(parts)
    assert sorted(line for line in source.splitlines() if line.strip()) == \
        sorted(line for line in joined.splitlines() if line.strip())
    assert ast.dump(ast.parse(parts[1]).body[-1]) == ast.dump(ast.parse(source).body[-1])


def test_tagging_keeps_tags_set_by_hand_and_reports_long_cells(tag_cells, tmp_path):
    nb = nbformat.v4.new_notebook()
    shown_on_purpose = nbformat.v4.new_code_cell("import numpy as np")
    shown_on_purpose.metadata["tags"] = ["show-input"]
    long_cell = nbformat.v4.new_code_cell("\n".join(f"x{i} = {i}" for i in range(tag_cells.MAX_SHOWN_LINES + 1)))
    nb.cells = [shown_on_purpose, nbformat.v4.new_code_cell("import pandas as pd"), long_cell]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    changes, long = tag_cells.process(path, do_split=False, write=True)
    again = nbformat.read(path, as_version=4)
    assert again.cells[0].metadata["tags"] == ["show-input"]
    assert again.cells[1].metadata["tags"] == ["remove-input"]
    assert changes == ["cell 1: remove-input"] and long == [f"cell 2: {tag_cells.MAX_SHOWN_LINES + 1} lines shown"]
    assert tag_cells.process(path, do_split=False, write=True)[0] == []      # idempotent


def test_format_shortens_long_shown_lines_and_leaves_the_rest(tag_cells, tmp_path):
    long = ("result = sx.perturb(sx.power(alpha, first_composition), sx.power(beta, second_composition))\n"
            "print(result)")
    formatted = tag_cells.format_source(long)
    assert max(len(line) for line in formatted.splitlines()) <= tag_cells.LINE_LENGTH
    assert ast.dump(ast.parse(formatted)) == ast.dump(ast.parse(long))   # the same program
    assert tag_cells.format_source("%time x = 1") is None                  # magics are left alone
    nb = nbformat.v4.new_notebook()
    folded = nbformat.v4.new_code_cell(long)
    folded.metadata["tags"] = ["hide-input"]
    short = "x = sx.closure([1, 2])"
    nb.cells = [nbformat.v4.new_code_cell(long), folded, nbformat.v4.new_code_cell(short)]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    changes, left = tag_cells.process(path, do_split=False, write=True, do_format=True)
    assert changes == ["cell 0: formatted"] and left == []
    after = nbformat.read(path, as_version=4).cells
    assert after[0].source == formatted and after[1].source == long and after[2].source == short
    # --check reports a shown line over the limit
    nb.cells = [nbformat.v4.new_code_cell(long)]
    nbformat.write(nb, path)
    _, left = tag_cells.process(path, do_split=False, write=False)
    assert left and "characters shown" in left[0]


def test_plumbing_moves_glue_and_writes_out_of_a_shown_cell(tag_cells):
    source = ("table = build()\n"
              'compendium.stable.write_derived(table, "x.csv")\n'
              'print("written data/derived/x.csv")\n'
              'glue("nb-n", len(table), display=False)\n'
              "table")
    kept, moved = tag_cells.move_plumbing(source)
    assert kept == "table = build()\ntable"
    assert moved == 'compendium.stable.write_derived(table, "x.csv")\nglue("nb-n", len(table), display=False)'
    # a write that ends the removed cell displays nothing (not the path it returns)
    assert tag_cells.move_plumbing('t = f()\nwrite_derived(t, "x.csv")\nt')[1] == '_ = write_derived(t, "x.csv")'
    long = 't = f()\n# the table\nwrite_derived(\n    t, "x.csv"\n)\nt'
    assert tag_cells.move_plumbing(long)[1] == '# the table\n_ = write_derived(\n    t, "x.csv"\n)'
    # a write whose table changes later stays (split by hand)
    assert tag_cells.move_plumbing('write_derived(t, "x.csv")\nt["a"] = 1\nt') is None
    assert tag_cells.move_plumbing("x = 1\nprint(x)") is None
