"""What a committed entry did, for the hosts and the screens: one frozen record per kind of notice.

The record (``kdm.record.TableRecord``) says what each entry it applies did, in log order; the peer
adds what reaches it straight (a note, a cheat its deck caught). A listener tells them apart by type
(``isinstance(notice, Applied)``, or ``match``), so a misspelt kind is a type error, and each record
carries exactly the fields its kind has. ``node`` is the author of the entry ("" when none: a seeded
event, a note, a finding).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kdm.effects import Effect
from kdm.events import Event

__all__ = [
    "Applied",
    "Cheat",
    "Created",
    "DeckPartTaken",
    "Finished",
    "NoteArrived",
    "Notice",
    "Rejected",
    "Returned",
    "Returning",
    "Said",
    "Seated",
    "Started",
    "TookOver",
    "Voided",
]


@dataclass(frozen=True, kw_only=True)
class Notice:
    """Something a committed entry did (or reached this process straight): the base of every kind."""

    node: str = ""


@dataclass(frozen=True, kw_only=True)
class Created(Notice):
    """The table was created."""


@dataclass(frozen=True, kw_only=True)
class Seated(Notice):
    """``node`` took seat ``seat``."""

    seat: int


@dataclass(frozen=True, kw_only=True)
class Started(Notice):
    """The game started."""


@dataclass(frozen=True, kw_only=True)
class Rejected(Notice):
    """The table refused ``node``'s entry of type ``entry``, for ``reason``; ``code``, for a refused
    join, is ``PLAYING`` or ``FULL`` when the joiner may watch instead, ``NO_TABLE_YET`` when the table
    was not created yet."""

    reason: str
    entry: str = ""
    code: str = ""


@dataclass(frozen=True, kw_only=True)
class TookOver(Notice):
    """A bot (``node``'s) stands in for seat ``seat``; ``reason`` says why when the seat withheld its
    keys ("" when its process went silent)."""

    seat: int
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class Returning(Notice):
    """Seat ``seat``'s player is back (``node``), and takes the seat at the next pause."""

    seat: int


@dataclass(frozen=True, kw_only=True)
class Returned(Notice):
    """Seat ``seat``'s player (``node``) took the seat back from ``previous``, who played it until now."""

    seat: int
    previous: str


@dataclass(frozen=True, kw_only=True)
class Voided(Notice):
    """Seat ``seat`` changed hands at a fair table, for ``reason``; ``code`` is ``REPLAYED`` when the
    round in play is dealt again (not when the table awaited its next deal anyway)."""

    seat: int
    reason: str
    code: str = ""


@dataclass(frozen=True, kw_only=True)
class Applied(Notice):
    """Event ``event``, the ``seq``-th of the game, was applied and did ``effects``."""

    event: Event
    effects: Sequence[Effect] = field(default_factory=tuple)
    seq: int = -1


@dataclass(frozen=True, kw_only=True)
class DeckPartTaken(Notice):
    """Seat ``seat``'s part of the fair deck (``step``) was taken."""

    seat: int
    step: str


@dataclass(frozen=True, kw_only=True)
class Finished(Notice):
    """``node`` says the game is over for it."""


@dataclass(frozen=True, kw_only=True)
class Said(Notice):
    """Seat ``seat`` said ``text`` to the table."""

    seat: int
    text: str


@dataclass(frozen=True, kw_only=True)
class NoteArrived(Notice):
    """A private note reached (or left) seat ``seat``, played here: its view may have changed."""

    seat: int


@dataclass(frozen=True, kw_only=True)
class Cheat(Notice):
    """The fair deck caught seat ``seat`` (-1: none known) doing ``reason``."""

    seat: int
    reason: str
