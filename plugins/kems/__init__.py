"""Kem's, the team game with secret signs (RULES 3), as a game mode like any other: the entry point
``kems``. It replaces the base game at a table.

``rules`` holds the game's public data and every hook that plays it; ``events`` what players and the
table do; ``effects`` what the rules say happened, as typed records; ``view`` what a seat sees (with its
team's privately agreed signs), the winners and the summary; ``bots`` its bots; ``text`` what the table
says, in English and French; ``screen`` the table screen people play it on, given to the terminal client
through the ``kdm_tui`` hook. The core reaches the game only through the hooks these modules implement.
"""

from __future__ import annotations

KDM_MODE = True
#: The game's name on screen (the lobby's form and list).
KDM_TITLE = "Kem's"
KDM_MODULES = (
    "kdm.plugins.kems.rules",
    "kdm.plugins.kems.view",
    "kdm.plugins.kems.bots",
    "kdm.plugins.kems.text",
    "kdm.plugins.kems.screen",
)
