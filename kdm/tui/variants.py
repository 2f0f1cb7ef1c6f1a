"""The built-in house rules at the table screen: their parts of the seat view, the events their keys
send, and when the table calls the next GO.

The rules live in the plugins (``kdm.plugins.*``), which expose what a seat may see in
``view.rules[<plugin name>]``; this module reads those parts and builds the plugins' events, so that the
screen's state and panels need not know how each plugin keeps its data. What a variant changes in the
base game's keys (spoons: Space grabs; all_at_once: Enter chooses the card for the next GO, on any
turn) is asked here by ``TableScreen``; the keys only the variants have (a pile, the direction, GO) are
functions of the screen, called by the key bindings like the screen's own methods: True when an event
was proposed, False when the player was told why not.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypeVar

from kdm.engine import Engine, SeatView
from kdm.plugins.all_at_once import NAME as ALL_AT_ONCE
from kdm.plugins.all_at_once import AllAtOnceView, Go, Steer
from kdm.tui.extension import view_part

if TYPE_CHECKING:
    from kdm.tui.state import TableScreen

Part = TypeVar("Part")
#: The steering keys and the direction each one sends.
STEER_KEYS = {"<": "left", ">": "right"}


def all_at_once(view: SeatView | None) -> AllAtOnceView | None:
    return view_part(view, ALL_AT_ONCE, AllAtOnceView)


# --- the variants' own keys ---------------------------------------------------------------------------


def steer(screen: TableScreen, direction: str) -> bool:
    """Choose the round's passing direction (``left`` or ``right``): the starter's call, once a round."""
    view, seat = screen.view(), screen.peer.seat
    part = all_at_once(view)
    if seat is None or part is None or part.steering != seat:
        return screen.tell("no_steering")
    screen.peer.act(Steer(seat=seat, direction=direction))
    return True


def call_go(screen: TableScreen) -> bool:
    """« 1, 2, 3, GO ! »: every chosen card moves on; the starter's call unless the table times it."""
    view, seat = screen.view(), screen.peer.seat
    part = all_at_once(view)
    if view is None or seat is None or part is None or view.phase != "passing":
        return screen.tell("no_go")
    if part.caller is None:
        return screen.tell("table_calls")
    if part.caller != seat:
        return screen.tell("not_caller", name=screen.name(part.caller))
    if part.steering is not None:
        return screen.tell("steer_first")
    screen.peer.act(Go(seat=seat))
    return True


# --- the table's GO timer -----------------------------------------------------------------------------


class GoClock:
    """When the table calls the next GO (``go_interval_ms``), on this machine's clock.

    The leader starts the GO timer when the duty appears, right after applying the event that made it
    appear; this screen notes that moment the same way, when it follows the same event.
    """

    def __init__(self) -> None:
        self._duty: tuple[int, float] | None = None
        self.due_ms: float | None = None

    def follow(self, engine: Engine | None, now_ms: float) -> None:
        """Look again at what the table awaits, after an event was applied at ``now_ms``."""
        duties = engine.awaiting() if engine is not None and not engine.over else []
        duty = next((d for d in duties if d.kind == Go.kind and d.seat is None), None)
        key = None if duty is None else (duty.ref, duty.after_ms or 0.0)
        if key != self._duty:
            self._duty = key
            self.due_ms = None if key is None else now_ms + key[1]

    def seconds_left(self, now_ms: float) -> int | None:
        """Whole seconds until the table's GO, rounded up (0 once due), or None when none is coming."""
        if self.due_ms is None:
            return None
        return max(0, math.ceil((self.due_ms - now_ms) / 1000.0))

    def next_change_s(self, now_ms: float) -> float | None:
        """Seconds until ``seconds_left`` changes, or None when it will not."""
        if self.due_ms is None or now_ms >= self.due_ms:
            return None
        left = self.due_ms - now_ms
        return (left - 1000.0 * math.floor((left - 1e-6) / 1000.0)) / 1000.0
