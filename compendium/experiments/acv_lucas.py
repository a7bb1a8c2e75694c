"""Chapter 3: the authors' ACV library beside the book's exact SDPs on LUCAS.

Its home: the side environment's pins (:data:`PINS`), the set-up of the comparison (the level
:data:`PI`, the rows explained: :data:`SWING_ROWS`, :data:`N_DRAWN`, :data:`AUTHORS_ROW`), the
tables it stores (:data:`TABLES`) and the stored result it declares (:func:`units`).
``scripts/acv_lucas.py`` runs ACV in its side environment (the worker ``scripts/_acv_worker.py``,
Python 3.9, cannot import ``lib``) and computes the exact values beside it;
``notebooks/03-same-decision-probability/06-acv`` shows them.
"""

from __future__ import annotations

from compendium.regenerate.result import Result

__all__ = ["AUTHORS_ROW", "N_DRAWN", "PI", "PINS", "SWING_ROWS", "TABLES", "units"]

#: The side environment's pins: the ones the brief fixes, and lightgbm/xgboost at the versions
#: that resolved with them on Python 3.9 (acv-exp depends on both).
PINS = ["acv-exp==1.2.3", "numpy==1.21.6", "scikit-learn==1.2.2", "pandas==1.5.3",
        "lightgbm==4.6.0", "xgboost==2.1.4"]
#: Probability level of the sufficient coalitions and Swing Shapley values (the paper's Figure 1, right).
PI = 0.9
#: Rows whose Swing Shapley values ACV computes (its slowest call: minutes per row here).
SWING_ROWS = [0, 1, 2]
#: How many rows drawn from the network (seed 7, the draw of notebook 04) are explained besides.
N_DRAWN = 4
#: Index of the authors' demo observation in their test split (``X_test.values[160]``).
AUTHORS_ROW = 160
#: The tables of ``data/derived/sdp-acv-<table>.csv``.
TABLES = ("decisions", "train-rows", "rows", "versions", "sdp", "sufficient", "swing", "runtime")


def units() -> list[Result]:
    """The stored result of ``scripts/acv_lucas.py``: one run, every table (only the timings vary)."""
    return [Result("sdp-acv", ("scripts/acv_lucas.py", "--force"), tuple(f"sdp-acv-{a}.csv" for a in TABLES),
                   ("lucas0",), variable={"seconds": None}, side_env="acv",
                   shown_in=("notebooks/03-same-decision-probability/06-acv",))]
