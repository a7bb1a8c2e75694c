"""Every stored result's home: its constants, its unit of work, the claims it tests.

One module per result, imported by the notebook that shows it and by the thin command-line
script in ``scripts/`` that regenerates it (no notebook imports a script).

coal_grid
    The coalitional paper's Figures 1-2 grid (chapter 5, ``03-time-and-error``; ``scripts/coal_grid.py``).
coal_many
    Coalitional explanations on many attributes (chapter 5, ``04-many-attributes``; ``scripts/coal_many.py``).
"""
