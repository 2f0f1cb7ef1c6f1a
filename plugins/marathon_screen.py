"""The ``marathon`` variant at the terminal table: its ``ScreenPart`` (``kdm_tui``).

A seat whose slap opened a valid window is barred from opening another this round: a ⊘ after its row,
explained at the foot of the table panel while one shows, and in the help's line of marks.
"""

from __future__ import annotations

from kdm.engine import SeatView
from kdm.hookspecs import hookimpl
from kdm.plugins.kilo.rules import NAME as KILO
from kdm.plugins.kilo.rules import KiloView
from kdm.plugins.marathon import NAME
from kdm.tui.extension import Screen, ScreenPart, view_part

BARRED_MARK = "⊘"

WORDS = {
    "mark_barred": (f"{BARRED_MARK} may not open a window", f"{BARRED_MARK} ne peut plus taper le tas"),
}


def marks(view: SeatView, seat: int) -> str:
    kilo = view_part(view, KILO, KiloView)
    return BARRED_MARK if kilo is not None and seat in kilo.barred else ""


def legend(screen: Screen, view: SeatView) -> list[str]:
    kilo = view_part(view, KILO, KiloView)
    return [screen.say("mark_barred")] if kilo is not None and kilo.barred else []


@hookimpl
def kdm_tui() -> ScreenPart:
    return ScreenPart(NAME, marks=marks, legend=legend, marks_help=("mark_barred",), words=WORDS)
