"""The book's prose states no number about our results by hand, and no verdict is typed.

``CONTRIBUTING.md`` §1–2: every number about our results in a markdown cell or page is pasted
from code (myst-nb ``{glue…}``), every number a paper publishes is marked ``{paper}``, and no
notebook types a verdict (a ``holds`` list, a status string) or compares a result with a typed
list of verdicts. These tests read the sources: every markdown cell, every figure caption, every
page of the book, every code cell.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from compendium.tests.helpers import chapters
from compendium.data import REPO_ROOT
from compendium.report import STATUSES

#: Chapters whose notebooks and landing pages are still being migrated to these rules.
#: The set only shrinks; it is empty when every chapter follows them.
PENDING_CHAPTERS: set[str] = set()
#: Chapters (and other pages of book/) whose bare integers are still to be sorted into glued
#: results, ``{setup}`` and ``{paper}`` numbers; their integers are not checked yet. Only shrinks.
PENDING_INTEGERS: set[str] = set()
#: Pages of book/ that belong to a chapter (their landing page).
LANDING = {landing.split("/")[-1] + ".md": folder for folder, landing in chapters().items()}

# Directives whose body is prose (kept); every other fenced block is code, math or a listing.
PROSE_DIRECTIVES = {
    "admonition", "note", "tip", "warning", "important", "caution", "attention", "danger", "error",
    "hint", "seealso", "dropdown", "topic", "sidebar", "margin", "epigraph", "chapter-results",
}
# A number right after one of these words names a section, an equation, a version or a figure.
NAMING_WORDS = {
    "§", "section", "sections", "sec", "definition", "def", "eq", "eqs", "equation", "equations", "theorem",
    "proposition", "prop", "lemma", "corollary", "remark", "example", "figure", "figures", "fig", "figs",
    "table", "tables", "algorithm", "algorithms", "appendix", "step", "steps", "chapter", "python", "version",
    "versions", "v", "scikit-learn", "sklearn", "numpy", "pandas", "scipy", "shap", "khiops", "acv",
    "acv-exp", "pyagrum", "shapiq", "mathjax", "sphinx", "myst-nb", "nbval", "matplotlib", "openblas",
    "lightgbm", "xgboost", "chromium", "cff", "jupyter", "jupyter-book", "ipykernel", "hypothesis",
    "pytest", "playwright", "keel", "uci", "arxiv", "doi", "isbn", "check", "checks", "statement",
    "statements", "part", "parts", "item", "class", "classes", "page", "pages", "p", "pp", "year", "issue",
    "footnote", "footnotes", "windows", "notebook", "notebooks", "reference", "references", "ref", "rank", "test", "balance", "balances",
}
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,}|:{3,})\s*(?:\{(?P<name>[\w:-]+)\})?.*$")
_ROLE = re.compile(r"\{[\w:.-]+\}`[^`]*`")
_CODE = re.compile(r"`[^`]*`")
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<!\\)\$(?:[^$\n]|\n(?![ \t]*\n))+?(?<!\\)\$")  # within a paragraph
_TARGET = re.compile(r"^\s*\([\w.:-]+\)=\s*$", re.M)
_LINK_URL = re.compile(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+")
_HTML = re.compile(r"<!--.*?-->|<[^>\n]+>", re.S)
_OPTION = re.compile(r"^\s*:[\w-]+:.*$", re.M)
_NUMBER = re.compile(
    r"(?P<num>(?<![\w.\-^_/])[-−+]?\d+(?:[.,]\d+)*(?:\.\d+)?)"
    r"(?P<unit>\s?(?:%|×|x(?=[\s,.;:)]|$)|ms\b|s\b|sec\b|seconds?\b|min\b|minutes?\b|h\b|hours?\b))?"
)
_OF = re.compile(r"\b\d+\s+(?:of|out of)\s+\d+\b")


def strip_non_prose(markdown: str) -> str:
    """The prose of a MyST markdown text: code, math, roles, labels, URLs and options removed."""
    out: list[str] = []
    stack: list[tuple[str, bool]] = []  # (fence, keep body)
    for line in markdown.splitlines():
        match = _FENCE.match(line.strip())
        if match:
            fence = match["fence"]
            if stack and fence[0] == stack[-1][0][0] and len(fence) >= len(stack[-1][0]) and not match["name"] \
                    and line.strip() == fence:
                stack.pop()
                continue
            keep = bool(match["name"]) and match["name"] in PROSE_DIRECTIVES and (not stack or stack[-1][1])
            stack.append((fence, keep))
            continue
        if stack and not stack[-1][1]:
            continue
        out.append(line)
    text = "\n".join(out)
    for pattern in (_DISPLAY_MATH, _ROLE, _CODE, _INLINE_MATH, _TARGET, _LINK_URL, _HTML, _OPTION):
        text = pattern.sub(" ", text)
    return text


_LIST_ITEM = re.compile(r"\(?[A-Z]?\d+(?:\.\d+)*[a-z]?\)?\s*(?:,\s*|\s+and\s+|\s+or\s+|–|-|\s+to\s+)$")


def _before_list(prefix: str) -> str:
    """The text before a list or range of names: "Tables 1 and " → "Tables ", "Eqs. (L13)–" → "Eqs. "."""
    while match := _LIST_ITEM.search(prefix):
        prefix = prefix[: match.start()]
    return prefix


def _is_year(text: str, start: int, end: int) -> bool:
    """A year in a citation: "Lemaire et al. (2024)", "et al., 2024", "ADBIS 2020"."""
    number = text[start:end]
    if not (len(number) == 4 and number.isdigit() and 1900 <= int(number) <= 2099):
        return False
    before = text[max(0, start - 12) : start]
    return bool(re.search(r"(?:\bal\.,?\s*\(?|\b[A-Z]{2,}\s)$", before)) or (
        before.endswith("(") and text[end : end + 1] == ")")


def _is_name(text: str, start: int, end: int) -> bool:
    """An integer that names something rather than counts it: a list item or a heading's number
    ("1. ", "## 2. Results"), a table row's label (its first cell, "| 3 | …"), an ordinal ("3rd"), a label with a letter ("1b", "2D"), the base
    of a power ("2^11"), a year in a citation."""
    line_start = text.rfind("\n", 0, start) + 1
    head = text[line_start:start]
    if re.fullmatch(r"\s*(?:#+\s*)?", head) and re.match(r"[.)](?:\s|$)", text[end:]):
        return True
    if re.fullmatch(r"\s*\|\s*", head) and re.match(r"\s*\|", text[end:]):
        return True  # the label of a table row (its first cell)
    return bool(re.match(r"[a-zA-Z]|\^", text[end : end + 1])) or _is_year(text, start, end)


def typed_numbers(markdown: str, *, integers: bool = True) -> list[str]:
    """Numbers in prose that must be glued (ours) or marked ``{paper}`` (the paper's) or ``{setup}``.

    Every number, integers included: decimals, percentages, ratios (``3×``), durations, "N of M"
    counts and bare integers (a count that comes out of a run is a result). A number right after
    a naming word (``§3.2``, ``Eq. 3.1``, ``Python 3.11``, ``Table 2``, ``class 0``), with two
    dots (``1.2.3``), or naming a list item, a heading, an ordinal, a label (``1b``), the base of
    a power (``2^11``) or a year in a citation (``et al. (2024)``) is a name, not a number. A
    number that defines the set-up (a data-set size, a seed, a budget as chosen) is marked
    ``{setup}`14```.
    """
    text = strip_non_prose(markdown)
    found = []
    counts = [(m.start(), m.end()) for m in _OF.finditer(text)]
    for match in _NUMBER.finditer(text):
        number, unit = match["num"], match["unit"]
        if any(a <= match.start() < b for a, b in counts):
            continue  # inside an "N of M" count, reported whole below
        if number.count(".") >= 2:
            continue  # a version or a section number
        before = _before_list(text[max(0, match.start() - 80) : match.start()]).rstrip("[(").split()
        word = before[-1].strip("(,;:*_").lower().rstrip(".") if before else ""
        if word in NAMING_WORDS or text[max(0, match.start() - 1) : match.start()] == "§":
            continue
        if not unit and "." not in number and (
                not integers or _is_name(text, match.start(), match.end())):
            continue
        found.append((number + (unit or "")).strip())
    found += _OF.findall(text)
    return found


def _chapter_of(path: Path) -> str:
    if path.parent.parent.name == "notebooks":
        return path.parent.name
    return LANDING.get(path.name, "")


def _notebook_cells() -> list[tuple[Path, int, dict]]:
    """(notebook, cell number, cell) for every cell of every chapter notebook, in order."""
    return [(path, number, cell)
            for path in sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb"))
            for number, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"])]


def _markdown_sources() -> list[tuple[str, Path, str]]:
    sources = []
    for path, number, cell in _notebook_cells():
        if cell["cell_type"] == "markdown":
            sources.append((f"{path.relative_to(REPO_ROOT)} cell {number}", path, "".join(cell["source"])))
        caption = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption")
        if caption:
            sources.append((f"{path.relative_to(REPO_ROOT)} cell {number} caption", path, str(caption)))
    for path in sorted((REPO_ROOT / "book").glob("*.md")):
        sources.append((str(path.relative_to(REPO_ROOT)), path, path.read_text(encoding="utf-8")))
    return sources


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The error is 0.25 on iris.", ["0.25"]),
        ("It takes 23 minutes, 3× faster, 26.1 % of rows; 9 of 10 pass.", ["23 minutes", "3×", "26.1 %", "9 of 10"]),
        ("As in §3.2 and Eq. 3.1, with Python 3.11 and scikit-learn 1.3.2.", []),
        ("Ours is {glue:text}`nb-x:.3f`, the paper's {paper}`0.837`.", []),
        ("In math $\\pi = 0.9$ and $$x = 0.5$$ and `code 0.1`, $2 + 2048 =\n2088$ coalitions.", []),
        ("(nb-label)=\n## Ten data sets, {setup}`1000` rows, year 2023", []),
        ("## Ten data sets, 1000 rows", ["1000"]),
        ("Our model also has 14 variables; it keeps 10 of TwoNorm's 20.", ["14", "10", "20"]),
        ("all 14 selected variables, on 48,842 rows", ["14", "48,842"]),
        ("with {setup}`200` background rows (seed {setup}`0`) it selects {glue:text}`nb-k:d` of them", []),
        ("Lemaire et al. (2024) and Lemaire et al., 2023, at ADBIS 2020; the 2000 rows of (2000) rows", ["2000"]),
        ("1. first item\n2) second\n## 3. Results\n### Check 1: sums, 3rd place, class 0", []),
        ("| no. | rows |\n|---|---|\n| 3 | 690 |", ["690"]),
        ("Figures 1a, 1b and 5, Tables 1–3, sections 2, 3 or 4; Table 2 with 14 and 20 rows", ["14", "20"]),
        ("```python\nx = 0.5\n```\nprose 0.7", ["0.7"]),
        ("```{admonition} Erratum\n:class: note\nthe paper prints 0.17\n```", ["0.17"]),
        ("```{literalinclude} ../../lib/x.py\n:lines: 1.5\n```", []),
        ("see [the page](https://example.org/v0.5/x) and <https://a.b/1.2>", []),
        ("figure 3b, Table 2, Appendix D.2, 2^11 states", []),
    ],
)
def test_typed_numbers_detector(text: str, expected: list[str]) -> None:
    assert typed_numbers(text) == expected


def test_setup_role_renders_the_plain_number() -> None:
    # {setup}`14` (compendium/sphinx/roles.py) shows the number as ordinary text, in a span that
    # marks it as a set-up number; the scan above strips it like every other role
    import importlib

    roles = importlib.import_module("compendium.sphinx.roles")
    (node,), messages = roles.setup_role("setup", "{setup}`48,842`", "48,842", 1, None)
    assert node.astext() == "48,842" and node["classes"] == ["setup-number"] and not messages
    assert typed_numbers("{setup}`48,842` rows") == []


def test_no_typed_numbers_in_prose() -> None:
    problems = []
    for where, path, text in _markdown_sources():
        chapter = _chapter_of(path)
        if chapter in PENDING_CHAPTERS:
            continue
        found = typed_numbers(text, integers=(chapter or path.name) not in PENDING_INTEGERS)
        if found:
            problems.append(f"{where}: {found}")
    assert not problems, (
        "numbers about our results must be glued ({glue:text}`key:fmt`), the paper's marked "
        "{paper}`x` (CONTRIBUTING.md §2):\n" + "\n".join(problems)
    )


# --------------------------------------------------------------------------- typed verdicts
_ALLOWED_CALLS = {"eq", "ne", "isin", "count", "get", "index", "startswith", "endswith", "replace", "str"}
_VERDICT_NAMES = re.compile(r"hold|verdict|status|claim", re.I)


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _is_bool(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)


def _name_of(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return _name_of(node.value) + "".join(str(getattr(p, "value", "")) for p in parts)
    return ""


def typed_verdicts(source: str) -> list[str]:
    """Verdicts typed as literals in Python source (CONTRIBUTING.md §1)."""
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    parent = _parents(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip().lower() in STATUSES:
            up = parent.get(node)
            if isinstance(up, ast.Compare) or isinstance(up, ast.Subscript):
                continue
            if isinstance(up, ast.Call) and isinstance(up.func, ast.Attribute) and up.func.attr in _ALLOWED_CALLS:
                continue
            if isinstance(up, (ast.List, ast.Tuple, ast.Set)) and isinstance(parent.get(up), ast.Compare):
                continue
            found.append(f"line {node.lineno}: status {node.value!r} typed")
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and any(_is_bool(e) for e in node.elts):
            up = parent.get(node)
            if isinstance(up, (ast.List, ast.Tuple)):
                found.append(f"line {node.lineno}: a table row with a typed True/False")
            elif isinstance(up, ast.Dict) and any(
                v is node and isinstance(k, ast.Constant) and _VERDICT_NAMES.search(str(k.value))
                for k, v in zip(up.keys, up.values)
            ):
                found.append(f"line {node.lineno}: a typed list of verdicts")
            elif isinstance(up, (ast.Assign, ast.AnnAssign)) and any(
                _VERDICT_NAMES.search(_name_of(t)) for t in (up.targets if isinstance(up, ast.Assign) else [up.target])
            ):
                found.append(f"line {node.lineno}: a typed list of verdicts")
            elif isinstance(up, ast.keyword) and up.arg and _VERDICT_NAMES.search(up.arg):
                found.append(f"line {node.lineno}: a typed list of verdicts")
            elif isinstance(up, ast.Compare):
                found.append(f"line {node.lineno}: a result compared with a typed list of True/False")
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and _VERDICT_NAMES.search(str(k.value)) and _is_bool(v):
                    found.append(f"line {node.lineno}: verdict {k.value!r} typed as {v.value}")
        if isinstance(node, ast.Subscript) and isinstance(parent.get(node), ast.Assign):
            up = parent[node]
            if _VERDICT_NAMES.search(_name_of(node)) and (_is_bool(up.value) or (
                    isinstance(up.value, ast.Constant) and isinstance(up.value.value, str)
                    and up.value.value.strip().lower() in STATUSES)) and node in up.targets:
                found.append(f"line {node.lineno}: verdict assigned a literal")
    return found


@pytest.mark.parametrize(
    ("source", "n"),
    [
        ('claims = pd.DataFrame([("a", "yes", "x", True), ("b", "yes", "y", False)])', 2),
        ('frame = pd.DataFrame({"claim": c, "holds": [True, False]})', 1),
        ('holds = [True, False, True]', 1),
        ('assert (frame.holds.tolist() == [True, False])', 1),
        ('row = {"claim": "x", "holds": False}', 1),
        ('status = "reproduced"', 1),
        ('frame.loc[0, "holds"] = True', 1),
        ('glue("verdict", "consistent")', 1),
        ('holds = err_a < err_b\nn = (rep.status == "reproduced").sum()\nrep[rep.status.eq("contradicted")]', 0),
        ('df.sort_values(["a", "b"], ascending=[True, False])', 0),
        ('counts["not reproduced"] + counts.get("consistent", 0)', 0),
        ('%matplotlib inline\nx = 1', 0),
    ],
)
def test_typed_verdicts_detector(source: str, n: int) -> None:
    assert len(typed_verdicts(source)) == n, typed_verdicts(source)


def test_no_typed_verdicts_in_notebooks() -> None:
    problems = []
    for path, number, cell in _notebook_cells():
        if cell["cell_type"] == "code" and path.parent.name not in PENDING_CHAPTERS:
            problems += [f"{path.relative_to(REPO_ROOT)} cell {number}: {p}"
                         for p in typed_verdicts("".join(cell["source"]))]
    assert not problems, "verdicts must be computed from the numbers (CONTRIBUTING.md §1):\n" + "\n".join(problems)


def test_pending_chapters_are_real() -> None:
    known = set(chapters())                                          # from _toc.yml
    assert PENDING_CHAPTERS <= known
    assert PENDING_INTEGERS <= known | {p.name for p in (REPO_ROOT / "book").glob("*.md")}


_CROSS_GLUE = re.compile(r"\{glue:text\}`(?P<body>[^`]*::[^`]*)`")


def test_glue_from_another_page_has_a_format() -> None:
    # myst-nb splits `path::key` at its last ":" — without a format spec the key is lost
    # ("No key '/notebooks/…ipynb:' found"): write `path::key:s` (or `:d`, `:.2f`, …)
    missing = []
    for where, _, text in _markdown_sources():
        for match in _CROSS_GLUE.finditer(text):
            key_and_format = match["body"].split("::", 1)[1]
            if ":" not in key_and_format:
                missing.append(f"{where}: {match['body']}")
    assert not missing, "cross-page glue needs a format spec:\n" + "\n".join(missing)


_GLUE = re.compile(r"\{glue(?::\w+)?\}`(?P<body>[^`]*)`")


def test_glue_in_a_caption_names_its_notebook() -> None:
    # the figures page ({figures-list}) copies every caption: a glue key there must carry its
    # notebook's path (`/notebooks/…ipynb::key:fmt`), or the build misses it on that page
    found = [f"{where}: {m['body']}" for where, _, text in _markdown_sources() if where.endswith("caption")
             for m in _GLUE.finditer(text) if "::" not in m["body"]]
    assert not found, "glue in captions needs the notebook's path:\n" + "\n".join(found)


_TO_CSV = re.compile(r"\.to_csv\(")


def test_notebooks_write_derived_files_through_the_library() -> None:
    # every stored table goes through compendium.stable.write_derived (fixed line ends, rounding
    # where asked), never DataFrame.to_csv, so its bytes come out the same on any machine
    found = [f"{path.relative_to(REPO_ROOT)} cell {number}" for path, number, cell in _notebook_cells()
             if cell["cell_type"] == "code" and _TO_CSV.search("".join(cell["source"]))]
    assert not found, "write derived CSVs with compendium.stable.write_derived:\n" + "\n".join(found)


_LONG_FLOAT = re.compile(r"-?\d+\.\d{9,}")


def test_glued_floats_are_rounded() -> None:
    # a glued float with all its digits (0.6262900000000001) carries rounding noise into the stored
    # outputs, which then differ between machines: glue round(value, 6) or fewer digits
    found = []
    for path, _, cell in _notebook_cells():
        for output in cell.get("outputs", []):
            value = output.get("data", {}).get("application/papermill.record/text/plain")
            if value is not None and _LONG_FLOAT.fullmatch(value.strip()):
                name = output["metadata"]["scrapbook"]["name"]
                found.append(f"{path.relative_to(REPO_ROOT)}: {name} = {value}")
    assert not found, "glue rounded values:\n" + "\n".join(found)


_ROUNDED_BY_HAND = re.compile(r"(?<![\w.])glue\([^\n]*round\(")


def test_rounded_numbers_are_glued_through_one_helper() -> None:
    # one helper rounds a glued number (compendium.stable.glue_number), not round(float(x), 6) retyped
    found = [f"{path.relative_to(REPO_ROOT)} cell {number}: {line.strip()}"
             for path, number, cell in _notebook_cells() if cell["cell_type"] == "code"
             for line in "".join(cell["source"]).splitlines() if _ROUNDED_BY_HAND.search(line)]
    assert not found, "glue a rounded number with compendium.stable.glue_number:\n" + "\n".join(found)


# --------------------------------------------------------------------------- the default estimator
#: Other words that name a registered estimator in prose, beside its registry name.
ESTIMATOR_ALIASES = {"strata": [r"stratified\s+sampling"], "uniform": [r"Algorithm\s+1"], "variance": [r"Algorithm\s+2"]}
#: Where the default estimator may be named: every tracked text of these folders (and the root's pages).
DEFAULT_SCAN = ("lib", "compendium", "benchmarks", "scripts", "tools", "tests", "book", "notebooks", "data")
_SKIP_DIRS = {"_build", ".side-envs", "node_modules", "__pycache__", ".ipynb_checkpoints", "third_party"}


def _mention(name: str) -> str:
    """A regex of a mention of the estimator ``name``: quoted (``method="name"``, `name`), as a noun
    phrase (the name sampler / sampling / estimator / permutation(s)), bare in parentheses, or an alias."""
    word = re.escape(name)
    forms = [rf"[`\"']*(?:method\s*=\s*)?[`\"']+{word}[`\"']+", rf"\b{word}\s+(?:estimator|sampler|sampling|permutations?)\b",
             rf"(?<=\()\s*{word}\s*(?=\))"] + ESTIMATOR_ALIASES.get(name, [])
    return "(?:" + "|".join(forms) + ")"


def miscalled_defaults(text: str, default: str, names: list[str]) -> list[str]:
    """The places of ``text`` that call an estimator of ``names`` other than ``default`` the default:
    "default, the X estimator", "default is `method="X"`", "default (X)" (the default first), and
    "`X`, the default", "``method="X"`` (the default method)", "X permutation sampling, the book's
    default" (the estimator first), whatever the case; Python comments' ``#`` and the joints of
    implicitly concatenated strings are read through."""
    flat = re.sub(r"\n[ \t]*#+[ \t]*", " ", text)
    flat = re.sub(r"[\"']\s*\n\s*[fr]?[\"']", "", flat)
    found = []
    for name in names:
        if name == default:
            continue
        mention = _mention(name)
        called = [
            rf"\bdefault\b(?:\s+(?:estimator|method|sampler))?(?:\s+past\s+exact(?:\s+enumeration)?)?"
            rf"\s*(?:\bis\b|[:,(=—–])\s*(?:[\w'’]+\s+){{0,3}}\(?\s*{mention}",
            rf"{mention}[)`\"']*(?:\s+[\w'’-]+){{0,3}}\s*(?:[,:(—–]|\bis\b)\s*(?:(?:the|its|book's|book’s)\s+)*default\b",
        ]
        for pattern in called:
            found += [f"{name}: {' '.join(m.group(0).split())}" for m in re.finditer(pattern, flat, re.I)]
    return found


@pytest.mark.parametrize(
    ("text", "default", "expected"),
    [
        # the old texts, each calling antithetic sampling the default while the registry says strata
        ('"""Antithetic permutation sampling, ``method="antithetic"``: the book\'s default estimator past exact.',
         "strata", 1),
        ('run by ``sample_shapley(..., method="antithetic")``\n(the default method).', "strata", 1),
        ('"lib.sampling.sample_shapley (antithetic "\n            "permutation sampling, the book\'s default): "',
         "strata", 1),
        ("The library's sampler implements both (its default is the antithetic sampler of {doc}`03-estimators`)",
         "strata", 1),
        ("    # the one entry point of the API, whose default is the book's estimator (antithetic sampling)",
         "strata", 1),
        ("The book's default is `method=\"strata\"`; the default (strata), antithetic, uniform", "antithetic", 2),
        ("the sampler with its default, the strata estimator; `strata`, the default; the book's default, "
         "stratified sampling by background row", "antithetic", 3),
        ('``method="uniform"`` (the default), Algorithm 2, the default', "strata", 2),
        # the same sentences naming the registry's default, and sentences that only mention both
        ("The book's default is `method=\"strata\"`; the default (strata), antithetic, uniform", "strata", 0),
        ("This section shows the estimator behind the sampler's default, why its variance is never above the "
         "antithetic sampler's", "strata", 0),
        ("On continuous data the default cannot enumerate a stratum, and it is the antithetic sampler", "strata", 0),
        ("the default in black with its quartile band, the antithetic sampler dashed", "strata", 0),
        ('Estimate them with sample_shapley (its default estimator, lib.sampling.registry.DEFAULT)', "strata", 0),
        ("AntitheticOptions(n_pairs=...); default its defaults. rng=np.random.default_rng(0)", "strata", 0),
    ],
)
def test_miscalled_defaults_detector(text: str, default: str, expected: int) -> None:
    names = ["strata", "antithetic", "uniform", "variance"]
    assert len(miscalled_defaults(text, default, names)) == expected, miscalled_defaults(text, default, names)


def _texts_naming_estimators() -> list[tuple[str, str]]:
    """(where, text) for every page, docstring and message that may name an estimator: the
    repository's Markdown, Python and JavaScript files (the root's and those of DEFAULT_SCAN), and
    every cell of every notebook (prose, captions, code and its strings)."""
    found = []
    files = [p for p in REPO_ROOT.glob("*.md")]
    for folder in DEFAULT_SCAN:
        files += [p for suffix in ("*.md", "*.py", "*.js", "*.ipynb") for p in (REPO_ROOT / folder).rglob(suffix)
                  if not _SKIP_DIRS & set(p.relative_to(REPO_ROOT).parts)]
    for path in sorted(set(files)):
        if path.resolve() == Path(__file__).resolve():
            continue  # this file plants the faults it looks for
        where = str(path.relative_to(REPO_ROOT))
        if path.suffix == ".ipynb":
            for number, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
                found.append((f"{where} cell {number}", "".join(cell["source"])))
                caption = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption")
                if caption:
                    found.append((f"{where} cell {number} caption", str(caption)))
        else:
            found.append((where, path.read_text(encoding="utf-8")))
    return found


def test_only_the_registry_default_is_called_the_default() -> None:
    # issue 46: one name for the default estimator in every page, docstring and message, the
    # registry's (lib.sampling.registry.DEFAULT); a text that needs the name reads it from there
    from lib.sampling import registry

    names = list(registry.estimators())
    texts = _texts_naming_estimators()
    assert any(where.startswith("lib/sampling/") for where, _ in texts) and any(".ipynb cell" in w for w, _ in texts)
    found = [f"{where}: {hit}" for where, text in texts for hit in miscalled_defaults(text, registry.DEFAULT, names)]
    assert not found, (f"texts that call an estimator other than lib.sampling.registry.DEFAULT ({registry.DEFAULT!r}) "
                       "the default (name it from the registry, or not at all):\n" + "\n".join(found))
