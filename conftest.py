"""Settings shared by every test process and by the notebook kernels nbval starts.

One thread per process for OpenMP and BLAS: pytest-xdist runs two workers on the book's 2-core
machine, and pools of two threads in each would oversubscribe it. scikit-learn's
HistGradientBoosting (OpenMP) then slows down by orders of magnitude whenever one of its
threads is descheduled. The notebooks are refreshed with the same settings
(``.ci/refresh-notebooks``), so the stored outputs and the re-runs agree.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
