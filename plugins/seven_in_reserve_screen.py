"""The ``seven_in_reserve`` variant at the terminal table: its ``ScreenPart`` (``kdm_tui``).

The 7 a seat keeps in reserve lies face up in front of them: it shows after their row (explained at the
foot of the table panel, and in the help's line of marks) and, on the scores screen, in front of them
instead of their kilos. When the table asks this seat whether to keep a first 7, the hand's status line
asks, ``y`` (``o``) keeps it and ``n`` counts it.
"""

from __future__ import annotations

from kdm.cards import pretty
from kdm.engine import SeatView
from kdm.hookspecs import hookimpl
from kdm.plugins.kilo.rules import NAME as KILO
from kdm.plugins.kilo.rules import KiloView
from kdm.plugins.seven_in_reserve import NAME, KeepSeven, ReserveView
from kdm.tui.extension import Fragments, Key, Screen, ScreenPart, view_part
from kdm.tui.text import is_yes

WORDS = {
    "mark_reserve": ("{card} in reserve", "{card} en réserve"),
    "mark_reserve_help": ("7♥ in reserve", "7♥ en réserve"),
    "reserve_ask": (
        "keep {card} in reserve? y keeps it (0 kg), n counts it (7 kg)",
        "garder {card} en réserve ? o le garde (0 kg), n le compte (7 kg)",
    ),
    "hint_reserve": ("y/n keep the 7?", "o/n garder le 7 ?"),
    "help_reserve": (
        "y n          keep a first 7 in reserve, or count it (when asked)",
        "o n          garder un premier 7 en réserve, ou le compter (quand on vous le demande)",
    ),
}
#: The keys that answer: yes in either language (``is_yes``), or no.
ANSWER_KEYS = ("y", "o", "n")


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


def asked(screen: Screen) -> bool:
    """Whether the table asks this seat whether to keep its first 7 in reserve."""
    part = view_part(screen.view(), NAME, ReserveView)
    return part is not None and part.asked is not None and part.asked == screen.seat


def answer(screen: Screen, key: str) -> bool:
    seat = screen.seat
    if seat is None or not asked(screen) or (key != "n" and not is_yes(screen.lang, key)):
        return False
    return screen.act(KeepSeven(seat=seat, keep=key != "n"))


def hand_status(screen: Screen, view: SeatView) -> tuple[str, str] | None:
    seven = reserve_face(view, view.seat)
    if not asked(screen) or seven is None:
        return None
    return "class:turn", screen.say("reserve_ask", card=pretty(seven))


def hints(screen: Screen, view: SeatView | None, given: list[str]) -> list[str]:
    """While this seat is asked, its answer is the only play key."""
    if not asked(screen):
        return given
    return [screen.say("hint_reserve")] + [
        screen.say(key) for key in ("hint_scores", "hint_help", "hint_quit")
    ]


@hookimpl
def kdm_tui() -> ScreenPart:
    return ScreenPart(
        NAME,
        keys=(Key(ANSWER_KEYS, answer, when=asked),),
        marks=marks,
        legend=legend,
        in_front=in_front,
        hand_status=hand_status,
        hints=hints,
        log_styles={"reserve_answered": "result"},
        help=("help_reserve",),
        marks_help=("mark_reserve_help",),
        words=WORDS,
    )
