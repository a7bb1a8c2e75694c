"""The pure parts of ``compendium.experiments.coal_authors``: groups read, printed and matched, the
folder of the authors' code, the bridge's frames, the exact values by enumeration of the
orderings, the authors' combination rule rebuilt, the VIF demonstration, the stored tables read."""

from __future__ import annotations

import importlib.util
import io
import math

import numpy as np
import pandas as pd
import pytest

from compendium.data import REPO_ROOT
from compendium.experiments import coal_authors as ca
from lib import coalitional as co
from lib import grouping as gr
from lib.formula import shapley_from_game


# ----------------------------------------------------------------------------- groups
def test_groups_print_and_read_back_with_repeats() -> None:
    groups = [(0, 0, 2), (1,), (2, 3)]
    text = ca.format_groups(groups)
    assert text == "{0,0,2} {1} {2,3}"
    assert ca.parse_groups(text) == groups
    assert ca.parse_groups("") == []


@pytest.mark.parametrize("bad", ["{0,1} 2", "{0,x}", "(0,1)"])
def test_malformed_groups_are_refused_naming_the_token(bad: str) -> None:
    with pytest.raises(ValueError, match="cannot read groups"):
        ca.parse_groups(bad)


def test_matching_ignores_the_order_of_groups_and_of_their_members() -> None:
    m = ca.match_groups([[2, 3], [0, 1]], [(1, 0), (3, 2)])
    assert m == {"identical": True, "identical without repeats": True, "only theirs": "", "only ours": ""}


def test_a_group_with_a_repeat_is_not_identical_but_matches_without_repeats() -> None:
    m = ca.match_groups([[0, 0, 2], [1]], [(0, 2), (1,)])
    assert not m["identical"] and m["identical without repeats"]
    assert ca.repeats([[0, 0, 2], [1]]) and not ca.repeats([(0, 2), (1,)])


def test_the_groups_only_one_side_has_are_named() -> None:
    m = ca.match_groups([[0, 1], [2]], [(0,), (1,), (2,)])
    assert not m["identical"] and not m["identical without repeats"]
    assert m["only theirs"] == "{0,1}" and m["only ours"] == "{0} {1}"


# ----------------------------------------------------------------------------- the authors' code
def test_a_missing_folder_says_where_to_put_the_code(tmp_path) -> None:
    with pytest.raises(FileNotFoundError) as err:
        ca.code_dir(tmp_path / "nowhere")
    message = str(err.value)
    assert "does not exist" in message
    assert "../shared/third-party/coalitional_explanation_methods" in message and "--code" in message


def test_an_incomplete_folder_names_the_missing_files(tmp_path) -> None:
    (tmp_path / "utils.py").write_text("")
    with pytest.raises(FileNotFoundError, match="missing complete_method.py, coalitional_methods.py"):
        ca.code_dir(tmp_path)


def test_a_folder_with_the_files_is_taken_and_digested(tmp_path) -> None:
    for name in ca.CODE_FILES:
        (tmp_path / name).write_text(f"# {name}\n")
    assert ca.code_dir(tmp_path) == tmp_path.resolve()
    digests = ca.code_digests(tmp_path)
    assert set(digests) == set(ca.CODE_FILES) and len(set(digests.values())) == len(ca.CODE_FILES)


# ----------------------------------------------------------------------------- the bridge
def _worker_module():
    spec = importlib.util.spec_from_file_location("_coal_authors_worker", REPO_ROOT / "scripts" /
                                                  "_coal_authors_worker.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_frames_round_trip_between_the_two_sides() -> None:
    worker = _worker_module()
    arrays = [np.arange(12, dtype=np.float64).reshape(3, 4).T, np.array([3, -1, 7], dtype=np.int64),
              np.empty((0, 2))]
    for encode, read in ((ca.encode_frame, worker.read_frame), (worker.encode_frame, ca.read_frame)):
        stream = io.BytesIO(encode({"op": "fit", "classifier": "NB"}, arrays) + encode({"op": "done"}))
        header, got = read(stream)
        assert header == {"op": "fit", "classifier": "NB"}
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(arrays, got))
        assert read(stream) == ({"op": "done"}, [])


def test_a_frame_cut_short_is_an_error_and_the_end_between_frames_is_none() -> None:
    frame = ca.encode_frame({"op": "predict", "handle": 0}, [np.ones((2, 2))])
    assert ca.read_frame(io.BytesIO(b"")) is None
    with pytest.raises(EOFError):
        ca.read_frame(io.BytesIO(frame[:-3]))


def test_the_server_fits_once_per_data_and_answers_with_the_books_classifier() -> None:
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 2, size=40)
    server = ca.ModelServer({"NB": GaussianNB().fit(X, y)})
    first, _ = server.handle({"op": "fit", "classifier": "NB"}, [X[:, :2], y])
    again, _ = server.handle({"op": "fit", "classifier": "NB"}, [X[:, :2].copy(), y.copy()])
    assert first["handle"] == again["handle"] and server.fits == 1
    _, (proba,) = server.handle({"op": "predict_proba", "handle": first["handle"]}, [X[:5, :2]])
    np.testing.assert_array_equal(proba, GaussianNB().fit(X[:, :2], y).predict_proba(X[:5, :2]))
    full, _ = server.handle({"op": "full", "classifier": "NB"}, [])
    _, (labels,) = server.handle({"op": "predict", "handle": full["handle"]}, [X])
    np.testing.assert_array_equal(labels, GaussianNB().fit(X, y).predict(X))
    with pytest.raises(ValueError, match="unknown request"):
        server.handle({"op": "explain"}, [])


# ----------------------------------------------------------------------------- exact values
def test_orderings_give_the_unanimity_game_its_known_values() -> None:
    d, T = 4, (0, 2, 3)
    masks = np.arange(2**d)
    mask_T = sum(1 << i for i in T)
    v = ((masks & mask_T) == mask_T).astype(float)         # u_T(S) = 1 iff T ⊆ S
    np.testing.assert_allclose(ca.shapley_by_orderings(v), [1 / 3, 0, 1 / 3, 1 / 3], atol=1e-15)


def test_orderings_count_every_ordering_once_per_player() -> None:
    for d in (1, 3, 5):
        counts = ca.ordering_counts(d)
        assert (counts.sum(axis=1) == math.factorial(d)).all()
        sizes = np.array([bin(s).count("1") for s in range(2**d)])
        for i in range(d):           # |S|! (d - |S| - 1)! orderings put exactly S before i
            without = [s for s in range(2**d) if not (s >> i) & 1]
            expected = [math.factorial(sizes[s]) * math.factorial(d - sizes[s] - 1) for s in without]
            assert counts[i, without].tolist() == expected


def test_orderings_agree_with_the_subset_formula_of_lib() -> None:
    v = np.random.default_rng(1).normal(size=(3, 2**6))
    np.testing.assert_allclose(ca.shapley_by_orderings(v), shapley_from_game(v - v[:, :1]), atol=1e-12)
    with pytest.raises(ValueError, match="2\\*\\*d"):
        ca.shapley_by_orderings(np.zeros(6))


# ----------------------------------------------------------------------------- the combination rebuilt
def _value_of(v: np.ndarray):
    return lambda T: v[:, sum(1 << i for i in set(T))]


def test_the_rebuilt_rule_is_the_size_factorial_average_on_groups_without_repeats() -> None:
    v = np.random.default_rng(2).normal(size=(4, 2**5))
    v[:, 0] = 0.0
    groups = [(0, 1, 2), (2, 3), (1, 4), (0,)]
    np.testing.assert_allclose(ca.coalitional_as_their_code(_value_of(v), groups, 5),
                               co.coalitional_influence(v, groups, overlap="size-factorial"), atol=1e-12)


def test_a_repeated_attribute_gets_half_the_value_of_the_pair_by_hand() -> None:
    # group [0, 0]: the sub-lists (0) twice, weight 0! 1! = 1 each, and (0, 0) once, weight 1! 0! = 1 for
    # each of its two members: (2 a + 2 (b - a)) / (1 + 1 + 1 + 1) = b / 2
    a, b = 0.3, 0.5
    value = {(0,): np.array([a]), (0, 0): np.array([b])}
    np.testing.assert_allclose(ca.coalitional_as_their_code(lambda T: value[T], [[0, 0]], 1), [[b / 2]])


def test_the_rebuilt_rule_refuses_an_uncovered_attribute() -> None:
    with pytest.raises(ValueError, match="cover"):
        ca.coalitional_as_their_code(lambda T: np.zeros(1), [[0]], 2)


# ----------------------------------------------------------------------------- VIF, the demonstration
def _collinear(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=300)
    return np.column_stack([z + 0.1 * rng.normal(size=300), rng.normal(size=300),
                            z + 0.1 * rng.normal(size=300), rng.normal(size=300)])


@pytest.mark.parametrize("reverse", [False, True])
def test_without_the_shift_the_demonstration_gives_the_books_vif_groups(reverse: bool) -> None:
    X = _collinear()
    tables = ca.vif_tables(X)
    for alpha in (0.01, 0.2, 0.4):
        ours = ca.vif_groups_from(tables, alpha, reverse=reverse, shifted=False)
        assert ca.canonical(ours) == ca.canonical(gr.vif_groups(X, alpha, reverse=reverse))


def test_the_shift_reads_the_wrong_vif_except_for_the_second_attribute() -> None:
    X = _collinear()       # attributes 0 and 2 collinear (VIF about 100), 1 and 3 independent (VIF about 1)
    tables = ca.vif_tables(X)
    assert ca.vif_groups_from(tables, 0.2, shifted=False) == [[0, 2], [1], [3]]
    # by hand, with the shift (column j of the data without a read as attribute j + 1 if j >= 1 else j):
    # a = 0: column 0 is attribute 1 (VIF ~1), compared with VIF(0) ~100 and joined as 0 -> {0,0,2};
    # a = 1: the shift is the true mapping -> {1};
    # a = 2: column 1 is attribute 1, compared with VIF(2) and joined as 2 (itself) -> {0,2,2};
    # a = 3: column 1 is attribute 1 again, compared with VIF(2) and joined as 2 -> {2,3}
    assert ca.vif_groups_from(tables, 0.2, shifted=True) == [[0, 0, 2], [1], [0, 2, 2], [2, 3]]


# ----------------------------------------------------------------------------- stored tables
def test_reading_a_missing_table_names_the_command(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="run `python scripts/coal_authors.py --part model`"):
        ca.read("model", root=tmp_path)
    with pytest.raises(FileNotFoundError, match="run `python scripts/coal_authors.py --part influence`"):
        ca.read("influence", root=tmp_path)
    with pytest.raises(FileNotFoundError, match="--part groups"):
        ca.read("versions", root=tmp_path)


def test_parts_gather_into_rounded_tables_that_read_back(tmp_path) -> None:
    parts = tmp_path / "parts"
    for name, noise in (("keel-a", 1e-17), ("keel-b", 0.0)):
        folder = parts / name.removeprefix("keel-")
        folder.mkdir(parents=True)
        pd.DataFrame({"data set": [name], "alpha": [0.1 + noise], "max |theirs - lib|": [1.1e-16 + noise],
                      "their failure": [""], "their CPU s": [0.0123]}).to_csv(folder / "model.csv", index=False)
    written = ca.gather(["keel-a", "keel-b"], "model", parts=parts, root=tmp_path)
    assert written == ["data/derived/coal-authors-model.csv"]
    text = (tmp_path / written[0]).read_text()
    assert "\r" not in text and "e-16" not in text
    table = ca.read("model", root=tmp_path / "data" / "derived")
    assert table["alpha"].tolist() == [0.1, 0.1] and (table["max |theirs - lib|"] == 0).all()
    assert table["their failure"].tolist() == ["", ""]


def test_a_failure_is_predicted_only_for_a_repeated_group_of_n_or_more_entries() -> None:
    assert ca.fails_on_repeats([(0, 0, 2), (1,)], 3)           # 3 entries, a repeat, n = 3
    assert not ca.fails_on_repeats([(0, 0), (1,), (2,)], 3)      # repeat, but fewer than n entries
    assert not ca.fails_on_repeats([(0, 1, 2)], 3)                # n entries, no repeat: the explained model


def test_explained_rows_are_a_sorted_sample_of_at_most_the_budget() -> None:
    rows = ca.explained_rows(150, 4)
    assert len(rows) == ca.N_EXPLAIN and len(set(rows.tolist())) == len(rows)
    assert (np.diff(rows) > 0).all() and rows.min() >= 0 and rows.max() < 150
    assert ca.explained_rows(40, 4).tolist() == list(range(40))


def test_the_worker_runs_on_one_openblas_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    # tied PCA directions depend on the kernel OpenBLAS picks for the CPU: the worker's is fixed
    # wherever the CPU can run it, whatever the caller's environment says
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Prescott")
    monkeypatch.setattr(ca.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(ca, "_has_avx2", lambda: True)
    assert ca.worker_environment()["OPENBLAS_CORETYPE"] == ca.WORKER_BLAS_KERNEL == "Haswell"
    monkeypatch.setattr(ca, "_has_avx2", lambda: False)   # a CPU without AVX2: OpenBLAS's own choice
    assert ca.worker_environment()["OPENBLAS_CORETYPE"] == "Prescott"
    monkeypatch.setattr(ca.platform, "machine", lambda: "arm64")
    monkeypatch.setattr(ca, "_has_avx2", lambda: True)
    assert ca.worker_environment()["OPENBLAS_CORETYPE"] == "Prescott"
