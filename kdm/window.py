"""A reaction window: presses that race each other, ordered by when each player reacted, and the
event that closes the window when its time is up. One module for every game that has one (the base
game's slap window, Kem's call window, a third party's snap).

- ``Close``: the leader proposes it when the table's timer for an open window fires (a ``Duty`` the
  game awaits, with the window's opening event as its ``ref``, so that presses meanwhile do not
  restart the time).
- ``tiebreaks(seed, players)``: each seat's tiebreak for a deal, drawn from the deal's seed: two
  presses at the same effective time are ordered by it, the same way on every peer, and nobody knows
  it before the deal.
- ``race(presses, seat, time, tiebreaks)``: the presses earliest first, by effective time
  (``kdm.engine.effective_time``: the trigger's effective time plus the reaction time a process
  measured from the trigger's paint, no faster than the table's floor), then by tiebreak.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from kdm.events import Event

Press = TypeVar("Press")
#: Bytes of each seat's tiebreak.
TIEBREAK_BYTES = 8


@dataclass(frozen=True)
class Close(Event):
    """The open window's time is up (proposed by the leader when the window's timer fires)."""

    kind: ClassVar[str] = "close"


def tiebreaks(seed: bytes, players: int) -> list[bytes]:
    """Each seat's tiebreak for the deal whose seed is ``seed``."""
    return [
        hashlib.blake2b(seed + bytes([seat]), digest_size=TIEBREAK_BYTES).digest() for seat in range(players)
    ]


def race(
    presses: Iterable[Press],
    seat: Callable[[Press], int],
    time: Callable[[Press], float],
    tiebreak: Sequence[bytes],
) -> list[Press]:
    """``presses`` earliest first: by effective time (``time``), then by their seat's ``tiebreak``."""
    return sorted(presses, key=lambda press: (time(press), tiebreak[seat(press)]))
