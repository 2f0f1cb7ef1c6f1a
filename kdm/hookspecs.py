"""Every hook a rules plugin can implement. Names start with ``kdm_``.

The engine is a small generic core (seats, tokens, zones, phases, the event loop). Everything a game
means is a plugin: the base Kilo de merde rules (``kdm.kilo``) are registered first, then the table's
variants, then third-party house rules (see ``kdm.manager`` for the order). pluggy calls the plugin
registered *last* first, so a variant overrides the base by implementing the same ``firstresult`` hook,
or wraps it with ``@hookimpl(wrapper=True)``.

How the built-in variants use these hooks, so that none of them needs a special case in the core
(each module in ``kdm.plugins`` says more):

- ``all_at_once``: registers ``Steer`` and ``Go`` (``kdm_event_types``); its ``kdm_apply`` answers
  first for ``pass`` (which only *chooses* a card), ``steer`` and ``go`` (every chosen card moves at
  once; the table picks from the round's agreed seed for who did not choose); ``kdm_awaiting`` asks
  for a timer ``go`` duty with ``go_interval_ms``; every moment between GOs is a checkpoint because
  every hand holds 4. ``kdm_bot_decide`` answers for the passing phase.
- ``spoons``: registers ``Grab`` and refuses ``Slap``; ``kdm_window_complete`` closes the window at the
  N-1th grab (after ``grab_grace_ms``, asked as a ``close`` timer by ``kdm_awaiting``); the base judge
  already makes the seat without an object the loser (earlier effective time wins a race). A
  ``kdm_bot_decide`` wrapper turns the base bots' slaps into grabs.
- ``piles``: ``kdm_pile_zones`` cuts the pile into N-1 zones; registers ``ChoosePile``; while a loser
  has not chosen, ``kdm_awaiting`` waits for the player, then asks for the draw from that pile; the
  base game flushes under the pile drawn from.
- ``jokers``: a ``kdm_deck`` wrapper adds two jokers to the pile; ``kdm_card_kilos`` values them.
- ``seven_in_reserve``: ``kdm_draw`` keeps a first 7 in reserve (worth 0) and flushes it at the next draw.
- ``marathon``: ``kdm_round_over`` keeps the round going after a window; ``kdm_window_judged`` bars a
  seat that instigated a valid slap from opening another window this round.
- ``classic``: a preset: ``KDM_REQUIRES = ("marathon",)`` and ``kdm_option_defaults``.

A plugin module may set ``KDM_MODE = True`` (it is a game mode that replaces the base game) and
``KDM_REQUIRES = ("name", ...)`` (plugins that come with it whenever a table picks it).

Kem's (``kdm.plugins.kems``) is such a mode, built on the same hooks with no special case in the core:
``kdm_table_options`` (``deck``, ``target``, ``signs``, ``spoken``, ``sweep_after_ms``, ``call_window_ms``),
``kdm_check_table`` (4, 6 or 8 players), ``kdm_setup_table`` (talon, table and bin zones, team scores),
``kdm_event_types`` and ``kdm_apply`` for its events, ``kdm_awaiting`` for the deal, the dealer's turns,
the ``quiet`` and ``close`` timers and the hands shown, ``kdm_reveal`` to build the events only a
face-knower can (a hand checked at the deal, cards turned up, a Contre answered), ``kdm_view``,
``kdm_winners``, ``kdm_summary``, ``kdm_describe`` and ``kdm_bot_decide``. Its secret signs never enter
the log: partners agree them with a ``PrivateNote`` (``kdm.deck``), kept beside ``Knowledge``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from kdm.agents import Bot, Decision
    from kdm.deck import Knowledge
    from kdm.engine import Duty, Effect, Engine
    from kdm.events import Event
    from kdm.options import TableOption
    from kdm.state import TableState

PROJECT = "kdm"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


# --- the table ------------------------------------------------------------------------------------


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
def kdm_apply(engine: Engine, event: Event) -> list[Effect] | None:
    """Apply ``event`` to ``engine.state``: return what happened, or None if this plugin does not
    handle events of that kind.

    ``firstresult``: the first plugin that returns a list wins. Raise ``IllegalAction(reason)``
    *before* changing anything when the event is not allowed now. ``engine.state.seq`` is the
    event's own sequence number while it is applied.
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
def kdm_summary(state: TableState) -> dict[str, Any] | None:
    """The game mode's part of a finished game's summary (what ``kdm sim --json`` prints beside
    ``players``, ``seed``, ``events``, ``seconds`` and ``digest``). ``firstresult``.
    """
    raise NotImplementedError


# --- rule details the base game asks ---------------------------------------------------------------


@hookspec(firstresult=True)
def kdm_deck(players: int, options: dict[str, Any]) -> tuple[list[str], list[str]] | None:
    """``(dealt, pile)``: the faces dealt each round and the faces that form the pile. ``firstresult``."""
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_pile_zones(players: int, options: dict[str, Any]) -> list[str] | None:
    """The names of the zones the pile is cut into when the game starts (``["pile"]`` by default),
    in order; the shuffled pile is cut into contiguous runs of nearly equal size. ``firstresult``.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_card_kilos(card: str, options: dict[str, Any]) -> int | None:
    """How many kilos ``card`` weighs in front of a player. ``firstresult``."""
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_is_combo(cards: list[str], options: dict[str, Any]) -> bool | None:
    """Whether a hand of faces is a combo (four of a rank, or of a suit). ``firstresult``."""
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_window_complete(state: TableState, window: Any) -> bool | None:
    """Whether an open slap window closes now (every seat has slapped, by default). ``firstresult``."""
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_judge_window(state: TableState, window: Any, combo: bool) -> list[int] | None:
    """The losers of a closed window, in the order they draw. ``combo`` says whether the first
    slapper (by effective time) held a combo while every hand held 4. ``firstresult``.
    """
    raise NotImplementedError


@hookspec
def kdm_passing_started(state: TableState) -> None:
    """Notification: the queens were called and passing begins (``state.turn`` is the starter, the
    base game's ``KiloTable`` has the starter and direction). A plugin that passes otherwise may
    change them, e.g. no one has the turn when everyone passes at once. Results are ignored.
    """
    raise NotImplementedError


@hookspec
def kdm_window_judged(state: TableState, window: Any, valid: bool, losers: list[int]) -> None:
    """Notification: a window was just judged (``valid`` when its first slapper showed a combo at a
    checkpoint), before anyone draws. A plugin may update its own data or the base game's, e.g.
    bar a seat from opening another window (``KiloTable.barred``). Results are ignored.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_draw(engine: Engine, seat: int, token: int, card: str) -> list[Effect] | None:
    """What a drawn card does once it is face up in front of ``seat`` (count it, or flush).
    ``firstresult``; the token is already off the pile and its face public.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_round_over(state: TableState) -> bool | None:
    """Whether the round ends now that a window's draws are done. ``firstresult``."""
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_game_over(state: TableState) -> bool | None:
    """Whether the game ends now that a round ended. ``firstresult``."""
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_winners(state: TableState) -> list[int] | None:
    """The winning seats of a finished game (ties share the win). ``firstresult``."""
    raise NotImplementedError


# --- people and bots ------------------------------------------------------------------------------


@hookspec(firstresult=True)
def kdm_describe(effect: Effect, lang: str) -> str | None:
    """One line for people about an effect, in ``lang`` (``en`` or ``fr``), or None. ``firstresult``."""
    raise NotImplementedError


@hookspec(firstresult=True)
def kdm_bot_decide(view: Any, bot: Bot) -> Decision | None:
    """What ``bot`` does next, from its seat ``view`` only: a decision, or None to wait.

    ``firstresult``: the game mode's plugin answers; a variant answers first for its own actions.
    """
    raise NotImplementedError
