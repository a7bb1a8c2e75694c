"""``python -m lib.data``: see :mod:`lib.data.cli`."""

import sys

from lib.data.cli import main

sys.exit(main())
