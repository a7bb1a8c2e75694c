"""``python -m compendium.regenerate``: see :mod:`compendium.regenerate.cli`."""

from compendium.regenerate.cli import main

raise SystemExit(main())
