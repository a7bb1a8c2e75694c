"""``python -m compendium.data``: see :mod:`compendium.data.cli`."""

import sys

from compendium.data.cli import main

sys.exit(main())
