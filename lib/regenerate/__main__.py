"""``python -m lib.regenerate``: see :mod:`lib.regenerate.cli`."""

from lib.regenerate.cli import main

raise SystemExit(main())
