"""The base game's table screen, given to the terminal client through the ``kdm_tui`` hook as a third
party's game would give its own (Kem's does too): ``state`` (what the screen holds between key
presses, and the ``Screen`` its variants' parts are given), ``layout``, ``keys`` and ``panels``. The
table screen shows it instead of the waiting room while the seat's view has the base game's part.

prompt_toolkit is imported only when a table screen asks for it, so that ``kdm sim`` and the bots do
not load the terminal client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdm.hookspecs import hookimpl
from kdm.plugins.kilo.rules import NAME
from kdm.tui.extension import GameScreen, ScreenPart

if TYPE_CHECKING:
    from kdm.tui.state import TableScreen

#: How each of the base game's effects is styled in the log (its ``ScreenPart.log_styles``; a
#: variant's adds its own); the rest are plain.
LOG_STYLES = {
    "slapped": "slap",
    "feinted": "feint",
    "window_closed": "result",
    "hand_shown": "result",
    "judged": "result",
    "drew": "result",
    "passing_started": "call",
    "round_over": "round",
    "game_over": "round",
}
#: Effects that flash a banner: effect kind → the prefix of its words (its ``ScreenPart.flashes``; a
#: variant's adds its own: spoons' grab).
FLASHES = {"slapped": "slap"}


def game_screen(screen: TableScreen) -> GameScreen:
    """The base game's screen for one table screen."""
    from kdm.plugins.kilo.screen.keys import kilo_bindings
    from kdm.plugins.kilo.screen.layout import build_kilo
    from kdm.plugins.kilo.screen.state import KiloPlay

    play = KiloPlay(screen)
    return GameScreen(build_kilo(play), kilo_bindings(play), lambda: play.active, play.on_notice, play, play)


@hookimpl
def kdm_tui() -> ScreenPart:
    from kdm.plugins.kilo.screen.text import WORDS

    return ScreenPart(NAME, screen=game_screen, log_styles=LOG_STYLES, flashes=FLASHES, words=WORDS)
