"""The command line that starts another kdm process on this machine (a bot, a selfplay peer).

``python -m kdm`` puts the current directory first on ``sys.path``, so a folder named ``kdm`` there (a
clone of this repository, when the player runs ``kdm/.venv/bin/kdm`` from its parent) is imported
instead of the installed package, and the child dies before it says anything. ``-P`` would drop that
entry, but only from Python 3.11: the child runs a two-line ``-c`` program that drops it itself, and
stays in the parent's directory, where the relative paths it is given still lead.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: ``-c`` puts "" (the current directory) first on sys.path, unless -P or PYTHONSAFEPATH left it out.
_LAUNCHER = (
    "import sys\n"
    "if sys.path and sys.path[0] == '':\n"
    "    del sys.path[0]\n"
    "from kdm.cli import main\n"
    "sys.exit(main())\n"
)


def kdm_command(arguments: Sequence[str]) -> list[str]:
    """The argv that runs ``kdm ARGUMENTS`` with this interpreter, whatever the current directory holds."""
    return [sys.executable, "-c", _LAUNCHER, *arguments]
