"""RULES 2.1 ``all_at_once`` (« Tous en même temps »): everyone passes at once, at each GO.

Owns simultaneous passing: ``Pass`` only *chooses* the card a seat will give (any seat, any time while
passing, and it may change its mind); ``Go`` moves every chosen card to the next seat at once; a seat
that has not chosen gives a card the table picks at random from the round's agreed seed (the deal's,
which no single peer chose). Every hand holds 4 between two GOs, so every moment of passing is a
checkpoint (the base game's ``checkpoint`` simply stays on).

The starter (Queen of hearts) chooses the direction (``Steer``) when ``direction`` is the default
``toward-queen-of-spades``, which has no meaning when everyone passes at once; ``left`` and ``right``
fix it. The starter calls « 1, 2, 3, GO ! » (``Go`` from their seat) unless ``go_interval_ms`` is a
number: then the table calls it (a ``go`` timer duty, fulfilled with a seatless ``Go``) that long after
passing (re)started or the previous GO.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from kdm.agents import Bot, Decision
from kdm.deck import Knowledge
from kdm.effects import Hints
from kdm.engine import Duty, Engine, Handlers, IllegalAction, SeatView
from kdm.events import Event
from kdm.hookspecs import hookimpl
from kdm.options import OptionWords, TableOption
from kdm.plugins.kilo import rules as kilo
from kdm.plugins.kilo.bots import choose_card, maybe_feint, slap_now
from kdm.plugins.kilo.events import Pass
from kdm.state import TableState

NAME = "all_at_once"
KDM_REQUIRES = ("kilo",)  # a variant of the base game
KDM_MODULES = ("kdm.plugins.all_at_once_screen",)
#: The word for the default of ``go_interval_ms``: the starter calls GO.
STARTER = "starter"
DIRECTIONS = {"left": kilo.LEFT, "right": kilo.RIGHT}


@dataclass(frozen=True)
class Steer(Event):
    """The starter ``seat`` chooses the passing ``direction`` (``left`` or ``right``) for the round."""

    kind: ClassVar[str] = "steer"
    seat: int
    direction: str


@dataclass(frozen=True)
class Go(Event):
    """« 1, 2, 3, GO ! »: called by the starter ``seat``, or by the table (``seat`` None) on its timer."""

    kind: ClassVar[str] = "go"
    seat: int | None = None


class Chose(Hints):
    """Seat ``seat`` chose card ``token`` to give at the next GO (it may choose again until then)."""

    kind: Literal["chose"]
    seat: int
    token: int


class Steered(Hints):
    """The starter ``seat`` chose the round's passing ``direction``."""

    kind: Literal["steered"]
    seat: int
    direction: str


class Went(Hints):
    """GO, called by seat ``by`` (None: the table): every ``(seat, receiver, token)`` of ``moves`` at
    once; the table ``picked`` the cards of those seats. Every hand holds 4 again: a ``checkpoint``."""

    kind: Literal["went"]
    by: int | None
    moves: list[tuple[int, int, int]]
    picked: list[int]
    checkpoint: bool


AllAtOnceEffect = Chose | Steered | Went


@dataclass
class AllAtOnceTable:
    """This round's simultaneous passing: the direction chosen yet, each seat's chosen card, GOs so far."""

    round: int = 0
    steered: bool = False
    chosen: dict[int, int] = field(default_factory=dict)
    gos: int = 0
    last_go: int = 0


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [
        TableOption("go_interval_ms", int, STARTER,
                    "with all_at_once, the table calls GO this often; 'starter': the starter calls it",
                    minimum=1000, maximum=60000, words=(STARTER,),
                    french=OptionWords("GO toutes les (ms)",
                                       "avec all_at_once, la table dit GO à ce rythme ;"
                                       " « starter » : celui qui commence le dit",
                                       ((STARTER, "celui qui commence"),))),
    ]  # fmt: skip


@hookimpl
def kdm_setup_table(state: TableState) -> None:
    state.rules[NAME] = AllAtOnceTable()


@hookimpl
def kdm_event_types() -> list[type[Event]]:
    return [Steer, Go]


@hookimpl
def kdm_passing_started(state: TableState) -> None:
    state.turn = None  # nobody passes in turn: every seat chooses, and GO moves every card


def current(state: TableState) -> AllAtOnceTable:
    """This round's data: a fresh one (not yet stored) at the start of a round. A handler stores it
    with ``state.rules[NAME] = data`` once the event is accepted, so a refusal changes nothing."""
    data: AllAtOnceTable = state.rules[NAME]
    return data if data.round == state.round else AllAtOnceTable(round=state.round)


def needs_steering(state: TableState) -> bool:
    return bool(state.options["direction"] == "toward-queen-of-spades")


def steered(state: TableState, data: AllAtOnceTable) -> bool:
    return data.steered or not needs_steering(state)


#: The handlers of this plugin's events, by event class (``kdm_apply`` calls the one for an event).
HANDLERS: Handlers[list[AllAtOnceEffect]] = Handlers()


@hookimpl
def kdm_apply(engine: Engine, event: Event) -> list[AllAtOnceEffect] | None:
    if engine.state.phase != "passing":
        return None  # Steer and Go are refused below; a Pass is refused by the base game
    return HANDLERS.apply(engine, event)


@HANDLERS.on(Pass)
def _choose(engine: Engine, event: Pass) -> list[AllAtOnceEffect]:
    state = engine.state
    if not 0 <= event.seat < state.players or event.token not in state.hands[event.seat]:
        raise IllegalAction(f"seat {event.seat} does not hold card {event.token}")
    data = state.rules[NAME] = current(state)
    data.chosen[event.seat] = event.token
    return [{"kind": "chose", "seat": event.seat, "token": event.token}]


@HANDLERS.on(Steer)
def _steer(engine: Engine, event: Steer) -> list[AllAtOnceEffect]:
    state = engine.state
    data, starter = current(state), kilo.table(state).starter
    if event.seat != starter:
        raise IllegalAction(f"the starter (seat {starter}) chooses the direction, not seat {event.seat}")
    if steered(state, data):
        raise IllegalAction("the direction is already set for this round")
    if event.direction not in DIRECTIONS:
        raise IllegalAction(f"direction {event.direction!r}: use left or right")
    kilo.table(state).direction = DIRECTIONS[event.direction]
    data.steered = True
    state.rules[NAME] = data
    return [{"kind": "steered", "seat": event.seat, "direction": event.direction}]


@HANDLERS.on(Go)
def _go(engine: Engine, event: Go) -> list[AllAtOnceEffect]:
    state = engine.state
    data, base = current(state), kilo.table(state)
    by_table = state.options["go_interval_ms"] != STARTER
    if by_table and event.seat is not None:
        raise IllegalAction("the table calls GO at this table, on its timer")
    if not by_table and event.seat != base.starter:
        raise IllegalAction(f"the starter (seat {base.starter}) calls GO")
    if not steered(state, data):
        raise IllegalAction("the starter has not chosen the direction yet")
    moves: list[tuple[int, int, int]] = []
    picked: list[int] = []
    for seat, hand in enumerate(state.hands):
        token = data.chosen.get(seat)
        if token is None:
            token = hand[_pick(base.tiebreak[seat], data.gos) % len(hand)]
            picked.append(seat)
        moves.append((seat, (seat + base.direction) % state.players, token))
    for seat, receiver, token in moves:
        state.hands[seat].remove(token)
        state.hands[receiver].append(token)
    data.chosen, data.gos, data.last_go = {}, data.gos + 1, state.seq
    state.rules[NAME] = data
    base.passes += 1  # bots key their once-per-pass habits (a feint) on it
    return [{"kind": "went", "by": event.seat, "moves": moves, "picked": picked, "checkpoint": True}]


def _pick(seed: bytes, gos: int) -> int:
    """The table's random pick for a seat that did not choose: from the round's agreed seed."""
    return int.from_bytes(
        hashlib.blake2b(seed + b"go" + gos.to_bytes(4, "big"), digest_size=8).digest(), "big"
    )


@hookimpl
def kdm_awaiting(state: TableState) -> list[Duty] | None:
    interval = state.options["go_interval_ms"]
    if state.phase != "passing" or interval == STARTER:
        return None
    data = current(state)
    if not steered(state, data):
        return []  # the starter chooses the direction first
    since = max(kilo.table(state).passing_since, data.last_go)
    return [Duty("go", after_ms=float(interval), ref=since)]


@dataclass(slots=True)
class AllAtOnceView:
    """Who has chosen a card, this seat's own choice, who steers, who calls GO (None: the table)."""

    chosen: tuple[bool, ...]
    my_choice: int | None
    steering: int | None
    caller: int | None
    gos: int


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    data, starter = current(state), kilo.table(state).starter
    passing = state.phase == "passing"
    return NAME, AllAtOnceView(
        chosen=tuple(s in data.chosen for s in range(state.players)),
        my_choice=data.chosen.get(seat),
        steering=starter if passing and not steered(state, data) else None,
        caller=None if state.options["go_interval_ms"] != STARTER else starter,
        gos=data.gos,
    )


@hookimpl
def kdm_bot_decide(view: SeatView, bot: Bot) -> Decision | None:
    if view.phase != "passing":
        return None  # the base bots react to windows
    base: kilo.KiloView = view.rules[kilo.NAME]
    part: AllAtOnceView = view.rules[NAME]
    seat, moment = view.seat, (view.round, part.gos)
    slap = slap_now(view, bot, base)
    if slap is not None:
        return slap
    if part.steering == seat:
        direction = _remembered(bot, "steer", view.round, lambda: bot.rng.choice(sorted(DIRECTIONS)))
        return Decision(Steer(seat=seat, direction=direction), bot.think_ms())
    if part.my_choice is None:
        feint = maybe_feint(view, bot, moment)
        if feint is not None:
            return feint
        # Chosen once per GO: the strategy keeps its own memory, and must not run at every look.
        token = _remembered(bot, "choice", moment, lambda: choose_card(view, bot))
        return Decision(Pass(seat=seat, token=token), bot.think_ms())
    if part.caller == seat and part.steering is None and all(part.chosen):
        return Decision(Go(seat=seat), bot.think_ms() / 2)  # everyone is ready: « 1, 2, 3, GO ! »
    return None


def _remembered(bot: Bot, key: str, moment: Any, make: Any) -> Any:
    kept = bot.memory.get(f"{NAME}.{key}")
    if kept is None or kept[0] != moment:
        kept = bot.memory[f"{NAME}.{key}"] = (moment, make())
    return kept[1]


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """All at once
Everyone passes at the same time. Whoever holds Q♥ chooses the direction and calls « 1, 2, 3, GO ! »: at
GO each chosen card goes to the neighbour (the table picks one for whoever has not chosen). Between two
GOs everyone holds 4, so a combo may be slapped at any moment. With option go_interval_ms the table
calls GO by itself.""",
    "fr": """Tous en même temps
Tout le monde passe en même temps. Qui a la D♥ choisit le sens et lance « 1, 2, 3, GO ! » : à GO chaque
carte choisie part chez le voisin (la table en choisit une pour qui n'a pas choisi). Entre deux GO tout
le monde a 4 cartes : on peut taper sur un carré à tout moment. Avec l'option go_interval_ms la table
lance GO toute seule.""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
