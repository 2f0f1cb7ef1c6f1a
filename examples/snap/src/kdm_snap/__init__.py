"""Snap, a whole game for kdm in one package, built from kdm's core alone (no module of the base
game's or Kem's): the entry point ``snap``.

``rules`` holds the game's public data and every hook that plays it; ``events`` what players and the
table do; ``effects`` what the rules say happened, as typed records; ``view`` what a seat sees of it;
``bots`` its greedy and random bots; ``text`` its words for the log and its rules, in English and
French; ``screen`` the table screen people play it on, given to the terminal client through
``kdm_tui``.
"""

from __future__ import annotations

KDM_MODE = True
#: The game's name on screen (the lobby's form and list).
KDM_TITLE = "Snap"
KDM_MODULES = (
    "kdm_snap.rules",
    "kdm_snap.view",
    "kdm_snap.bots",
    "kdm_snap.text",
    "kdm_snap.screen",
)
