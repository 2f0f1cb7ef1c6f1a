"""Snap's keys: Enter (or ``t``) turns the top card of your pile on your turn, Space slaps the centre;
with the keys every table has (``kdm.tui.keys.add_every_table_keys``).

The slap key stamps the press first thing: prompt_toolkit calls a handler synchronously from the
callback that reads the terminal, so the stamp is the moment the key was read (DESIGN 5.6). It works
with the help or the scoreboard open, since a slap cannot wait for the player to close a window; only
the quit question, and the chat line being typed, hold it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from kdm.tui.keys import add_every_table_keys, drawn_with_commit
from kdm_snap.screen.state import SnapPlay

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

TURN_KEYS = ("enter", "t")


def snap_bindings(play: SnapPlay) -> KeyBindings:
    """Key bindings for a Snap table; leaving the table exits the running application."""
    screen = play.screen
    bindings = KeyBindings()
    asking = Condition(lambda: screen.asking)
    chatting = Condition(lambda: screen.chat_draft is not None)
    overlay = Condition(lambda: screen.help_open or screen.scores_open)
    over = Condition(lambda: screen.over)
    free = ~asking & ~chatting & ~over

    @bindings.add(" ", filter=free)
    def _slap(event: KeyPressEvent) -> NotImplementedOrNone:
        pressed = screen.peer.clock.local_ms()
        return drawn_with_commit(event, play.slap(pressed))

    for key in TURN_KEYS:

        @bindings.add(key, filter=free & ~overlay)
        def _turn(event: KeyPressEvent) -> NotImplementedOrNone:
            return drawn_with_commit(event, play.flip())

    add_every_table_keys(bindings, screen)
    return bindings
