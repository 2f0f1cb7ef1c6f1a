"""RULES 2.3 ``piles``: the pile is cut into N-1 piles; a loser draws from the pile of their choice.

Owns the piles' names (``kdm_pile_zones``: ``pile/0`` … ``pile/N-2``, cut once, at the start of the game)
and the choice. Slapping covers one free pile, so the last player to slap is the one with no pile to
cover, as in the base game; an empty pile cannot be covered, so with one empty every slapper left
without a pile loses (``kdm_judge_window``). Each loser then chooses a pile
(``ChoosePile``, a player's decision, so bots and people make it) and the table asks for the draw from
that pile's top; with a single pile left there is nothing to choose. The base game puts a flush under
the pile drawn from, and reshuffles that pile with ``flush_to=shuffle``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from kdm.agents import Bot, Decision
from kdm.deck import Knowledge
from kdm.effects import Hints
from kdm.engine import Duty, Engine, IllegalAction, SeatView
from kdm.events import Event
from kdm.hookspecs import hookimpl
from kdm.plugins.kilo import rules as kilo
from kdm.plugins.kilo.effects import KiloEffect
from kdm.plugins.kilo.events import Draw
from kdm.state import TableState

NAME = "piles"
KDM_REQUIRES = ("kilo",)  # a variant of the base game
#: What a person sees and presses at the terminal table.
KDM_MODULES = ("kdm.plugins.piles_screen",)


@dataclass(frozen=True)
class ChoosePile(Event):
    """``seat``, about to draw, chooses pile number ``pile``."""

    kind: ClassVar[str] = "choose_pile"
    seat: int
    pile: int


class PileChosen(Hints):
    """Seat ``seat`` draws from pile number ``pile``."""

    kind: Literal["pile_chosen"]
    seat: int
    pile: int


@dataclass
class PilesTable:
    """The pile the loser about to draw has chosen, if any."""

    chosen: str | None = None


def piles(state: TableState) -> PilesTable:
    data: PilesTable = state.rules[NAME]
    return data


def pile_name(index: int) -> str:
    return f"pile/{index}"


@hookimpl
def kdm_setup_table(state: TableState) -> None:
    state.rules[NAME] = PilesTable()


@hookimpl
def kdm_event_types() -> list[type[Event]]:
    return [ChoosePile]


@hookimpl
def kdm_pile_zones(players: int, options: dict[str, Any]) -> list[str]:
    return [pile_name(index) for index in range(players - 1)]


def source(state: TableState) -> str | None:
    """The pile the next draw comes from: the one chosen, or the only one left with cards."""
    chosen = piles(state).chosen
    if chosen is not None:
        return chosen
    left = [name for name in kilo.table(state).piles if state.zones.get(name)]
    return left[0] if len(left) == 1 else None


@hookimpl
def kdm_apply(engine: Engine, event: Event) -> Sequence[KiloEffect | PileChosen] | None:
    state = engine.state
    if isinstance(event, ChoosePile):
        losers = kilo.table(state).losers
        if state.phase != "drawing" or not losers or event.seat != losers[0]:
            raise IllegalAction(f"seat {event.seat} has no pile to choose now")
        if piles(state).chosen is not None:
            raise IllegalAction(f"seat {event.seat} has already chosen a pile")
        if not 0 <= event.pile < state.players - 1 or not state.zones[pile_name(event.pile)]:
            raise IllegalAction(f"there is no pile {event.pile} with cards to draw from")
        piles(state).chosen = pile_name(event.pile)
        return [{"kind": "pile_chosen", "seat": event.seat, "pile": event.pile}]
    if isinstance(event, Draw) and state.phase == "drawing":
        zone = source(state)
        if zone is None:
            raise IllegalAction(f"seat {event.seat} must choose a pile before drawing")
        effects = kilo.draw(engine, event, zones=(zone,))
        piles(state).chosen = None  # each draw is chosen anew
        return effects
    return None


@hookimpl(tryfirst=True)
def kdm_judge_window(state: TableState, window: kilo.Window, combo: bool) -> list[int] | None:
    """RULES 2.3: each slapper in turn covers a pile that holds cards; an empty pile cannot be covered,
    so every slapper left without one loses, in slap order, before those who never slapped. With every
    pile full this is the base game's judgement (the last slapper loses); a false slap is the base
    game's too."""
    if not (window.checkpoint and combo):
        return None
    table = kilo.table(state)
    coverable = sum(1 for name in table.piles if state.zones.get(name))
    ordered = [seat for seat, _effective in table.ordered]
    never = [seat for seat in range(state.players) if not window.slapped(seat)]
    return ordered[coverable:] + never


@hookimpl
def kdm_awaiting(state: TableState) -> list[Duty] | None:
    if state.phase != "drawing":
        return None
    zone = source(state)
    if zone is None:
        return []  # the loser chooses a pile: a player's decision, not a duty
    return [Duty("draw", seat=kilo.table(state).losers[0], tokens=(state.zones[zone][-1],))]


@dataclass(slots=True)
class PilesView:
    """The piles' sizes (by number) and the pile chosen for the next draw."""

    sizes: tuple[int, ...]
    chosen: int | None
    choosing: int | None


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    names = kilo.table(state).piles
    chosen = piles(state).chosen
    losers = kilo.table(state).losers
    choosing = losers[0] if state.phase == "drawing" and losers and source(state) is None else None
    return NAME, PilesView(
        sizes=tuple(len(state.zones.get(name, ())) for name in names),
        chosen=None if chosen is None else names.index(chosen),
        choosing=choosing,
    )


@hookimpl
def kdm_bot_decide(view: SeatView, bot: Bot) -> Decision | None:
    part: PilesView = view.rules[NAME]
    if part.choosing != view.seat:
        return None
    # Any pile is as good as another for a bot that cannot see faces; it picks one as a person would.
    pile = bot.rng.choice([index for index, size in enumerate(part.sizes) if size])
    return Decision(ChoosePile(seat=view.seat, pile=pile), bot.think_ms() / 2)


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Several piles
The pile is split into one pile fewer than the players. Slapping covers a free pile; whoever has no pile
left to cover draws, from the pile of their choice. An empty pile cannot be covered. A 7's flush goes
under the pile it was drawn from.""",
    "fr": """Plusieurs tas
Le tas est partagé en autant de tas que de joueurs moins un. Taper couvre un tas libre ; qui n'a plus de
tas à couvrir pioche, dans le tas de son choix. Un tas vide ne peut pas être couvert. La chasse d'un 7
retourne sous le tas où il a été pioché.""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
