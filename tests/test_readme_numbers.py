"""The numbers README.md quotes from a stored benchmark are the stored benchmark's: the page-weight
summary is computed from ``data/derived/benchmark-page-weight.csv`` (``benchmarks/page_weight.py``'s
``readme_table``), and the sentence on the estimators' intervals from
``data/derived/benchmark-estimators-coverage.csv`` (``benchmarks/estimator_coverage.py``'s ``readme_sentence``),
never typed."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import page_weight  # noqa: E402


def test_readme_quotes_the_stored_page_weights() -> None:
    stored = pd.read_csv(ROOT / "data" / "derived" / "benchmark-page-weight.csv")
    assert page_weight.readme_table(stored) in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_summary_moves_with_the_table() -> None:
    stored = pd.read_csv(ROOT / "data" / "derived" / "benchmark-page-weight.csv")
    heavier = stored.assign(**{"own bytes": stored["own bytes"] * 2})
    assert page_weight.readme_table(heavier) != page_weight.readme_table(stored)


def test_readme_quotes_the_stored_interval_coverage() -> None:
    import estimator_coverage

    stored = pd.read_csv(ROOT / "data" / "derived" / "benchmark-estimators-coverage.csv")
    assert estimator_coverage.readme_sentence(stored) in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_coverage_sentence_moves_with_the_table() -> None:
    import estimator_coverage

    stored = pd.read_csv(ROOT / "data" / "derived" / "benchmark-estimators-coverage.csv")
    missing = stored.assign(covered=stored["covered"] // 2)  # half the intervals miss: no cell in the band
    assert estimator_coverage.readme_sentence(missing) != estimator_coverage.readme_sentence(stored)
