"""Kilo de merde, the base game, as a plugin like any other (RULES 1 and 2): the entry point ``kilo``.

``rules`` holds the game's public data and every hook that plays it; ``events`` what players and the
table do; ``effects`` what the rules say happened, as typed records; ``bots`` its greedy and random
bots; ``calls`` what the table says, in English and French; ``hookspecs`` the hooks its rules ask, which
its variants implement; ``testing`` a scripted table for its rule tests and for house rules';
``screen`` the table screen people play it on, given to the terminal client through the ``kdm_tui`` hook.
The core
(``kdm.engine``, ``kdm.record``, ``kdm.peer`` ...) reaches the game only through the hooks these modules
implement.
"""

from __future__ import annotations

import pluggy

from kdm.hookspecs import hookimpl
from kdm.plugins.kilo import hookspecs

KDM_MODE = True
#: The game's name on screen (the lobby's form and list).
KDM_TITLE = "Kilo de merde"
#: A table that picks no game plays this one.
KDM_DEFAULT = True
KDM_MODULES = (
    "kdm.plugins.kilo.rules",
    "kdm.plugins.kilo.bots",
    "kdm.plugins.kilo.calls",
    "kdm.plugins.kilo.screen",
)


@hookimpl
def kdm_addhooks(pluginmanager: pluggy.PluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)
