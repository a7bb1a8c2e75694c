"""Every stored result's home: its constants, its unit of work, the claims it tests.

One module per result, imported by the notebook that shows it and, when the result takes a
long run, by the thin command-line script in ``scripts/`` that regenerates it (no notebook
imports a script). The maths modules of ``lib`` hold the methods only and never import
from here.

coal_authors
    The authors' coalitional code run beside the book's, on the book's models, in a side environment
    (chapter 5, ``05-authors-code``; ``scripts/coal_authors.py``, worker ``scripts/_coal_authors_worker.py``).
coal_grid
    The coalitional paper's Figures 1-2 grid (chapter 5, ``03-time-and-error``; ``scripts/coal_grid.py``).
coal_many
    Coalitional explanations on many attributes (chapter 5, ``04-many-attributes``; ``scripts/coal_many.py``).
comp_estimation
    The Shapley-composition estimators against the budget (chapter 2, ``06-estimation``;
    ``scripts/comp_estimation.py``).
nb_table3_kernelshap
    Lemaire et al.'s Table 3, KernelSHAP against eq. 10 (chapter 1, ``03-kernelshap``;
    ``scripts/nb_table3_kernelshap.py``).
sdp_figure1
    Amoukou & Brunel's claims about their Figure 1, as tests (chapter 3,
    ``03-swing-shapley-figure-1`` and ``04-estimated-sdp``; no script: computed in the notebooks).
tv_simulated
    The simulated designs of chapter 4's evaluation (chapter 4, ``02-simulated-evaluation``; no
    script: computed in the notebook).
tv_real_data
    The typical-value contributions against exact Shapley values on real data (chapter 4,
    ``03-real-data`` and ``04-verdict``; ``scripts/tv_real_data.py``).
"""
