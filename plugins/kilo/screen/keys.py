"""The base game's keys: Space slaps, ``f`` feints, the digits and the arrows choose a card, Enter passes
it (RULES 1.2); with the keys every table has (``kdm.tui.keys.add_every_table_keys``) and its variants'
(``plugin_bindings``: the piles' digits, all_at_once's steering and GO), which win over the game's
while they are live.

Slap and feint keys stamp the press first thing: prompt_toolkit calls a handler synchronously from the
callback that reads the terminal, so the stamp is the moment the key was read (DESIGN 5.6). They work
with the help or the scoreboard open, since a slap cannot wait for the player to close a window; only
the quit question holds every key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import (
    DynamicKeyBindings,
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
    merge_key_bindings,
)

from kdm.plugins.kilo.screen.state import KiloPlay
from kdm.tui.keys import add_every_table_keys, drawn_with_commit, plugin_bindings

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

HAND_KEYS = "12345"


def kilo_bindings(play: KiloPlay) -> KeyBindingsBase:
    """Key bindings for the base game's screen; leaving the table exits the running application."""
    screen = play.screen
    bindings = KeyBindings()
    asking = Condition(lambda: screen.asking)
    overlay = Condition(lambda: screen.help_open or screen.scores_open)
    free = ~asking
    choosing = ~asking & ~overlay & Condition(lambda: not screen.over)

    @bindings.add(" ", filter=free)
    def _slap(event: KeyPressEvent) -> NotImplementedOrNone:
        pressed = screen.peer.clock.local_ms()
        return drawn_with_commit(event, play.slap(pressed))

    @bindings.add("f", filter=free)
    def _feint(event: KeyPressEvent) -> NotImplementedOrNone:
        pressed = screen.peer.clock.local_ms()
        return drawn_with_commit(event, play.feint(pressed))

    for index, key in enumerate(HAND_KEYS):

        @bindings.add(key, filter=choosing)
        def _choose(event: KeyPressEvent, index: int = index) -> None:
            play.choose(index)

    @bindings.add("left", filter=choosing)
    def _left(event: KeyPressEvent) -> None:
        play.move(-1)

    @bindings.add("right", filter=choosing)
    def _right(event: KeyPressEvent) -> None:
        play.move(1)

    @bindings.add("enter", filter=choosing)
    def _pass(event: KeyPressEvent) -> NotImplementedOrNone:
        return drawn_with_commit(event, play.pass_chosen())

    add_every_table_keys(bindings, screen)
    return merge_key_bindings([bindings, DynamicKeyBindings(plugin_bindings(screen, play))])
