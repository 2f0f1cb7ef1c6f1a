"""The Kem's table screen's keys.

``1``-``4`` mark hand cards, ``5``-``8`` table cards, Enter exchanges them, Esc clears the marks; ``g``
opens the gesture menu (``a``-``l``); ``k`` calls « Kem's ! », ``d`` « Double Kem's ! », ``c`` asks for
the opponent's seat number and calls « Contre Kem's ! » on them; ``b`` asks « Balayage ? » and ``y``
(``o``) / ``n`` answer it; ``t`` opens the sign chooser (letters, Tab for the pre-sign, Enter sends it
to the partner); ``s``, ``?`` and ``q`` as at every table (``keys.add_every_table_keys``). Gestures and
calls stamp the press first thing, like a slap (``keys``), and work with help or the scores open; a
chooser (menu, opponent, sign) holds the letters and digits until it is closed; the quit question holds
every key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import (
    KeyBindings,
    KeyPressEvent,
)

from kdm.plugins.kems.screen.state import GESTURE_KEYS, HAND_KEYS, TABLE_KEYS, KemsPlay
from kdm.tui.keys import add_every_table_keys, drawn_with_commit
from kdm.tui.text import is_yes

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

SEAT_KEYS = "0123456789"
#: The keys that answer a sweep question: yes in either language (``is_yes``), or no.
ANSWER_KEYS = ("y", "o", "n")


def kems_bindings(play: KemsPlay) -> KeyBindings:
    """Key bindings for a Kem's table; leaving the table exits the running application."""
    screen = play.screen
    bindings = KeyBindings()
    asking = Condition(lambda: screen.asking)
    overlay = Condition(lambda: screen.help_open or screen.scores_open)
    over = Condition(lambda: screen.over)
    menu = ~asking & Condition(lambda: play.menu_open)
    target = ~asking & Condition(lambda: play.choosing_target)
    signs = ~asking & Condition(lambda: play.signs_open)
    modal = Condition(lambda: play.modal)
    free = ~asking & ~modal & ~over
    marking = free & ~overlay
    sweep_question = free & Condition(play.asked_to_sweep)

    for index, key in enumerate(HAND_KEYS):

        @bindings.add(key, filter=marking)
        def _hand(event: KeyPressEvent, index: int = index) -> None:
            play.mark_hand(index)

    for index, key in enumerate(TABLE_KEYS):

        @bindings.add(key, filter=marking)
        def _table(event: KeyPressEvent, index: int = index) -> None:
            play.mark_table(index)

    @bindings.add("enter", filter=marking)
    def _exchange(event: KeyPressEvent) -> NotImplementedOrNone:
        return drawn_with_commit(event, play.exchange())

    @bindings.add("g", filter=free)
    def _menu(event: KeyPressEvent) -> None:
        play.open_menu()

    for index, key in enumerate(GESTURE_KEYS):

        @bindings.add(key, filter=menu)
        def _gesture(event: KeyPressEvent, index: int = index) -> NotImplementedOrNone:
            pressed = screen.peer.clock.local_ms()
            return drawn_with_commit(event, play.make_gesture(index, pressed))

    @bindings.add("k", filter=free)
    def _kems(event: KeyPressEvent) -> NotImplementedOrNone:
        pressed = screen.peer.clock.local_ms()
        return drawn_with_commit(event, play.call("kems", pressed))

    @bindings.add("d", filter=free)
    def _double(event: KeyPressEvent) -> NotImplementedOrNone:
        pressed = screen.peer.clock.local_ms()
        return drawn_with_commit(event, play.call("double", pressed))

    @bindings.add("c", filter=free)
    def _contre(event: KeyPressEvent) -> None:
        play.choose_target()

    for seat, key in enumerate(SEAT_KEYS):

        @bindings.add(key, filter=target)
        def _accused(event: KeyPressEvent, seat: int = seat) -> NotImplementedOrNone:
            pressed = screen.peer.clock.local_ms()
            return drawn_with_commit(event, play.call("contre", pressed, target=seat))

    @bindings.add("b", filter=free)
    def _sweep(event: KeyPressEvent) -> NotImplementedOrNone:
        return drawn_with_commit(event, play.ask_sweep())

    for key in ANSWER_KEYS:

        @bindings.add(key, filter=sweep_question)
        def _answer_sweep(event: KeyPressEvent) -> NotImplementedOrNone:
            if is_yes(screen.lang, event.data):
                return drawn_with_commit(event, play.answer_sweep(True))
            if event.data == "n":
                return drawn_with_commit(event, play.answer_sweep(False))
            return None

    @bindings.add("t", filter=free)
    def _signs(event: KeyPressEvent) -> None:
        play.open_signs()

    for index, key in enumerate(GESTURE_KEYS):

        @bindings.add(key, filter=signs)
        def _sign(event: KeyPressEvent, index: int = index) -> None:
            play.pick_sign(index)

    @bindings.add("tab", filter=signs)
    def _sign_field(event: KeyPressEvent) -> None:
        play.next_sign_field()

    @bindings.add("enter", filter=signs)
    def _send_signs(event: KeyPressEvent) -> None:
        play.send_signs()

    @bindings.add("escape", filter=~asking & ~overlay)
    def _close(event: KeyPressEvent) -> None:
        play.close()

    add_every_table_keys(bindings, screen, chooser=modal)
    return bindings
