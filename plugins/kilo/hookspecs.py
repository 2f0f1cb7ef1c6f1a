"""The hooks the base game's rules ask, added to a table by ``kdm.plugins.kilo`` through ``kdm_addhooks``.

Variants of the base game implement these as a third party's house rule would; each module in
``kdm.plugins`` says more. How the built-in ones use them, so that none needs a special case:

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
- ``classic``: a preset: ``KDM_REQUIRES = ("kilo", "marathon")`` and ``kdm_option_defaults``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kdm.hookspecs import hookspec

if TYPE_CHECKING:
    from kdm.engine import Engine
    from kdm.plugins.kilo.effects import Drew
    from kdm.state import TableState


# --- the base game: cards, windows, draws, rounds -------------------------------------------------


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
def kdm_draw(engine: Engine, seat: int, token: int, card: str) -> Sequence[Drew] | None:
    """What a drawn card does once it is face up in front of ``seat`` (count it, or flush), told as a
    ``drew`` effect (``kdm.plugins.kilo.effects.Drew``; a variant's may say more: ``seven_in_reserve``'s says
    what became of the 7 in reserve). ``firstresult``; the token is already off the pile and its face
    public.
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
