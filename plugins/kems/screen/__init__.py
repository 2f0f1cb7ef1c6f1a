"""Kem's table screen, given to the terminal client through the ``kdm_tui`` hook as a third party's
game would give its own: ``state`` (what the screen holds between key presses), ``layout``, ``keys``,
with ``panels`` and ``text`` (its words in English and French). The table screen shows it instead of
the base game's while the seat's view has a Kem's part (before the game, the waiting room is the same
for every game).

prompt_toolkit is imported only when a table screen asks for it, so that ``kdm sim`` and the bots do
not load the terminal client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdm.hookspecs import hookimpl
from kdm.plugins.kems.rules import NAME
from kdm.tui.extension import GameScreen, ScreenPart

if TYPE_CHECKING:
    from kdm.tui.state import TableScreen


def game_screen(screen: TableScreen) -> GameScreen:
    """The Kem's screen for one table screen."""
    from kdm.plugins.kems.screen.keys import kems_bindings
    from kdm.plugins.kems.screen.layout import build_kems
    from kdm.plugins.kems.screen.state import KemsPlay

    play = KemsPlay(screen)
    return GameScreen(build_kems(play), kems_bindings(play), lambda: play.active, play.on_notice, play)


@hookimpl
def kdm_tui() -> ScreenPart:
    return ScreenPart(NAME, screen=game_screen)
