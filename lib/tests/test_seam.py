"""The shape of lib's public API (issue 36): no import circle, names from their own module, one
keyword for the explained class.

* No import cycle among lib's modules, counting imports inside functions too (a static reading of
  every ``import`` statement; ``lib.permutation_sampling`` and ``lib.shapley`` imported each other
  through a function-level import).
* No name of ``lib.games`` or ``lib.validation`` is imported through ``lib.shapley`` (lib, scripts,
  benchmarks, notebooks): each module's names come from it.
* One keyword for the explained class: no public function or method of lib has a parameter
  ``positive`` or ``class_names`` (the old names work for one release, with a DeprecationWarning),
  and every ``output=`` follows one rule (:func:`lib.models.output_index`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import lib

REPO_ROOT = Path(__file__).resolve().parents[2]  # the repository's root (lib never imports the book's machinery)

LIB = REPO_ROOT / "lib"


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO_ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _lib_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(LIB.rglob("*.py")) if "tests" not in p.relative_to(LIB).parts}


def _imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """The lib modules ``path`` imports anywhere in it (module level or inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[: len(parent) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for t in targets:
            # the longest lib module the import names (``from lib import shapley`` names lib.shapley)
            while t and t not in modules:
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if t and t != name and t != "lib":
                found.add(t)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def _import_graph() -> dict[str, set[str]]:
    """Who imports whom in lib: every ``import`` statement (module level or inside functions), and the
    registry's dynamic loads (:func:`lib.sampling.registry.estimator_modules`, imported by name)."""
    from lib.sampling.registry import estimator_modules

    modules = _lib_modules()
    graph = {name: _imports(path, name, set(modules)) for name, path in modules.items()}
    graph["lib.sampling.registry"] |= set(estimator_modules())
    # a package's own __init__ is imported by its submodules' imports; that is not a cycle
    return {n: {t for t in ts if not n.startswith(t + ".")} for n, ts in graph.items()}


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_import_cycle_in_lib_function_level_imports_included():
    assert _cycles(_import_graph()) == []


def test_the_registrys_dynamic_loads_are_followed():
    """The circle the import statements alone hid (issue 48): lib.shapley -> lib.sampling -> (the
    registry loads) strata -> lib.shapley.  With the registry's loads as edges it would be found."""
    graph = _import_graph()
    assert set(graph["lib.sampling.registry"]) >= {"lib.sampling.strata", "lib.sampling.antithetic"}
    graph["lib.sampling.strata"] = graph["lib.sampling.strata"] | {"lib.sampling.entry"}
    assert any("lib.sampling.strata" in cycle for cycle in _cycles(graph))


def test_no_estimator_imports_the_module_that_dispatches_to_it():
    """An estimator's module reaches, through its imports, neither the registry that loads and runs it,
    nor the entry (lib.sampling.sample_shapley) nor the exact engine's front door (lib.shapley): each
    imports the seam (lib.sampling.base), the game and the formula only.  Nor does the formula."""
    from lib.sampling.registry import estimator_modules

    graph = _import_graph()
    dispatchers = {"lib.sampling.registry", "lib.sampling.entry", "lib.sampling", "lib.shapley"}
    for module in [*estimator_modules(), "lib.formula", "lib.sampling.base", "lib.sampling.walk"]:
        assert not (_reachable(graph, module) & dispatchers), (
            f"{module} imports {sorted(_reachable(graph, module) & dispatchers)}, which dispatch to the estimators")


def test_the_cycle_finder_finds_a_function_level_cycle(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("def f():\n    from lib import b\n")
    b = tmp_path / "b.py"
    b.write_text("from lib.a import f\n")
    graph = {"lib.a": _imports(a, "lib.a", {"lib.a", "lib.b"}), "lib.b": _imports(b, "lib.b", {"lib.a", "lib.b"})}
    assert _cycles(graph) == [["lib.a", "lib.b", "lib.a"]]


def _sources() -> list[tuple[str, str]]:
    out = [(str(p.relative_to(REPO_ROOT)), p.read_text(encoding="utf-8"))
           for folder in ("lib", "scripts", "benchmarks") for p in sorted((REPO_ROOT / folder).rglob("*.py"))]
    for nb in sorted((REPO_ROOT / "notebooks").glob("*/*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        out.append((str(nb.relative_to(REPO_ROOT)),
                    "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")))
    return out


def test_no_name_of_games_or_validation_is_taken_through_shapley():
    import lib.games
    import lib.shapley
    import lib.validation

    theirs = (set(lib.games.__all__) | set(lib.validation.__all__)) - {"ShapleyResult"}
    leaked = sorted(theirs & set(dir(lib.shapley)) - {n for n in dir(lib.shapley) if n.startswith("_")})
    # lib.shapley uses some of them; none is part of what it offers, and no one takes one from it
    assert not (theirs & set(lib.shapley.__all__))
    bad = []
    for where, text in _sources():
        for name in leaked:
            if "from lib.shapley import" in text and any(
                    name in line.split("import", 1)[1] for line in text.splitlines() if "from lib.shapley import" in line):
                bad.append((where, name))
            for alias in ("sh.", "shapley.", "lib.shapley."):
                if f"{alias}{name}" in text and (alias != "shapley." or "lib.shapley" in text or "import shapley" in text):
                    bad.append((where, f"{alias}{name}"))
    assert bad == []


def _public_callables():
    for name in lib.__all__:
        module = importlib.import_module(f"lib.{name}")
        for attr, obj in sorted(vars(module).items()):
            if attr.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            yield f"lib.{name}.{attr}", obj
            if inspect.isclass(obj):
                for a, o in sorted(vars(obj).items()):
                    if not a.startswith("_") and callable(o):
                        yield f"lib.{name}.{attr}.{a}", o


OLD_NAMES = {"positive", "class_names"}
#: names that label things and are not the explained class (a plot's legend, a summary table's rows,
#: a result's field): ``plotting`` draws, ``summary_table`` lays out a published table
NOT_THE_EXPLAINED_CLASS = {"compendium.plotting.composition_path", "lib.compositions.summary_table",
                           "lib.compositions.ShapleyCompositions"}


def test_one_keyword_for_the_explained_class_across_the_public_api():
    found = []
    for where, obj in _public_callables():
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        if where not in NOT_THE_EXPLAINED_CLASS and OLD_NAMES & set(params):
            found.append((where, sorted(OLD_NAMES & set(params))))
    assert found == []


def test_the_old_names_still_work_with_a_deprecation_warning():
    from sklearn.linear_model import LogisticRegression

    from lib import compositions as cp
    from lib import naive_bayes as nbm
    from lib import typical_value as tv

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    with pytest.warns(DeprecationWarning, match=r"log_and_logit\(positive=...\) is deprecated.*use output="):
        old = tv.log_and_logit(model, positive=0)(X[:3])
    np.testing.assert_array_equal(old, tv.log_and_logit(model, output=0)(X[:3]))
    with pytest.raises(TypeError, match="both positive="):
        tv.log_and_logit(model, positive=0, output=0)
    with pytest.warns(DeprecationWarning, match="use output_names="):
        comp = cp.exact_shapley_compositions(model, X[:2], X[:10], class_names=["no", "yes"])
    assert comp.class_names == ["no", "yes"]
    tables = nbm.NaiveBayesTables(feature_names=["a"], classes=np.array(["-", "+"]), prior=np.array([0.5, 0.5]),
                                  likelihood=[np.array([[0.2, 0.7], [0.8, 0.3]])], part_prob=[np.array([0.45, 0.55])],
                                  weights=np.ones(1))
    with pytest.warns(DeprecationWarning):
        old = nbm.shapley_values(tables, np.array([[0], [1]]), positive="+")
    np.testing.assert_array_equal(old[0], nbm.shapley_values(tables, np.array([[0], [1]]), output="+")[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbm.shapley_values(tables, np.array([[0]]), "+")   # positional: no warning


@pytest.mark.parametrize("output, column", [(1, 1), ("1", 1), (0, 0), (np.int64(1), 1)])
def test_every_to_explanation_reads_output_by_one_rule(output, column):
    pytest.importorskip("shap")
    from sklearn.linear_model import LogisticRegression

    from lib import compositions as cp
    from lib import shapley as sh

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, 60)
    model = LogisticRegression().fit(X, y)
    res = sh.exact_shapley(model, X[:2], X[:8])
    comp = cp.exact_shapley_compositions(model, X[:2], X[:8])
    np.testing.assert_array_equal(res.to_explanation(output=output).values, res.values[:, :, column])
    np.testing.assert_array_equal(comp.to_explanation(output=output).values, comp.values[:, :, column])
    one = sh.exact_shapley(model, X[:2], X[:8], output=output)
    np.testing.assert_allclose(one.values, res.values[:, :, column], atol=1e-12)
    assert one.output_names == [str(column)]


# ---------------------------------------------------------------------------
# Costs said up front (item 7) and messages that name row, column and remedy (item 8)
# ---------------------------------------------------------------------------


def test_exact_enumeration_past_16_features_says_its_cost_and_shows_a_bar(capsys):
    from lib import shapley as sh

    rng = np.random.default_rng(0)
    w = rng.normal(size=17)
    f = lambda Z: np.asarray(Z, dtype=float) @ w  # noqa: E731
    res = sh.exact_shapley(f, rng.normal(size=(1, 17)), rng.normal(size=(1, 17)))
    err = capsys.readouterr().err
    assert "exact_shapley: 1 rows x 2**17 coalitions x 1 background rows: about 131,072 model rows" in err
    assert "100%" in err
    np.testing.assert_allclose(res.values.sum(axis=1), res.outputs - res.base_values, atol=1e-9)
    sh.exact_shapley(lambda Z: np.asarray(Z, float)[:, 0], rng.normal(size=(1, 16)), rng.normal(size=(1, 16)))
    assert capsys.readouterr().err == ""                # 16 features: quiet


def test_the_model_based_grouping_says_its_cost_past_16_features(capsys):
    from lib import grouping as gr

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 17))
    predict = lambda Z: (np.asarray(Z)[:, 0] * np.asarray(Z)[:, 1] > 0).astype(int)  # noqa: E731
    gr.find_groups(X, "Model", 0.2, predict=predict)
    err = capsys.readouterr().err
    assert "model-based grouping of 17 attributes on 40 rows: about" in err and "fidelity" in err
    gr.find_groups(X[:, :5], "Model", 0.2, predict=predict)
    assert capsys.readouterr().err == ""


def test_grouping_a_column_of_labels_names_it_and_the_remedy():
    import pandas as pd

    from lib import grouping as gr

    X = pd.DataFrame({"age": [30.0, 41.0, 52.0, 23.0], "city": ["Paris", "Lyon", "Paris", "Nice"]})
    with pytest.raises(ValueError, match=r"X's column 'city' holds labels \('Paris' at row 0\).*pandas Categorical"):
        gr.find_groups(X, "PCA", 0.3)


def test_sdp_errors_name_the_features_of_a_dataframe_and_a_non_binary_cell():
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier

    from lib import sdp_estimation as se

    rng = np.random.default_rng(2)
    Z = pd.DataFrame(rng.integers(0, 2, (50, 3)), columns=["smoker", "cough", "fever"])
    y = (Z["smoker"] | Z["cough"]).to_numpy()
    model = DecisionTreeClassifier(random_state=0).fit(Z, y)
    data = Z[(Z["smoker"] == 0) | (Z["fever"] == 0)]          # no row has smoker = 1 and fever = 1
    x = pd.DataFrame({"smoker": [1], "cough": [0], "fever": [1]})
    with pytest.raises(ValueError, match=r"the features \['smoker', 'fever'\]"):
        se.swing_explanation(model, x, data)
    bad = x.assign(fever=[2])
    with pytest.raises(ValueError, match=r"x row 0, column 'fever': 2 is not a binary state.*binarise"):
        se.swing_explanation(model, bad, Z)


def test_infinity_in_floats_is_named_before_the_model_sees_it():
    import pandas as pd
    from sklearn.ensemble import HistGradientBoostingClassifier

    from lib import shapley as sh

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    model = HistGradientBoostingClassifier(max_iter=5).fit(X, (X["a"] > 0).astype(int))
    bg = X.copy()
    bg.iloc[7, 2] = np.inf
    with pytest.raises(ValueError, match=r"background has an infinite value .* at row 7, column 'c': replace it"):
        sh.exact_shapley(model, X.iloc[:2], bg)
