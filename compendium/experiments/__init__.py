"""Every stored result's home: its constants, its unit of work, the claims it tests.

One module per result, imported by the notebook that shows it and, when the result takes a
long run, by the thin command-line script in ``scripts/`` that regenerates it (no notebook
imports a script). The maths modules of ``lib`` hold the methods only and never import
from here.

A module whose result takes a long run declares its stored results in a function ``units()``:
one :class:`compendium.regenerate.result.Result` per unit of its script (a data set, a seed, a pair:
the command that reruns it, the files of ``data/derived/`` it writes, what it reads, the
notebook that shows it, whether CI's ``--check --cheap`` reruns it) and its gather step, built
from the module's own constants. :mod:`compendium.regenerate` reads them (``python -m compendium.regenerate
--list``); a script whose units no module declares fails ``compendium/tests/test_regenerate.py``.

acv_lucas
    Amoukou & Brunel's ACV library beside the exact SDPs (chapter 3, ``06-acv``, which reads its
    tables; ``scripts/acv_lucas.py``), and the authors' own LUCAS demo refitted, on which
    ``03-swing-shapley-figure-1`` judges Figure 1.
coal_authors
    The authors' coalitional code run beside the book's, on the book's models, in a side environment
    (chapter 5, ``05-authors-code``; ``scripts/coal_authors.py``, worker ``scripts/_coal_authors_worker.py``).
coal_grid
    The coalitional paper's Figures 1-2 grid (chapter 5, ``03-time-and-error``; ``scripts/coal_grid.py``),
    and the paper's words about them, which ``02-groups``, ``04-many-attributes`` and the foundations'
    ``03-estimators`` test too.
coal_many
    Coalitional explanations on many attributes (chapter 5, ``04-many-attributes``; ``scripts/coal_many.py``).
comp_estimation
    The Shapley-composition estimators against the budget (chapter 2, ``06-estimation``;
    ``scripts/comp_estimation.py``); its Appendix D claim is tested in the foundations'
    ``03-estimators`` too.
estimator_games
    The estimators benchmark's games past exact enumeration, with exact values by another route
    (tree paths, a closed form) (chapter 0, ``03-estimators``, which checks the routes live and
    reads the stored run; ``benchmarks/estimators.py``).
nb_table1_cv
    Lemaire et al.'s Table 1, footnote 5: the cross-validated accuracy and AUC (chapter 1,
    ``04-table1-figure1``, which reads its table; ``scripts/nb_table1_cv.py``).
nb_table3_kernelshap
    Lemaire et al.'s Table 3, KernelSHAP against Eq. (L10) (chapter 1, ``03-kernelshap``;
    ``scripts/nb_table3_kernelshap.py``).
sklearn_versions
    The compositions authors' scikit-learn 1.3 beside the book's (chapter 2, ``03-iris``, which
    reads its table; ``scripts/sklearn_versions.py``).
sdp_figure1
    Amoukou & Brunel's claims about their Figure 1, as tests (chapter 3,
    ``03-swing-shapley-figure-1`` and ``04-estimated-sdp``; no script: computed in the notebooks).
tv_simulated
    The simulated designs of chapter 4's evaluation (chapter 4, ``02-simulated-evaluation``; no
    script: computed in the notebook).
tv_real_data
    The typical-value contributions against exact Shapley values on real data (chapter 4,
    ``03-real-data`` and ``04-verdict``; ``scripts/tv_real_data.py``; ``benchmarks/tv_speed.py``).
"""
