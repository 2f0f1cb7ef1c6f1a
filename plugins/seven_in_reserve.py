"""RULES 2.5 ``seven_in_reserve``: a first 7 may be kept in reserve (worth 0) and flushes at the next draw.

Owns the reserve: which seat keeps which 7 (``state.rules["seven_in_reserve"]``, game-wide, since kilos
outlive rounds). A player whose first card in front of them (no kilos yet, possibly right after a
flush) is a 7 is asked whether to keep it in reserve (``reserving``: the table waits); kept, it weighs
nothing, and at their next draw the card drawn and the 7 both go under the pile drawn from (a flush,
``flush_to`` applies); not kept, it counts 7 kilos, as in the base game. Keeping it is never worse for
that player, so a player who does not answer within ``reserve_answer_ms`` keeps it, and bots keep it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from kdm.agents import Bot, Decision
from kdm.cards import rank_of
from kdm.deck import Knowledge
from kdm.effects import Hints
from kdm.engine import Duty, Engine, IllegalAction, SeatView
from kdm.events import Event
from kdm.hookspecs import hookimpl
from kdm.options import OptionWords, TableOption
from kdm.plugins.kilo import rules as kilo
from kdm.plugins.kilo.effects import Drew
from kdm.state import TableState

NAME = "seven_in_reserve"
KDM_REQUIRES = ("kilo",)  # a variant of the base game
KDM_MODULES = ("kdm.plugins.seven_in_reserve_screen",)
#: The phase in which the table waits for a drawer's answer: keep the first 7 in reserve, or not.
RESERVING = "reserving"


@dataclass(frozen=True)
class KeepSeven(Event):
    """``seat``, offered to keep its first 7 in reserve, answers (``keep``: yes)."""

    kind: ClassVar[str] = "keep_seven"
    seat: int
    keep: bool


class ReserveAnswered(Hints):
    """``seat`` kept its first 7 in reserve, or let it count 7 kilos (``keep`` False)."""

    kind: Literal["reserve_answered"]
    seat: int
    keep: bool


class DrewWithReserve(Drew):
    """A draw of a first 7, offered for the reserve, or that flushed the 7 kept with the card drawn."""

    reserve: Literal["offered", "flushed"]


@dataclass
class Reserve:
    """The token of the 7 each seat keeps in reserve; the seat asked whether to keep one, if any."""

    kept: dict[int, int] = field(default_factory=dict)
    asked: int | None = None
    #: The seq of the draw that asked (a 7 flushed to the bottom may come back: its token is no ref).
    asked_at: int = -1


def reserve(state: TableState) -> Reserve:
    data: Reserve = state.rules[NAME]
    return data


@hookimpl
def kdm_setup_table(state: TableState) -> None:
    state.rules[NAME] = Reserve()


@hookimpl
def kdm_table_options() -> list[TableOption]:
    return [
        TableOption(
            "reserve_answer_ms",
            int,
            5000,
            "ms a player has to say whether to keep a first 7 in reserve: the silent keep it",
            minimum=0,
            french=OptionWords(
                "réponse pour le 7 (ms)",
                "ms qu'a un joueur pour dire s'il garde un premier 7 en réserve : qui se tait le garde",
            ),
        )
    ]


@hookimpl
def kdm_event_types() -> list[type[Event]]:
    return [KeepSeven]


@hookimpl
def kdm_draw(engine: Engine, seat: int, token: int, card: str) -> list[DrewWithReserve] | None:
    state = engine.state
    kept = reserve(state).kept
    in_front = state.zones[kilo.kilos_zone(seat)]
    if seat in kept:
        # The next draw after a reserve: the card drawn and the reserved 7 go under the pile together.
        del kept[seat]
        kilo.flush_kilos(engine, seat)
        kilo.record_kilos(engine, seat, 0)
        return [drew(state, seat, card, "flushed")]
    if rank_of(card) == "7" and in_front == [token]:
        # Kept while the player is asked (0 kilos): the table waits for the answer, or its time.
        kept[seat] = token
        reserve(state).asked, reserve(state).asked_at = seat, state.seq
        kilo.record_kilos(engine, seat, 0)
        state.phase = RESERVING
        return [drew(state, seat, card, "offered")]
    return None  # the base game's draw


def drew(state: TableState, seat: int, card: str, what: Literal["offered", "flushed"]) -> DrewWithReserve:
    """The ``drew`` effect of a first 7 offered for the reserve, or of a draw that flushed the 7 kept."""
    effect: DrewWithReserve = {"kind": "drew", "round": state.round, "seat": seat, "card": card,
                               "flush": what == "flushed", "reserve": what}  # fmt: skip
    if what == "offered":
        effect["wake"] = (seat,)  # only the drawer has something to do: answer
    return effect


@hookimpl
def kdm_apply(engine: Engine, event: Event) -> Sequence[Any] | None:
    if not isinstance(event, KeepSeven):
        return None
    state = engine.state
    data = reserve(state)
    if state.phase != RESERVING or data.asked != event.seat:
        raise IllegalAction(f"seat {event.seat} has no 7 to keep in reserve now")
    data.asked = None
    if not event.keep:  # it counts 7 kilos, as a first 7 does in the base game (RULES 1.2.9)
        del data.kept[event.seat]
        kilo.record_kilos(engine, event.seat, kilo.kilos_of(engine, event.seat))
    state.phase = "drawing"
    answered: ReserveAnswered = {"kind": "reserve_answered", "seat": event.seat, "keep": event.keep}
    return [answered, *kilo.after_draw(engine)]


@hookimpl
def kdm_awaiting(state: TableState) -> list[Duty] | None:
    """RULES 2.5: the drawer of a first 7 says whether to keep it, within ``reserve_answer_ms``."""
    asked = reserve(state).asked
    if state.phase != RESERVING or asked is None:
        return None
    token = reserve(state).kept[asked]
    return [
        Duty(
            KeepSeven.kind,
            seat=asked,
            tokens=(token,),
            after_ms=state.options["reserve_answer_ms"],
            ref=reserve(state).asked_at,
        )
    ]


@hookimpl
def kdm_reveal(duty: Duty, state: TableState, faces: Mapping[int, str]) -> Event | None:
    """Time is up for the answer: the 7 is kept (never worse for its player)."""
    if duty.kind != KeepSeven.kind or duty.seat is None:
        return None
    return KeepSeven(seat=duty.seat, keep=True)


@hookimpl
def kdm_bot_decide(view: SeatView, bot: Bot) -> Decision | None:
    part: ReserveView = view.rules[NAME]
    if part.asked != view.seat:
        return None
    return Decision(KeepSeven(seat=view.seat, keep=True), bot.think_ms() / 2)  # keeping is never worse


@dataclass(slots=True)
class ReserveView:
    """Which seats keep a 7 in reserve (public: the card lies face up in front of them), and the seat
    asked whether to keep one, if any."""

    seats: tuple[int, ...]
    asked: int | None = None


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    data = reserve(state)
    return NAME, ReserveView(tuple(sorted(data.kept)), data.asked)


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Seven in reserve
If the first card you draw is a 7, you may keep it in reserve (the table asks; y keeps it, n counts it,
and without an answer it is kept): it weighs nothing while kept, and at your next draw it goes under
the pile with the card drawn (a flush). Not kept, it counts 7 kilos.""",
    "fr": """Le 7 en réserve
Si la première carte que vous piochez est un 7, vous pouvez le garder en réserve (la table demande ; o le
garde, n le compte, et sans réponse il est gardé) : il ne pèse rien tant qu'il est gardé, et à votre
pioche suivante il retourne sous le tas avec la carte piochée (une chasse). Non gardé, il compte 7 kilos.""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
