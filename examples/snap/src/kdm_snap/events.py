"""Snap's events: a player asks to turn their card, the table turns it face up (the faces come from
the process that may read them, ``kdm_reveal``), a player slaps the centre, and the table's two
timers: the end of a slap window and the last chance to slap once the game's turns are used up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kdm.events import Event, TimedEvent

__all__ = ["EVENTS", "Flip", "Slap", "SlapClose", "SlapEnd", "TurnUp"]


@dataclass(frozen=True)
class Flip(Event):
    """``seat``, whose turn it is, turns the top card of its pile: it does not know the face (a card
    face down is nobody's), so the table turns it up next (``TurnUp``)."""

    kind: ClassVar[str] = "snap_flip"
    seat: int


@dataclass(frozen=True)
class TurnUp(Event):
    """The card ``token`` from the top of ``seat``'s pile lies face up on the centre pile: it is
    ``card``. Built by the process that may read it (``kdm_reveal``)."""

    kind: ClassVar[str] = "snap_turn"
    seat: int
    token: int
    card: str


@dataclass(frozen=True)
class Slap(TimedEvent):
    """``seat`` slaps the centre pile, crying « Snap! ». ``trigger`` names the event that turned up the
    centre's top card (what the press answers) and ``rt`` the time from its paint to the press: slaps
    are ranked by it (DESIGN 5.6)."""

    kind: ClassVar[str] = "snap"


@dataclass(frozen=True)
class SlapClose(Event):
    """An open slap window's time is up (the leader proposes it ``slap_window_ms`` after it opened)."""

    kind: ClassVar[str] = "snap_close"


@dataclass(frozen=True)
class SlapEnd(Event):
    """The game's last card was turned ``slap_window_ms`` ago and nobody slapped: the game ends."""

    kind: ClassVar[str] = "snap_end"


EVENTS: tuple[type[Event], ...] = (Flip, TurnUp, Slap, SlapClose, SlapEnd)
