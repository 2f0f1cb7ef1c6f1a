"""Snap's table screen, given to the terminal client through the ``kdm_tui`` hook: ``state`` (what the
screen holds between key presses: the last slap and the last window's result; the key methods),
``layout`` (the table screen's own, ``kdm.tui.layout.table_layout``, with Snap's panels), ``keys``,
``panels`` and ``text`` (its words in English and French). The table screen shows it instead of the
waiting room while the seat's view has Snap's part.

prompt_toolkit is imported only when a table screen asks for it, so that ``kdm sim`` and the bots do
not load the terminal client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdm.hookspecs import hookimpl
from kdm.tui.extension import GameScreen, ScreenPart
from kdm_snap.rules import NAME

if TYPE_CHECKING:
    from kdm.tui.state import TableScreen

#: How the log shows Snap's effects (the rest are plain).
LOG_STYLES = {
    "slapped": "slap",
    "slap_judged": "result",
    "player_out": "call",
    "round_over": "round",
    "game_over": "round",
}
#: A slap that opens a window rings the bell of the others' screens, as a slap does in every game.
FLASHES = {"slapped": "snap"}


def game_screen(screen: TableScreen) -> GameScreen:
    """Snap's screen for one table screen."""
    from kdm_snap.screen.keys import snap_bindings
    from kdm_snap.screen.layout import build_snap
    from kdm_snap.screen.state import SnapPlay

    play = SnapPlay(screen)
    return GameScreen(build_snap(play), snap_bindings(play), lambda: play.active, play.on_notice, play)


@hookimpl
def kdm_tui() -> ScreenPart:
    from kdm_snap.screen.text import WORDS

    return ScreenPart(NAME, screen=game_screen, log_styles=LOG_STYLES, flashes=FLASHES, words=WORDS)
