"""Settings shared by every test process and by the notebook kernels nbval starts.

One thread per process for OpenMP and BLAS: pytest-xdist runs two workers on the book's 2-core
machine, and pools of two threads in each would oversubscribe it. scikit-learn's
HistGradientBoosting (OpenMP) then slows down by orders of magnitude whenever one of its
threads is descheduled. The notebooks are refreshed with the same settings
(``.ci/refresh-notebooks``), so the stored outputs and the re-runs agree.

nbval compares a check's value at the level of rounding noise as one token: ``compendium.page`` prints
it as measured, after ``≈`` (``max |error| ≈ 2.2e-16 ≤ 1e-10 ✓``), and its digits depend on the CPU
and its BLAS kernel. ``compendium.page.NBVAL_SANITIZE`` is handed to nbval as its sanitize file (with
the one given by ``--nbval-sanitize-with``, if any), wherever pytest is started from.
"""

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def pytest_configure(config: Any) -> None:
    if not (getattr(config.option, "nbval", False) or getattr(config.option, "nbval_lax", False)):
        return
    from compendium.page import NBVAL_SANITIZE

    given = getattr(config.option, "nbval_sanitize_with", None)
    text = Path(given).read_text(encoding="utf-8") if given else ""
    if NBVAL_SANITIZE in text:   # a pytest-xdist worker, handed the file its controller wrote
        return
    text = (text + "\n" if text else "") + NBVAL_SANITIZE
    # one small file per content, outside the repository (git status stays clean), reused by every run
    path = Path(tempfile.gettempdir()) / f"nbval-sanitize-{hashlib.sha256(text.encode()).hexdigest()[:16]}.cfg"
    if not path.is_file():
        part = path.with_name(f"{path.name}.{os.getpid()}")
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)
    config.option.nbval_sanitize_with = str(path)
