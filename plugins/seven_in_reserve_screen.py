"""The ``seven_in_reserve`` variant at the terminal table: its ``ScreenPart`` (``kdm_tui``).

The 7 a seat keeps in reserve lies face up in front of them: it shows after their row (explained at the
foot of the table panel, and in the help's line of marks) and, on the scores screen, in front of them
instead of their kilos.
"""

from __future__ import annotations

from kdm.cards import pretty
from kdm.engine import SeatView
from kdm.hookspecs import hookimpl
from kdm.kilo.rules import NAME as KILO
from kdm.kilo.rules import KiloView
from kdm.plugins.seven_in_reserve import NAME, ReserveView
from kdm.tui.extension import Fragments, Screen, ScreenPart, view_part

WORDS = {
    "mark_reserve": ("{card} in reserve", "{card} en réserve"),
    "mark_reserve_help": ("7♥ in reserve", "7♥ en réserve"),
}


def reserve_face(view: SeatView, seat: int) -> str | None:
    """The 7 ``seat`` keeps in reserve, if any."""
    kept, kilo = view_part(view, NAME, ReserveView), view_part(view, KILO, KiloView)
    if kept is None or seat not in kept.seats or kilo is None or not kilo.kilos[seat]:
        return None
    return kilo.kilos[seat][-1]


def marks(view: SeatView, seat: int) -> str:
    seven = reserve_face(view, seat)
    return "" if seven is None else pretty(seven)


def legend(screen: Screen, view: SeatView) -> list[str]:
    seven = next((f for f in (reserve_face(view, s) for s in range(view.players)) if f is not None), None)
    return [] if seven is None else [screen.say("mark_reserve", card=pretty(seven))]


def in_front(screen: Screen, view: SeatView, seat: int) -> Fragments | None:
    seven = reserve_face(view, seat)
    return None if seven is None else [("class:mark", " " + screen.say("mark_reserve", card=pretty(seven)))]


@hookimpl
def kdm_tui() -> ScreenPart:
    return ScreenPart(
        NAME, marks=marks, legend=legend, in_front=in_front, marks_help=("mark_reserve_help",), words=WORDS
    )
