"""Every hook the core calls. Names start with ``kdm_``.

The core (the engine, the table record, the peer, the simulation) is game-neutral: seats, tokens, zones,
phases, the event loop. Everything a game means is a plugin, found through the entry-point group ``kdm``
(``kdm.manager``): a game mode (the base Kilo de merde in ``kdm.plugins.kilo``, Kem's in
``kdm.plugins.kems``, or
a third party's), then the table's variants and house rules. pluggy calls the plugin registered *last*
first, so a variant overrides its game by implementing the same ``firstresult`` hook, or wraps it with
``@hookimpl(wrapper=True)``.

A game adds the hooks its own rules ask (``kdm_addhooks``, the way pytest plugins add hooks): the base
game's are in ``kdm.plugins.kilo.hookspecs``, and its variants (``kdm.plugins``) implement those as a house
rule of a third party would. The reference in ``docs/plugins.md`` lists both.

A plugin module may set ``KDM_MODE = True`` (it is a game mode: a table plays one),
``KDM_REQUIRES = ("name", ...)`` (plugins that come with it whenever a table picks it: a variant of the
base game requires ``kilo``) and ``KDM_MODULES = ("package.module", ...)`` (further modules of the same
plugin, registered after it: a game's bots, its words, its views).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from kdm.agents import Bot, Decision
    from kdm.deck import Knowledge, PrivateNote
    from kdm.engine import Duty, Effect, Engine
    from kdm.events import Event
    from kdm.names import SeatNames
    from kdm.options import TableOption
    from kdm.state import TableState
    from kdm.tui.extension import ScreenPart

PROJECT = "kdm"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


# --- the table ------------------------------------------------------------------------------------


@hookspec(historic=True)
def kdm_addhooks(pluginmanager: pluggy.PluginManager) -> None:
    """Add the hook specs this plugin's own rules call, with ``pluginmanager.add_hookspecs(module)``,
    so that the table's other plugins can implement them (the base game adds ``kdm.plugins.kilo.hookspecs``).

    **historic**: called once for every plugin as it is registered, before its other hooks are checked.
    A game's hook names start with ``kdm_`` too and must not clash with another game's.
    """
    raise NotImplementedError


@hookspec
def kdm_table_options() -> list[TableOption]:
    """The table options this plugin declares (name, type, default, help).

    Called once per table, on every plugin; results are concatenated. An option name must be unique
    across the table's plugins.
    """
    raise NotImplementedError


@hookspec
def kdm_event_types() -> list[type[Event]]:
    """The event classes this plugin brings (each with a unique ``kind``). All results are used."""
    raise NotImplementedError


@hookspec
def kdm_check_table(players: int, options: dict[str, Any], plugins: list[str]) -> str | None:
    """Refuse a table: return one line saying why (and what is allowed), or None to accept.

    Called at table creation with the resolved options and the names of every plugin of the table.
    Any non-None answer refuses the table; the first one is shown.
    """
    raise NotImplementedError


@hookspec
def kdm_option_defaults(players: int) -> dict[str, Any] | None:
    """Option values this plugin chooses for its table (a preset such as ``classic``), or None.

    Called once per table, before the options are resolved: a value the table is given explicitly
    still wins. Two plugins choosing different values for one option is an error naming both.
    """
    raise NotImplementedError


@hookspec
def kdm_setup_table(state: TableState) -> None:
    """Add this plugin's public data to a new table (``state.rules[name] = ...``). Called once."""
    raise NotImplementedError


# --- the event loop -------------------------------------------------------------------------------


@hookspec(firstresult=True)
def kdm_apply(engine: Engine, event: Event) -> Sequence[Effect] | None:
    """Apply ``event`` to ``engine.state``: return what happened, or None if this plugin does not
    handle events of that kind.

    ``firstresult``: the first plugin that returns a list wins. Raise ``IllegalAction(reason)``
    *before* changing anything when the event is not allowed now. ``engine.state.seq`` is the
    event's own sequence number while it is applied.

    What happened is a list of effects: plain dicts with a ``kind``, which every plugin and screen
    reads as a read-only mapping (``kdm.effects.Effect``). A game declares each of its kinds as a
    ``TypedDict`` with ``kind: Literal[...]`` and annotates its rules with their union, so a type
    checker checks every effect they build; the kinds the core reads (``shuffled``, ``shown_privately``,
    ``dealt``, ``game_over``) are declared in ``kdm.effects``, to use as they are or to extend.

    An effect may say which bots it concerns, so that the others do not look again (``kdm.driver``):
    ``"wake": (seats...)`` (``()`` for none), and ``"replan": True`` when it may have made a bot's plan
    wrong (every seat with a plan looks again too). An effect without ``wake`` concerns every seat.
    Every record derives from ``kdm.effects.Hints``, which declares both.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_awaiting(state: TableState) -> list[Duty] | None:
    """What the table waits for from outside the players: seeds, reveals, draws, timers.

    ``firstresult``. Called after each event by the driver (``kdm sim``, the peer); an empty list
    means the table waits only for the players.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_player_may_return(state: TableState, seat: int) -> bool | None:
    """Whether the player of ``seat``, back after their process died or lost the network, may take the
    seat back now from the bot that stood in for them.

    ``firstresult``; when no plugin answers, they may. Answer False in the middle of something the bot
    began and must finish: the base game says False while a slap window is open (a reaction would be
    timed by one player and made by another), Kem's while a call is raced or answered. Asked by the
    table record after every entry while a player waits to come back; the seat changes hands at the
    first entry after which the answer is yes, the same one on every peer.
    """
    raise NotImplementedError


@hookspec
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any] | None:
    """This plugin's part of a seat's view: ``(name, data)`` built from public state and the seat's
    own ``knowledge`` only. All results are collected into ``SeatView.rules``.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_reveal(duty: Duty, state: TableState, faces: Mapping[int, str]) -> Event | None:
    """The event that fulfils ``duty`` when only a process that knows faces can build it (who holds
    the Queen of hearts, a hand turned up, a card drawn, a hand checked at the deal, two cards shown to
    one player), or None when the faces it needs are not known here.

    ``faces`` are the faces the fulfilling process knows. ``firstresult``. Asked by the drivers for
    every duty that is neither a seed nor a timer; a duty of no seat in particular (the base game's
    ``announce``) is fulfilled by the seat the event names. The base game answers for ``announce``,
    ``show_hand`` and ``draw``, Kem's for its own; a game mode answers for every duty it awaits.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_claimed_faces(event: Event) -> Mapping[int, str] | None:
    """The faces an event shows the table (cards laid face up and named, a hand turned up, a card
    drawn), token → face, or None when it names none. ``firstresult``.

    With the open deck every peer knows the true faces, so the table refuses an event that claims a
    false one, the same way on every peer, with its reason (issue 12); an event that fulfils a duty
    (``kdm_reveal``) is also rebuilt from the true faces and compared. With the fair deck (DESIGN 7) the
    acting process attaches the keys of every face this names that the table has not seen, and the
    table checks the faces against them: a face an event shows without answering here is taken on
    trust until the round's audit. The base game answers for ``show_hand`` and ``draw``, Kem's for its
    cards laid, turned and shown; a game whose players name cards answers for its events.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_false_claim(event: Event, state: TableState, faces: Mapping[int, str]) -> str | None:
    """Why what ``event`` says of cards nobody has shown is false, or None: an action that answers for
    a hidden hand without naming its faces (a Kem's accused who shows two cards says its hand is no four
    of a kind, and that the two are of different ranks). ``firstresult``.

    ``faces`` are the faces the table's deck reads here: every one with the open deck, so the table
    refuses a false claim on every peer alike, with its reason; with the fair deck only those shown to
    the table, so answer None when a face you need is missing. Asked before the rules apply an action,
    after the faces it names are checked (``kdm_claimed_faces``). Kem's answers for its ``show_two``.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_winners(state: TableState) -> list[int] | None:
    """The winning seats of a finished game (ties share the win). ``firstresult``."""
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_summary(state: TableState) -> dict[str, Any] | None:
    """The game mode's part of a finished game's summary (what ``kdm sim --json`` prints beside
    ``players``, ``seed``, ``events``, ``seconds`` and ``digest``). ``firstresult``.
    """
    raise NotImplementedError


# --- people and bots ------------------------------------------------------------------------------


@hookspec(firstresult=True)
def kdm_chat_refused(state: TableState, seat: int, text: str) -> str | None:
    """Why the table refuses the chat line ``text`` from ``seat`` now (a game may want silence at times,
    say while a round is being played), or None to let it be said. Every peer asks it
    when the line is applied, so a refused line is refused everywhere, with this reason. ``firstresult``.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_note_refused(state: TableState, note: PrivateNote) -> str | None:
    """Why the table takes no private note ``note`` (``kdm.deck.PrivateNote``, between two seats) now,
    or None to take it. Asked where a note is written and where it arrives: a refused one is dropped
    there, logged with the reason, and never reaches either seat's knowledge. A note never enters the
    log, but what it says of itself proves nothing: a game that closes notes at some point has the log
    commit a digest of the notes written in time (Kem's ``TeamReady`` does, salted so that the digest
    tells nothing) and takes, afterwards, only a note whose digest is there. ``firstresult``.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_describe(effect: Effect, lang: str, names: SeatNames) -> str | None:
    """One line for people about an effect, in ``lang`` (``en`` or ``fr``), or None. ``firstresult``.

    ``names[seat]`` is what to call a seat (``kdm.names.SeatNames``: the player's name, else "seat N"),
    and ``names.listed(seats)`` says several as a sentence does: a line speaks of people by name.
    """
    raise NotImplementedError


@hookspec
def kdm_rules_text(lang: str) -> str | None:
    """This plugin's rules for people, in ``lang`` (``en`` or ``fr``), for the table's rules screen: a
    title line, then short paragraphs (a blank line between them). Every plugin of the table answers
    for itself; the screen shows the game's first, then each house rule's. Say what a player needs to
    know to play, not how the code does it; name the options a table may change.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_bot_decide(view: Any, bot: Bot) -> Decision | None:
    """What ``bot`` does next, from its seat ``view`` only: a decision, or None to wait.

    ``firstresult``: the game mode's plugin answers; a variant answers first for its own actions.
    """
    raise NotImplementedError


@hookspec
def kdm_tui() -> ScreenPart | None:
    """What this plugin adds to the terminal table for people: keys, lines on the table panel, marks
    on the players' rows, the hand's status line, footer hints, help lines and their words in English
    and French (``kdm.tui.extension.ScreenPart``), or None.

    Asked once by the table screen when the table is known; every answer is used, in registration
    order. A house rule with an action of its own answers here, so that a person can play it.
    """
    raise NotImplementedError
