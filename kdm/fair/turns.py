"""A shuffle as the log holds it (``Shuffle``), and its turns in seat order.

A fresh shuffle takes two turns of every seat, ``lock`` then ``key``; a reshuffle of cards already dealt
takes a ``strip`` of every seat first (each swaps its key on them for a blind). A turn names the deck it
was taken on by its hash (``deck_hash``). Decks, keys and commitments travel as points of ``POINT``
bytes concatenated (``split_points``), numbers as 4 bytes each (``join_ints``, ``split_ints``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kdm.fair.group import POINT_BYTES
from kdm.fair.shuffle import Secrets

__all__ = [
    "FRESH_STEPS",
    "POINT",
    "RESHUFFLE_STEPS",
    "Shuffle",
    "deck_hash",
    "join_ints",
    "split_ints",
    "split_points",
]

POINT = POINT_BYTES
FRESH_STEPS = ("lock", "key")
RESHUFFLE_STEPS = ("strip", "lock", "key")


def deck_hash(deck: Sequence[bytes]) -> bytes:
    """What a turn names the deck it was taken on by."""
    return hashlib.sha256(b"kdm deck\x00" + b"".join(deck)).digest()


def split_points(data: bytes, count: int, what: str) -> list[bytes]:
    if len(data) != count * POINT:
        raise ValueError(f"{what} must be {count} points of {POINT} bytes")
    return [data[i : i + POINT] for i in range(0, len(data), POINT)]


def join_ints(values: Iterable[int]) -> bytes:
    return b"".join(value.to_bytes(4, "big") for value in values)


def split_ints(data: bytes) -> list[int]:
    if len(data) % 4:
        raise ValueError("numbers come in 4 bytes each")
    return [int.from_bytes(data[i : i + 4], "big") for i in range(0, len(data), 4)]


@dataclass
class Shuffle:
    """One shuffle, as the log holds it."""

    index: int
    #: Position j of the final deck → the token the engine made j-th.
    tokens: list[int]
    #: The deck before the first turn: a fresh shuffle's open deck, or the cards a reshuffle takes.
    start: list[bytes]
    #: A fresh shuffle's faces, in the open deck's order; a reshuffle's come from its sources.
    faces: tuple[str, ...] = ()
    #: A reshuffle: the tokens whose cards it shuffles, in the order of ``start``.
    sources: tuple[int, ...] = ()
    decks: dict[str, list[list[bytes]]] = field(default_factory=lambda: {s: [] for s in RESHUFFLE_STEPS})
    committed: list[list[bytes]] = field(default_factory=list)
    #: seat → its secrets and blind as it published them for the audit.
    opened: dict[int, tuple[Secrets, bytes]] = field(default_factory=dict)
    audited: bool = False
    #: A turn that could not be taken (a deck that is not one): the shuffle stops here.
    broken: str = ""
    #: Turns the log holds ahead of their time (taken on a deck handed straight from the seat before,
    #: and committed first): (step, seat) → deck, commitments, the hash of the deck it was taken on.
    waiting: dict[tuple[str, int], tuple[bytes, bytes, bytes]] = field(default_factory=dict)

    @property
    def steps(self) -> tuple[str, ...]:
        return RESHUFFLE_STEPS if self.sources else FRESH_STEPS

    def turn(self, players: int) -> tuple[str, int] | None:
        """The step and seat whose turn it is, or None once the shuffle is complete."""
        for step in self.steps:
            if len(self.decks[step]) < players:
                return step, len(self.decks[step])
        return None

    def order(self, step: str, seat: int, players: int) -> int:
        """Where a turn comes in the shuffle, from 0."""
        return self.steps.index(step) * players + seat

    def turn_after(self, step: str, seat: int, players: int) -> tuple[str, int] | None:
        """The turn that follows ``(step, seat)``, or None after the last."""
        if seat + 1 < players:
            return step, seat + 1
        following = self.steps.index(step) + 1
        return (self.steps[following], 0) if following < len(self.steps) else None

    def current(self) -> list[bytes]:
        """The deck as the last turn left it."""
        for step in reversed(self.steps):
            if self.decks[step]:
                return self.decks[step][-1]
        return self.start
