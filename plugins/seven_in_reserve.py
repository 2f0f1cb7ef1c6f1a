"""RULES 2.5 ``seven_in_reserve``: a first 7 is kept in reserve (worth 0) and flushes at the next draw.

Owns the reserve: which seat keeps which 7 (``state.rules["seven_in_reserve"]``, game-wide, since kilos
outlive rounds). A player whose first card in front of them (no kilos yet, possibly right after a
flush) is a 7 keeps it in reserve; at their next draw, the card drawn and the 7 both go under the pile
drawn from (a flush, ``flush_to`` applies). Other draws are the base game's.

The rule says a player *may* keep the 7. Keeping it is never worse for that player (0 kilos now and
nothing from the next draw, against 7 kilos now), so the table keeps it for them instead of asking a
question with one sensible answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from kdm.cards import rank_of
from kdm.deck import Knowledge
from kdm.engine import Engine
from kdm.hookspecs import hookimpl
from kdm.kilo import rules as kilo
from kdm.kilo.effects import Drew
from kdm.state import TableState

NAME = "seven_in_reserve"
KDM_REQUIRES = ("kilo",)  # a variant of the base game
KDM_MODULES = ("kdm.plugins.seven_in_reserve_screen",)


class DrewWithReserve(Drew):
    """A draw that kept a first 7 in reserve, or that flushed the 7 kept with the card drawn."""

    reserve: Literal["kept", "flushed"]


@dataclass
class Reserve:
    """The token of the 7 each seat keeps in reserve."""

    kept: dict[int, int] = field(default_factory=dict)


def reserve(state: TableState) -> Reserve:
    data: Reserve = state.rules[NAME]
    return data


@hookimpl
def kdm_setup_table(state: TableState) -> None:
    state.rules[NAME] = Reserve()


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
        kept[seat] = token
        kilo.record_kilos(engine, seat, 0)
        return [drew(state, seat, card, "kept")]
    return None  # the base game's draw


def drew(state: TableState, seat: int, card: str, what: Literal["kept", "flushed"]) -> DrewWithReserve:
    """The ``drew`` effect of a draw that kept a 7 in reserve or flushed it (a flush of the draw too)."""
    return {"kind": "drew", "round": state.round, "seat": seat, "card": card, "flush": what == "flushed",
            "reserve": what}  # fmt: skip


@dataclass(slots=True)
class ReserveView:
    """Which seats keep a 7 in reserve (public: the card lies face up in front of them)."""

    seats: tuple[int, ...]


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    return NAME, ReserveView(tuple(sorted(reserve(state).kept)))


#: What a player reads of this rule on the table's rules screen (``kdm_rules_text``).
RULES_TEXT = {
    "en": """Seven in reserve
A 7 that is the first card you draw is kept in reserve: it weighs nothing while kept, and at your next
draw it goes under the pile with the card drawn (a flush).""",
    "fr": """Le 7 en réserve
Un 7 qui est la première carte que vous piochez est gardé en réserve : il ne pèse rien tant qu'il est
gardé, et à votre pioche suivante il retourne sous le tas avec la carte piochée (une chasse).""",
}


@hookimpl
def kdm_rules_text(lang: str) -> str:
    return RULES_TEXT.get(lang, RULES_TEXT["en"])
