"""The table screen's keys, gated by what is on screen (the quit question, an overlay, the game's end).

Help, scores, the log, chat, the table's questions and leaving are every game's keys
(``add_every_table_keys``: the waiting room's, the base game's and Kem's screens have them); the waiting
room adds ``b`` (a bot). A game's own keys are its screen's (``ScreenPart.screen``). A key that sends an
action does not redraw at once: its commit does (``drawn_with_commit``). A house rule's keys
(``ScreenPart.keys``: the piles' digits, all_at_once's steering and GO) come from its screen part, woven
into its game's by ``plugin_bindings``, and win over the game's while they are live.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition, FilterOrBool, to_filter
from prompt_toolkit.key_binding import (
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
)
from prompt_toolkit.keys import Keys

from kdm.tui.extension import Key, Screen, ScreenPart
from kdm.tui.state import TableScreen
from kdm.tui.text import is_yes

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

#: An action sent is drawn with its commit. Drawing "sent" at once would hold the loop for a redraw
#: while the commit's messages wait; the feedback is drawn after this only if the commit is slow.
FEEDBACK_AFTER_S = 0.05
#: How long a lone Esc waits before it acts. A terminal sends "\x1b" alone for Esc and "\x1b[C" for
#: an arrow, so prompt_toolkit waits to tell them apart (0.5 s unless told): an arrow's bytes come in
#: one write, far within this, and Esc then closes an overlay at once. No binding here is a sequence
#: of keys, so nothing waits for a second key either.
ESCAPE_WAIT_S = 0.05


#: How many log lines PgUp and PgDn scroll.
LOG_PAGE = 8
#: Lines a PgUp or PgDn scrolls the help or the scores by.
OVERLAY_PAGE = 10


def answer_escape_at_once(application: Application[Any]) -> None:
    """Make a lone Esc act within ``ESCAPE_WAIT_S`` in ``application`` (the table's and the lobby's)."""
    application.ttimeoutlen = ESCAPE_WAIT_S
    application.timeoutlen = ESCAPE_WAIT_S


def drawn_with_commit(event: KeyPressEvent, sent: bool) -> NotImplementedOrNone:
    """What a handler returns after an action: no redraw now if it was sent, else the usual one."""
    if not sent:
        return None
    asyncio.get_running_loop().call_later(FEEDBACK_AFTER_S, event.app.invalidate)
    return NotImplemented


def table_bindings(screen: TableScreen) -> KeyBindingsBase:
    """Key bindings for the waiting room (and a game without a screen of its own); leaving the table
    exits the running application."""
    bindings = KeyBindings()
    free = ~Condition(lambda: screen.asking)

    @bindings.add("b", filter=free)
    def _bot(event: KeyPressEvent) -> None:
        screen.add_bot()

    add_every_table_keys(bindings, screen)
    return bindings


def plugin_bindings(screen: TableScreen, given: Screen) -> Callable[[], KeyBindings]:
    """The keys the table's plugins add (``ScreenPart.keys``), live while their ``when`` holds and the
    screen is free for play, made again only when the table's parts change (once it is known); their
    handlers are given the game's screen (``given``). Added after the game's, they win over a game key
    while they are live (a digit chooses a pile instead of a card)."""
    made: list[tuple[list[ScreenPart], KeyBindings]] = []
    playing = Condition(lambda: not screen.asking and not screen.help_open and not screen.scores_open)

    def current() -> KeyBindings:
        parts = screen.parts
        if made and made[0][0] is parts:
            return made[0][1]
        bindings = KeyBindings()
        for key in (key for part in parts for key in part.keys):
            live = playing & Condition(partial(key.when, given))
            for name in key.keys:

                @bindings.add(name, filter=live)
                def _plugin(event: KeyPressEvent, key: Key = key, name: str = name) -> NotImplementedOrNone:
                    return drawn_with_commit(event, key.act(given, name))

        made[:] = [(parts, bindings)]
        return bindings

    return current


def add_every_table_keys(bindings: KeyBindings, screen: TableScreen, chooser: FilterOrBool = False) -> None:
    """Add the keys every game's table has to ``bindings``: ``?`` help, ``s`` scores, Esc closes them,
    Enter leaves once the game is over, ``q`` (or Ctrl-C) asks to leave, and any key answers; ``G``
    (a capital, not to be pressed by chance) goes on without the laptops not heard from while the table
    cannot commit. While
    ``chooser`` holds the letters (a game's own menu), ``s`` and ``q`` are the chooser's."""
    asking = Condition(lambda: screen.asking)
    chatting = Condition(lambda: screen.chat_draft is not None)
    overlay = Condition(lambda: screen.help_open or screen.scores_open)
    free = ~asking
    letters = free & ~to_filter(chooser)

    @bindings.add("enter", filter=free & Condition(lambda: screen.over))
    def _leave_after_game(event: KeyPressEvent) -> None:
        screen.left = True
        event.app.exit()

    @bindings.add("?", filter=free)
    def _help(event: KeyPressEvent) -> None:
        screen.toggle_help()

    @bindings.add("s", filter=letters)
    def _scores(event: KeyPressEvent) -> None:
        screen.toggle_scores()

    @bindings.add("escape", filter=free & overlay)
    def _close(event: KeyPressEvent) -> None:
        screen.close_overlays()

    # PgUp and PgDn scroll the log, or the help or scores window while one is open (↑ and ↓ too, then).
    @bindings.add("pageup", filter=free & ~overlay)
    def _older(event: KeyPressEvent) -> None:
        screen.scroll_log(LOG_PAGE)

    @bindings.add("pagedown", filter=free & ~overlay)
    def _newer(event: KeyPressEvent) -> None:
        screen.scroll_log(-LOG_PAGE)

    @bindings.add("pageup", filter=free & overlay)
    def _overlay_up(event: KeyPressEvent) -> None:
        screen.scroll_overlay(-OVERLAY_PAGE)

    @bindings.add("pagedown", filter=free & overlay)
    def _overlay_down(event: KeyPressEvent) -> None:
        screen.scroll_overlay(OVERLAY_PAGE)

    @bindings.add("up", filter=free & overlay)
    def _overlay_line_up(event: KeyPressEvent) -> None:
        screen.scroll_overlay(-1)

    @bindings.add("down", filter=free & overlay)
    def _overlay_line_down(event: KeyPressEvent) -> None:
        screen.scroll_overlay(1)

    @bindings.add("q", filter=letters)
    @bindings.add("c-c", filter=free)
    def _quit(event: KeyPressEvent) -> None:
        if screen.ask_quit():
            event.app.exit()

    @bindings.add("G", filter=free & Condition(lambda: bool(screen.stranded)))
    def _go_on(event: KeyPressEvent) -> None:
        screen.go_on_without_them()

    @bindings.add("L", filter=free & Condition(lambda: screen.at_the_door is not None))
    def _let_in(event: KeyPressEvent) -> None:
        screen.let_in_at_the_door()

    @bindings.add("/", filter=free & ~overlay)
    def _chat(event: KeyPressEvent) -> None:
        screen.open_chat()

    @bindings.add("<any>", filter=chatting)
    def _type(event: KeyPressEvent) -> None:
        key = event.key_sequence[-1].key
        screen.type_chat(key.value if isinstance(key, Keys) else key, event.data)

    @bindings.add("<any>", filter=asking & ~chatting)
    def _answer(event: KeyPressEvent) -> None:
        # q or Ctrl-C again while "Leave?" is up means leave: pressing quit twice must quit.
        quit_again = screen.confirm_quit and event.key_sequence[-1].key in ("q", Keys.ControlC)
        yes = quit_again or is_yes(screen.lang, event.data)
        if screen.answer_watch(yes) if screen.watch_offer else screen.answer_quit(yes):
            event.app.exit()
