"""Presses bounded by what the other voters saw (DESIGN 5.6), pure: the record's half.

A process's word on its own press (its agreed time ``t_sync``, its reaction ``rt`` to a trigger) is only
as good as that process: a friend's modified client can wait until everyone else has slapped and then
claim it reacted first. So at a table created with ``vouch`` on, every other voter (``TableRecord``'s
``silence_voters`` of the press's seat: one per laptop, never the press's own) stamps each press on the
table's agreed clock, and commits its stamps as one ``kdm.entries.Vouch``:

- ``seen``: when the press first reached it, straight from its author (``PRESSED``, with the signed entry,
  which the voter proposes too, at once: the word binds its author), or from the log if that came first;
- ``shown``: when it applied the event the press names as its trigger.

The record applies a press only once ``stamps_needed`` vouchers have stamped it; every entry committed
after it waits behind it, in log order (a ``Vouch`` excepted), so that nothing is judged out of turn.
Then ``bound`` says what they vouch for (a ``kdm.events.Vouched``): the press was made no earlier than it
reached the first of them less ``SLACK_MS``; as a reaction, no quicker than from the latest of their
applications of its trigger to then, less ``SLACK_MS``; and after every press each of them had applied
when it reached them (or within ``GRACE_MS`` after). ``kdm.engine.effective_time`` takes the claim
within those bounds. The slack is what an honest press may lose to a trip on a home Wi-Fi and to the
agreed clocks' errors; it is all that a claim can gain. The last bound is what a cheater who waits to
see the others' presses loses: its own reaches the others after theirs were applied, and is ordered after
them (``docs/network.md``).

Taking the earliest stamp keeps one voter's late stamp (a slow link, or a lie against another seat) from
moving an honest press; ``stamps_needed`` (one more than the voters that may lie, ``(n - 1) // 3``) keeps
a lying voter's early stamp from standing alone for a cheater's press. Every honest voter stamps what its
record holds, so a table whose log moves at all (a quorum of voters) always gets the stamps it waits for.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import msgpack

from kdm.entries import NOT_SHOWN, Entry, Vouch
from kdm.events import Vouched

__all__ = [
    "DIGEST_BYTES",
    "GRACE_MS",
    "PRESSED",
    "SLACK_MS",
    "Held",
    "Stamp",
    "bound",
    "press_digest",
    "stamps_needed",
]

#: What an honest press may lose, and a cheater's claim gain at most: a trip on a home Wi-Fi at its
#: 95th percentile and more, the error of two agreed clocks, and a frame of paint (``docs/network.md``).
SLACK_MS = 15.0
#: How soon after a press reached a voter an event it applied still counts as applied before: the
#: press's author may have read it from the same commit a moment sooner (a voter reads its messages a
#: little late). Larger, it would order after each other honest presses made a moment apart.
GRACE_MS = 5.0
#: Bytes of a press's digest (``press_digest``).
DIGEST_BYTES = 16
#: The direct message a press's author sends every voucher as it proposes it: ``{"t": PRESSED, "id":
#: [node, counter], "d": digest, "e": the signed entry}`` (``kdm.host.stamps``).
PRESSED = "pressed"


def press_digest(event: dict[str, Any]) -> bytes:
    """The digest of a press's encoded event (an ``Act``'s ``event``): what a voucher stamps, so that a
    process cannot have an early stamp for one press and commit another under its id."""
    packed: bytes = msgpack.packb(event, use_bin_type=True)
    return hashlib.blake2b(packed, digest_size=DIGEST_BYTES).digest()


def stamps_needed(voters: int, vouchers: int) -> int:
    """How many of a press's ``vouchers`` must stamp it, at a table of ``voters``: one more than the
    voters that may lie (``(voters - 1) // 3``), or all of them when there are fewer."""
    return min(vouchers, (voters - 1) // 3 + 1)


@dataclass(frozen=True)
class Stamp:
    """One voucher's stamps on one press, in ms on the agreed clock (``Vouch``'s)."""

    digest: bytes
    seen: float
    shown: float | None
    #: The events the voucher had applied when the press reached it (the next sequence number then).
    applied: int = 0

    @classmethod
    def of(cls, entry: Vouch) -> Stamp:
        shown = None if entry.shown_us == NOT_SHOWN else entry.shown_us / 1000
        return cls(entry.digest, entry.seen_us / 1000, shown, entry.applied)


def bound(stamps: list[Stamp], slack_ms: float = SLACK_MS) -> Vouched:
    """What ``stamps`` (at least one) vouch for of their press (see the module's docstring)."""
    seen = min(stamp.seen for stamp in stamps)
    shown = [stamp.shown for stamp in stamps if stamp.shown is not None]
    least_rt = seen - max(shown) - slack_ms if shown else None
    after = min(stamp.applied for stamp in stamps)
    return Vouched(not_before=seen - slack_ms, least_rt=least_rt, after=after)


@dataclass
class Held:
    """The record's presses waiting for their stamps, and what waits behind them.

    ``queue`` holds ``(position, entry)`` in log order, a press at its head; ``presses`` the held
    presses' ids with their seat and digest; ``stamps`` each held press's stamps by voucher."""

    queue: deque[tuple[int, Entry]] = field(default_factory=deque)
    presses: dict[tuple[str, int], tuple[int, bytes]] = field(default_factory=dict)
    stamps: dict[tuple[str, int], dict[str, Stamp]] = field(default_factory=dict)

    def ids(self) -> set[tuple[str, int]]:
        return {(entry.id.node, entry.id.counter) for _position, entry in self.queue}

    def hold(self, position: int, entry: Entry, press: tuple[int, bytes] | None) -> None:
        """Queue ``entry``; ``press`` (its seat and digest) when it is a press to stamp."""
        self.queue.append((position, entry))
        if press is not None:
            key = (entry.id.node, entry.id.counter)
            self.presses[key] = press
            self.stamps[key] = {}

    def stamp(self, voter: str, entry: Vouch) -> bool:
        """Take ``voter``'s stamps (its first on a held press only); whether they were taken."""
        key = (entry.press, entry.counter)
        stamps = self.stamps.get(key)
        if stamps is None or voter in stamps:
            return False
        stamps[voter] = Stamp.of(entry)
        return True

    def release(self, key: tuple[str, int]) -> None:
        del self.presses[key], self.stamps[key]
