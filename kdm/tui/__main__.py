"""``python -m kdm.tui [ARGS]``: ``kdm play`` without the rest of the command line."""

import sys

from kdm.tui.command import main

sys.exit(main())
