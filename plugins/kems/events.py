"""Kem's events (RULES 3): every action of the game, as the log records it.

Plain frozen dataclasses (``kdm.events``): the deal's checks, the dealer's turns, exchanges, the sweep
question, gestures and chat, calls and the answer to a failed Contre. ``ShowHand``, ``Deal``, ``Shuffle``
and ``Close`` are the engine's own events, reused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kdm.events import Event, TimedEvent


@dataclass(frozen=True)
class KeepHand(Event):
    """``seat`` checked its dealt hand: no three cards of one rank."""

    kind: ClassVar[str] = "keep_hand"
    seat: int


@dataclass(frozen=True)
class Redraw(Event):
    """``seat`` shows three or four cards of one rank (``cards[i]`` is ``tokens[i]``) to put them back."""

    kind: ClassVar[str] = "redraw"
    seat: int
    tokens: tuple[int, ...]
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Turn(Event):
    """The dealer turns the talon's top cards face up onto the table, top first."""

    kind: ClassVar[str] = "turn"
    seat: int
    tokens: tuple[int, ...]
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Exchange(Event):
    """``seat`` lays ``give`` (faces ``cards``) face up and takes the table cards ``take``."""

    kind: ClassVar[str] = "exchange"
    seat: int
    give: tuple[int, ...]
    cards: tuple[str, ...]
    take: tuple[int, ...]


@dataclass(frozen=True)
class Quiet(Event):
    """Nobody exchanged for ``sweep_after_ms``: a sweep may be asked (a table timer)."""

    kind: ClassVar[str] = "quiet"


@dataclass(frozen=True)
class SweepTime(Event):
    """``sweep_answer_ms`` after « Balayage ? »: whoever has not answered accepts (a table timer)."""

    kind: ClassVar[str] = "sweep_time"


@dataclass(frozen=True)
class Sweep(Event):
    """``seat`` asks « Balayage ? »."""

    kind: ClassVar[str] = "sweep"
    seat: int


@dataclass(frozen=True)
class SweepAnswer(Event):
    """``seat`` answers the sweep question."""

    kind: ClassVar[str] = "sweep_answer"
    seat: int
    accept: bool


@dataclass(frozen=True)
class Gesture(TimedEvent):
    """``seat`` makes ``gesture`` (one of ``GESTURES``) for everyone to see."""

    kind: ClassVar[str] = "gesture"
    gesture: str = ""


@dataclass(frozen=True)
class Say(Event):
    """``seat`` says ``text`` aloud (only with ``spoken=on``)."""

    kind: ClassVar[str] = "say"
    seat: int
    text: str


@dataclass(frozen=True)
class Call(TimedEvent):
    """``seat`` calls ``call`` (``kems``, ``double`` or ``contre``); a Contre names ``target``."""

    kind: ClassVar[str] = "call"
    call: str = "kems"
    target: int = -1


@dataclass(frozen=True)
class ShowTwo(Event):
    """``seat``, wrongly accused, shows two cards of its hand to the Contre's caller only."""

    kind: ClassVar[str] = "show_two"
    seat: int
    tokens: tuple[int, ...]


@dataclass(frozen=True)
class TeamReady(Event):
    """``seat``, first of its team, has told its partner the team's signs (what they are stays private).
    ``note`` is the digest of that note (``kdm.plugins.kems.rules.note_digest``): once the signs are
    closed, a note handed on to a partner whose laptop came back is taken only if it is this one."""

    kind: ClassVar[str] = "team_ready"
    seat: int
    note: bytes = b""


@dataclass(frozen=True)
class ReadyTime(Event):
    """``signs_ms`` have passed since the game began: play starts with the signs agreed by then (a
    table timer)."""

    kind: ClassVar[str] = "ready_time"


EVENTS: tuple[type[Event], ...] = (
    KeepHand, Redraw, Turn, Exchange, Quiet, Sweep, SweepAnswer, Gesture, Say, Call, ShowTwo, TeamReady,
    ReadyTime, SweepTime,
)  # fmt: skip
