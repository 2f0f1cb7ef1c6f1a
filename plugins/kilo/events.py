"""The base game's events: the queens' calls, passes, slaps and feints, a window's close, a hand shown,
a card drawn (RULES 1). Registered through ``kdm_event_types`` by ``kdm.plugins.kilo.rules``; the variants
that
build on the base game use them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kdm.events import Event, ShowHand, TimedEvent
from kdm.window import Close

__all__ = ["EVENTS", "Announce", "Close", "Draw", "Feint", "Pass", "Resume", "ShowHand", "Slap"]


@dataclass(frozen=True)
class Announce(Event):
    """``seat`` declares that it holds ``card`` (the queens' calls at the start of a round)."""

    kind: ClassVar[str] = "announce"
    seat: int
    card: str


@dataclass(frozen=True)
class Pass(Event):
    """``seat`` passes its card ``token`` face down to the next player."""

    kind: ClassVar[str] = "pass"
    seat: int
    token: int


@dataclass(frozen=True)
class Slap(TimedEvent):
    """``seat`` slaps the pile. A person's press names the ``round`` it was made in (0: it does not
    say, as bots in-process do): a press for a round that is over, or one that answers a window that
    has closed, is refused rather than taken as a false slap of the next one."""

    kind: ClassVar[str] = "slap"
    round: int = 0


@dataclass(frozen=True)
class Feint(TimedEvent):
    """``seat`` makes the slapping gesture without touching the pile."""

    kind: ClassVar[str] = "feint"


@dataclass(frozen=True)
class Resume(Event):
    """A pause for people is over: a checkpoint has held ``checkpoint_ms``, or a round's result has
    been on screen ``round_pause_ms`` (proposed by the leader when the time is up)."""

    kind: ClassVar[str] = "resume"


@dataclass(frozen=True)
class Draw(Event):
    """``seat`` takes ``token`` from the top of a pile and lays it face up: it is ``card``."""

    kind: ClassVar[str] = "draw"
    seat: int
    token: int
    card: str


EVENTS: tuple[type[Event], ...] = (Announce, Pass, Slap, Feint, Close, ShowHand, Draw, Resume)
